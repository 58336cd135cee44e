#!/bin/bash
# run-jobs.sh - the runner: boot every job of a results folder's job
# list into DIR/boots/NAME.log and NAME.log.meta (boot-guest.sh boots
# one), and parse and judge each boot once as it ends; its record,
# nested KTAP and verdict stay beside the log, where report.sh reads
# them. harness/pidmax/runner.py does the work: a guest with 16 or more
# CPUs online boots alone, the others --jobs at a time.
#
# Usage: harness/run-jobs.sh [--jobs N] DIR
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" run "$@"
