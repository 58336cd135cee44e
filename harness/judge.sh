#!/bin/bash
# judge.sh - judge one boot: its record (parse-console.sh) against its
# job (plan.sh), every host-side check on its own. harness/pidmax/judge.py
# holds the checks.
#
# Usage: harness/judge.sh JOB RECORD
# Prints the verdict line first, then a line per check, all in lib.sh's
# KEY=VALUE format:
#   verdict=pass|fail|timeout|panic   reason=...   (reasons of the failed
#                                                   checks, "; "-joined)
#   check=NAME   result=ok|fail|skip   reason=...
#
# Sourced, it only defines judge_boot JOB RECORD, which puts those lines
# into the array JUDGE_LINES.
set -euo pipefail

judge_boot() {
	local out
	out=$(PIDMAX_PROG=judge.sh "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" judge "$1" "$2") || return 1
	# shellcheck disable=SC2034 # read by the caller
	mapfile -t JUDGE_LINES <<<"$out"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" judge "$@"
fi
