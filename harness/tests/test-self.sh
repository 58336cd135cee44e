# shellcheck shell=bash
# test-self.sh - run-tests.sh itself, on the tests of
# fixtures/runner/test-cases.sh, each named for the verdict it must get:
# errexit in force in every test, skips counted apart, tests picked by
# stage or by name.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# runner ARG...: run-tests.sh on the fixture tests; its exit status in
# RUNNER_STATUS.
runner() {
	RUNNER_STATUS=0
	PIDMAX_TEST_FILES="$FIX/runner" "$TESTS/run-tests.sh" "$@" 2>&1 || RUNNER_STATUS=$?
}

test_runner_honours_errexit() {
	local out rc=0
	out=$(runner --jobs 2; echo "status $RUNNER_STATUS")
	expect_eq "verdicts" "$(grep -E '^(not )?ok ' <<<"$out")" "not ok 1 fail_in_pipeline
not ok 2 fail_in_substitution
not ok 3 fail_middle_command
not ok 4 fail_silent_after_failure
not ok 5 fail_unset_variable
ok 6 pass
ok 7 pass_handled_failure
ok 8 skip_reason # SKIP no such thing here" || rc=1
	expect_eq "closing line" "$(grep -A1 '^# slowest' <<<"$out" | tail -n 1)" \
		"2 passed, 5 failed, 1 skipped" || rc=1
	expect_eq "exit" "$(tail -n 1 <<<"$out")" "status 1" || rc=1
	[[ $out == *"# exit status 1"$'\n'"not ok 3 fail_middle_command"* ]] || {
		echo "the failed test's status is not shown: $out"
		rc=1
	}
	return $rc
}

test_runner_picks_by_stage_and_name() {
	local rc=0
	expect_eq "by name" "$(runner pass | grep -E '^(not )?ok ')" \
		"ok 1 pass
ok 2 pass_handled_failure" || rc=1
	expect_eq "by stage" "$(runner cases | grep -c -E '^(not )?ok ')" 8 || rc=1
	runner nosuchtest >/dev/null
	expect_eq "unknown name" "$RUNNER_STATUS" 2 || rc=1
	return $rc
}
