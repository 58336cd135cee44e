#!/bin/bash
# sweep-smp.sh - the harness's entry point: build what is missing, plan
# the boots, run them, report (harness/pidmax/sweep.py, whose docstring
# names every stage; --help says every option).
#
# The front is Python (the standard library of 3.11): on a machine
# without python3, deps.sh's build group (which has it) comes first.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ -x /usr/bin/python3 ]] || command -v python3 >/dev/null ||
	"${PIDMAX_DEPS:-$here/deps.sh}" build
PIDMAX_PROG=${0##*/} exec "$here/pidmax.sh" sweep "$@"
