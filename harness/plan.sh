#!/bin/bash
# plan.sh - the planner: turn the sweep's options into its job list, one
# boot a line in lib.sh's KEY=VALUE format, on stdout. Boots nothing.
#
# A tier is a job generator of harness/pidmax/plan.py; each job carries
# its own expected values, from the formula and the kernel's .config
# (harness/pidmax/jobs.py). plan.sh --help says what each tier boots.
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" plan "$@"
