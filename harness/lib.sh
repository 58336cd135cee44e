# shellcheck shell=bash
# lib.sh - helpers shared by the harness scripts; sourced, never run.
#
# Holds the pieces the self-tests exercise without a VM: the CPU list
# parser, the Kconfig reader and the expected-value formula.

# The most vCPUs QEMU's TCG accelerator will start on this QEMU (7.2).
MAX_QEMU_CPUS=255

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

info() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# parse_cpu_list LIST: print each CPU count of LIST ("1,2,32-34,255") on
# its own line, sorted and without repeats. "all" means 1..MAX_QEMU_CPUS;
# an empty LIST prints nothing. Returns 1 with a message on bad input.
parse_cpu_list() {
	local list=$1 item lo hi n
	local -a counts=()

	[[ -z $list ]] && return 0
	[[ $list == all ]] && list="1-$MAX_QEMU_CPUS"
	local IFS=,
	for item in $list; do
		if [[ $item =~ ^([0-9]+)$ ]]; then
			lo=${BASH_REMATCH[1]}
			hi=$lo
		elif [[ $item =~ ^([0-9]+)-([0-9]+)$ ]]; then
			lo=${BASH_REMATCH[1]}
			hi=${BASH_REMATCH[2]}
		else
			echo "bad CPU list '$1': '$item' is not N or N-M" >&2
			return 1
		fi
		# Force base 10: "010" is ten, not eight.
		lo=$((10#$lo))
		hi=$((10#$hi))
		if ((lo < 1 || hi > MAX_QEMU_CPUS)); then
			echo "bad CPU list '$1': '$item' is outside 1-$MAX_QEMU_CPUS" >&2
			return 1
		fi
		if ((lo > hi)); then
			echo "bad CPU list '$1': '$item' runs backwards" >&2
			return 1
		fi
		for ((n = lo; n <= hi; n++)); do
			counts+=("$n")
		done
	done
	printf '%s\n' "${counts[@]}" | sort -n -u
}

# kconfig_get CONFIG_FILE SYMBOL: print the value of CONFIG_SYMBOL in a
# .config ("y", "1", a number...), or "n" when it is not set.
kconfig_get() {
	local file=$1 sym=$2 line

	line=$(grep -E "^CONFIG_${sym}=" "$file" | tail -n 1) || true
	if [[ -z $line ]]; then
		echo n
	else
		echo "${line#*=}"
	fi
}

# kconfig_pid_params CONFIG_FILE: print "BASE_SMALL IS_64BIT KUNIT" (each
# 0 or 1) for a kernel .config; KUNIT is 1 when the series' KUnit suite is
# built in. BASE_SMALL is an int (0/1) in 6.1 and a bool (y/n) in later
# trees; both spellings are accepted.
kconfig_pid_params() {
	local file=$1 small is64 kunit=0

	[[ -r $file ]] || {
		echo "kernel config '$file' is not readable" >&2
		return 1
	}
	grep -q '^CONFIG_X86=y' "$file" || {
		echo "kernel config '$file' is not an x86 config" >&2
		return 1
	}
	case $(kconfig_get "$file" BASE_SMALL) in
	1 | y) small=1 ;;
	*) small=0 ;;
	esac
	case $(kconfig_get "$file" 64BIT) in
	y) is64=1 ;;
	*) is64=0 ;;
	esac
	[[ $(kconfig_get "$file" PID_MAX_KUNIT_TEST) == y ]] && kunit=1
	echo "$small $is64 $kunit"
}

# kconfig_version CONFIG_FILE: the kernel version a .config was made for
# ("6.12.118"), from its header.
kconfig_version() {
	sed -n 's|^# Linux/[^ ]* \([0-9][0-9.]*\) Kernel Configuration$|\1|p' "$1" | head -n 1
}

# tcg_counts_hotplug_cpus VERSION: true when an x86 kernel of VERSION
# counts the not-present CPUs of QEMU's MADT (Enabled=0) as possible
# under TCG. Since 6.3, acpi_is_processor_usable() counts them only for
# a detected hypervisor, and TCG is not one: -smp 1,maxcpus=N then gives
# one possible CPU. KVM would be detected.
tcg_counts_hotplug_cpus() {
	local major minor
	IFS=. read -r major minor _ <<<"$1"
	[[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || return 0
	((major < 6 || (major == 6 && minor < 3)))
}

# expected_vars CPUS BASE_SMALL IS_64BIT: set EXP_MAX, EXP_MIN, EXP_LIMIT
# and EXP_CLAMPED to what the patched kernel must compute for CPUS CPU
# ids on x86 (4 KiB pages):
#
#   default = BASE_SMALL ? 4096 : 32768              (PID_MAX_DEFAULT)
#   limit   = BASE_SMALL ? 4096 * 8 :
#             64-bit ? 4194304 : default             (PID_MAX_LIMIT)
#   pid_max = min(limit, max(default, 1024 * CPUS))
#   min     = min(pid_max, max(301, 8 * CPUS))       (RESERVED_PIDS + 1)
#   clamped = 1 when either min() cut a value
#
# This is the formula, written down independently of the kernel source;
# it must never be fed with values read back from a guest.
expected_vars() {
	local cpus=$1 small=$2 is64=$3 dflt want

	if ! [[ $cpus =~ ^[0-9]+$ ]] || ((10#$cpus < 1)); then
		echo "expected_pid_max: bad CPU count '$cpus'" >&2
		return 1
	fi
	cpus=$((10#$cpus))
	EXP_CLAMPED=0
	if ((small)); then
		dflt=4096
		EXP_LIMIT=$((4096 * 8))
	else
		dflt=32768
		if ((is64)); then
			EXP_LIMIT=$((4 * 1024 * 1024))
		else
			EXP_LIMIT=$dflt
		fi
	fi
	want=$((1024 * cpus))
	((want < dflt)) && want=$dflt
	EXP_MAX=$want
	if ((EXP_MAX > EXP_LIMIT)); then
		EXP_MAX=$EXP_LIMIT
		EXP_CLAMPED=1
	fi
	want=$((8 * cpus))
	((want < 301)) && want=301
	EXP_MIN=$want
	if ((EXP_MIN > EXP_MAX)); then
		EXP_MIN=$EXP_MAX
		EXP_CLAMPED=1
	fi
	return 0
}

# expected_pid_max CPUS BASE_SMALL IS_64BIT: print
# "pid_max pid_max_min pid_max_limit clamped" (see expected_vars).
expected_pid_max() {
	expected_vars "$@" || return 1
	echo "$EXP_MAX $EXP_MIN $EXP_LIMIT $EXP_CLAMPED"
}

# record_field KEY RECORD: the value of KEY in a parse-console.sh record
# ("none" when it has no such key).
record_field() {
	local kv
	for kv in $2; do
		if [[ ${kv%%=*} == "$1" ]]; then
			echo "${kv#*=}"
			return
		fi
	done
	echo none
}

# The cases the KUnit suite "pid_max" must report, one per line.
KUNIT_CASES_FILE=$(dirname "${BASH_SOURCE[0]}")/config/kunit-pid_max.cases

# kunit_missing RECORD: print the first case of KUNIT_CASES_FILE that the
# record's kunit_passed list lacks; print nothing when none is missing.
kunit_missing() {
	local passed=",$1," name
	while read -r name; do
		[[ -z $name || $name == \#* ]] && continue
		[[ $passed == *",$name,"* ]] || {
			echo "$name"
			return
		}
	done <"$KUNIT_CASES_FILE"
}

# judge_boot RECORD CPUS ONLINE BASE_SMALL IS_64BIT [KUNIT [PID_MAX
#            [SYSCTL_ERR]]]: judge one boot from its parse-console.sh
# RECORD against what was asked (CPUS possible, ONLINE online), the
# formula, and, when KUNIT is 1, the KUnit suite's cases. PID_MAX, when
# given, is the value /proc must show instead of the formula's (a
# sysctl.kernel.pid_max= override; the boot line still shows the
# formula's), and SYSCTL_ERR 1 says the kernel must have refused such an
# override. Prints "VERDICT REASON": VERDICT is pass, fail, timeout or
# panic; REASON is "-" on a pass. A boot passes only when every check
# below holds.
judge_boot() {
	local record=$1 cpus=$2 online=$3 small=$4 is64=$5 kunit=${6:-0}
	local want=${7:-} want_err=${8:-0} kv
	local exp_max exp_min exp_limit exp_clamped exp_line missing
	local -A r=()

	for kv in $record; do
		r[${kv%%=*}]=${kv#*=}
	done
	read -r exp_max exp_min exp_limit exp_clamped < <(expected_pid_max "$cpus" "$small" "$is64")
	exp_line=no
	((exp_clamped)) && exp_line=yes
	[[ -n $want ]] || want=$exp_max

	if [[ ${r[timed_out]:-0} == 1 ]]; then
		echo "timeout TIMEOUT: guest killed after ${r[seconds]:-?}s"
	elif [[ ${r[panic]:-0} == 1 ]]; then
		echo "panic PANIC: the kernel panicked"
	elif [[ ${r[begin]:-0} != 1 ]]; then
		echo "fail the guest's init never reported (qemu exit ${r[qemu_exit]:-none})"
	elif [[ ${r[end]:-0} != 1 ]]; then
		echo "fail no final marker: the guest stopped before its checks ended"
	elif [[ ${r[notoks]:-0} != 0 ]]; then
		echo "fail guest checks failed: ${r[failed]:-?}"
	elif [[ ${r[plan]:-none} == none || ${r[oks]:-0} != "${r[plan]}" ]]; then
		echo "fail ${r[oks]:-0} guest results for a plan of ${r[plan]:-none}"
	elif ((kunit)) && [[ ${r[kunit]:-none} != ok || ${r[kunit_notoks]:-0} != 0 ]]; then
		echo "fail KUnit suite pid_max: ${r[kunit]:-none}, failed cases: ${r[kunit_failed]:-none}"
	elif ((kunit)) && [[ ${r[kunit_oks]:-0} != "${r[kunit_plan]:-none}" ]]; then
		echo "fail KUnit suite pid_max: ${r[kunit_oks]:-0} results for a plan of ${r[kunit_plan]:-none}"
	elif ((kunit)) && missing=$(kunit_missing "${r[kunit_passed]:-}") && [[ -n $missing ]]; then
		echo "fail KUnit suite pid_max: case $missing is missing"
	elif [[ ${r[oops]:-0} == 1 ]]; then
		echo "fail the console shows an oops, BUG or WARNING"
	elif [[ ${r[possible]:-none} != "$cpus" ]]; then
		echo "fail the guest has ${r[possible]:-no} possible CPUs, not $cpus"
	elif [[ ${r[online]:-none} != "$online" ]]; then
		echo "fail the guest has ${r[online]:-no} online CPUs, not $online"
	elif [[ ${r[pid_max]:-none} != "$want" ]]; then
		echo "fail pid_max ${r[pid_max]:-none}, expected $want"
	elif [[ ${r[pid_max_min]:-none} != "$exp_min" ]]; then
		echo "fail pid_max_min ${r[pid_max_min]:-none}, expected $exp_min"
	elif [[ ${r[pid_max_max]:-none} != "$exp_limit" ]]; then
		echo "fail pid_max_max ${r[pid_max_max]:-none}, expected $exp_limit"
	elif [[ ${r[line_default]:-none} != "$exp_max" || ${r[line_min]:-none} != "$exp_min" ]]; then
		echo "fail boot line says ${r[line_default]:-none}/${r[line_min]:-none}, expected $exp_max/$exp_min"
	elif [[ ${r[line_cpus]:-none} != "$cpus" ]]; then
		echo "fail boot line nr_cpu_ids ${r[line_cpus]:-none}, expected $cpus"
	elif [[ ${r[clamped]:-none} != "$exp_line" ]]; then
		echo "fail boot line clamped: ${r[clamped]:-none}, expected $exp_line"
	elif [[ ${r[sysctl_err]:-0} != "$want_err" ]]; then
		if ((want_err)); then
			echo "fail the kernel did not refuse the sysctl.kernel.pid_max= setting"
		else
			echo "fail the kernel refused the sysctl.kernel.pid_max= setting"
		fi
	else
		echo "pass -"
	fi
}
