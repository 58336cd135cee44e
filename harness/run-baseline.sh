#!/bin/bash
# run-baseline.sh - the baseline of a finished sweep (sweep-smp.sh
# --baseline): its jobs again on the stock kernels in DIR/baseline,
# booted, reported and pictured like any results folder, then
# DIR/compare.csv (harness/pidmax/baseline_run.py). The stock verdicts
# are shown; the exit status is 0 unless a stage itself failed, since
# the sweep's is the patched kernels'; 130, 143 or 129 when INT, TERM or
# HUP stops it.
#
# Usage: harness/run-baseline.sh [--jobs N] DIR LABEL=KERNEL...
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" run-baseline "$@"
