#!/bin/bash
# boot-guest.sh - boot one QEMU guest and keep its serial console log.
#
# Usage: harness/boot-guest.sh KERNEL INITRD SMP LOG TIMEOUT [ACCEL]
#   SMP     QEMU's -smp: "N" (N CPUs online) or "1,maxcpus=N" (N possible,
#           one online); N at most 255
#   ACCEL   tcg (default) or kvm
# Writes the console to LOG and "qemu_exit=.. timed_out=0|1 seconds=.."
# to LOG.meta. A guest still running after TIMEOUT seconds is killed by
# its own pid. The kernel command line carries no pid_max setting.
# $QEMU overrides the emulator (the self-tests use fake ones), and
# $GUEST_APPEND adds kernel parameters (used to record failing fixtures).
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

(($# == 5 || $# == 6)) ||
	die "usage: ${0##*/} KERNEL INITRD SMP LOG TIMEOUT [ACCEL]"
kernel=$1 initrd=$2 smp=$3 log=$4 timeout=$5 accel=${6:-tcg}
qemu=${QEMU:-qemu-system-x86_64}

[[ -r $kernel ]] || die "kernel $kernel is not readable"
[[ -r $initrd ]] || die "initramfs $initrd is not readable"
command -v "$qemu" >/dev/null ||
	die "$qemu not found: apt-get install qemu-system-x86"
[[ $smp =~ ^[0-9]+(,maxcpus=[0-9]+)?$ ]] ||
	die "SMP must be N or 1,maxcpus=N, not '$smp'"
case $accel in
tcg) accel_opt=tcg ;;
kvm) accel_opt=kvm ;;
*) die "unknown accelerator '$accel'" ;;
esac

# lpj= skips delay-loop calibration and tsc=reliable the clocksource
# watchdog: both cost seconds per CPU under TCG. Expedited RCU grace
# periods save about 0.3 s of a one-CPU boot. Emulated CPUs on a busy
# host can starve RCU's kthread past the default 21 s stall warning,
# which is the emulator's pace, not a kernel fault: a real stall still
# shows as a hang past the boot's timeout. panic=-1 turns a panic into a
# reset, which -no-reboot turns into a QEMU exit.
append="console=ttyS0 lpj=10000000 tsc=reliable rcupdate.rcu_expedited=1"
append+=" rcupdate.rcu_cpu_stall_timeout=120 panic=-1"
append+=${GUEST_APPEND:+ $GUEST_APPEND}

rm -f "$log" "$log.meta"
qpid=
cleanup() {
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
args=(-machine pc -accel "$accel_opt" -m 512M)
if [[ ${BOOT_STYLE:-} == kunit ]]; then
	args=(-m 1024)
	append="console=ttyS0${GUEST_APPEND:+ $GUEST_APPEND}"
fi

start=$(date +%s.%N)
"$qemu" "${args[@]}" -smp "$smp" \
	-nodefaults -display none -no-reboot \
	-serial "file:$log" \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	</dev/null >"$log.qemu" 2>&1 &
qpid=$!

# The watchdog: poll the guest, kill it by its own pid at the timeout.
timed_out=0
deadline=$(($(date +%s) + timeout))
while kill -0 "$qpid" 2>/dev/null; do
	if (($(date +%s) >= deadline)); then
		kill -KILL "$qpid" 2>/dev/null || true
		timed_out=1
		break
	fi
	sleep 0.1
done
rc=0
# (braces: keep the shell's own "Killed" notice out of the output)
{ wait "$qpid" || rc=$?; } 2>/dev/null
qpid=
end=$(date +%s.%N)
touch "$log"
seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
echo "qemu_exit=$rc timed_out=$timed_out seconds=$seconds" >"$log.meta.tmp"
mv "$log.meta.tmp" "$log.meta"
