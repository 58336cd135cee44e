# shellcheck shell=bash
# test-formula.sh - the job line format through the shell's door (job_field); the formula, the CPU list parser, the .config reader and the recorded consoles judged are the package's (pidmax/tests).
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
