# shellcheck shell=bash
# test-judge.sh - the console parser and the judge, on recorded console logs (fixtures/) and edited copies of them.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

test_parse_recorded_pass() {
	local r rc=0 want
	r=$("$HARNESS/parse-console.sh" "$FIX/hotplug-255.log")
	for want in begin=1 end=1 plan=6 oks=6 notoks=0 possible=255 online=1 \
		pid_max=261120 pid_max_min=2040 pid_max_max=4194304 line_default=261120 \
		line_min=2040 panic=0 oops=0 timed_out=0; do
		[[ $'\t'$r$'\t' == *$'\t'$want$'\t'* ]] || {
			echo "record lacks $want: $r"
			rc=1
		}
	done
	expect_eq "job_field" "$(job_field "$r" pid_max_min)" 2040 || rc=1
	expect_eq "job_field absent" "$(job_field "$r" nosuchkey)" none || rc=1
	return $rc
}

test_judge_recorded_passes() {
	local rc=0
	expect_eq "hotplug 255" "$(judge "$FIX/hotplug-255.log" 255 1 0 1)" pass || rc=1
	expect_eq "hotplug 33" "$(judge "$FIX/hotplug-033.log" 33 1 0 1)" pass || rc=1
	expect_eq "online 8" "$(judge "$FIX/online-008.log" 8 8 0 1)" pass || rc=1
	expect_eq "checks" "$(judged "$FIX/hotplug-255.log" 255 1 0 1 | tail -n +2 | cut -f1,2 | tr '\t\n' ' ,')" \
		"check=timeout result=ok,check=panic result=ok,check=final_marker result=ok,check=guest_checks result=ok,check=kunit result=skip,check=log_scan result=ok,check=possible_cpus result=ok,check=online_cpus result=ok,check=pid_max result=ok,check=pid_max_min result=ok,check=pid_max_max result=ok,check=boot_line result=ok,check=sysctl_setting result=ok," || rc=1
	return $rc
}

test_judge_wrong_expectations_fail() {
	local rc=0
	expect_eq "wrong CPU count" "$(judge "$FIX/hotplug-255.log" 254 1 0 1)" \
		"fail: possible_cpus,pid_max,pid_max_min,boot_line" || rc=1
	expect_eq "reason" "$(reason_of possible_cpus "$FIX/hotplug-255.log" 254 1 0 1)" \
		"possible CPUs 255, expected 254" || rc=1
	expect_eq "wrong online count" "$(judge "$FIX/online-008.log" 8 1 0 1)" \
		"fail: online_cpus" || rc=1
	expect_eq "wrong variant" "$(judge "$FIX/hotplug-255.log" 255 1 1 1)" \
		"fail: pid_max,pid_max_max,boot_line" || rc=1
	expect_eq "reason" "$(reason_of pid_max "$FIX/hotplug-255.log" 255 1 1 1)" \
		"pid_max 261120, expected 32768" || rc=1
	return $rc
}

test_judge_wrong_values_fail() {
	local rc=0 log="$TMP/edited.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^# pid_max: 261120/# pid_max: 261119/'
	expect_eq "pid_max off by one" "$(judge "$log" 255 1 0 1)" "fail: pid_max" || rc=1
	expect_eq "reason" "$(reason_of pid_max "$log" 255 1 0 1)" \
		"pid_max 261119, expected 261120" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/^# pid_max_min: 2040/# pid_max_min: 301/'
	expect_eq "unscaled minimum" "$(judge "$log" 255 1 0 1)" "fail: pid_max_min" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/ minimum: 2040 (nr_cpu_ids.*/ minimum: 2040/'
	expect_eq "upstream's boot line" "$(judge "$log" 255 1 0 1)" pass || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/default: 261120 minimum/default: 32768 minimum/'
	expect_eq "boot line default" "$(reason_of boot_line "$log" 255 1 0 1)" \
		"boot line default/minimum 32768/2040, expected 261120/2040" || rc=1
	return $rc
}

# A boot broken several ways at once shows every check that failed, and
# the verdict's reason names them all.
test_judge_lists_every_failed_check() {
	local rc=0 log="$TMP/broken.log" v
	edit_log "$FIX/hotplug-255.log" "$log" 's/^# pid_max: 261120/# pid_max: 32768/
		s/^# pid_max_min: 2040/# pid_max_min: 301/
		s/^# cpus: possible=0-254/# cpus: possible=0-253/
		s/^Run \/init as init process/WARNING: CPU: 0 PID: 1 at kernel\/pid.c:650\n&/'
	expect_eq "every check" "$(judge "$log" 255 1 0 1)" \
		"fail: log_scan,possible_cpus,pid_max,pid_max_min" || rc=1
	v=$(judged "$log" 255 1 0 1 | sed -n 1p)
	expect_eq "verdict reason" "$(job_field "$v" reason)" \
		"the console shows an oops, BUG or WARNING; possible CPUs 254, expected 255; pid_max 32768, expected 261120; pid_max_min 301, expected 2040" || rc=1
	return $rc
}

test_judge_guest_failures() {
	local rc=0 log="$TMP/edited.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^ok 3 pid_max_min_probe/not ok 3 pid_max_min_probe # 1 was accepted/'
	expect_eq "not ok line" "$(judge "$log" 255 1 0 1)" "fail: guest_checks" || rc=1
	expect_eq "reason" "$(reason_of guest_checks "$log" 255 1 0 1)" \
		"guest checks failed: pid_max_min_probe" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" '/^ok 5 /d'
	expect_eq "missing result" "$(reason_of guest_checks "$log" 255 1 0 1)" \
		"5 guest results for a plan of 6" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/^Run \/init as init process/WARNING: CPU: 0 PID: 1 at kernel\/pid.c:650 pid_idr_init+0x0\/0x0\n&/'
	expect_eq "warning on the console" "$(judge "$log" 255 1 0 1)" "fail: log_scan" || rc=1
	return $rc
}

test_judge_truncated_logs_fail() {
	local rc=0 log="$TMP/cut.log"
	edit_log "$FIX/hotplug-255.log" "$log" '/^ok 4 /,$d'
	expect_eq "cut in the checks" "$(judge "$log" 255 1 0 1)" \
		"fail: final_marker,guest_checks,pid_max_max" || rc=1
	expect_eq "reason" "$(reason_of final_marker "$log" 255 1 0 1)" \
		"no final marker: the guest stopped before its checks ended" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" '/^PIDMAX-HARNESS-BEGIN/,$d'
	expect_eq "cut before init" "$(reason_of final_marker "$log" 255 1 0 1)" \
		"the guest's init never reported (qemu exit 0)" || rc=1
	: >"$log"
	[[ $(judge "$log" 255 1 0 1) == "fail: final_marker,guest_checks,"* ]] || {
		echo "empty log: $(judge "$log" 255 1 0 1)"
		rc=1
	}
	return $rc
}

test_judge_recorded_panic() {
	local rc=0
	[[ $(judge "$FIX/panic.log" 1 1 0 1) == "panic: panic,final_marker,"* ]] || {
		echo "panic: $(judge "$FIX/panic.log" 1 1 0 1)"
		rc=1
	}
	expect_eq "reason" "$(reason_of panic "$FIX/panic.log" 1 1 0 1)" \
		"PANIC: the kernel panicked: Requested init /y failed (error -2)." || rc=1
	return $rc
}

test_judge_recorded_hang() {
	local v
	v=$(judge "$FIX/hang.log" 4 1 0 1)
	[[ $v == "timeout: timeout,final_marker,"* ]] || {
		echo "hang: $v"
		return 1
	}
	[[ $(reason_of timeout "$FIX/hang.log" 4 1 0 1) == "TIMEOUT: guest killed after "*"s under tcg" ]]
}

test_kunit_recorded_pass() {
	local rc=0
	expect_eq "kunit boot" "$(judge "$FIX/kunit-hotplug-040.log" 40 1 0 1 1)" pass || rc=1
	# A kernel built with the suite must show it: an old log lacks it.
	expect_eq "no suite" "$(judge "$FIX/hotplug-033.log" 33 1 0 1 1)" "fail: kunit" || rc=1
	expect_eq "reason" "$(reason_of kunit "$FIX/hotplug-033.log" 33 1 0 1 1)" \
		"KUnit suite pid_max: none, failed cases: none" || rc=1
	# A kernel without it gets a SKIP with the reason, not a pass.
	expect_eq "skip" "$(reason_of kunit "$FIX/hotplug-033.log" 33 1 0 1 0)" \
		"the kernel is built without CONFIG_PID_MAX_KUNIT_TEST" || rc=1
	return $rc
}

# A console with printk timestamps (printk.time=1) parses the same.
test_kunit_recorded_with_timestamps() {
	expect_eq "printk.time=1" "$(judge "$FIX/printk-time-001.log" 1 1 0 1 1)" pass
}

test_kunit_failures_fail() {
	local rc=0 log="$TMP/kunit.log"
	edit_log "$FIX/kunit-hotplug-040.log" "$log" \
		's/^    ok 6 pid_max_no_overflow/    not ok 6 pid_max_no_overflow/; s/^ok 1 pid_max$/not ok 1 pid_max/'
	expect_eq "failed case" "$(judge "$log" 40 1 0 1 1)" "fail: kunit" || rc=1
	expect_eq "failed case" "$(reason_of kunit "$log" 40 1 0 1 1)" \
		"KUnit suite pid_max: notok, failed cases: pid_max_no_overflow" || rc=1
	edit_log "$FIX/kunit-hotplug-040.log" "$log" '/^    ok 7 /d'
	expect_eq "short of plan" "$(reason_of kunit "$log" 40 1 0 1 1)" \
		"KUnit suite pid_max: 6 results for a plan of 7" || rc=1
	edit_log "$FIX/kunit-hotplug-040.log" "$log" '/^    ok 5 /d; s/^    1\.\.7$/    1..6/'
	expect_eq "case gone" "$(reason_of kunit "$log" 40 1 0 1 1)" \
		"KUnit suite pid_max: case pid_max_base_small is missing" || rc=1
	edit_log "$FIX/kunit-hotplug-040.log" "$log" '/^    ok 4 /,$d'
	[[ $(judge "$log" 40 1 0 1 1) == "fail: final_marker,guest_checks,kunit,"* ]] || {
		echo "cut in the suite: $(judge "$log" 40 1 0 1 1)"
		rc=1
	}
	return $rc
}

test_judge_recorded_scenarios() {
	local rc=0
	expect_eq "extended" "$(judge "$FIX/extended-064.log" 64 1 0 1 1)" pass || rc=1
	expect_eq "override" "$(judge "$FIX/sysctl-override.log" 64 1 0 1 1 pid_max=30000)" pass || rc=1
	expect_eq "override, formula expected" "$(judge "$FIX/sysctl-override.log" 64 1 0 1 1)" \
		"fail: pid_max" || rc=1
	expect_eq "refused" "$(judge "$FIX/sysctl-too-low.log" 64 1 0 1 1 sysctl_refused=1)" pass || rc=1
	expect_eq "refusal unexpected" "$(reason_of sysctl_setting "$FIX/sysctl-too-low.log" 64 1 0 1 1)" \
		"the kernel refused the sysctl.kernel.pid_max= setting" || rc=1
	expect_eq "refusal missing" "$(reason_of sysctl_setting "$FIX/sysctl-override.log" 64 1 0 1 1 pid_max=30000 sysctl_refused=1)" \
		"the kernel did not refuse the sysctl.kernel.pid_max= setting" || rc=1
	return $rc
}

test_judge_extended_failures() {
	local log="$TMP/ext.log"
	edit_log "$FIX/extended-064.log" "$log" 's/^ok \([0-9]*\) bad_write_2pow63$/not ok \1 bad_write_2pow63 # accepted/'
	expect_eq "bad write accepted" "$(reason_of guest_checks "$log" 64 1 0 1 1)" \
		"guest checks failed: bad_write_2pow63"
}

# Stock 6.1 with BASE_SMALL and 4097 CPU ids states a minimum above
# pid_max: the probe finds no writable value, and the reason says why.
test_judge_stock_empty_range() {
	local rc=0 log="$TMP/stock.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^\(\[[^]]*\] \)\?pid_max: default: .*/\1pid_max: default: 32768 minimum: 32776/
		s/^# boot_line: .*/# boot_line: pid_max: default: 32768 minimum: 32776/
		s/^# pid_max: 261120/# pid_max: 32768/
		s/^# pid_max_min: 2040/# pid_max_min: unknown/
		s/^# pid_max_max: 4194304/# pid_max_max: unknown/
		s/^# cpus: possible=0-254/# cpus: possible=0-4096/'
	expect_eq "checks" "$(judge "$log" 4097 1 1 1 0 series=auto)" \
		"fail: pid_max_min,pid_max_max,boot_line" || rc=1
	expect_eq "reason" "$(reason_of pid_max_min "$log" 4097 1 1 1 0 series=auto)" \
		"pid_max_min none, expected 32768: no value is writable, the boot line's minimum 32776 lies above pid_max 32768" || rc=1
	return $rc
}

test_parse_recorded_budget() {
	local r rc=0
	r=$("$HARNESS/parse-console.sh" "$FIX/budget-online-008.log")
	expect_eq "last_pid_at_init" "$(job_field "$r" last_pid_at_init)" 63 || rc=1
	expect_eq "tasks" "$(job_field "$r" tasks)" 55 || rc=1
	expect_eq "kthreads" "$(job_field "$r" kthreads)" 53 || rc=1
	expect_eq "brought up" "$(job_field "$r" brought_up)" 8 || rc=1
	expect_eq "judged" "$(judge "$FIX/budget-online-008.log" 8 8 0 1 1)" pass || rc=1
	return $rc
}

# The series keeps upstream's line "pid_max: default: N minimum: M":
# a kernel with or without it (series=auto: any --kernel) passes on that
# line when default and minimum are the formula's, and fails when not.
test_judge_stock_boot_line() {
	local rc=0 log="$TMP/stock.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^\(# boot_line: pid_max: default: 261120 minimum: 2040\) (.*)$/\1/'
	expect_eq "series=yes" "$(judge "$log" 255 1 0 1)" pass || rc=1
	expect_eq "series=auto" "$(judge "$log" 255 1 0 1 0 series=auto)" pass || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/^# boot_line: .*/# boot_line: pid_max: default: 32768 minimum: 301/'
	expect_eq "stock values" "$(judge "$log" 255 1 0 1 0 series=auto)" "fail: boot_line" || rc=1
	return $rc
}

# The starved mutant (pid_max held at 1024) with 255 CPUs online, as
# recorded: a panic before init, with the CPUs that never came up named.
test_judge_recorded_starved() {
	local rc=0
	[[ $(judge "$FIX/starved-online-255.log" 255 255 0 1 1) == "panic: panic,final_marker,guest_checks,kunit,log_scan,possible_cpus,online_cpus,"* ]] || {
		echo "starved: $(judge "$FIX/starved-online-255.log" 255 255 0 1 1)"
		rc=1
	}
	expect_eq "panic" "$(reason_of panic "$FIX/starved-online-255.log" 255 255 0 1 1)" \
		"PANIC: the kernel panicked: Attempted to kill init! exitcode=0x0000000b" || rc=1
	expect_eq "online" "$(reason_of online_cpus "$FIX/starved-online-255.log" 255 255 0 1 1)" \
		"online CPUs none, expected 255: the kernel brought up 203, CPUs 203-254 never came up" || rc=1
	return $rc
}

# pid_max in a child pid namespace (guest-init.sh's pidns_checks),
# recorded on 6.1 (one global value) and 7.3 (a value per namespace):
# each passes against its own tree's semantics and fails against the
# other's, and a fork that does not wrap fails.
test_judge_pid_namespace() {
	local rc=0 log="$TMP/pidns.log" g=pidns_scope=global n=pidns_scope=namespace
	expect_eq "6.1, global" "$(judge "$FIX/extended-064-pidns-6.1.log" 64 1 0 1 1 "$g")" pass || rc=1
	expect_eq "7.3, per namespace" "$(judge "$FIX/extended-064-7.3.log" 64 64 0 1 1 "$n")" pass || rc=1
	expect_eq "6.1 judged as 7.3" "$(reason_of pid_namespace "$FIX/extended-064-pidns-6.1.log" 64 1 0 1 1 "$n")" \
		"child pid namespace (namespace pid_max): child/written/first PID/parent 65536 1512 1511 1512, expected 4194304 1512 1511 65536" || rc=1
	expect_eq "7.3 judged as 6.1" "$(judge "$FIX/extended-064-7.3.log" 64 64 0 1 1 "$g")" "fail: pid_namespace" || rc=1
	edit_log "$FIX/extended-064-7.3.log" "$log" 's/^# pidns: \(.*\) next=300 /# pidns: \1 next=1512 /'
	expect_eq "no wrap" "$(reason_of pid_namespace "$log" 64 64 0 1 1 "$n")" \
		"child pid namespace: the fork after PID 1511 got 1512, expected a wrap below it" || rc=1
	edit_log "$FIX/extended-064-7.3.log" "$log" '/^# pidns: /d'
	expect_eq "not measured" "$(judge "$log" 64 64 0 1 1 "$n")" "fail: pid_namespace" || rc=1
	expect_eq "no check asked" "$(judged "$FIX/extended-064-7.3.log" 64 64 0 1 1 | grep -c check=pid_namespace)" 0 || rc=1
	return $rc
}

# 7.3 under TCG on the machine vmware: 254 hotplug CPUs, judged as any
# hotplug boot.
test_judge_vmware_hotplug() {
	expect_eq "7.3 hotplug 255 on vmware" "$(judge "$FIX/hotplug-255-vmware-7.3.log" 255 1 0 1 1)" pass
}

# The kernel's own selftests, recorded on 7.3 (three programs): the boot
# passes when all three passed, and fails when one failed, was skipped,
# or fewer ran than were packed.
test_judge_selftests() {
	local rc=0 log="$TMP/selftests.log" f=$FIX/selftests-7.3.log
	expect_eq "recorded" "$(judge "$f" 1 1 0 1 1 initrd_extra=/s selftests=3)" pass || rc=1
	expect_eq "one more packed" "$(reason_of selftests "$f" 1 1 0 1 1 initrd_extra=/s selftests=4)" \
		"kernel selftests passed: 3, expected 4" || rc=1
	edit_log "$f" "$log" 's/^ok 7 selftest_pidns_init_via_setns$/not ok 7 selftest_pidns_init_via_setns # exit 1/'
	expect_eq "one failed" "$(judge "$log" 1 1 0 1 1 initrd_extra=/s selftests=3)" "fail: guest_checks,selftests" || rc=1
	edit_log "$f" "$log" 's/^ok 6 selftest_pid_max$/ok 6 selftest_pid_max # SKIP exit 4/'
	expect_eq "one skipped" "$(judge "$log" 1 1 0 1 1 initrd_extra=/s selftests=3)" "fail: selftests" || rc=1
	return $rc
}
