# shellcheck shell=bash
# test-report.sh - the reporter: results.ktap, .csv, .xml, checks.csv and variants.csv from jobs and recorded logs.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# Planned by default on 6.12 under TCG, the hotplug tier is one job with
# the reason, reported as a KTAP SKIP and a JUnit <skipped/>.
test_tree_6_12_hotplug_tier_skipped() {
	local out="$TMP/612skip" rc=0 sum
	mkdir -p "$out/boots"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.12-full" --initrd /i \
		--label 6.12-full --accel tcg --online 64 --scenarios no >"$out/jobs"
	expect_eq "jobs" "$(cut -f1,2 "$out/jobs" | tr '\t\n' ' ,')" \
		"name=6.12-full-hotplug tier=hotplug,name=6.12-full-online-064 tier=online," || rc=1
	cp "$FIX/online-064-6.12.log" "$out/boots/6.12-full-online-064.log"
	cp "$FIX/online-064-6.12.log.meta" "$out/boots/6.12-full-online-064.log.meta"
	sum=$("$HARNESS/report.sh" "$out" 2>/dev/null) || rc=1
	expect_eq "summary" "$sum" "1 passed, 0 failed, 1 skipped" || rc=1
	grep -q "^ok 1 6.12-full-hotplug # SKIP Linux 6.12.118 under TCG ignores" "$out/results.ktap" || {
		echo "no SKIP line: $(head -n 4 "$out/results.ktap")"
		rc=1
	}
	grep -q '<skipped message="Linux 6.12.118 under TCG' "$out/results.xml" || {
		echo "no <skipped/> in results.xml"
		rc=1
	}
	grep -q '<testsuites tests="2" failures="0" skipped="1">' "$out/results.xml" || rc=1
	expect_eq "csv" "$(sed -n 2p "$out/results.csv")" \
		"none,none,none,none,none,none,none,skip,6.12-full-hotplug,hotplug,full,none" || rc=1
	return $rc
}

test_report_counts_missing_boots() {
	local out="$TMP/report" rc=0 sum
	report_folder "$out"
	sum=$("$HARNESS/report.sh" "$out") && rc=1
	expect_eq "counts" "$sum" "1 passed, 3 failed, 0 skipped" || rc=1
	expect_eq "csv header" "$(head -n 1 "$out/results.csv")" \
		"cpus,online,pid_max,expected,pid_max_min,expected_min,seconds,verdict,boot,tier,variant,line_min" || rc=1
	expect_eq "csv row 1" "$(sed -n 2p "$out/results.csv")" \
		"255,1,261120,261120,2040,2040,2.10,pass,a-hotplug-255,hotplug,full,2040" || rc=1
	expect_eq "csv row 2" "$(sed -n 3p "$out/results.csv")" \
		"33,none,none,33792,none,301,none,fail,a-online-033,online,full,none" || rc=1
	expect_eq "csv row 3" "$(sed -n 4p "$out/results.csv")" \
		"255,1,261120,32768,2040,2040,0,fail,b-hotplug-255,hotplug,small,2040" || rc=1
	grep -q '^not ok 2 a-online-033 # not run' "$out/results.ktap" || {
		echo "KTAP lacks the missing boot"
		rc=1
	}
	grep -q '^        ok 3 pid_max_min_probe$' "$out/results.ktap" || {
		echo "KTAP lacks the nested guest results"
		rc=1
	}
	grep -q '^    not ok 9 pid_max # pid_max 261120, expected 32768$' "$out/results.ktap" || {
		echo "KTAP lacks the failed check as a subtest"
		rc=1
	}
	expect_eq "checks.csv" "$(grep -c '^b-hotplug-255,.*,fail,' "$out/checks.csv")" 3 || rc=1
	expect_eq "junit cases" "$(grep -c '<testcase ' "$out/results.xml")" 4 || rc=1
	grep -q '<testsuite name="pid_max sweep" tests="4" failures="3" skipped="0">' "$out/results.xml" || {
		echo "junit suite line: $(grep '<testsuite ' "$out/results.xml")"
		rc=1
	}
	grep -q '<failure type="fail" message="not run: the sweep was interrupted">' "$out/results.xml" || {
		echo "junit lacks the failure"
		rc=1
	}
	expect_eq "variants.csv" "$(cat "$out/variants.csv")" \
		"cpus,online,full_pid_max,full_expected,full_verdict,small_pid_max,small_expected,small_verdict,boot,tier
255,1,261120,261120,pass,261120,32768,fail,hotplug-255,hotplug
33,33,none,33792,fail,none,32768,fail,online-033,online" || rc=1
	[[ -z $(find "$out" -name '*.tmp') ]] || rc=1
	return $rc
}

# report.sh on a finished folder writes the same files again, byte for
# byte: verdicts are made from the logs and the jobs, at report time.
test_report_reproduces_itself() {
	local out="$TMP/again" f rc=0
	report_folder "$out"
	"$HARNESS/report.sh" "$out" >/dev/null || true
	mkdir -p "$TMP/first"
	for f in results.ktap results.csv results.xml checks.csv variants.csv; do
		cp "$out/$f" "$TMP/first/$f"
	done
	"$HARNESS/report.sh" "$out" >/dev/null || true
	for f in results.ktap results.csv results.xml checks.csv variants.csv; do
		cmp -s "$out/$f" "$TMP/first/$f" || {
			echo "$f differs"
			rc=1
		}
	done
	# And what the second run wrote is what the boots say: the recorded
	# 255-CPU boot passes every check of the full kernel (no KUnit suite:
	# a skip); against the small kernel (BASE_SMALL: pid_max and its
	# limit 32768, clamped) the three checks of those values fail.
	local c want="boot,tier,variant,check,result,reason" k
	for k in a b; do
		for c in timeout panic final_marker guest_checks kunit log_scan possible_cpus \
			online_cpus pid_max pid_max_min pid_max_max boot_line sysctl_setting; do
			want+=$'\n'"$k-hotplug-255,hotplug,$([[ $k == a ]] && echo full || echo small),$c,"
			case $k-$c in
			*-kunit) want+="skip,the kernel is built without CONFIG_PID_MAX_KUNIT_TEST" ;;
			b-pid_max) want+='fail,"pid_max 261120, expected 32768"' ;;
			b-pid_max_max) want+='fail,"pid_max_max 4194304, expected 32768"' ;;
			b-boot_line) want+='fail,"boot line default/minimum 261120/2040, expected 32768/2040"' ;;
			*) want+="ok," ;;
			esac
		done
	done
	expect_eq "checks.csv" "$(cat "$out/checks.csv")" "$want" || rc=1
	return $rc
}

# A folder in use (its lock held, as a sweep, report or merge holds it)
# is refused by a second report, which names the holder; once the lock
# is free the report runs.
test_report_refuses_a_folder_in_use() {
	local d="$TMP/r" fd
	report_folder "$d"
	exec {fd}<>"$d/.pidmax-lock"
	flock -n "$fd"
	echo "$$" >"$d/.pidmax-lock"
	must_fail "$d is in use by process $$" "$HARNESS/report.sh" "$d" || return 1
	[[ ! -e $d/results.ktap ]] || {
		echo "a refused report wrote results.ktap"
		return 1
	}
	exec {fd}>&-
	"$HARNESS/report.sh" "$d" >/dev/null 2>&1 || true
	[[ -s $d/results.ktap ]]
}

# The clean verb (run-baseline.sh's DIR/baseline) removes a sweep's
# files only from a results folder: someone's notes are refused, kept.
test_clean_refuses_someones_folder() {
	local d="$TMP/notes"
	mkdir -p "$d/baseline"
	echo mine >"$d/baseline/mine.txt"
	echo mine >"$d/plan"
	must_fail "holds files and is not a results folder" "$HARNESS/pidmax.sh" clean "$d" || return 1
	expect_eq "kept" "$(cat "$d/plan" "$d/baseline/mine.txt")" "mine
mine"
}
