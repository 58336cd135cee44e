#!/bin/bash
# boot-guest.sh - run one job: boot its QEMU guest and keep the serial
# console log.
#
# Usage: harness/boot-guest.sh JOB LOG
# JOB is a job line (plan.sh); its kernel, initrd, accel (tcg or kvm;
# TCG on one host thread up to 64 vCPUs, see accel_arg),
# smp (QEMU's -smp: "N" or "N,maxcpus=M"), machine (a row of
# harness/machines: pc, the default; wide; vmware; virt), qemu (default:
# $QEMU or the machine's architecture's, harness/arches), mem, timeout,
# append (extra kernel parameters), initrd_extra (a cpio archive on top
# of the initramfs), holes (a CPU list: the machine's device tree
# without those CPUs' enable method, holes-dtb.sh) and dt_cpus (that
# device tree describing that many CPUs) fields say how. Writes the console to LOG
# and "qemu_exit=.. timed_out=0|1 seconds=.." to LOG.meta. A guest still
# running after its timeout is killed by its own pid. The harness's
# kernel command line carries no pid_max setting; only a job's append
# does, for the scenario boots that test the override. $QEMU overrides
# the emulator (the self-tests use a fake one).
set -euo pipefail

# (No dirname, date or awk per boot: each fork costs the host a few
# milliseconds while two guests keep both cores busy.)
HARNESS=${BASH_SOURCE[0]%/*}
[[ $HARNESS != "${BASH_SOURCE[0]}" ]] || HARNESS=.
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/boot-guest.sh JOB LOG
Boot the guest of one JOB line, its console into LOG and LOG.meta."

parse_options "$USAGE" "" "$@"
set -- "${OPTS[@]:1}"
(($# == 2)) || usage_error "expects JOB and LOG"
declare -A job=()
kv_load job "$1"
log=$2
for key in kernel initrd smp mem timeout accel; do
	[[ -n ${job[$key]:-} ]] || die "the job lacks its $key field"
done
kernel=${job[kernel]} initrd=${job[initrd]} smp=${job[smp]}
timeout=${job[timeout]} accel=${job[accel]}
# The machine's own arguments are a row of harness/machines, its
# architecture's emulator, console and parameters one of harness/arches.
args=()
machine_args "${job[machine]:-pc}" args || die "the job's machine: see above"
arch_row "$MACHINE_ARCH" || die "the machine ${job[machine]:-pc}'s architecture: see above"
# A job may name its own QEMU (the wide tiers: QEMU 10, fetch-qemu.sh).
qemu=${job[qemu]:-${QEMU:-$ARCH_QEMU}}

[[ -r $kernel ]] || die "kernel $kernel is not readable"
# "builtin": the kernel carries its initramfs (the wide kernels).
initrd_args=(-initrd "$initrd")
[[ $initrd != builtin ]] || initrd_args=()
[[ $initrd == builtin || -r $initrd ]] || die "initramfs $initrd is not readable"
# initrd_extra: a cpio archive the guest gets on top (the selftests):
# alone beside a builtin initramfs, else appended to a copy of the
# initramfs (the kernel unpacks concatenated archives in turn).
extra=${job[initrd_extra]:-}
if [[ -n $extra ]]; then
	[[ -r $extra ]] || die "initrd_extra $extra is not readable"
	if [[ $initrd == builtin ]]; then
		initrd_args=(-initrd "$extra")
	else
		cat "$initrd" "$extra" >"$log.initrd" || die "cannot write $log.initrd"
		initrd_args=(-initrd "$log.initrd")
	fi
fi
command -v "$qemu" >/dev/null ||
	die "$qemu not found: apt-get install ${ARCH_PACKAGES%%,*}"
[[ $smp =~ ^[0-9]+(,maxcpus=[0-9]+)?$ ]] ||
	die "smp must be N or N,maxcpus=M, not '$smp'"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "timeout must be seconds, not '$timeout'"
[[ ${job[mem]} =~ ^[1-9][0-9]*[MG]$ ]] || die "mem must be like 512M, not '${job[mem]}'"
case $accel in
tcg | kvm) ;;
*) die "unknown accelerator '$accel'" ;;
esac

# The architecture's parameters come first (harness/arches: on x86, lpj=
# skips delay-loop calibration and tsc=reliable the clocksource
# watchdog, both seconds per CPU under TCG). Expedited RCU grace
# periods save about 0.3 s of a one-CPU boot. Emulated CPUs on a busy
# host can starve RCU's kthread past the default 21 s stall warning,
# which is the emulator's pace, not a kernel fault: a real stall still
# shows as a hang past the boot's timeout. panic=-1 turns a panic into a
# reset, which -no-reboot turns into a QEMU exit.
append="console=$ARCH_CONSOLE${ARCH_APPEND:+ $ARCH_APPEND} rcupdate.rcu_expedited=1"
append+=" rcupdate.rcu_cpu_stall_timeout=120 panic=-1"
append+=${job[append]:+ ${job[append]}}

# accel_arg ACCEL VCPUS: sets ACCEL_ARG, QEMU's -accel for a guest that
# starts VCPUS vCPUs. TCG runs up to TCG_SINGLE_MAX of them on one host
# thread, in turn (thread=single), and larger guests a host thread a
# vCPU. With a thread a vCPU, Debian's kernels hung or oopsed on a
# stale int3 after patching a static key, beside a busy host core; in
# turn they did not, and booted faster. Past 64 vCPUs in turn is slower
# by far (docs/testing.md, "TCG's threads").
TCG_SINGLE_MAX=64
accel_arg() {
	if [[ $1 == tcg ]] && (($2 <= TCG_SINGLE_MAX)); then
		ACCEL_ARG=tcg,thread=single
	else
		ACCEL_ARG=$1
	fi
}

# (rm only when there is something to remove: most logs are new.)
[[ ! -e $log && ! -e $log.meta ]] || rm -f "$log" "$log.meta"
qpid="" spid=""
cleanup() {
	[[ -z $spid ]] || kill "$spid" 2>/dev/null
	if [[ -n $qpid ]]; then
		kill -KILL "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	exit 130
}
trap cleanup INT TERM HUP

# BOOT_STYLE=kunit boots the way the kernel's kunit.py boots x86_64 (a
# bzImage, 1 GiB, QEMU's default accelerator options, console=ttyS0 and
# nothing else): bench.sh's reference.
accel_arg "$accel" "${smp%%,*}"
args+=(-accel "$ACCEL_ARG" -m "${job[mem]}")
# holes: the machine's own device tree for this -smp and -m, less the
# enable method of those CPUs (the possible map's holes); dt_cpus: that
# device tree describing as many CPUs, past the ones QEMU runs.
if [[ -n ${job[holes]:-}${job[dt_cpus]:-} ]]; then
	"$HARNESS/holes-dtb.sh" --cpus "${job[dt_cpus]:-0}" "$log.dtb" "${job[holes]:-}" \
		"$qemu" "${args[@]}" -smp "$smp" ||
		die "no device tree with holes '${job[holes]:-}' and dt_cpus '${job[dt_cpus]:-}' (see above)"
	args+=(-dtb "$log.dtb")
fi
if [[ ${BOOT_STYLE:-} == kunit ]]; then
	args=(-m 1024)
	append="console=ttyS0${job[append]:+ ${job[append]}}"
fi

start=$EPOCHREALTIME
"$qemu" "${args[@]}" -smp "$smp" \
	-nodefaults -display none -no-reboot \
	-serial "file:$log" \
	-kernel "$kernel" "${initrd_args[@]}" -append "$append" \
	</dev/null >"$log.qemu" 2>&1 &
qpid=$!

# The watchdog: a sleep of the timeout beside the guest; whichever ends
# first is reaped at once (no polling), and a guest still running when
# the sleep ends is killed by its own pid.
sleep "$timeout" &
spid=$!
timed_out=0 rc=0 first=""
# (braces: keep the shell's own "Killed" notice out of the output)
{ wait -n -p first "$qpid" "$spid" || rc=$?; } 2>/dev/null
if [[ $first == "$spid" ]]; then
	spid=
	kill -KILL "$qpid" 2>/dev/null || true
	timed_out=1 rc=0
	{ wait "$qpid" || rc=$?; } 2>/dev/null
else
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	spid=
fi
qpid=
end=$EPOCHREALTIME
[[ -z $extra || $initrd == builtin ]] || rm -f "$log.initrd"
[[ -z ${job[holes]:-}${job[dt_cpus]:-} ]] || rm -f "$log.dtb"
# A QEMU that never started leaves no log: an empty one to parse.
[[ -e $log ]] || : >"$log"
# EPOCHREALTIME has six decimals: the difference in microseconds,
# printed in seconds to two decimals.
us=$((${end//[.,]/} - ${start//[.,]/} + 5000))
printf -v seconds '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000))
echo "qemu_exit=$rc timed_out=$timed_out seconds=$seconds" >"$log.meta.tmp"
mv "$log.meta.tmp" "$log.meta"
