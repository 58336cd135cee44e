#!/bin/bash
# merge-results.sh - join the results folders of the shards of one sweep
# (sweep-smp.sh --shard I/N, on as many CI runners) into one folder, and
# report it as one run: results.ktap, results.csv, results.xml,
# checks.csv, variants.csv, the pictures and the PID budget, the
# baseline and compare.csv when the shards have them, and the
# "N passed, N failed, N skipped" line. A merge of all shards equals one
# unsharded run, boot for boot. harness/pidmax/merge.py does the work.
#
# Usage: harness/merge-results.sh OUT DIR...
# Refuses, and writes nothing but the error, when OUT is one of the
# shards, lies inside one or holds one, or exists and is neither empty
# nor a results folder (exit 2, as for a wrong number of operands); when
# a DIR is not a results folder, when the shards come from different
# plans (options, kernels, series: DIR/plan and DIR/kernels differ), or
# when a boot of the plan is in no shard, or in two (exit 1). Holds OUT's
# lock while it writes. Exits 1 on any failed boot, like the sweep.
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" merge "$@"
