#!/bin/bash
# run-tests.sh - self-tests of the harness's own logic; no kernel build
# and no real VM: the expected-value formula, the CPU list parser, the
# .config reader, the console parser and judge on recorded console logs
# (fixtures/), the report, and boots and sweeps against a fake QEMU.
#
# Prints KTAP and ends with "N passed, N failed"; exits 1 on a failure.
# With NAME arguments, runs only the tests whose names contain one.
# A test that cannot run here prints "SKIP: reason" and returns 0.
set -euo pipefail

TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HARNESS=$(dirname "$TESTS")
FIX="$TESTS/fixtures"
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# --- helpers ---------------------------------------------------------

# expect_eq WHAT GOT WANT
expect_eq() {
	[[ $2 == "$3" ]] || {
		echo "$1: got '$2', want '$3'"
		return 1
	}
}

# job_for CPUS ONLINE SMALL IS64 [KUNIT [FIELD=VALUE...]]: a job line
# for a boot with CPUS possible and ONLINE online CPUs of a kernel with
# that BASE_SMALL, 64BIT and KUnit suite, as plan.sh makes them.
job_for() {
	job_kernel_is /k /c /i t tcg "$3" "$4" "${5:-0}"
	make_job "case-$1" hotplug "$1" "$2" "1,maxcpus=$1" "${@:6}"
}

# judged LOG CPUS ONLINE SMALL IS64 [KUNIT [FIELD=VALUE...]]: judge.sh's
# whole answer for a recorded log.
judged() {
	"$HARNESS/judge.sh" "$(job_for "${@:2}")" "$("$HARNESS/parse-console.sh" "$1")"
}

# judge LOG CPUS ONLINE SMALL IS64 [KUNIT [FIELD=VALUE...]]: "VERDICT" or
# "VERDICT: CHECK,CHECK" with every check that failed, in order.
judge() {
	judged "$@" | awk -F'\t' '
		NR == 1 { v = substr($1, 9); next }
		$2 == "result=fail" { s = s "," substr($1, 7) }
		END { print v (s == "" ? "" : ": " substr(s, 2)) }'
}

# reason_of CHECK LOG CPUS ONLINE ...: the reason judge.sh gives for CHECK.
reason_of() {
	judged "${@:2}" | awk -F'\t' -v c="check=$1" '$1 == c { print substr($3, 8) }'
}

# edit_log SRC DST SED_SCRIPT: a copy of a recorded log (serial line
# ends CR LF made LF), edited, with its meta.
edit_log() {
	tr -d '\r' <"$1" | sed "$3" >"$2"
	cp "$1.meta" "$2.meta"
}

# --- the formula -----------------------------------------------------

test_expected_table() {
	local -a cases=(
		# cpus small is64 -> pid_max min limit clamped
		"1 0 1 32768 301 4194304 0"
		"32 0 1 32768 301 4194304 0"
		"33 0 1 33792 301 4194304 0"
		"37 0 1 37888 301 4194304 0"
		"38 0 1 38912 304 4194304 0"
		"255 0 1 261120 2040 4194304 0"
		"4095 0 1 4193280 32760 4194304 0"
		"4096 0 1 4194304 32768 4194304 0"
		"4097 0 1 4194304 32776 4194304 1"
		"8192 0 1 4194304 65536 4194304 1"
		"4 1 1 4096 301 32768 0"
		"5 1 1 5120 301 32768 0"
		"31 1 1 31744 301 32768 0"
		"32 1 1 32768 301 32768 0"
		"33 1 1 32768 301 32768 1"
		"255 1 1 32768 2040 32768 1"
		"8192 1 1 32768 32768 32768 1"
		"1 0 0 32768 301 32768 0"
		"33 0 0 32768 301 32768 1"
	)
	local c cpus small is64 want rc=0
	for c in "${cases[@]}"; do
		read -r cpus small is64 want <<<"$c"
		expect_eq "cpus=$cpus small=$small 64bit=$is64" \
			"$(expected_pid_max "$cpus" "$small" "$is64")" "$want" || rc=1
	done
	return $rc
}

# Over every CPU count up to NR_CPUS's largest x86 value, for the three
# kernels, the properties the formula promises.
test_expected_properties() {
	local small is64 n prev floor rc=0
	for small in 0 1; do
		for is64 in 0 1; do
			prev=0
			floor=32768
			((small)) && floor=4096
			for ((n = 1; n <= 8192; n++)); do
				expected_vars "$n" "$small" "$is64"
				if ((EXP_MAX < prev || EXP_MAX > EXP_LIMIT ||
					EXP_MIN > EXP_MAX || EXP_MIN < 301 && EXP_MIN != EXP_MAX)); then
					echo "small=$small 64bit=$is64 n=$n: bad order $EXP_MIN/$EXP_MAX/$EXP_LIMIT"
					rc=1
				elif ((1024 * n >= floor && 1024 * n <= EXP_LIMIT && EXP_MAX != 1024 * n)); then
					echo "small=$small 64bit=$is64 n=$n: not scaled: $EXP_MAX"
					rc=1
				elif (((1024 * n > EXP_LIMIT) != (EXP_MAX == EXP_LIMIT && 1024 * n != EXP_LIMIT) &&
					EXP_LIMIT > floor)); then
					echo "small=$small 64bit=$is64 n=$n: clamp wrong: $EXP_MAX"
					rc=1
				fi
				prev=$EXP_MAX
				((rc == 0)) || return 1
			done
		done
	done
}

test_expected_rejects_bad_counts() {
	local bad
	for bad in 0 -1 x ""; do
		if expected_pid_max "$bad" 0 1 2>/dev/null; then
			echo "accepted CPU count '$bad'"
			return 1
		fi
	done
}

# --- the CPU list parser ---------------------------------------------

test_list_parser_good() {
	local rc=0
	expect_eq "1,2,32-34,255" "$(parse_cpu_list 1,2,32-34,255 | tr '\n' ' ')" \
		"1 2 32 33 34 255 " || rc=1
	expect_eq "repeats" "$(parse_cpu_list 255,1,1,1-2 | tr '\n' ' ')" "1 2 255 " || rc=1
	expect_eq "empty" "$(parse_cpu_list '')" "" || rc=1
	expect_eq "010" "$(parse_cpu_list 010)" "10" || rc=1
	expect_eq "all" "$(parse_cpu_list all | wc -l)" "255" || rc=1
	expect_eq "1-255" "$(parse_cpu_list 1-255 | sed -n '1p;$p' | tr '\n' ' ')" "1 255 " || rc=1
	return $rc
}

test_list_parser_bad() {
	local bad msg
	for bad in 0 256 5-3 a 1,,2 1- -3 "1 2" 1-300 ","; do
		if msg=$(parse_cpu_list "$bad" 2>&1); then
			echo "accepted '$bad'"
			return 1
		fi
		[[ $msg == "bad CPU list '$bad'"* ]] || {
			echo "unclear message for '$bad': $msg"
			return 1
		}
	done
}

# --- the .config reader and checker ----------------------------------

test_kconfig_params() {
	local rc=0 cfg="$TMP/cfg"
	expect_eq "6.1 full" "$(kconfig_pid_params "$FIX/config-6.1-full")" "0 1 0" || rc=1
	sed 's/^CONFIG_BASE_SMALL=0/CONFIG_BASE_SMALL=1/' "$FIX/config-6.1-full" >"$cfg"
	expect_eq "6.1 small" "$(kconfig_pid_params "$cfg")" "1 1 0" || rc=1
	sed 's/^CONFIG_BASE_SMALL=0/CONFIG_BASE_SMALL=y/' "$FIX/config-6.1-full" >"$cfg"
	expect_eq "6.12 small" "$(kconfig_pid_params "$cfg")" "1 1 0" || rc=1
	grep -v '^CONFIG_BASE_SMALL=' "$FIX/config-6.1-full" >"$cfg"
	expect_eq "6.12 full" "$(kconfig_pid_params "$cfg")" "0 1 0" || rc=1
	grep -v '^CONFIG_64BIT=' "$FIX/config-6.1-full" >"$cfg"
	expect_eq "32-bit" "$(kconfig_pid_params "$cfg")" "0 0 0" || rc=1
	grep -v '^CONFIG_X86=' "$FIX/config-6.1-full" >"$cfg"
	if kconfig_pid_params "$cfg" 2>/dev/null; then
		echo "accepted a non-x86 config"
		rc=1
	fi
	if kconfig_pid_params "$TMP/none" 2>/dev/null; then
		echo "accepted a missing config"
		rc=1
	fi
	return $rc
}

test_check_config() {
	local frag="$TMP/frag"
	"$HARNESS/check-config.sh" "$FIX/config-6.1-full-kunit" \
		"$HARNESS/config/pidmax.config" "$HARNESS/config/variant-full.config" || {
		echo "the recorded full config fails its own fragments"
		return 1
	}
	# A later fragment overrides an earlier one, as merge_config.sh does.
	printf 'CONFIG_NR_CPUS=512\n' >"$frag"
	printf 'CONFIG_NR_CPUS=256\n' >"$frag.2"
	"$HARNESS/check-config.sh" "$FIX/config-6.1-full" "$frag" "$frag.2" || {
		echo "a later fragment's value did not win"
		return 1
	}
	printf 'CONFIG_NR_CPUS=512\n# CONFIG_SMP is not set\n' >"$frag"
	local msg
	if msg=$("$HARNESS/check-config.sh" "$FIX/config-6.1-full" "$frag" 2>&1); then
		echo "options that did not stick passed"
		return 1
	fi
	[[ $msg == *"CONFIG_NR_CPUS=512"* && $msg == *"CONFIG_SMP"* ]] || {
		echo "message does not name both options: $msg"
		return 1
	}
}

# --- the console parser and judge, on recorded logs ------------------

test_parse_recorded_pass() {
	local r rc=0 want
	r=$("$HARNESS/parse-console.sh" "$FIX/hotplug-255.log")
	for want in begin=1 end=1 plan=6 oks=6 notoks=0 possible=255 online=1 \
		pid_max=261120 pid_max_min=2040 pid_max_max=4194304 line_cpus=255 \
		clamped=no panic=0 oops=0 timed_out=0; do
		[[ $'\t'$r$'\t' == *$'\t'$want$'\t'* ]] || {
			echo "record lacks $want: $r"
			rc=1
		}
	done
	expect_eq "kv_get" "$(kv_get "$r" pid_max_min)" 2040 || rc=1
	expect_eq "kv_get absent" "$(kv_get "$r" nosuchkey)" none || rc=1
	return $rc
}

# The job format: values with spaces and '=' survive, a TAB is refused.
test_job_fields() {
	local j rc=0
	local -A f=()
	j=$(job_for 40 2 0 1 0 "append=nr_cpus=40 maxcpus=2 x=y")
	kv_load f "$j"
	expect_eq "append" "${f[append]}" "nr_cpus=40 maxcpus=2 x=y" || rc=1
	expect_eq "pid_max" "${f[pid_max]}" 40960 || rc=1
	expect_eq "line_clamped" "${f[line_clamped]}" no || rc=1
	expect_eq "timeout" "${f[timeout]}" 61 || rc=1
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

test_judge_recorded_passes() {
	local rc=0
	expect_eq "hotplug 255" "$(judge "$FIX/hotplug-255.log" 255 1 0 1)" pass || rc=1
	expect_eq "hotplug 33" "$(judge "$FIX/hotplug-033.log" 33 1 0 1)" pass || rc=1
	expect_eq "online 8" "$(judge "$FIX/online-008.log" 8 8 0 1)" pass || rc=1
	expect_eq "checks" "$(judged "$FIX/hotplug-255.log" 255 1 0 1 | tail -n +2 | cut -f1,2 | tr '\t\n' ' ,')" \
		"check=timeout result=ok,check=panic result=ok,check=final_marker result=ok,check=guest_checks result=ok,check=kunit result=skip,check=log_scan result=ok,check=possible_cpus result=ok,check=online_cpus result=ok,check=pid_max result=ok,check=pid_max_min result=ok,check=pid_max_max result=ok,check=boot_line result=ok,check=boot_line_inputs result=ok,check=sysctl_setting result=ok," || rc=1
	return $rc
}

test_judge_wrong_expectations_fail() {
	local rc=0
	expect_eq "wrong CPU count" "$(judge "$FIX/hotplug-255.log" 254 1 0 1)" \
		"fail: possible_cpus,pid_max,pid_max_min,boot_line,boot_line_inputs" || rc=1
	expect_eq "reason" "$(reason_of possible_cpus "$FIX/hotplug-255.log" 254 1 0 1)" \
		"possible CPUs 255, expected 254" || rc=1
	expect_eq "wrong online count" "$(judge "$FIX/online-008.log" 8 1 0 1)" \
		"fail: online_cpus" || rc=1
	expect_eq "wrong variant" "$(judge "$FIX/hotplug-255.log" 255 1 1 1)" \
		"fail: pid_max,pid_max_max,boot_line,boot_line_inputs" || rc=1
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
	edit_log "$FIX/hotplug-255.log" "$log" 's/nr_cpu_ids: 255/nr_cpu_ids: 1/'
	expect_eq "boot line CPU count" "$(judge "$log" 255 1 0 1)" "fail: boot_line_inputs" || rc=1
	expect_eq "reason" "$(reason_of boot_line_inputs "$log" 255 1 0 1)" \
		"boot line nr_cpu_ids/clamped 1/no, expected 255/no" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/clamped: no/clamped: yes/'
	expect_eq "boot line clamp" "$(judge "$log" 255 1 0 1)" "fail: boot_line_inputs" || rc=1
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
		s/clamped: no/clamped: yes/
		s/^# cpus: possible=0-254/# cpus: possible=0-253/
		s/^Run \/init as init process/WARNING: CPU: 0 PID: 1 at kernel\/pid.c:650\n&/'
	expect_eq "every check" "$(judge "$log" 255 1 0 1)" \
		"fail: log_scan,possible_cpus,pid_max,pid_max_min,boot_line_inputs" || rc=1
	v=$(judged "$log" 255 1 0 1 | head -n 1)
	expect_eq "verdict reason" "$(kv_get "$v" reason)" \
		"the console shows an oops, BUG or WARNING; possible CPUs 254, expected 255; pid_max 32768, expected 261120; pid_max_min 301, expected 2040; boot line nr_cpu_ids/clamped 255/yes, expected 255/no" || rc=1
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
	[[ $(reason_of timeout "$FIX/hang.log" 4 1 0 1) == "TIMEOUT: guest killed after "* ]]
}

test_kunit_recorded_pass() {
	local rc=0
	expect_eq "params" "$(kconfig_pid_params "$FIX/config-6.1-full-kunit")" "0 1 1" || rc=1
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

test_tree_6_12() {
	local rc=0
	expect_eq "6.12 params" "$(kconfig_pid_params "$FIX/config-6.12-full")" "0 1 1" || rc=1
	expect_eq "6.12 version" "$(kconfig_version "$FIX/config-6.12-full")" "6.12.118" || rc=1
	expect_eq "6.1 version" "$(kconfig_version "$FIX/config-6.1-full")" "6.1.192" || rc=1
	tcg_counts_hotplug_cpus 6.1.192 || {
		echo "6.1 should count QEMU's hotplug CPUs"
		rc=1
	}
	tcg_counts_hotplug_cpus 6.12.118 && {
		echo "6.12 should not count QEMU's hotplug CPUs under TCG"
		rc=1
	}
	# A real 6.12 console, with its KUnit suite.
	expect_eq "6.12 online 64" "$(judge "$FIX/online-064-6.12.log" 64 64 0 1 1)" pass || rc=1
	return $rc
}

test_tree_6_12_hotplug_tier_refused() {
	QEMU="$TESTS/fake-qemu.sh" must_fail "use --cpus '' and --online LIST for this kernel" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.12-full" \
		--config "$FIX/config-6.12-full" --build-dir "$TMP/build" \
		--cpus 1-4 --online "" --out "$TMP/612"
}

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
	expect_eq "summary" "$sum" "1 passed, 0 failed" || rc=1
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

# The possible tier: possible_cpus=N with -smp 1, memory and timeout
# growing with N, expectations from the formula (the clamp from 4097 on),
# and a skip with the reason where the kernel cannot have N CPU ids.
test_plan_possible_tier() {
	local rc=0 cfg="$TMP/config-maxsmp" out
	sed 's/^CONFIG_NR_CPUS=.*/CONFIG_NR_CPUS=8192/' "$FIX/config-6.1-full-kunit" >"$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label m \
		--cpus "" --online "" --scenarios no --possible 4096,4097,8192)
	expect_eq "4096" "$(sed -n 1p <<<"$out" | cut -f1,2,9,10,11,12,13,14,15,16,21)" \
		"$(printf '%s\t' name=m-possible-4096 tier=possible smp=1 mem=3072M timeout=316 \
			append=possible_cpus=4096 possible=4096 online=1 pid_max=4194304 pid_max_min=32768 | sed 's/\t$//')	line_clamped=no" || rc=1
	expect_eq "4097" "$(sed -n 2p <<<"$out" | cut -f15,16,21)" \
		"pid_max=4194304	pid_max_min=32776	line_clamped=yes" || rc=1
	expect_eq "8192" "$(sed -n 3p <<<"$out" | cut -f10,11,16)" \
		"mem=5632M	timeout=572	pid_max_min=65536" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i --label n \
		--cpus "" --online "" --scenarios no --possible 256,257)
	expect_eq "NR_CPUS 256" "$(cut -f1,5 <<<"$out")" "name=n-possible-0256	kernel=/k
name=n-possible-0257	skip=NR_CPUS is 256: possible_cpus=257 needs a kernel built with more (VARIANT-maxsmp)" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.12-full" --initrd /i --label t \
		--cpus "" --online "" --scenarios no --possible 300)
	expect_eq "6.12" "$(cut -f5 <<<"$out")" \
		"skip=possible_cpus= only lowers the CPU count of this kernel under TCG" || rc=1
	return $rc
}

# --- the baseline ----------------------------------------------------

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
	expect_eq "inputs" "$(judged "$log" 4097 1 1 1 0 series=auto | grep -c $'check=boot_line_inputs\tresult=skip')" 1 || rc=1
	return $rc
}

# baseline.sh: the same boots and expectations, on the stock kernel.
test_baseline_transform() {
	local rc=0 k="$TMP/stock-k" jobs="$TMP/bjobs" out
	mkdir -p "$k"
	: >"$k/vmlinux"
	cp "$FIX/config-6.1-full" "$k/.config"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full-kunit" --initrd /i \
		--label a --cpus 255 --online "" --scenarios no >"$jobs"
	printf 'name=a-possible-9000\ttier=possible\tvariant=full\tlabel=a\tskip=why\n' >>"$jobs"
	out=$("$HARNESS/baseline.sh" "$jobs" "a=$k/vmlinux") || rc=1
	expect_eq "count" "$(wc -l <<<"$out")" 2 || rc=1
	expect_eq "renamed" "$(sed -n 1p <<<"$out" | cut -f1,4,5,6)" \
		"name=a-stock-hotplug-255	label=a-stock	kernel=$k/vmlinux	config=$k/.config" || rc=1
	expect_eq "same expectations" "$(sed -n 1p <<<"$out" | cut -f7-21 | sed 's/\tkunit=0/\tkunit=1/')" \
		"$(sed -n 1p "$jobs" | cut -f7-21)" || rc=1
	expect_eq "kunit, series" "$(sed -n 1p <<<"$out" | grep -o $'kunit=[01]\tseries=[a-z]*')" \
		"kunit=0	series=auto" || rc=1
	expect_eq "skip" "$(sed -n 2p <<<"$out")" \
		"name=a-stock-possible-9000	tier=possible	variant=full	label=a-stock	skip=why" || rc=1
	"$HARNESS/baseline.sh" "$jobs" "b=$k/vmlinux" >/dev/null 2>&1 && {
		echo "a job of an unmapped kernel passed"
		rc=1
	}
	return $rc
}

# compare.sh: a row per boot of both runs; same only where both values
# agree (the BASE_SMALL 4097 row differs in its minimum).
test_compare_csv() {
	local rc=0 d="$TMP/cmp" h
	mkdir -p "$d/baseline"
	h="cpus,online,pid_max,expected,pid_max_min,expected_min,seconds,verdict,boot,tier,variant,line_min"
	printf 'name=p-hotplug-001\tlabel=p\nname=p-possible-4097\tlabel=p\nname=p-online-009\tlabel=p\nname=p-x\tlabel=p\n' >"$d/jobs"
	printf 'name=p-stock-hotplug-001\tlabel=p-stock\nname=p-stock-possible-4097\tlabel=p-stock\nname=p-stock-x\tlabel=p-stock\n' >"$d/baseline/jobs"
	printf '%s\n' "$h" "1,1,4096,4096,301,301,1,pass,p-hotplug-001,hotplug,small,301" \
		"4097,1,32768,32768,32768,32768,9,pass,p-possible-4097,possible,small,32768" \
		"9,9,4096,4096,301,301,1,pass,p-online-009,online,small,301" \
		"none,none,none,none,none,none,none,skip,p-x,possible,small,none" >"$d/results.csv"
	printf '%s\n' "$h" "1,1,4096,4096,301,301,1,pass,p-stock-hotplug-001,hotplug,small,301" \
		"4097,1,32768,32768,none,32768,9,fail,p-stock-possible-4097,possible,small,32776" \
		"none,none,none,none,none,none,none,skip,p-stock-x,possible,small,none" >"$d/baseline/results.csv"
	expect_eq "differs" "$("$HARNESS/compare.sh" "$d" 2>/dev/null)" \
		"possible-4097,small,4097,32768,32776,32768,32768,no" || rc=1
	expect_eq "csv" "$(cat "$d/compare.csv")" \
		"boot,variant,cpus,stock_pid_max,stock_pid_max_min,patched_pid_max,patched_pid_max_min,same
hotplug-001,small,1,4096,301,4096,301,yes
possible-4097,small,4097,32768,32776,32768,32768,no" || rc=1
	rm "$d/baseline/results.csv"
	"$HARNESS/compare.sh" "$d" >/dev/null 2>&1 && {
		echo "compare.sh passed without a baseline"
		rc=1
	}
	return $rc
}

# The wide tiers: q35 jobs for QEMU 10, expectations from the formula;
# skips for a kernel without x2APIC and interrupt remapping, for a count
# above NR_CPUS, and when no QEMU 10 could be fetched.
test_plan_wide_tiers() {
	local rc=0 cfg="$TMP/config-wide" out
	{
		sed 's/^CONFIG_NR_CPUS=.*/CONFIG_NR_CPUS=8192/' "$FIX/config-6.1-full-kunit"
		printf 'CONFIG_X86_X2APIC=y\nCONFIG_IRQ_REMAP=y\n'
	} >"$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-online 288 --wide-hotplug 1024 --wide-qemu /q10)
	expect_eq "288" "$(sed -n 1p <<<"$out" | cut -f1,2,9-15,25,26)" \
		"$(printf '%s\t' name=w-online-0288 tier=wide-online smp=288 mem=800M timeout=267 \
			append= possible=288 online=288 pid_max=294912 machine=wide | sed 's/\t$//')	qemu=/q10" || rc=1
	expect_eq "1024" "$(sed -n 2p <<<"$out" | cut -f1,9,12-16,25)" \
		"$(printf '%s\t' name=w-hotplug-1024 smp=256,maxcpus=1024 append=maxcpus=1 \
			possible=1024 online=1 pid_max=1048576 pid_max_min=8192 | sed 's/\t$//')	machine=wide" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-online 288)
	expect_eq "no QEMU 10" "$(cut -f5 <<<"$out")" \
		"skip=no QEMU for more than 255 CPUs: QEMU 10 from bookworm-backports is unavailable (harness/fetch-qemu.sh)" || rc=1
	sed -i 's/^CONFIG_NR_CPUS=.*/CONFIG_NR_CPUS=256/' "$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-online 256,288 --wide-qemu /q10)
	expect_eq "NR_CPUS" "$(cut -f1,5 <<<"$out" | tail -n 1)" \
		"name=w-online-0288	skip=NR_CPUS is 256: 288 CPUs need a kernel built with more" || rc=1
	"$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --wide-hotplug 256 \
		>/dev/null 2>&1 && {
		echo "--wide-hotplug 256 was accepted"
		rc=1
	}
	return $rc
}

# An unreachable bookworm-backports: exit 3 and one message, nothing left
# behind (the sweep then plans the wide tiers as skips).
test_fetch_qemu_unreachable() {
	local rc=0 err status=0
	command -v apt-get >/dev/null || {
		echo "SKIP: no apt-get here"
		return 0
	}
	err=$(PIDMAX_BACKPORTS="http://127.0.0.1:9/debian bookworm-backports main" \
		"$HARNESS/fetch-qemu.sh" "$TMP/fq" 2>&1 >/dev/null) || status=$?
	expect_eq "status" "$status" 3 || rc=1
	[[ $err == *"bookworm-backports is unreachable: the wide tiers are skipped"* ]] || {
		echo "message: $err"
		rc=1
	}
	[[ -z $(ls -A "$TMP/fq") ]] || {
		echo "left behind: $(ls -A "$TMP/fq")"
		rc=1
	}
	return $rc
}

# --- the report ------------------------------------------------------

# report_folder DIR: a results folder with four jobs of two variants: a
# recorded passing boot, a boot never run, and their small twins.
report_folder() {
	local out=$1 cfg="$TMP/config-small"
	mkdir -p "$out/boots"
	sed 's/^CONFIG_BASE_SMALL=0/CONFIG_BASE_SMALL=1/' "$FIX/config-6.1-full" >"$cfg"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i \
		--label a --cpus 255 --online 33 --scenarios no >"$out/jobs"
	"$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i \
		--label b --cpus 255 --online 33 --scenarios no >>"$out/jobs"
	cp "$FIX/hotplug-255.log" "$out/boots/a-hotplug-255.log"
	cp "$FIX/hotplug-255.log.meta" "$out/boots/a-hotplug-255.log.meta"
	cp "$FIX/hotplug-255.log" "$out/boots/b-hotplug-255.log"
}

test_report_counts_missing_boots() {
	local out="$TMP/report" rc=0 sum
	report_folder "$out"
	sum=$("$HARNESS/report.sh" "$out") && rc=1
	expect_eq "counts" "$sum" "1 passed, 3 failed" || rc=1
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
	expect_eq "checks.csv" "$(grep -c '^b-hotplug-255,.*,fail,' "$out/checks.csv")" 4 || rc=1
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
	return $rc
}

# --- the PID budget --------------------------------------------------

test_parse_recorded_budget() {
	local r rc=0
	r=$("$HARNESS/parse-console.sh" "$FIX/budget-online-008.log")
	expect_eq "last_pid_at_init" "$(kv_get "$r" last_pid_at_init)" 63 || rc=1
	expect_eq "tasks" "$(kv_get "$r" tasks)" 55 || rc=1
	expect_eq "kthreads" "$(kv_get "$r" kthreads)" 53 || rc=1
	expect_eq "brought up" "$(kv_get "$r" brought_up)" 8 || rc=1
	expect_eq "judged" "$(judge "$FIX/budget-online-008.log" 8 8 0 1 1)" pass || rc=1
	return $rc
}

# A kernel without the series prints the stock line "pid_max: default:
# N minimum: M". Built here (series=yes) that fails; as any --kernel
# (series=auto) its inputs are a SKIP, while default and minimum are
# still judged against the formula.
test_judge_stock_boot_line() {
	local rc=0 log="$TMP/stock.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^\(# boot_line: pid_max: default: 261120 minimum: 2040\) (.*)$/\1/'
	expect_eq "series=yes" "$(judge "$log" 255 1 0 1)" "fail: boot_line_inputs" || rc=1
	expect_eq "series=auto" "$(judge "$log" 255 1 0 1 0 series=auto)" pass || rc=1
	expect_eq "skip" "$(reason_of boot_line_inputs "$log" 255 1 0 1 0 series=auto)" \
		"the boot line has no nr_cpu_ids: the kernel does not carry the series" || rc=1
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

# budget.sh on online boots whose PIDs at init lie exactly on
# 20 + 6 * CPUs: the fit must find 6 per CPU, 20 fixed, no residual,
# and a fixed 32768 running out at (32768 - 20) / 6 = 5458 CPUs.
test_budget_fit_known_line() {
	local out="$TMP/budget" n rc=0
	mkdir -p "$out/boots"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full-kunit" \
		--initrd /i --label k --cpus 8 --online 1,2,8,64 --scenarios no >"$out/jobs"
	for n in 1 2 8 64; do
		edit_log "$FIX/budget-online-008.log" "$out/boots/k-online-$(printf %03d "$n").log" \
			"s/^# pid_budget: .*/# pid_budget: last_pid_at_init=$((20 + 6 * n)) tasks=1 kthreads=1/
			 s/^# cpus: possible=0-7 online=0-7/# cpus: possible=0-$((n - 1)) online=0-$((n - 1))/"
	done
	cp "$FIX/budget-online-008.log" "$out/boots/k-hotplug-008.log"
	"$HARNESS/budget.sh" "$out" || return 1
	expect_eq "csv" "$(cat "$out/pid_budget.csv")" "boot,kernel,online,possible,last_pid_at_init,tasks,kthreads
k-online-001,k,1,1,26,1,1
k-online-002,k,2,2,32,1,1
k-online-008,k,8,8,68,1,1
k-online-064,k,64,64,404,1,1" || rc=1
	grep -q '^  per online CPUs* *6.00 PIDs$' "$out/pid_budget.txt" || rc=1
	grep -q '^  fixed part *20.0 PIDs$' "$out/pid_budget.txt" || rc=1
	grep -q '^  residual *0.0 PIDs RMS' "$out/pid_budget.txt" || rc=1
	grep -q 'runs out before init at 5458 CPUs$' "$out/pid_budget.txt" || rc=1
	grep -q '^ *8192 *49172 *runs out *4194304 *85.3x$' "$out/pid_budget.txt" || rc=1
	((rc == 0)) || cat "$out/pid_budget.txt"
	[[ -s $out/pid_budget.svg ]] || rc=1
	return $rc
}

# --- boots and sweeps against a fake QEMU ----------------------------

# fake_job SMP TIMEOUT: a job line for boot-guest.sh with the fake QEMU.
fake_job() {
	local f=$FIX/config-6.1-full
	job_kernel "$f" "$f" "$f" fake tcg
	make_job fake hotplug "${1##*=}" 1 "$1" "timeout=$2"
}

test_boot_fake_hang_is_killed() {
	local log="$TMP/hang.log" pids="$TMP/hang.pids" pid
	: >"$pids"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/boot-guest.sh" "$(fake_job 1,maxcpus=4 2)" "$log"
	grep -q 'timed_out=1' "$log.meta" || {
		echo "meta: $(cat "$log.meta")"
		return 1
	}
	pid=$(head -n 1 "$pids")
	if kill -0 "$pid" 2>/dev/null; then
		echo "the hung fake QEMU ($pid) is still running"
		return 1
	fi
	[[ $(judge "$log" 4 1 0 1) == timeout:* ]]
}

test_boot_fake_crash_fails() {
	local log="$TMP/crash.log"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=crash \
		"$HARNESS/boot-guest.sh" "$(fake_job 1,maxcpus=4 5)" "$log"
	expect_eq "crash" "$(reason_of final_marker "$log" 4 1 0 1)" \
		"the guest's init never reported (qemu exit 1)"
}

# A wide job: its own QEMU (not $QEMU), q35 with x2APIC and interrupt
# remapping, -smp 256,maxcpus=N, and no -initrd for initrd=builtin.
test_boot_wide_job() {
	local rc=0 log="$TMP/wide.log" args="$TMP/wide.args" f=$FIX/config-6.1-full job
	job_kernel "$f" "$f" builtin fake tcg
	job=$(make_job hotplug-1024 wide-hotplug 1024 1 256,maxcpus=1024 machine=wide \
		"qemu=$TESTS/fake-qemu.sh" append=maxcpus=1)
	QEMU=/nonexistent FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$FIX/hotplug-255.log" \
		"$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	expect_eq "machine" "$(grep -A1 -x -e -machine -e -cpu -e -device -e -smp "$args" | grep -v -x -e -- | paste -sd' ')" \
		"-machine q35 -cpu qemu64,+x2apic -device intel-iommu,intremap=on,eim=on -smp 256,maxcpus=1024" || rc=1
	! grep -q -x -e -initrd "$args" || {
		echo "a builtin initramfs was passed with -initrd"
		rc=1
	}
	job=$(sed 's/\tmachine=wide/\tmachine=huge/' <<<"$job")
	must_fail "unknown machine 'huge'" "$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	return $rc
}

test_boot_bad_job_refused() {
	must_fail "the job lacks its initrd field" \
		"$HARNESS/boot-guest.sh" "name=x"$'\t'"kernel=/k" "$TMP/bad.log"
}

# sweep CPUS ONLINE LOG [OPTION...]: a sweep of a recorded log through
# the fake QEMU.
sweep() {
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=replay FAKE_QEMU_LOG="$3" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/sweep" --cpus "$1" --online "$2" --possible "" --scenarios no "${@:4}"
}

test_sweep_fake_pass() {
	local out rc=0
	out=$(sweep 255 "" "$FIX/hotplug-255.log" 2>&1) || {
		echo "$out"
		return 1
	}
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 0 failed" || rc=1
	# A --kernel run gets its picture, whatever the kernel's label.
	[[ -s $TMP/sweep/pid_max.svg && -s $TMP/sweep/pid_max.png ]] || {
		echo "no picture: $out"
		rc=1
	}
	return $rc
}

test_sweep_fake_wrong_count_fails() {
	local out rc=0
	out=$(sweep 254,255 "" "$FIX/hotplug-255.log" 2>&1) && rc=1
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 1 failed" || return 1
	grep -q '^254,1,261120,260096,2040,2032,[0-9.]*,fail,config-6.1-full-hotplug-254,hotplug,full,2040$' \
		"$TMP/sweep/results.csv" || {
		echo "csv: $(cat "$TMP/sweep/results.csv")"
		return 1
	}
	grep -q 'config-6.1-full-hotplug-254 *fail .*(failed: possible_cpus,pid_max,pid_max_min,boot_line,boot_line_inputs)' <<<"$out" || {
		echo "the boot's line does not name its failed checks: $out"
		rc=1
	}
	return $rc
}

# --list prints the named job list and boots nothing, writes nothing.
test_sweep_list_boots_nothing() {
	local out pids="$TMP/list.pids" rc=0
	: >"$pids"
	out=$(QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/sweep-smp.sh" --list --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/listed" --cpus 1-3 --online 255 --possible "" 2>/dev/null) || {
		echo "--list failed"
		return 1
	}
	expect_eq "jobs" "$(cut -f1,2,9 <<<"$out" | head -n 4 | tr '\t\n' ' ,')" \
		"name=config-6.1-full-hotplug-001 tier=hotplug smp=1,maxcpus=1,name=config-6.1-full-hotplug-002 tier=hotplug smp=1,maxcpus=2,name=config-6.1-full-hotplug-003 tier=hotplug smp=1,maxcpus=3,name=config-6.1-full-online-255 tier=online smp=255," || rc=1
	# 4 + 6 boots, and each default wide count a skip: no x2APIC here.
	local wide
	wide=$(tr ',' '\n' <<<"$DEFAULT_WIDE_ONLINE,$DEFAULT_WIDE_HOTPLUG" | wc -l)
	expect_eq "count" "$(wc -l <<<"$out")" $((10 + wide)) || rc=1
	expect_eq "wide" "$(grep -c 'skip=the kernel lacks X86_X2APIC or IRQ_REMAP' <<<"$out")" "$wide" || rc=1
	expect_eq "scenario" "$(grep 'maxcpus-2' <<<"$out" | cut -f1,12,14,15)" \
		"name=config-6.1-full-maxcpus-2	append=maxcpus=2	online=2	pid_max=40960" || rc=1
	[[ ! -s $pids && ! -e $TMP/listed ]] || {
		echo "--list booted or wrote something"
		rc=1
	}
	return $rc
}

test_sweep_bad_input_is_refused() {
	local out rc=0 opt
	for opt in "--cpus 1-300" "--jobs 0" "--variant huge" "--bogus" "--cpus" "--list extra" "--wide-hotplug 256"; do
		# shellcheck disable=SC2086 # the words of opt are separate options
		out=$("$HARNESS/sweep-smp.sh" $opt 2>&1) && rc=1
		# shellcheck disable=SC2086
		"$HARNESS/sweep-smp.sh" $opt >/dev/null 2>&1 || [[ $? == 2 ]] || {
			echo "'$opt' did not exit 2: $out"
			rc=1
		}
		[[ $out == *"Try 'sweep-smp.sh --help'."* ]] || {
			echo "'$opt': $out"
			rc=1
		}
	done
	out=$("$HARNESS/sweep-smp.sh" --cpus 1-300 2>&1) || true
	[[ $out == *"bad CPU list '1-300'"* ]] || {
		echo "message: $out"
		rc=1
	}
	if out=$("$HARNESS/sweep-smp.sh" --kernel "$TMP/none" 2>&1); then
		echo "accepted a missing kernel"
		rc=1
	fi
	[[ $out == *"--kernel $TMP/none is not readable"* ]] || {
		echo "message: $out"
		rc=1
	}
	return $rc
}

# Every script parses options one way: --help prints its usage text and
# exits 0, a usage error exits 2.
test_every_script_usage() {
	local s rc=0 out
	for s in "$HARNESS"/*.sh "$HARNESS/../ci/"*.sh; do
		# (lib.sh is sourced; guest-init.sh is the guest's /init)
		[[ $s == */lib.sh || $s == */guest-init.sh ]] && continue
		out=$("$s" --help 2>&1) || {
			echo "${s##*/} --help exits $?"
			rc=1
		}
		[[ $out == Usage:* ]] || {
			echo "${s##*/} --help: $(head -n 1 <<<"$out")"
			rc=1
		}
		"$s" --no-such-option >/dev/null 2>&1 || [[ $? == 2 ]] || {
			echo "${s##*/}: a bad option does not exit 2"
			rc=1
		}
	done
	return $rc
}

# plant_stale DIR: an earlier run's outputs, to be removed by the next.
plant_stale() {
	local f
	mkdir -p "$1/boots"
	for f in results.ktap results.csv results.xml checks.csv variants.csv \
		pid_max.svg pid_max.png jobs boots/old.log; do
		echo stale >"$1/$f"
	done
}

test_sweep_interrupted_leaves_nothing() {
	local pids="$TMP/int.pids" pid spid i f
	: >"$pids"
	plant_stale "$TMP/int"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/int" --cpus 1-4 --online "" --scenarios no --jobs 2 >/dev/null 2>&1 &
	spid=$!
	for ((i = 0; i < 100; i++)); do
		(($(wc -l <"$pids") >= 2)) && break
		sleep 0.1
	done
	kill -TERM "$spid"
	wait "$spid" && {
		echo "an interrupted sweep exited 0"
		return 1
	}
	sleep 0.5
	while read -r pid; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "fake QEMU $pid survived the interrupted sweep"
			kill -KILL "$pid"
			return 1
		fi
	done <"$pids"
	for f in results.ktap results.csv results.xml checks.csv variants.csv \
		pid_max.svg pid_max.png boots/old.log; do
		[[ ! -e $TMP/int/$f ]] || {
			echo "an interrupted sweep left $f behind"
			return 1
		}
	done
}

# A finished run keeps nothing of an earlier one: a one-variant sweep
# leaves no variants.csv of an earlier --variant all run.
test_sweep_leaves_nothing_stale() {
	local rc=0
	plant_stale "$TMP/sweep"
	sweep 255 "" "$FIX/hotplug-255.log" >/dev/null 2>&1 || rc=1
	[[ ! -e $TMP/sweep/variants.csv && ! -e $TMP/sweep/boots/old.log ]] || {
		echo "stale files survived a new run"
		rc=1
	}
	grep -qx stale "$TMP/sweep/results.xml" "$TMP/sweep/pid_max.svg" "$TMP/sweep/checks.csv" && {
		echo "a stale output was not rewritten"
		rc=1
	}
	return $rc
}

# A first run on a fresh machine says nothing that looks like an error
# while it picks the accelerator (it once printed "No such file").
test_accel_fresh_build_dir_quiet() {
	local err rc=0 v
	v=$(QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=crash "$HARNESS/accel.sh" \
		"$TMP/fresh-build" "$FIX/config-6.1-full" "$FIX/config-6.1-full" \
		"$FIX/config-6.1-full" 2>"$TMP/accel.err") || rc=1
	expect_eq "verdict" "$v" tcg || rc=1
	err=$(cat "$TMP/accel.err")
	[[ $err == "accel.sh: accelerator: tcg ("* && $(wc -l <<<"$err") == 1 ]] || {
		echo "stderr: $err"
		rc=1
	}
	return $rc
}

test_kunit_parse_judges_ktap() {
	local rc=0 out
	[[ -r $FIX/../../../build/src/linux-source-6.1/tools/testing/kunit/kunit.py ||
		-r /usr/src/linux-source-6.1.tar.xz ]] || {
		echo "SKIP: no kunit.py and no linux-source-6.1"
		return 0
	}
	sweep 255 "" "$FIX/hotplug-255.log" --out "$TMP/kpsweep" >/dev/null 2>&1 || {
		echo "the fake sweep failed"
		return 1
	}
	report_folder "$TMP/kp"
	"$HARNESS/report.sh" "$TMP/kp" >/dev/null 2>&1 || true
	out=$("$HARNESS/../ci/kunit-parse.sh" --build-dir "$HARNESS/../build" "$TMP/kp/results.ktap") && rc=1
	[[ $out == *"Testing complete."*"failed: "* ]] || {
		echo "kunit.py did not see the failures: $out"
		rc=1
	}
	"$HARNESS/../ci/kunit-parse.sh" --build-dir "$HARNESS/../build" "$TMP/kpsweep/results.ktap" >/dev/null || {
		echo "kunit.py parse rejects a passing sweep's results.ktap"
		rc=1
	}
	return $rc
}

# --- shards and their merge -----------------------------------------

# same_results A B: the two folders report the same boots, verdicts and
# checks; only the timings (results.csv's seconds) may differ.
same_results() {
	local f rc=0
	for f in jobs results.ktap checks.csv; do
		cmp -s "$1/$f" "$2/$f" || {
			echo "$f differs: $(diff "$1/$f" "$2/$f" | head -n 4)"
			rc=1
		}
	done
	cmp -s <(cut -d, -f1-6,8- "$1/results.csv") <(cut -d, -f1-6,8- "$2/results.csv") || {
		echo "results.csv differs"
		rc=1
	}
	return $rc
}

# The split: every job in exactly one shard, for N = 1..8, and the heavy
# boots spread.
test_shard_split() {
	local n i rc=0 jobs="$TMP/shard-jobs"
	job_kernel "$FIX/config-6.1-full" "$FIX/config-6.1-full" /i s tcg
	{
		for i in 1 2 3 4 5 6 7 8 9 10 33 64 128 255; do
			make_job "hotplug-$i" hotplug "$i" 1 "1,maxcpus=$i"
		done
		for i in 1 64 128 192 255; do
			make_job "online-$i" online "$i" "$i" "$i"
		done
	} >"$jobs"
	for ((n = 1; n <= 8; n++)); do
		for ((i = 1; i <= n; i++)); do
			"$HARNESS/shard.sh" "$i/$n" "$jobs"
		done | sort >"$TMP/all"
		cmp -s "$TMP/all" <(sort "$jobs") || {
			echo "N=$n: the shards do not hold every job exactly once"
			rc=1
		}
	done
	# The two heaviest (192 and 255 online) go to shards 1 and 2, the
	# 128 to shard 3, and shard 4 gets the most light boots.
	expect_eq "4 shards, heavy boots" "$(for i in 1 2 3 4; do
		"$HARNESS/shard.sh" "$i/4" "$jobs" | grep -cE $'\tsmp=(128|192|255)\t' || true
	done | tr '\n' ' ')" "1 1 1 0 " || rc=1
	expect_eq "stable" "$("$HARNESS/shard.sh" 2/3 "$jobs" | md5sum)" \
		"$("$HARNESS/shard.sh" 2/3 "$jobs" | md5sum)" || rc=1
	if "$HARNESS/shard.sh" 5/4 "$jobs" >/dev/null 2>&1; then
		echo "shard 5/4 accepted"
		rc=1
	fi
	return $rc
}

# Two shards run one after the other in separate folders, merged, equal
# one unsharded run; then the same by splitting that run's folder into
# N = 1..8 shards and merging them back.
test_shard_merge_equals_one_run() {
	local rc=0 n i d
	sweep 1-4,33,255 "" "$FIX/hotplug-255.log" --scenarios yes --out "$TMP/one" >/dev/null 2>&1 || true
	for i in 1 2; do
		sweep 1-4,33,255 "" "$FIX/hotplug-255.log" --scenarios yes --shard "$i/2" \
			--out "$TMP/sh$i" >/dev/null 2>&1 || true
		[[ $(cat "$TMP/sh$i/shard") == "$i/2" ]] || rc=1
	done
	"$HARNESS/merge-results.sh" "$TMP/merged" "$TMP/sh1" "$TMP/sh2" >/dev/null 2>&1 && rc=1
	same_results "$TMP/one" "$TMP/merged" || rc=1
	for ((n = 1; n <= 8; n++)); do
		for ((i = 1; i <= n; i++)); do
			d="$TMP/split-$n-$i"
			mkdir -p "$d/boots"
			cp "$TMP/one/plan" "$TMP/one/kernels" "$d/"
			"$HARNESS/shard.sh" "$i/$n" "$TMP/one/plan" >"$d/jobs"
			while IFS= read -r line; do
				cp "$TMP/one/boots/$(kv_get "$line" name).log"* "$d/boots/"
			done <"$d/jobs"
		done
		"$HARNESS/merge-results.sh" "$TMP/merged-$n" "$TMP/split-$n-"* >/dev/null 2>&1 && rc=1
		same_results "$TMP/one" "$TMP/merged-$n" || {
			echo "N=$n"
			rc=1
		}
	done
	return $rc
}

test_merge_refuses_bad_shards() {
	local rc=0 d="$TMP/bad"
	sweep 1-4 "" "$FIX/hotplug-255.log" --shard 1/2 --out "$d/a" >/dev/null 2>&1 || true
	sweep 1-4 "" "$FIX/hotplug-255.log" --shard 2/2 --out "$d/b" >/dev/null 2>&1 || true
	must_fail "of the plan is in no shard" "$HARNESS/merge-results.sh" "$d/m" "$d/a" || rc=1
	must_fail "is in two shards" "$HARNESS/merge-results.sh" "$d/m" "$d/a" "$d/b" "$d/a" || rc=1
	cp -r "$d/b" "$d/c"
	echo "config-6.1-full sha256 0000" >"$d/c/kernels"
	must_fail "booted different kernels or series" "$HARNESS/merge-results.sh" "$d/m" "$d/a" "$d/c" || rc=1
	sweep 1-5 "" "$FIX/hotplug-255.log" --shard 2/2 --out "$d/e" >/dev/null 2>&1 || true
	must_fail "come from different plans" "$HARNESS/merge-results.sh" "$d/m" "$d/a" "$d/e" || rc=1
	return $rc
}

# Shards run with a baseline merge into the same compare.csv as one run.
test_merge_baselines() {
	local rc=0 d="$TMP/mb" k="$TMP/mb-stock" s out
	mkdir -p "$k"
	: >"$k/vmlinux"
	cp "$FIX/config-6.1-full" "$k/.config"
	local -a shard=()
	for s in 1/2 2/2 all; do
		out="$d/${s%%/*}" shard=(--shard "$s")
		[[ $s != all ]] || shard=()
		sweep 1-4 "" "$FIX/hotplug-255.log" --out "$out" --wide-online "" --wide-hotplug "" \
			"${shard[@]}" >/dev/null 2>&1 || true
		QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=replay FAKE_QEMU_LOG="$FIX/hotplug-255.log" \
			"$HARNESS/run-baseline.sh" "$out" "config-6.1-full=$k/vmlinux" >/dev/null 2>&1 || {
			echo "run-baseline.sh failed on $out"
			rc=1
		}
	done
	"$HARNESS/merge-results.sh" "$d/m" "$d/1" "$d/2" >/dev/null 2>&1 || true
	expect_eq "merged" "$(cat "$d/m/compare.csv")" "$(cat "$d/all/compare.csv")" || rc=1
	expect_eq "rows" "$(wc -l <"$d/all/compare.csv")" 5 || rc=1
	expect_eq "stock boots" "$(grep -c '^ok\|^not ok' "$d/m/baseline/results.ktap")" 4 || rc=1
	return $rc
}

# The ready CI definitions parse as YAML, shard the sweep over a matrix
# whose size matches --shard's N, merge after it, and run only options
# that sweep-smp.sh documents.
test_ci_definitions() {
	local repo=$HARNESS/.. out opt help rc=0
	out=$(python3 - "$repo/ci/github/pid-max-sweep.yml" "$repo/ci/gitlab/pid-max-sweep.gitlab-ci.yml" <<'PY'
import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))
gl = yaml.safe_load(open(sys.argv[2]))
shards = gh["jobs"]["sweep"]["strategy"]["matrix"]["shard"]
assert shards == list(range(1, len(shards) + 1)), shards
runs = [s.get("run", "") for s in gh["jobs"]["sweep"]["steps"]]
sweep = [r for r in runs if "harness/sweep-smp.sh" in r]
assert len(sweep) == 1 and "--shard ${{ matrix.shard }}/%d" % len(shards) in sweep[0], sweep
assert gh["jobs"]["merge"]["needs"] == "sweep"
assert any("harness/merge-results.sh" in s.get("run", "") for s in gh["jobs"]["merge"]["steps"])
assert gl["sweep"]["parallel"] >= 2 and gl["sweep"]["stage"] == "sweep"
script = " ".join(gl["sweep"]["script"])
assert '--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"' in script, script
assert gl["merge"]["needs"][0]["job"] == "sweep"
assert any("harness/merge-results.sh" in c for c in gl["merge"]["script"])
print(sweep[0] + " " + script)
PY
	) || {
		echo "the CI definitions do not parse or lack a part: $out"
		return 1
	}
	# (the help in a variable: grep -q on a pipe would SIGPIPE the writer)
	help=$("$HARNESS/sweep-smp.sh" --help)
	for opt in $(grep -o -- '--[a-z-]*' <<<"$out" | sort -u); do
		grep -q -- "^  $opt " <<<"$help" || {
			echo "the CI definitions use $opt, which sweep-smp.sh --help does not name"
			rc=1
		}
	done
	return $rc
}

# --- missing tools, a stale series, a full disk ----------------------

# must_fail WANT_MESSAGE CMD...: CMD exits non-zero, says WANT_MESSAGE,
# and reports no pass.
must_fail() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "succeeded: $*"
		return 1
	fi
	[[ $out == *"$want"* ]] || {
		echo "message lacks '$want': $out"
		return 1
	}
	if grep -qE '^[1-9][0-9]* passed' <<<"$out"; then
		echo "reported a pass: $out"
		return 1
	fi
}

test_missing_qemu_named() {
	QEMU=/nonexistent/qemu-system-x86_64 must_fail \
		"not found: apt-get install qemu-system-x86" \
		"$HARNESS/sweep-smp.sh" --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --cpus 1 \
		--online "" --scenarios no --out "$TMP/noqemu"
}

test_missing_busybox_named() {
	BUSYBOX=/nonexistent/busybox must_fail "apt-get install busybox-static" \
		"$HARNESS/build-initramfs.sh" "$TMP/nobusybox"
}

test_missing_tarball_named() {
	PIDMAX_TARBALL=/nonexistent/linux-source-6.1.tar.xz must_fail \
		"apt-get install linux-source-6.1" \
		"$HARNESS/build-kernel.sh" "$TMP/notarball" 6.1 full
}

# A tree whose kernel/pid.c is not the one the series was made for.
test_stale_series_refused() {
	local tree="$TMP/stale/linux-source-6.1" b="$TMP/stale-build"
	mkdir -p "$tree/kernel"
	printf 'int pid_max = 1;\n' >"$tree/kernel/pid.c"
	tar -C "$TMP/stale" -cJf "$TMP/stale.tar.xz" linux-source-6.1
	PIDMAX_TARBALL="$TMP/stale.tar.xz" must_fail \
		"the series does not apply to linux-source-6.1 with --fuzz=0" \
		"$HARNESS/build-kernel.sh" "$b" 6.1 full || return 1
	[[ ! -e $b/src/linux-source-6.1/.harness-series ]] || {
		echo "a failed push was recorded as applied"
		return 1
	}
	[[ ! -d $b/src/linux-source-6.1/.pc ]] || {
		echo "a failed push left patches applied"
		return 1
	}
}

# A full disk: the initramfs is written into /dev/full.
test_full_disk_named() {
	local b="$TMP/full"
	mkdir -p "$b/bin"
	printf '#!/bin/sh\nhead -c 1048576 /dev/zero\n' >"$b/bin/gen_init_cpio"
	chmod +x "$b/bin/gen_init_cpio"
	ln -s /dev/full "$b/initramfs.cpio.tmp"
	must_fail "gen_init_cpio failed (disk full?)" "$HARNESS/build-initramfs.sh" "$b" || return 1
	[[ ! -e $b/initramfs.cpio ]] || {
		echo "a failed write left an initramfs behind"
		return 1
	}
}

# --- runner ----------------------------------------------------------

mapfile -t tests < <(declare -F | awk '$3 ~ /^test_/ { print $3 }')
# run-tests.sh NAME...: only the tests whose names contain a NAME.
if (($#)); then
	mapfile -t tests < <(printf '%s\n' "${tests[@]}" | grep -F "$(printf '%s\n' "$@")")
fi
echo "KTAP version 1"
echo "1..${#tests[@]}"
passed=0 failed=0 i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	if (set -euo pipefail && "$t") >"$TMP/out" 2>&1; then
		passed=$((passed + 1))
		# A test that does not apply here says "SKIP: reason" first.
		if [[ $(head -n 1 "$TMP/out") == "SKIP: "* ]]; then
			echo "ok $i ${t#test_} # SKIP $(head -n 1 "$TMP/out" | cut -c7-)"
			continue
		fi
		echo "ok $i ${t#test_}"
	else
		failed=$((failed + 1))
		sed 's/^/# /' "$TMP/out"
		echo "not ok $i ${t#test_}"
	fi
done
echo "# totals: pass:$passed fail:$failed"
echo "$passed passed, $failed failed"
((failed == 0))
