#!/bin/bash
# judge.sh - judge one boot: its record (parse-console.sh) against its
# job (plan.sh), every host-side check on its own.
#
# Usage: harness/judge.sh JOB RECORD
# Prints the verdict line first, then a line per check, all in lib.sh's
# KEY=VALUE format:
#   verdict=pass|fail|timeout|panic   reason=...   (reasons of the failed
#                                                   checks, "; "-joined)
#   check=NAME   result=ok|fail|skip   reason=...
# The checks, in order: timeout, panic, final_marker, guest_checks,
# kunit, log_scan, possible_cpus, online_cpus, pid_max, pid_max_min,
# pid_max_max, boot_line, sysctl_setting, and
# pid_namespace and selftests for a job that asks for them. Every expected value comes
# from the job; nothing is recomputed here and nothing is read back
# from the guest as an expectation. A boot passes only when no check
# failed (the vmtest.sh rule: a guest fails until it proves success).
#
# Sourced (report.sh, run-jobs.sh), it only defines judge_boot, which
# judges in the caller's shell, without a process per boot.
set -euo pipefail

# shellcheck source=harness/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# judge_check NAME RESULT [REASON]: one check's line into JUDGE_LINES,
# its reason into JUDGE_REASONS when it failed.
judge_check() {
	local l
	kv_join l "check=$1" "result=$2" "reason=${3:-}"
	JUDGE_LINES+=("$l")
	[[ $2 != fail ]] || JUDGE_REASONS+=("${3:-$1}")
}

# judge_expect NAME WHAT GOT WANT: ok when GOT is WANT.
judge_expect() {
	if [[ $3 == "$4" ]]; then
		judge_check "$1" ok
	else
		judge_check "$1" fail "$2 $3, expected $4"
	fi
}

# judge_pidns: the child pid namespace check of judge_boot's job j and
# record r: what the child read, that it took the write of W, the fork
# after ns_last_pid W - 2 got W - 1 and the next one wrapped below it,
# and the parent's value after, each against the job (pidns_fields).
judge_pidns() {
	local w=${j[pidns]} got want
	got="${r[pidns_child]:-none} ${r[pidns_written]:-none} ${r[pidns_top]:-none} ${r[pidns_parent]:-none}"
	want="${j[pidns_child]} $w $((w - 1)) ${j[pidns_parent]}"
	if [[ $got != "$want" ]]; then
		judge_check pid_namespace fail "child pid namespace (${j[pidns_scope]:-?} pid_max): child/written/first PID/parent $got, expected $want"
	elif ! [[ ${r[pidns_next]:-none} =~ ^[0-9]+$ ]] || ((r[pidns_next] >= w - 1)); then
		judge_check pid_namespace fail "child pid namespace: the fork after PID $((w - 1)) got ${r[pidns_next]:-none}, expected a wrap below it"
	else
		judge_check pid_namespace ok
	fi
}

# judge_boot JOB RECORD: JUDGE_LINES, the verdict line first, then a
# line per check (the format at the top of this file).
judge_boot() {
	local -A j=() r=()
	kv_load j "$1"
	kv_load r "$2"
	[[ -z ${j[skip]:-} ]] || die "job ${j[name]:-?} is a skip: nothing to judge"
	local key
	for key in name possible online pid_max pid_max_min pid_max_max \
		line_default line_min sysctl_refused kunit; do
		[[ -n ${j[$key]:-} ]] || die "the job lacks its $key field"
	done

	JUDGE_LINES=() JUDGE_REASONS=()

	if [[ ${r[timed_out]:-0} == 1 ]]; then
		judge_check timeout fail "TIMEOUT: guest killed after ${r[seconds]:-?}s under ${j[accel]:-an unknown accelerator}"
	else
		judge_check timeout ok
	fi
	if [[ ${r[panic]:-0} == 1 ]]; then
		judge_check panic fail "PANIC: the kernel panicked: ${r[panic_msg]:-none}"
	else
		judge_check panic ok
	fi
	if [[ ${r[begin]:-0} != 1 ]]; then
		judge_check final_marker fail "the guest's init never reported (qemu exit ${r[qemu_exit]:-none})"
	elif [[ ${r[end]:-0} != 1 ]]; then
		judge_check final_marker fail "no final marker: the guest stopped before its checks ended"
	else
		judge_check final_marker ok
	fi
	# The selftests of a job that records them (selftests_judged=no)
	# count as results, whatever their outcome.
	local failed=${r[failed]:-none} notoks=${r[notoks]:-0} oks=${r[oks]:-0} f recorded=""
	if [[ ${j[selftests_judged]:-} == no && $failed != none ]]; then
		failed=""
		for f in ${r[failed]//,/ }; do
			if [[ $f == selftest_* ]]; then
				recorded+=${recorded:+,}${f#selftest_} notoks=$((notoks - 1)) oks=$((oks + 1))
			else
				failed+=${failed:+,}$f
			fi
		done
	fi
	if ((notoks != 0)); then
		judge_check guest_checks fail "guest checks failed: ${failed:-?}"
	elif [[ ${r[plan]:-none} == none || $oks != "${r[plan]}" ]]; then
		judge_check guest_checks fail "$oks guest results for a plan of ${r[plan]:-none}"
	else
		judge_check guest_checks ok
	fi
	kunit_missing "${r[kunit_passed]:-}"
	if [[ ${j[kunit]} != 1 ]]; then
		judge_check kunit skip "the kernel is built without CONFIG_PID_MAX_KUNIT_TEST"
	elif [[ ${r[kunit]:-none} != ok || ${r[kunit_notoks]:-0} != 0 ]]; then
		judge_check kunit fail "KUnit suite pid_max: ${r[kunit]:-none}, failed cases: ${r[kunit_failed]:-none}"
	elif [[ ${r[kunit_oks]:-0} != "${r[kunit_plan]:-none}" ]]; then
		judge_check kunit fail "KUnit suite pid_max: ${r[kunit_oks]:-0} results for a plan of ${r[kunit_plan]:-none}"
	elif [[ -n $KUNIT_MISSING ]]; then
		judge_check kunit fail "KUnit suite pid_max: case $KUNIT_MISSING is missing"
	else
		judge_check kunit ok
	fi
	if [[ ${r[stall]:-0} == 1 ]]; then
		judge_check log_scan fail "RCU STALL: the console shows an RCU CPU stall warning (under ${j[accel]:-an unknown accelerator})"
	elif [[ ${r[oops]:-0} == 1 ]]; then
		judge_check log_scan fail "the console shows an oops, BUG or WARNING"
	else
		judge_check log_scan ok
	fi
	judge_expect possible_cpus "possible CPUs" "${r[possible]:-none}" "${j[possible]}"
	if [[ ${r[online]:-none} == none && ${r[brought_up]:-none} != none &&
		${r[brought_up]} != "${j[online]}" ]]; then
		# x86 brings its CPUs up in id order: the ones after the last
		# one up never came.
		judge_check online_cpus fail "online CPUs none, expected ${j[online]}: the kernel brought up ${r[brought_up]}, CPUs ${r[brought_up]}-$((j[online] - 1)) never came up"
	else
		judge_expect online_cpus "online CPUs" "${r[online]:-none}" "${j[online]}"
	fi
	judge_expect pid_max pid_max "${r[pid_max]:-none}" "${j[pid_max]}"
	local lmin=${r[line_min]:-none} ldef=${r[line_default]:-none}
	if ((j[pid_max_min] > j[pid_max])); then
		# A minimum above pid_max (stock with BASE_SMALL past 4096 CPU
		# ids): no value is writable, so the guest's probe finds none.
		judge_expect pid_max_min "pid_max_min (the lowest writable value)" "${r[pid_max_min]:-none}" none
	elif [[ ${r[pid_max_min]:-none} == none && $lmin =~ ^[0-9]+$ && $ldef =~ ^[0-9]+$ ]] &&
		((lmin > ldef)); then
		# Stock 6.1 with BASE_SMALL and more than 4096 CPU ids: the
		# sysctl's range is empty, so the guest's probe finds nothing.
		judge_check pid_max_min fail "pid_max_min none, expected ${j[pid_max_min]}: no value is writable, the boot line's minimum $lmin lies above pid_max $ldef"
	else
		judge_expect pid_max_min pid_max_min "${r[pid_max_min]:-none}" "${j[pid_max_min]}"
	fi
	judge_expect pid_max_max pid_max_max "${r[pid_max_max]:-none}" "${j[pid_max_max]}"
	judge_expect boot_line "boot line default/minimum" \
		"${r[line_default]:-none}/${r[line_min]:-none}" "${j[line_default]}/${j[line_min]}"
	if [[ ${r[sysctl_err]:-0} == "${j[sysctl_refused]}" ]]; then
		judge_check sysctl_setting ok
	elif [[ ${j[sysctl_refused]} == 1 ]]; then
		judge_check sysctl_setting fail "the kernel did not refuse the sysctl.kernel.pid_max= setting"
	else
		judge_check sysctl_setting fail "the kernel refused the sysctl.kernel.pid_max= setting"
	fi

	[[ -z ${j[pidns]:-} ]] || judge_pidns
	# The kernel's own selftests: every one packed passed (not skipped),
	# or their outcome recorded (selftests_judged=no).
	if [[ -n ${j[selftests]:-} && ${j[selftests_judged]:-} == no ]]; then
		judge_check selftests skip "recorded, not judged: ${r[selftests_ok]:-0} of ${j[selftests]} passed${recorded:+, failed: $recorded}"
	elif [[ -n ${j[selftests]:-} ]]; then
		judge_expect selftests "kernel selftests passed:" "${r[selftests_ok]:-0}" "${j[selftests]}"
	fi

	local verdict=pass reason="" l
	if [[ ${r[timed_out]:-0} == 1 ]]; then
		verdict=timeout
	elif [[ ${r[panic]:-0} == 1 ]]; then
		verdict=panic
	elif ((${#JUDGE_REASONS[@]})); then
		verdict=fail
	fi
	((${#JUDGE_REASONS[@]} == 0)) || printf -v reason '%s; ' "${JUDGE_REASONS[@]}"
	kv_join l "verdict=$verdict" "reason=${reason%; }"
	JUDGE_LINES=("$l" "${JUDGE_LINES[@]}")
}

main() {
	local USAGE="Usage: harness/judge.sh JOB RECORD
Judge one boot's RECORD (parse-console.sh) against its JOB line."
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 2)) || usage_error "expects JOB and RECORD"
	judge_boot "$1" "$2"
	printf '%s\n' "${JUDGE_LINES[@]}"
}

[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
