#!/bin/bash
# run-tests.sh - self-tests of the harness's own logic; no kernel build
# and no real VM: the expected-value formula, the CPU list parser, the
# .config reader, the console parser and judge on recorded console logs
# (fixtures/), the report, and boots and sweeps against a fake QEMU.
#
# Prints KTAP and ends with "N passed, N failed"; exits 1 on a failure.
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

# judge LOG CPUS ONLINE SMALL IS64 [KUNIT [PID_MAX [SYSCTL_ERR]]]: the
# verdict for a recorded log.
judge() {
	local record
	record=$("$HARNESS/parse-console.sh" "$1")
	judge_boot "$record" "$2" "$3" "$4" "$5" "${6:-0}" "${7:-}" "${8:-0}"
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
	local r rc=0
	r=$("$HARNESS/parse-console.sh" "$FIX/hotplug-255.log")
	local want
	for want in begin=1 end=1 plan=6 oks=6 notoks=0 possible=255 online=1 \
		pid_max=261120 pid_max_min=2040 pid_max_max=4194304 line_cpus=255 \
		clamped=no panic=0 oops=0 timed_out=0; do
		[[ " $r " == *" $want "* ]] || {
			echo "record lacks $want: $r"
			rc=1
		}
	done
	return $rc
}

test_judge_recorded_passes() {
	local rc=0
	expect_eq "hotplug 255" "$(judge "$FIX/hotplug-255.log" 255 1 0 1)" "pass -" || rc=1
	expect_eq "hotplug 33" "$(judge "$FIX/hotplug-033.log" 33 1 0 1)" "pass -" || rc=1
	expect_eq "online 8" "$(judge "$FIX/online-008.log" 8 8 0 1)" "pass -" || rc=1
	return $rc
}

test_judge_wrong_expectations_fail() {
	local rc=0 v
	expect_eq "wrong CPU count" "$(judge "$FIX/hotplug-255.log" 254 1 0 1)" \
		"fail the guest has 255 possible CPUs, not 254" || rc=1
	expect_eq "wrong online count" "$(judge "$FIX/online-008.log" 8 1 0 1)" \
		"fail the guest has 8 online CPUs, not 1" || rc=1
	expect_eq "wrong variant" "$(judge "$FIX/hotplug-255.log" 255 1 1 1)" \
		"fail pid_max 261120, expected 32768" || rc=1
	return $rc
}

test_judge_wrong_values_fail() {
	local rc=0 v log="$TMP/edited.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^# pid_max: 261120/# pid_max: 261119/'
	expect_eq "pid_max off by one" "$(judge "$log" 255 1 0 1)" \
		"fail pid_max 261119, expected 261120" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/^# pid_max_min: 2040/# pid_max_min: 301/'
	expect_eq "unscaled minimum" "$(judge "$log" 255 1 0 1)" \
		"fail pid_max_min 301, expected 2040" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/nr_cpu_ids: 255/nr_cpu_ids: 1/'
	expect_eq "boot line CPU count" "$(judge "$log" 255 1 0 1)" \
		"fail boot line nr_cpu_ids 1, expected 255" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/clamped: no/clamped: yes/'
	expect_eq "boot line clamp" "$(judge "$log" 255 1 0 1)" \
		"fail boot line clamped: yes, expected no" || rc=1
	return $rc
}

test_judge_guest_failures() {
	local rc=0 v log="$TMP/edited.log"
	edit_log "$FIX/hotplug-255.log" "$log" 's/^ok 3 pid_max_min_probe/not ok 3 pid_max_min_probe # 1 was accepted/'
	expect_eq "not ok line" "$(judge "$log" 255 1 0 1)" \
		"fail guest checks failed: pid_max_min_probe" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" '/^ok 5 /d'
	expect_eq "missing result" "$(judge "$log" 255 1 0 1)" \
		"fail 5 guest results for a plan of 6" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" 's/^Run \/init as init process/WARNING: CPU: 0 PID: 1 at kernel\/pid.c:650 pid_idr_init+0x0\/0x0\n&/'
	expect_eq "warning on the console" "$(judge "$log" 255 1 0 1)" \
		"fail the console shows an oops, BUG or WARNING" || rc=1
	return $rc
}

test_judge_truncated_logs_fail() {
	local rc=0 v log="$TMP/cut.log"
	edit_log "$FIX/hotplug-255.log" "$log" '/^ok 4 /,$d'
	expect_eq "cut in the checks" "$(judge "$log" 255 1 0 1)" \
		"fail no final marker: the guest stopped before its checks ended" || rc=1
	edit_log "$FIX/hotplug-255.log" "$log" '/^PIDMAX-HARNESS-BEGIN/,$d'
	expect_eq "cut before init" "$(judge "$log" 255 1 0 1)" \
		"fail the guest's init never reported (qemu exit 0)" || rc=1
	: >"$log"
	v=$(judge "$log" 255 1 0 1)
	[[ $v == fail* ]] || {
		echo "empty log: $v"
		rc=1
	}
	return $rc
}

test_judge_recorded_panic() {
	local v
	v=$(judge "$FIX/panic.log" 1 1 0 1)
	expect_eq "panic" "$v" "panic PANIC: the kernel panicked"
}

test_judge_recorded_hang() {
	local v
	v=$(judge "$FIX/hang.log" 4 1 0 1)
	[[ $v == "timeout TIMEOUT: guest killed after "* ]] || {
		echo "hang: $v"
		return 1
	}
}

test_kunit_recorded_pass() {
	local rc=0
	expect_eq "params" "$(kconfig_pid_params "$FIX/config-6.1-full-kunit")" "0 1 1" || rc=1
	expect_eq "kunit boot" "$(judge "$FIX/kunit-hotplug-040.log" 40 1 0 1 1)" "pass -" || rc=1
	# A kernel built with the suite must show it: an old log lacks it.
	expect_eq "no suite" "$(judge "$FIX/hotplug-033.log" 33 1 0 1 1)" \
		"fail KUnit suite pid_max: none, failed cases: none" || rc=1
	return $rc
}

# A console with printk timestamps (printk.time=1) parses the same.
test_kunit_recorded_with_timestamps() {
	expect_eq "printk.time=1" "$(judge "$FIX/printk-time-001.log" 1 1 0 1 1)" "pass -"
}

test_kunit_failures_fail() {
	local rc=0 v log="$TMP/kunit.log"
	edit_log "$FIX/kunit-hotplug-040.log" "$log" \
		's/^    ok 6 pid_max_no_overflow/    not ok 6 pid_max_no_overflow/; s/^ok 1 pid_max$/not ok 1 pid_max/'
	v=$(judge "$log" 40 1 0 1 1)
	expect_eq "failed case" "$v" \
		"fail KUnit suite pid_max: notok, failed cases: pid_max_no_overflow" || rc=1
	edit_log "$FIX/kunit-hotplug-040.log" "$log" '/^    ok 7 /d'
	v=$(judge "$log" 40 1 0 1 1)
	expect_eq "short of plan" "$v" "fail KUnit suite pid_max: 6 results for a plan of 7" || rc=1
	edit_log "$FIX/kunit-hotplug-040.log" "$log" '/^    ok 5 /d; s/^    1\.\.7$/    1..6/'
	v=$(judge "$log" 40 1 0 1 1)
	expect_eq "case gone" "$v" "fail KUnit suite pid_max: case pid_max_base_small is missing" || rc=1
	edit_log "$FIX/kunit-hotplug-040.log" "$log" '/^    ok 4 /,$d'
	v=$(judge "$log" 40 1 0 1 1)
	expect_eq "cut in the suite" "$v" "fail the guest's init never reported (qemu exit 0)" || rc=1
	return $rc
}

test_judge_recorded_scenarios() {
	local rc=0
	expect_eq "extended" "$(judge "$FIX/extended-064.log" 64 1 0 1 1)" "pass -" || rc=1
	expect_eq "override" "$(judge "$FIX/sysctl-override.log" 64 1 0 1 1 30000)" "pass -" || rc=1
	expect_eq "override, formula expected" "$(judge "$FIX/sysctl-override.log" 64 1 0 1 1)" \
		"fail pid_max 30000, expected 65536" || rc=1
	expect_eq "refused" "$(judge "$FIX/sysctl-too-low.log" 64 1 0 1 1 "" 1)" "pass -" || rc=1
	expect_eq "refusal unexpected" "$(judge "$FIX/sysctl-too-low.log" 64 1 0 1 1 "" 0)" \
		"fail the kernel refused the sysctl.kernel.pid_max= setting" || rc=1
	expect_eq "refusal missing" "$(judge "$FIX/sysctl-override.log" 64 1 0 1 1 30000 1)" \
		"fail the kernel did not refuse the sysctl.kernel.pid_max= setting" || rc=1
	return $rc
}

test_judge_extended_failures() {
	local v log="$TMP/ext.log"
	edit_log "$FIX/extended-064.log" "$log" 's/^ok \([0-9]*\) bad_write_2pow63$/not ok \1 bad_write_2pow63 # accepted/'
	v=$(judge "$log" 64 1 0 1 1)
	expect_eq "bad write accepted" "$v" "fail guest checks failed: bad_write_2pow63"
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
	expect_eq "6.12 online 64" "$(judge "$FIX/online-064-6.12.log" 64 64 0 1 1)" "pass -" || rc=1
	return $rc
}

test_tree_6_12_hotplug_tier_refused() {
	QEMU="$TESTS/fake-qemu.sh" must_fail "use --cpus '' and --online LIST for this kernel" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.12-full" \
		--config "$FIX/config-6.12-full" --build-dir "$TMP/build" \
		--cpus 1-4 --online "" --out "$TMP/612"
}

# --- the report ------------------------------------------------------

test_report_counts_missing_boots() {
	local out="$TMP/report" rc=0
	mkdir -p "$out/boots"
	printf '%s\n' "a-hotplug-255 255 1 1,maxcpus=255 261120 2040 - 0" \
		"a-online-033 33 33 33 33792 301 - 0" >"$out/jobs"
	cp "$FIX/hotplug-255.log" "$out/boots/a-hotplug-255.log"
	printf 'a-hotplug-255 255 1\n%s\npass -\n' \
		"$("$HARNESS/parse-console.sh" "$FIX/hotplug-255.log")" >"$out/boots/a-hotplug-255.rec"
	expect_eq "counts" "$("$HARNESS/report.sh" "$out")" "1 1" || rc=1
	expect_eq "csv header" "$(head -n 1 "$out/results.csv")" \
		"cpus,online,pid_max,expected,pid_max_min,expected_min,seconds,verdict" || rc=1
	expect_eq "csv row 1" "$(sed -n 2p "$out/results.csv")" \
		"255,1,261120,261120,2040,2040,2.10,pass" || rc=1
	expect_eq "csv row 2" "$(sed -n 3p "$out/results.csv")" \
		"33,none,none,33792,none,301,none,fail" || rc=1
	grep -q '^not ok 2 a-online-033 # not run' "$out/results.ktap" || {
		echo "KTAP lacks the missing boot"
		rc=1
	}
	grep -q '^  ok 3 pid_max_min_probe$' "$out/results.ktap" || {
		echo "KTAP lacks the nested guest results"
		rc=1
	}
	expect_eq "junit cases" "$(grep -c '<testcase ' "$out/results.xml")" 2 || rc=1
	grep -q '<testsuite name="pid_max sweep" tests="2" failures="1">' "$out/results.xml" || {
		echo "junit suite line: $(grep '<testsuite ' "$out/results.xml")"
		rc=1
	}
	grep -q '<failure type="fail" message="not run: the sweep was interrupted">' "$out/results.xml" || {
		echo "junit lacks the failure"
		rc=1
	}
	[[ ! -e $out/results.csv.tmp && ! -e $out/results.ktap.tmp && ! -e $out/results.xml.tmp ]] || rc=1
	return $rc
}

# --- boots and sweeps against a fake QEMU ----------------------------

test_boot_fake_hang_is_killed() {
	local log="$TMP/hang.log" pids="$TMP/hang.pids" pid
	: >"$pids"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/boot-guest.sh" "$FIX/config-6.1-full" "$FIX/config-6.1-full" \
		1,maxcpus=4 "$log" 2
	grep -q 'timed_out=1' "$log.meta" || {
		echo "meta: $(cat "$log.meta")"
		return 1
	}
	pid=$(head -n 1 "$pids")
	if kill -0 "$pid" 2>/dev/null; then
		echo "the hung fake QEMU ($pid) is still running"
		return 1
	fi
	[[ $(judge "$log" 4 1 0 1) == timeout* ]]
}

test_boot_fake_crash_fails() {
	local log="$TMP/crash.log"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=crash \
		"$HARNESS/boot-guest.sh" "$FIX/config-6.1-full" "$FIX/config-6.1-full" \
		1,maxcpus=4 "$log" 5
	expect_eq "crash" "$(judge "$log" 4 1 0 1)" \
		"fail the guest's init never reported (qemu exit 1)"
}

# sweep CPUS ONLINE LOG: a sweep of a recorded log through the fake QEMU.
sweep() {
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=replay FAKE_QEMU_LOG="$3" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/sweep" --cpus "$1" --online "$2" --scenarios no
}

test_sweep_fake_pass() {
	local out
	out=$(sweep 255 "" "$FIX/hotplug-255.log" 2>&1) || {
		echo "$out"
		return 1
	}
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 0 failed"
}

test_sweep_fake_wrong_count_fails() {
	local out rc=0
	out=$(sweep 254,255 "" "$FIX/hotplug-255.log" 2>&1) && rc=1
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 1 failed" || return 1
	grep -q '^254,1,261120,260096,2040,2032,[0-9.]*,fail$' "$TMP/sweep/results.csv" || {
		echo "csv: $(cat "$TMP/sweep/results.csv")"
		return 1
	}
	return $rc
}

test_sweep_bad_input_is_refused() {
	local out
	if out=$("$HARNESS/sweep-smp.sh" --cpus 1-300 2>&1); then
		echo "accepted --cpus 1-300"
		return 1
	fi
	[[ $out == *"bad CPU list '1-300'"* ]] || {
		echo "message: $out"
		return 1
	}
	if out=$("$HARNESS/sweep-smp.sh" --jobs 0 2>&1); then
		echo "accepted --jobs 0"
		return 1
	fi
	if out=$("$HARNESS/sweep-smp.sh" --kernel "$TMP/none" 2>&1); then
		echo "accepted a missing kernel"
		return 1
	fi
	[[ $out == *"--kernel $TMP/none is not readable"* ]] || {
		echo "message: $out"
		return 1
	}
}

test_sweep_interrupted_leaves_nothing() {
	local pids="$TMP/int.pids" pid spid i
	: >"$pids"
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
	[[ ! -e $TMP/int/results.csv && ! -e $TMP/int/results.ktap ]] || {
		echo "an interrupted sweep left results behind"
		return 1
	}
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
		"$HARNESS/sweep-smp.sh" --kernel "$FIX/config-6.1-full" --cpus 1 \
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
echo "KTAP version 1"
echo "1..${#tests[@]}"
passed=0 failed=0 i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	if (set -euo pipefail && "$t") >"$TMP/out" 2>&1; then
		passed=$((passed + 1))
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
