#!/bin/bash
# shard.sh - a transform of the job list: the jobs of shard I of N, each
# job in exactly one shard, the heavy boots dealt out first so that the
# shards take similar time (harness/pidmax/shard.py).
#
# Usage: harness/shard.sh I/N [JOBS]
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" shard "$@"
