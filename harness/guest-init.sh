#!/bin/sh
# guest-init.sh - /init of the harness initramfs (busybox sh, in the guest).
#
# Reports what the kernel chose for pid_max in KTAP on the serial console,
# then reboots (QEMU runs with -no-reboot, so that ends the VM). It
# measures, it does not judge: the host computes the expected values.
#
# Only a line "PIDMAX-HARNESS-END" printed after every check makes the
# host read the boot as complete; a guest that dies, hangs or panics
# before it can never pass (the vmtest.sh rule: failure until proven).
PATH=/bin
export PATH
SYSCTL=/proc/sys/kernel/pid_max

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# Keep kernel messages off the console from here on; dmesg has them all.
echo 1 >/proc/sys/kernel/printk

n=0
fails=0
ok() {
	n=$((n + 1))
	echo "ok $n $1"
}
not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n $1 # $2"
}

# try_write V: write V to pid_max. Returns 0 when accepted, 1 on EINVAL,
# 2 on any other error (printed as a diagnostic).
try_write() {
	if echo "$1" 2>/tmp/err >"$SYSCTL"; then
		return 0
	fi
	grep -q 'Invalid argument' /tmp/err && return 1
	echo "# write of $1 failed: $(cat /tmp/err)"
	return 2
}

echo "PIDMAX-HARNESS-BEGIN"
echo "KTAP version 1"
echo "1..6"
echo "# cmdline: $(cat /proc/cmdline)"
echo "# cpus: possible=$(cat /sys/devices/system/cpu/possible) online=$(cat /sys/devices/system/cpu/online)"

# 1. pid_max as the kernel set it at boot.
boot=$(cat "$SYSCTL")
case $boot in
'' | *[!0-9]*) not_ok pid_max_readable "read '$boot'" ;;
*) ok pid_max_readable ;;
esac
echo "# pid_max: $boot"

# 2. The kernel's own boot line about it.
line=$(dmesg | grep -m 1 'pid_max: default:' | sed 's/^\[[^]]*\] *//')
if [ -n "$line" ]; then
	ok boot_line_present
else
	not_ok boot_line_present "no 'pid_max: default:' in the kernel log"
fi
echo "# boot_line: $line"

# 3. pid_max_min, found from user space by bisection: the smallest value
#    a write accepts. Invariant: lo is refused with EINVAL, hi accepted.
lo=1
hi=$boot
probe=ok
try_write "$hi" || probe="pid_max itself ($hi) was refused"
try_write "$lo" && probe="1 was accepted"
while [ "$probe" = ok ] && [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	try_write "$mid"
	case $? in
	0) hi=$mid ;;
	1) lo=$mid ;;
	*) probe="write of $mid failed unexpectedly" ;;
	esac
done
if [ "$probe" = ok ] && ! try_write $((hi - 1)) && try_write "$hi"; then
	ok pid_max_min_probe
	echo "# pid_max_min: $hi"
else
	not_ok pid_max_min_probe "$probe"
	echo "# pid_max_min: unknown"
fi

# 4. pid_max_max (PID_MAX_LIMIT), found the same way: the largest value
#    a write accepts. Invariant: lo accepted, hi refused with EINVAL.
lo=$boot
hi=2147483647
probe=ok
try_write "$lo" || probe="pid_max itself ($lo) was refused"
try_write "$hi" && probe="$hi was accepted"
while [ "$probe" = ok ] && [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	try_write "$mid"
	case $? in
	0) lo=$mid ;;
	1) hi=$mid ;;
	*) probe="write of $mid failed unexpectedly" ;;
	esac
done
if [ "$probe" = ok ] && ! try_write $((lo + 1)) && try_write "$lo"; then
	ok pid_max_max_probe
	echo "# pid_max_max: $lo"
else
	not_ok pid_max_max_probe "$probe"
	echo "# pid_max_max: unknown"
fi

# 5. The boot value is back, so nothing after this sees a probe's value.
if try_write "$boot" && [ "$(cat "$SYSCTL")" = "$boot" ]; then
	ok pid_max_restored
else
	not_ok pid_max_restored "pid_max is $(cat "$SYSCTL"), not $boot"
fi

# 6. A clean kernel log: no warning, bug, oops or panic anywhere.
bad=$(dmesg | grep -v -i 'command line:' |
	grep -E 'WARNING|BUG|Oops|Call Trace|panic' | head -n 5)
if [ -z "$bad" ]; then
	ok kernel_log_clean
else
	not_ok kernel_log_clean "kernel log has: $(echo "$bad" | head -n 1)"
	echo "$bad" | sed 's/^/# dmesg: /'
fi

echo "# totals: pass:$((n - fails)) fail:$fails"
echo "PIDMAX-HARNESS-END"
reboot -f
# reboot -f only returns on failure; never let init exit (that panics).
while :; do sleep 60; done
