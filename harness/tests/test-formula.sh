# shellcheck shell=bash
# test-formula.sh - the expected-value formula against the README's table, the CPU list parser, the .config reader, the job line format.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

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

# The job format: values with spaces and '=' survive, a TAB is refused.
test_job_fields() {
	local j rc=0
	local -A f=()
	j=$(job_for 40 2 0 1 0 "append=nr_cpus=40 maxcpus=2 x=y")
	kv_load f "$j"
	expect_eq "append" "${f[append]}" "nr_cpus=40 maxcpus=2 x=y" || rc=1
	expect_eq "pid_max" "${f[pid_max]}" 40960 || rc=1
	expect_eq "line_min" "${f[line_min]}" 320 || rc=1
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

test_tree_6_12() {
	local rc=0
	# A real 6.12 console, with its KUnit suite.
	expect_eq "6.12 online 64" "$(judge "$FIX/online-064-6.12.log" 64 64 0 1 1)" pass || rc=1
	return $rc
}
