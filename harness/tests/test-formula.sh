# shellcheck shell=bash
# test-formula.sh - the job line format through the shell's door (job_field), and a 6.12 console judged; the formula, the CPU list parser and the .config reader are the package's (pidmax/tests).
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# The job format: values with spaces and '=' survive, a TAB is refused.
test_job_fields() {
	local j rc=0
	j=$(job_for 40 2 0 1 0 "append=nr_cpus=40 maxcpus=2 x=y")
	expect_eq "fields" "$(job_field "$j" append)|$(job_field "$j" pid_max)|$(job_field "$j" line_min)|$(job_field "$j" timeout)" \
		"nr_cpus=40 maxcpus=2 x=y|40960|320|61" || rc=1
	if job_for 40 2 0 1 0 "append=a"$'\t'"b" >/dev/null 2>&1; then
		echo "a TAB in a value was accepted"
		rc=1
	fi
	if job_for 40 2 0 1 0 "nosuchfield=1" >/dev/null 2>&1; then
		echo "an unknown field was accepted"
		rc=1
	fi
	return $rc
}

test_tree_6_12() {
	local rc=0
	# A real 6.12 console, with its KUnit suite.
	expect_eq "6.12 online 64" "$(judge "$FIX/online-064-6.12.log" 64 64 0 1 1)" pass || rc=1
	return $rc
}
