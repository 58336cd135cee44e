#!/bin/bash
# run-tests.sh - the harness's self-tests: no kernel build, no VM, no
# kernel tree, QEMU, gnuplot or apt (a test that truly needs one of them
# is a SKIP naming it); they write nothing inside the checkout.
#
# One file per stage under test, test-STAGE.sh, each a set of test_*
# functions; helpers.sh holds what they share; fixtures/ the recorded
# console logs and configs. Every test runs in a subshell of its own
# with errexit, nounset and pipefail in force (never inside an if, && or
# ||), so any command that fails in it fails the test unless the test
# handles that failure on purpose; and in a fresh folder $TMP.
set -euo pipefail

TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/tests/helpers.sh
. "$TESTS/helpers.sh"

USAGE="Usage: harness/tests/run-tests.sh [--jobs N] [NAME]...
Run the self-tests: all, or those of the stages NAME (a test-NAME.sh)
and those whose names contain NAME. Stages: $(cd "$TESTS" && ls test-*.sh | sed 's/^test-//; s/\.sh$//' | paste -sd' ')
  --jobs N  tests run at once (default: the number of CPUs)
Prints KTAP and ends with \"N passed, N failed, N skipped\"; exits 1 if a
test failed. A skipped test names its reason after \"# SKIP\"."

# The files to read the tests from; the runner's own self-test points
# this at fixtures/runner/, whose tests fail on purpose.
FILES_DIR=${PIDMAX_TEST_FILES:-$TESTS}

# run_test NAME DIR: run test_NAME in the folder DIR; its output goes to
# DIR.out, its exit status to DIR.rc (0 pass, 77 skip, else fail).
run_test() {
	local rc t0=$EPOCHREALTIME
	set +e
	(
		set -euo pipefail
		shopt -s inherit_errexit
		TMP=$2
		cd "$TMP"
		"test_$1"
	) >"$2.out" 2>&1 </dev/null
	rc=$?
	set -e
	echo "$rc" >"$2.rc"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$2.time"
}

# ktap_line I NAME DIR: the KTAP result of a finished test; its output
# as comments when it failed.
ktap_line() {
	local rc reason
	rc=$(cat "$3.rc")
	case $rc in
	0) echo "ok $1 $2" ;;
	77)
		reason=$(grep -m 1 '^SKIP: ' "$3.out" | cut -c7-)
		echo "ok $1 $2 # SKIP ${reason:-no reason given}"
		;;
	*)
		sed 's/^/# /' "$3.out"
		echo "# exit status $rc"
		echo "not ok $1 $2"
		;;
	esac
}

main() {
	local jobs i
	local -a picked=()
	jobs=$(nproc 2>/dev/null || echo 2)
	parse_options "$USAGE" "jobs:" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--jobs) jobs=$2 ;;
		esac
		shift 2
	done
	shift
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs wants a positive number, not '$jobs'"
	pick_tests "$@"

	# Outside the checkout: the tests' folders live under one temporary
	# folder, removed at the end.
	local root
	root=$(mktemp -d "${TMPDIR:-/tmp}/pidmax-tests.XXXXXX")
	# shellcheck disable=SC2064 # the folder is known now
	trap "rm -rf '$root'" EXIT
	export PIDMAX_DEPS=true BUSYBOX="$TESTS/fake-busybox.sh"

	# Run them, up to $jobs at once; report in order.
	for i in "${!picked[@]}"; do
		mkdir "$root/$i"
		while (($(jobs -rp | wc -l) >= jobs)); do
			wait -n || true
		done
		run_test "${picked[i]}" "$root/$i" &

	done
	wait
	report_tests "$root"
}

# pick_tests [NAME...]: picked, every test of the test files (all, or
# those of the stages NAME and whose names contain NAME), in order.
pick_tests() {
	local f t name i
	# Every test, and the stage (file) it comes from.
	local -a tests=() stages=()
	local before after
	for f in "$FILES_DIR"/test-*.sh; do
		before=$(declare -F | awk '$3 ~ /^test_/ { print $3 }' | sort)
		# shellcheck source=/dev/null
		. "$f"
		after=$(declare -F | awk '$3 ~ /^test_/ { print $3 }' | sort)
		for t in $(comm -13 <(echo "$before") <(echo "$after")); do
			tests+=("${t#test_}") stages+=("$(basename "$f" .sh)")
		done
	done
	picked=()
	for i in "${!tests[@]}"; do
		(($# == 0)) && picked+=("${tests[i]}") && continue
		for name; do
			if [[ ${stages[i]} == "test-$name" || ${tests[i]} == *"$name"* ]]; then
				picked+=("${tests[i]}")
				break
			fi
		done
	done
	if (($# > 0 && ${#picked[@]} == 0)); then
		usage_error "no stage or test matches: $*"
	fi
}

# report_tests ROOT: the KTAP of the picked tests run in ROOT/N, their
# totals, the slowest, and the summary line; fails when one failed.
report_tests() {
	local root=$1 i
	echo "KTAP version 1"
	echo "1..${#picked[@]}"
	local passed=0 failed=0 skipped=0 rc
	for i in "${!picked[@]}"; do
		ktap_line $((i + 1)) "${picked[i]}" "$root/$i"
		rc=$(cat "$root/$i.rc")
		case $rc in
		0) passed=$((passed + 1)) ;;
		77) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	done
	echo "# totals: pass:$passed fail:$failed skip:$skipped"
	echo "# slowest: $(for i in "${!picked[@]}"; do
		echo "$(cat "$root/$i.time") ${picked[i]}"
	done | sort -rn | sed -n 1,"${SLOWEST:-5}"p | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"
	summary_line "$passed" "$failed" "$skipped"
	((failed == 0))
}

main "$@"
