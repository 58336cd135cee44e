#!/bin/bash
# baseline.sh - a transform of the job list: the same boots on the
# stock kernels (the same configurations built without the series,
# build-kernel.sh --stock), held to the formula's stock model
# (harness/pidmax/baseline.py says how each job changes).
#
# Usage: harness/baseline.sh JOBS LABEL=KERNEL...
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" baseline "$@"
