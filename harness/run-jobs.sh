#!/bin/bash
# run-jobs.sh - the runner: boot every job of a results folder's job
# list into DIR/boots/NAME.log and QEMU's output into NAME.log.qemu
# (guest.py boots one), and parse and judge each boot once as it ends;
# how it ended, its record, nested KTAP and verdict stay beside the log
# in one judged record, NAME.log.json (boot.py), where report.sh reads
# them. harness/pidmax/runner.py does the work: a guest with 16 or more
# CPUs online boots alone, the others --jobs at a time.
#
# Usage: harness/run-jobs.sh [--jobs N] DIR
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" run "$@"
