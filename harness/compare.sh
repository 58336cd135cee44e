#!/bin/bash
# compare.sh - a reader of a results folder and its baseline: the stock
# kernels' values beside the patched ones, boot for boot, into
# DIR/compare.csv (boot,variant,cpus,stock_pid_max,stock_pid_max_min,
# patched_pid_max,patched_pid_max_min,same); prints the boots that
# differ. harness/pidmax/compare.py does the work and describes the
# columns.
#
# Usage: harness/compare.sh DIR
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" compare "$@"
