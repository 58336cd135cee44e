# shellcheck shell=bash
# test-judge.sh - the console parser's and the judge's doors, parse-console.sh
# and judge.sh: they run, take their operands and options, and answer in
# lib.sh's KEY=VALUE lines. What they say of each recorded log (fixtures/)
# and of edited copies is harness/pidmax/tests/test_recorded.py's table.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# parse-console.sh LOG prints the record, one line, that job_field reads
# (none for a field it lacks); with --write it also keeps the record and
# the nested KTAP beside the log.
test_parse_console_sh() {
	local r rc=0 log="$TMP/hotplug-255.log"
	r=$("$HARNESS/parse-console.sh" "$FIX/hotplug-255.log")
	expect_eq "lines" "$(wc -l <<<"$r")" 1 || rc=1
	[[ $'\t'$r$'\t' == *$'\tbegin=1\t'*$'\tpid_max=261120\t'* ]] || {
		echo "not the record of hotplug-255.log: $r"
		rc=1
	}
	expect_eq "job_field" "$(job_field "$r" pid_max_min)" 2040 || rc=1
	expect_eq "job_field absent" "$(job_field "$r" nosuchkey)" none || rc=1
	cp "$FIX/hotplug-255.log" "$FIX/hotplug-255.log.meta" "$TMP/"
	expect_eq "--write" "$("$HARNESS/parse-console.sh" --write "$log")" "$r" || rc=1
	grep -q '"nested": \[' "$log.json" 2>/dev/null || {
		echo "--write kept no judged record with nested KTAP: $(ls "$TMP")"
		rc=1
	}
	return $rc
}

# judge.sh JOB RECORD prints the verdict line, then a line per check;
# sourced, judge_boot puts the same lines into JUDGE_LINES.
test_judge_sh() {
	local rc=0 r out
	r=$("$HARNESS/parse-console.sh" "$FIX/hotplug-255.log")
	out=$("$HARNESS/judge.sh" "$(job_for 255 1 0 1)" "$r")
	expect_eq "verdict" "$(sed -n 1p <<<"$out")" "verdict=pass	reason=" || rc=1
	expect_eq "checks" "$(tail -n +2 <<<"$out" | cut -f1,2 | tr '\t\n' ' ,')" \
		"check=timeout result=ok,check=panic result=ok,check=final_marker result=ok,check=guest_checks result=ok,check=kunit result=skip,check=log_scan result=ok,check=possible_cpus result=ok,check=online_cpus result=ok,check=pid_max result=ok,check=pid_max_min result=ok,check=pid_max_max result=ok,check=boot_line result=ok,check=sysctl_setting result=ok," || rc=1
	# shellcheck source=harness/judge.sh
	. "$HARNESS/judge.sh"
	judge_boot "$(job_for 254 1 0 1)" "$r"
	expect_eq "judge_boot" "${JUDGE_LINES[0]} ${#JUDGE_LINES[@]}" \
		"verdict=fail	reason=possible CPUs 255, expected 254; pid_max 261120, expected 260096; pid_max_min 2040, expected 2032; boot line default/minimum 261120/2040, expected 260096/2032 14" || rc=1
	return $rc
}
