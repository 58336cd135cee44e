#!/bin/bash
# report.sh - the reporter: judge every boot of a results folder from its
# job and its console log, and write results.ktap, results.csv,
# results.xml, checks.csv (and variants.csv) into it. Boots nothing, so
# it re-judges a finished (or copied) folder at any time; the files and
# their columns are described in harness/pidmax/report.py, which does
# the work.
#
# Usage: harness/report.sh DIR
# Names each failed boot and the checks it failed on standard error,
# then ends with "N passed, N failed, N skipped" on standard output, and
# exits 1 when a boot failed; 2, with its usage line, when it is not
# given exactly one DIR.
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" report "$@"
