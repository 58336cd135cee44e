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
# shellcheck disable=SC2154 # get() assigns variables through read
PATH=/bin
export PATH
SYSCTL=/proc/sys/kernel/pid_max

# This script writes the kernel's pid_max: run on a host as root, it
# would change the host's own. So it runs only as what it is in the
# guest, and only inside the harness's initramfs. The kernel starts it
# as /init with PID 1; init then starts the checks as "/bin/sh /init
# checks", a child whose parent is PID 1. A shell on a host is neither
# PID 1 nor started by PID 1 with these arguments, and a container's
# first process would have to be this file at /init. The initramfs also
# holds the folder GUEST_MARK, which build-initramfs.sh packs and no
# host has. The test uses builtins only: init forks nothing before it
# measures the PID budget.
GUEST_MARK=/pidmax-harness-initramfs

# guest_only PID PARENT ARG0 ARG1: return 0 when a shell of process PID,
# whose parent is PARENT, run as ARG0 with first argument ARG1, is the
# guest's init or the checks it starts; else set WHY and return 1.
guest_only() {
	WHY=""
	if [ ! -d "$GUEST_MARK" ]; then
		WHY="there is no $GUEST_MARK, so this is not the harness's initramfs"
	elif [ "$3" != /init ]; then
		WHY="it was run as $3, not as the initramfs's /init"
	elif [ "$1" != 1 ] && { [ "$2" != 1 ] || [ "$4" != checks ]; }; then
		WHY="process $1 (parent $2) is neither PID 1 nor the checks that PID 1 starts"
	fi
	[ -z "$WHY" ]
}
if ! guest_only "$$" "$PPID" "$0" "${1:-}"; then
	echo "guest-init.sh: refusing to run: $WHY." >&2
	echo "guest-init.sh: it is the guest's /init and writes /proc/sys/kernel/pid_max; the harness boots it in QEMU (harness/boot-guest.sh), never on a host." >&2
	exit 1
fi

# As PID 1, only set up, run the checks as a child, and reboot: a shell
# that is PID 1 would die (and panic the kernel) on a failed fork, and
# while it waits for the checks it reaps every orphan they leave.
if [ "$$" = 1 ]; then
	mount -t proc proc /proc
	# The PID budget: what the kernel spent before init forked. The
	# mount above took one PID and the command substitution takes one
	# (exec keeps cat in it), so the last PID allocated when init
	# started is two below what ns_last_pid shows. Tasks and the
	# children of kthreadd are counted with builtins only: no fork.
	last=$(exec cat /proc/sys/kernel/ns_last_pid)
	set -- /proc/[0-9]*
	tasks=$#
	kthreads=none
	if [ -r /proc/2/task/2/children ]; then # CONFIG_PROC_CHILDREN
		kids=""
		read -r kids </proc/2/task/2/children || true
		# shellcheck disable=SC2086 # split the PID list into words
		set -- $kids
		kthreads=$#
	fi
	budget="last_pid_at_init=$((last - 2)) tasks=$tasks kthreads=$kthreads"
	mount -t sysfs sysfs /sys
	# Keep kernel messages off the console; dmesg has them all.
	echo 1 >/proc/sys/kernel/printk
	/bin/sh /init checks "$budget"
	reboot -f
	# reboot -f only returns on failure; never let init exit.
	while :; do sleep 60; done
fi

# What init measured before it forked ("checks BUDGET").
budget=${2:-}

# "pidmax_harness=extended" on the command line (set by the harness for
# a few boots, never a pid_max setting) adds the slower checks;
# "pidmax_pidns=W" adds the child pid namespace's, which write W there.
extended=0 pidns=""
IFS= read -r cmdline </proc/cmdline
case " $cmdline " in
*" pidmax_harness=extended "*) extended=1 ;;
esac
for word in $cmdline; do
	case $word in
	pidmax_pidns=*) pidns=${word#pidmax_pidns=} ;;
	esac
done

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

# get VAR FILE: the first line of FILE into VAR. The shell's own read
# saves a fork and exec (milliseconds each under TCG), but it reads a
# byte at a time, and a /proc/sys file returns nothing past offset 0:
# those are read with cat.
get() {
	case $2 in
	/proc/sys/*) eval "$1=\$(cat \"\$2\")" ;;
	*) IFS= read -r "$1" <"$2" || true ;;
	esac
}

# is_now V: pid_max reads back as V.
is_now() {
	get _now "$SYSCTL"
	[ "$_now" = "$1" ]
}

# try_write V: write V to pid_max. Returns 0 when accepted, 1 on EINVAL,
# 2 on any other error (printed as a diagnostic).
try_write() {
	if echo "$1" 2>/tmp/err >"$SYSCTL"; then
		return 0
	fi
	IFS= read -r _err </tmp/err || true
	case $_err in
	*'Invalid argument'*) return 1 ;;
	esac
	echo "# write of $1 failed: $_err"
	return 2
}

# edge GOOD BAD: the accepted value next to the refused ones, found by
# bisection between GOOD, which a write must accept, and BAD, which a
# write must refuse with EINVAL, on either side of GOOD. Invariant: GOOD
# accepted, BAD refused. Sets EDGE and returns 0 when the last GOOD is
# accepted and its neighbour towards BAD refused; else sets PROBE to
# what went wrong and returns 1.
edge() {
	_good=$1 _bad=$2 PROBE=ok
	try_write "$_good" || PROBE="pid_max itself ($_good) was refused"
	try_write "$_bad" && PROBE="$_bad was accepted"
	_gap=$((_bad - _good))
	while [ "$PROBE" = ok ] && [ "${_gap#-}" -gt 1 ]; do
		_mid=$(((_good + _bad) / 2))
		try_write "$_mid"
		case $? in
		0) _good=$_mid ;;
		1) _bad=$_mid ;;
		*) PROBE="write of $_mid failed unexpectedly" ;;
		esac
		_gap=$((_bad - _good))
	done
	_next=$((_good + 1))
	[ "$_gap" -gt 0 ] || _next=$((_good - 1))
	if [ "$PROBE" = ok ] && ! try_write "$_next" && try_write "$_good"; then
		EDGE=$_good
		return 0
	fi
	return 1
}

# NEW_PID: run as $(eval "$NEW_PID"), the PID of one fresh process: the
# command substitution forks once and exec keeps it to that one fork.
# shellcheck disable=SC2016 # $$ is for the new shell to expand
NEW_PID='exec sh -c "echo \$\$"'

# bad_write NAME VALUE: a write that must fail with EINVAL and leave
# pid_max as it was.
bad_write() {
	get before "$SYSCTL"
	try_write "$2"
	rc=$?
	get after "$SYSCTL"
	if [ $rc = 1 ] && [ "$after" = "$before" ]; then
		ok "bad_write_$1"
	else
		not_ok "bad_write_$1" "write of '$2': status $rc, pid_max $before -> $after"
		try_write "$boot" || true
	fi
}

# The checks of "pidmax_harness=extended" boots: 13 KTAP lines.
extended_checks() {
	# Writes outside the range, or not numbers, get EINVAL.
	bad_write below_min $((min - 1))
	bad_write above_max $((max + 1))
	bad_write zero 0
	bad_write negative -1
	bad_write non_numeric abc
	bad_write empty ""
	bad_write trailing_garbage 40000abc
	bad_write 2pow31 2147483648
	bad_write 2pow63 9223372036854775808
	bad_write 2pow64 18446744073709551616
	if try_write "$min" && is_now "$min" &&
		try_write "$max" && is_now "$max" &&
		try_write "$boot"; then
		ok edge_writes_accepted
	else
		not_ok edge_writes_accepted "min $min or max $max refused"
		try_write "$boot" || true
	fi

	# The PIDs above 32768 are really handed out, up to pid_max - 1,
	# and allocation then wraps to a low PID.
	if [ "$boot" -le 40002 ]; then
		ok "pid_space_usable # SKIP pid_max $boot is not above 40002"
	elif ! echo 40000 2>/dev/null >/proc/sys/kernel/ns_last_pid; then
		not_ok pid_space_usable "cannot write ns_last_pid (CONFIG_CHECKPOINT_RESTORE?)"
	else
		high=$(eval "$NEW_PID")
		# A kernel thread started between the write and the fork (a
		# kworker on one of 64 online CPUs, say) takes pid_max - 1
		# itself: try again, up to five times.
		tries=0
		while [ $tries -lt 5 ]; do
			tries=$((tries + 1))
			echo $((boot - 2)) >/proc/sys/kernel/ns_last_pid
			top=$(eval "$NEW_PID")
			low=$(eval "$NEW_PID")
			[ "$top" = $((boot - 1)) ] && break
		done
		echo "# pids: after 40000: $high, after pid_max-2: $top, then: $low (try $tries)"
		if [ "$high" -gt 32768 ] && [ "$top" = $((boot - 1)) ] &&
			[ "$low" -lt 32768 ]; then
			ok pid_space_usable
		else
			not_ok pid_space_usable "got PIDs $high, $top, $low"
		fi
	fi

	# Exhaustion: with pid_max lowered to pid_max_min + 200, fork and
	# hold processes until fork fails with EAGAIN (bounded: 2000 tries).
	# All of it happens in a subshell that dies of the failed fork; its
	# EXIT trap, with builtins only (nothing can fork then), puts
	# pid_max back and kills the holders before anyone else needs a PID.
	# Orphaned holders are reaped by init.
	rm -f /tmp/holders
	(
		trap 'echo "$boot" >"$SYSCTL"
			while read -r p; do kill "$p"; done </tmp/holders' EXIT
		echo $((min + 200)) >"$SYSCTL"
		i=0
		while [ $i -lt 2000 ]; do
			sleep 600 &
			echo $! >>/tmp/holders
			i=$((i + 1))
		done
	) 2>/tmp/fork.err
	held=$(wc -l </tmp/holders)
	again=""
	for i in 1 2 3 4 5 6 7 8 9 10; do
		again=$(eval "$NEW_PID" 2>/dev/null) && break
		sleep 1
	done
	echo "# exhaustion: $held holders, then: $(head -n 1 /tmp/fork.err)"
	if grep -q 'Resource temporarily unavailable' /tmp/fork.err &&
		[ "$held" -lt 2000 ] && kill -0 1 && [ -n "$again" ] &&
		is_now "$boot"; then
		ok pid_exhaustion_recovers
	else
		not_ok pid_exhaustion_recovers "held $held, new PID '$again'"
	fi
}

# pidns_checks: in a child pid namespace (unshare -p -f, its own /proc),
# read pid_max, write $pidns there, and fork twice after ns_last_pid
# W - 2: the first PID is W - 1 under a pid_max of W, the next wraps.
# Then pid_max as the parent namespace reads it. It reports what it saw
# ("# pidns: ..."); the host knows what each tree must show. pid_max is
# put back to the boot value after.
pidns_checks() {
	# shellcheck disable=SC2016 # expanded by the namespace's shell
	seen=$(unshare -p -f --mount-proc sh -c '
		k=/proc/sys/kernel
		child=$(cat $k/pid_max)
		echo "$1" >$k/pid_max && written=$(cat $k/pid_max) || written=refused
		echo $(($1 - 2)) >$k/ns_last_pid || true
		top=$(exec sh -c "echo \$\$")
		next=$(exec sh -c "echo \$\$")
		echo "child=$child written=$written top=$top next=$next"' pidns "$pidns" 2>/tmp/pidns.err)
	get parent "$SYSCTL"
	echo "# pidns: $seen parent=$parent"
	try_write "$boot" || true
	case $seen in
	child=[0-9]*' written='[0-9]*' top='[0-9]*' next='[0-9]*)
		ok pid_namespace_measured ;;
	*) not_ok pid_namespace_measured "unshare -p: '$seen' $(head -n 1 /tmp/pidns.err)" ;;
	esac
}

# selftest_checks: each of the kernel's own selftests the host put in
# /selftests/pid_namespace (build-selftests.sh), run as root: a KTAP line
# selftest_NAME, exit 0 ok, 4 (kselftest's skip) a SKIP, else not ok;
# their own output as diagnostics.
selftest_checks() {
	for t in /selftests/pid_namespace/*; do
		[ -x "$t" ] || continue
		"$t" >/tmp/selftest.out 2>&1
		rc=$?
		sed 's/^/# /' /tmp/selftest.out
		case $rc in
		0) ok "selftest_${t##*/}" ;;
		4) ok "selftest_${t##*/} # SKIP exit 4" ;;
		*) not_ok "selftest_${t##*/}" "exit $rc" ;;
		esac
	done
}
selftests=0
for t in /selftests/pid_namespace/*; do
	[ -x "$t" ] && selftests=$((selftests + 1))
done

# load_modules: insmod each module the host packed on top of the
# initramfs (/lib/modules/order, build-initramfs.sh --modules: the
# KUnit suite of a kernel that builds it as a module), in order, before
# the report. Init keeps the kernel's messages off the console, so what
# the kernel logged from the load on (a mark written to /dev/kmsg) is
# copied there: the suite's KTAP, which the host reads as it reads a
# built-in suite's. Sets MODULES to the count; /tmp/modules gets a line
# "NAME ok", or "NAME REASON" for a module that did not load, which
# module_checks reports.
load_modules() {
	MODULES=0
	: >/tmp/modules
	[ -r /lib/modules/order ] || return 0
	while read -r ko; do
		[ -n "$ko" ] || continue
		MODULES=$((MODULES + 1))
		mark="pidmax-harness: insmod $ko"
		echo "# insmod /lib/modules/$ko"
		if ! echo "$mark" 2>/dev/null >/dev/kmsg; then
			why="cannot mark the kernel log: no /dev/kmsg"
		elif insmod "/lib/modules/$ko" 2>/tmp/insmod.err </dev/null; then
			why=ok
		else
			why="insmod exit $?: $(head -n 1 /tmp/insmod.err)"
		fi
		dmesg | sed -n "/$mark\$/,\$p" | sed 1d
		if [ "$why" = ok ]; then
			echo "# insmod: $ko loaded"
		else
			echo "# insmod: $ko did not load: $why"
		fi
		echo "${ko%.ko} $why" >>/tmp/modules
	done </lib/modules/order
}

# module_checks: a KTAP line insmod_NAME for each module load_modules
# tried: ok when it loaded, else not ok with the reason.
module_checks() {
	while read -r name why; do
		if [ "$why" = ok ]; then
			ok "insmod_$name"
		else
			not_ok "insmod_$name" "$why"
		fi
	done </tmp/modules
}

load_modules
echo "PIDMAX-HARNESS-BEGIN"
echo "KTAP version 1"
total=$((6 + selftests + MODULES))
[ $extended = 1 ] && total=$((total + 13))
[ -n "$pidns" ] && total=$((total + 1))
echo "1..$total"
echo "# cmdline: $cmdline"
echo "# pid_budget: $budget"
get possible /sys/devices/system/cpu/possible
get online /sys/devices/system/cpu/online
echo "# cpus: possible=$possible online=$online"

# 1. pid_max as the kernel set it at boot.
get boot "$SYSCTL"
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
#    a write accepts (1 is refused).
min=301 max=4194304 # used by the extended checks if a probe fails
if edge "$boot" 1; then
	ok pid_max_min_probe
	echo "# pid_max_min: $EDGE"
	min=$EDGE
else
	not_ok pid_max_min_probe "$PROBE"
	echo "# pid_max_min: unknown"
fi

# 4. pid_max_max (PID_MAX_LIMIT), found the same way: the largest value
#    a write accepts (2147483647 is refused).
if edge "$boot" 2147483647; then
	ok pid_max_max_probe
	echo "# pid_max_max: $EDGE"
	max=$EDGE
else
	not_ok pid_max_max_probe "$PROBE"
	echo "# pid_max_max: unknown"
fi

# 5. The boot value is back, so nothing after this sees a probe's value.
if try_write "$boot" && is_now "$boot"; then
	ok pid_max_restored
else
	not_ok pid_max_restored "pid_max is $_now, not $boot"
fi

[ $extended = 1 ] && extended_checks
[ -n "$pidns" ] && pidns_checks
[ "$selftests" -gt 0 ] && selftest_checks
[ "$MODULES" -gt 0 ] && module_checks

# Last: a clean kernel log, no warning, bug, oops or panic anywhere.
bad=$(dmesg | grep -v -i 'command line:' |
	grep -E 'WARNING|BUG|Oops|Call [Tt]race|panic|detected stall' | head -n 5)
if [ -z "$bad" ]; then
	ok kernel_log_clean
else
	not_ok kernel_log_clean "kernel log has: $(echo "$bad" | head -n 1)"
	echo "$bad" | sed 's/^/# dmesg: /'
fi

echo "# totals: pass:$((n - fails)) fail:$fails"
echo "PIDMAX-HARNESS-END"
