# shellcheck shell=bash
# test-guest.sh - guest-init.sh's own functions, run on the host under
# busybox sh (the guest's shell) with a stand-in for the kernel's sysctl.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# guest_edge LOW HIGH [ODD] -- GOOD BAD: run guest-init.sh's edge
# against a pid_max that accepts LOW..HIGH (and fails any other way on
# ODD); print EDGE and the writes it made, or PROBE.
guest_edge() {
	local low=$1 high=$2 odd=${3:-}
	shift 3
	{
		sed -n '/^edge() {$/,/^}$/p' "$HARNESS/guest-init.sh"
		cat <<SH
writes=0
try_write() {
	writes=\$((writes + 1))
	[ "\$1" = "$odd" ] && return 2
	[ "\$1" -ge $low ] && [ "\$1" -le $high ] && return 0
	return 1
}
if edge "\$@"; then echo "edge \$EDGE"; else echo "probe \$PROBE"; fi
SH
	} >"$TMP/edge.sh"
	busybox sh "$TMP/edge.sh" "$@"
}

# The bisection finds each end of the writable range from either side,
# with the boot value as the good end, and says what went wrong.
test_guest_edge_bisection() {
	needs busybox busybox-static
	local rc=0
	expect_eq "minimum" "$(guest_edge 2040 4194304 "" 261120 1)" "edge 2040" || rc=1
	expect_eq "maximum" "$(guest_edge 2040 4194304 "" 261120 2147483647)" "edge 4194304" || rc=1
	expect_eq "a one-value range" "$(guest_edge 32768 32768 "" 32768 1)" "edge 32768" || rc=1
	expect_eq "good refused" "$(guest_edge 2040 4194304 "" 1000 1)" \
		"probe pid_max itself (1000) was refused" || rc=1
	expect_eq "bad accepted" "$(guest_edge 1 4194304 "" 261120 1)" "probe 1 was accepted" || rc=1
	expect_eq "odd error" "$(guest_edge 2040 4194304 130560 261120 1)" \
		"probe write of 130560 failed unexpectedly" || rc=1
	return $rc
}

# guest_modules ORDER...: run guest-init.sh's load_modules and
# module_checks on the host under busybox sh, with its files under $TMP
# (/lib/modules, /dev/kmsg, /tmp) and stand-ins for insmod, which loads
# good.ko (logging a KUnit suite to the kernel log) and refuses any
# other, and dmesg, which prints the kernel log. ORDER is
# /lib/modules/order's lines; the kernel log holds a line before. Prints
# what the guest prints, then "modules N".
guest_modules() {
	mkdir -p "$TMP/lib/modules" "$TMP/tmp"
	printf '%s\n' "$@" >"$TMP/lib/modules/order"
	[[ -d $TMP/kmsg ]] || echo "pid_max: default: 32768 minimum: 301" >"$TMP/kmsg"
	{
		echo "n=0 fails=0"
		sed -n '/^ok() {$/,/^}$/p; /^not_ok() {$/,/^}$/p' "$HARNESS/guest-init.sh"
		sed -n '/^load_modules() {$/,/^}$/p; /^module_checks() {$/,/^}$/p' "$HARNESS/guest-init.sh" |
			sed "s|/tmp/|$TMP/tmp/|g; s|/lib/modules|$TMP/lib/modules|g; s|/dev/kmsg|$TMP/kmsg|g"
		cat <<SH
insmod() {
	case \$1 in
	*/good.ko)
		printf '    KTAP version 1\n    # Subtest: pid_max\n    1..1\n    ok 1 a\nok 1 pid_max\n' >>"$TMP/kmsg" ;;
	*)
		echo "good: Unknown symbol pid_max_scale (err -2)" >>"$TMP/kmsg"
		echo "insmod: can't insert '\$1': unknown symbol in module" >&2
		return 1 ;;
	esac
}
dmesg() { cat "$TMP/kmsg" 2>/dev/null; }
load_modules
echo PIDMAX-HARNESS-BEGIN
module_checks
echo "modules \$MODULES"
SH
	} >"$TMP/modules.sh"
	busybox sh "$TMP/modules.sh"
}

# A module the host packed is loaded before the report, the kernel's log
# of its load from the mark on (the suite's KTAP) copied to the console
# and nothing before it; a module that does not load is a not ok with
# insmod's reason; a kernel log the guest cannot mark fails each load.
test_guest_loads_modules() {
	needs busybox busybox-static
	local rc=0 out want
	out=$(guest_modules good.ko bad.ko)
	want="# insmod $TMP/lib/modules/good.ko
    KTAP version 1
    # Subtest: pid_max
    1..1
    ok 1 a
ok 1 pid_max
# insmod: good.ko loaded
# insmod $TMP/lib/modules/bad.ko
good: Unknown symbol pid_max_scale (err -2)
# insmod: bad.ko did not load: insmod exit 1: insmod: can't insert '$TMP/lib/modules/bad.ko': unknown symbol in module
PIDMAX-HARNESS-BEGIN
ok 1 insmod_good
not ok 2 insmod_bad # insmod exit 1: insmod: can't insert '$TMP/lib/modules/bad.ko': unknown symbol in module
modules 2"
	expect_eq "two modules" "$out" "$want" || rc=1
	expect_eq "none packed" "$(guest_modules | tail -n 2)" "PIDMAX-HARNESS-BEGIN
modules 0" || rc=1
	rm -f "$TMP/kmsg"
	mkdir "$TMP/kmsg"
	[[ $(guest_modules good.ko 2>/dev/null | grep '^not ok') == "not ok 1 insmod_good # cannot mark the kernel log: no $TMP/kmsg" ]] || {
		echo "an unmarked kernel log passed: $(guest_modules good.ko 2>&1)"
		rc=1
	}
	return $rc
}

# guest_check PID PARENT ARG0 ARG1 [MARK]: guest-init.sh's guest_only,
# run under busybox sh with its marker GUEST_MARK at MARK (a folder the
# test makes; none when MARK is empty): "guest", or "refused: WHY".
guest_check() {
	local mark=${5-$TMP/mark}
	[[ -z $mark ]] || mkdir -p "$mark"
	{
		echo "GUEST_MARK='${mark:-$TMP/no-mark}'"
		sed -n '/^guest_only() {$/,/^}$/p' "$HARNESS/guest-init.sh"
		echo 'if guest_only "$@"; then echo guest; else echo "refused: $WHY"; fi'
	} >"$TMP/guest-only.sh"
	busybox sh "$TMP/guest-only.sh" "$@"
}

# guest-init.sh runs as the guest's init (PID 1, as /init) and as the
# checks that init starts (parent PID 1, "/init checks"), and nowhere
# else: not without the initramfs's marker, not under another name, not
# as any other process.
test_guest_init_knows_the_guest() {
	needs busybox busybox-static
	local rc=0
	expect_eq "init" "$(guest_check 1 0 /init "")" guest || rc=1
	expect_eq "checks" "$(guest_check 57 1 /init checks)" guest || rc=1
	expect_eq "no marker" "$(guest_check 1 0 /init "" "")" \
		"refused: there is no $TMP/no-mark, so this is not the harness's initramfs" || rc=1
	expect_eq "a container's PID 1" "$(guest_check 1 0 harness/guest-init.sh "")" \
		"refused: it was run as harness/guest-init.sh, not as the initramfs's /init" || rc=1
	expect_eq "init's child, not checks" "$(guest_check 57 1 /init "")" \
		"refused: process 57 (parent 1) is neither PID 1 nor the checks that PID 1 starts" || rc=1
	expect_eq "checks from a shell" "$(guest_check 57 300 /init checks)" \
		"refused: process 57 (parent 300) is neither PID 1 nor the checks that PID 1 starts" || rc=1
	return $rc
}

# The marker guest-init.sh looks for is in the initramfs that
# build-initramfs.sh packs, beside /init itself.
test_guest_init_marker_packed() {
	local b="$TMP/b" mark list
	mkdir -p "$b/bin"
	# The fake packer prints its list in place of an archive.
	printf '#!/bin/sh\ncat "$1"\n' >"$b/bin/gen_init_cpio"
	chmod +x "$b/bin/gen_init_cpio"
	mark=$(sed -n 's/^GUEST_MARK=//p' "$HARNESS/guest-init.sh")
	[[ $mark == /* ]] || { echo "no GUEST_MARK in guest-init.sh"; return 1; }
	"$HARNESS/build-initramfs.sh" "$b" >/dev/null
	list=$(cat "$b/initramfs.cpio")
	[[ $list == *$'\n'"dir $mark 0755 0 0"$'\n'* ]] || { echo "no dir $mark in: $list"; return 1; }
	[[ $list == *$'\n'"file /init $HARNESS/guest-init.sh 0755 0 0"* ]] || { echo "no /init in: $list"; return 1; }
}

# guest_root ROOT: a copy of the guest's root file system under ROOT,
# for guest-init.sh run as a host runs it, never touching the host: a
# /proc of plain files, the initramfs's marker and busybox's applets.
# ROOT/init and ROOT/harness/guest-init.sh are guest-init.sh with every
# absolute path moved under ROOT (its PATH too), and shell functions in
# place of mount, dmesg, reboot, unshare, insmod and kill that note
# their call in ROOT/calls (busybox sh runs its own applets whatever
# PATH says, but a function comes first). sandboxed checks that the copy
# names no other absolute path.
guest_root() {
	local root=$1 a
	mkdir -p "$root/bin" "$root/proc/sys/kernel" "$root/sys/devices/system/cpu" \
		"$root/tmp" "$root/dev" "$root/harness" "$root/pidmax-harness-initramfs"
	for a in sh echo cat grep sed head wc rm sleep; do
		ln -s "$(command -v busybox)" "$root/bin/$a"
	done
	echo "console=ttyS0" >"$root/proc/cmdline"
	echo 32768 >"$root/proc/sys/kernel/pid_max"
	echo 100 >"$root/proc/sys/kernel/ns_last_pid"
	echo 4 >"$root/proc/sys/kernel/printk"
	echo 0-1 >"$root/sys/devices/system/cpu/possible"
	echo 0-1 >"$root/sys/devices/system/cpu/online"
	{
		sed -n 1p "$HARNESS/guest-init.sh"
		for a in mount dmesg reboot unshare insmod kill; do
			# shellcheck disable=SC2016 # $* is for the copy to expand
			printf '%s() { echo "%s $*" >>/calls; }\n' "$a" "$a"
		done
		sed 1d "$HARNESS/guest-init.sh"
	} | sed "s#\(^\|[^[:alnum:]_.}-]\)/\([[:alpha:]]\)#\1$root/\2#g" >"$root/init"
	cp "$root/init" "$root/harness/guest-init.sh"
	chmod +x "$root/init" "$root/harness/guest-init.sh"
	sandboxed "$root/init" "$root"
}

# sandboxed FILE ROOT: FILE names no absolute path outside ROOT.
sandboxed() {
	local line n=0
	while IFS= read -r line; do
		n=$((n + 1))
		line=${line//"$2/"/}
		if [[ $line =~ (^|[^[:alnum:]_.}-])/[[:alpha:]] ]]; then
			echo "line $n of the copy still names a path outside $2: $line"
			return 1
		fi
	done <"$1"
}

# tree_state ROOT: every file under ROOT with its size, time and content.
tree_state() {
	find "$1" -printf '%y %p %s %T@\n' | sort
	find "$1" -type f -exec cat {} + | sha256sum
}

# host_run ROOT WANT CMD...: CMD (guest-init.sh as a host runs it) exits
# 1 saying that it refuses and WANT, and leaves ROOT as it was: no write
# to its pid_max or anywhere else, no mount, no reboot.
host_run() {
	local root=$1 want=$2 before out rc=0 status=0
	shift 2
	before=$(tree_state "$root")
	out=$(timeout 20 "$@" 2>&1) || status=$?
	[[ $status == 1 && $out == "guest-init.sh: refusing to run: "*"$want"* ]] || {
		echo "$*: exit $status: $(head -n 3 <<<"$out")"
		rc=1
	}
	[[ $(tree_state "$root") == "$before" ]] || {
		echo "$*: wrote under $root (pid_max $(cat "$root/proc/sys/kernel/pid_max"), calls: $(cat "$root/calls" 2>/dev/null))"
		rc=1
	}
	return $rc
}

# Run on a host, as the guest's init is started, as init starts the
# checks, from a checkout by its own #! or by a host's shell, with the
# initramfs's marker or without, guest-init.sh refuses before it
# mounts, writes or reboots anything. It runs in a copy of the guest's
# root (guest_root): the real one would write this host's pid_max.
test_guest_init_refuses_on_host() {
	needs busybox busybox-static
	local root="$TMP/root" rc=0 not="neither PID 1 nor the checks that PID 1 starts"
	guest_root "$root" || return 1
	host_run "$root" "$not" busybox sh "$root/init" || rc=1
	host_run "$root" "$not" busybox sh "$root/init" checks "last_pid_at_init=1" || rc=1
	host_run "$root" "run as $root/harness/guest-init.sh" "$root/harness/guest-init.sh" checks || rc=1
	host_run "$root" "run as $root/harness/guest-init.sh" sh "$root/harness/guest-init.sh" || rc=1
	host_run "$root" "run as $root/harness/guest-init.sh" bash "$root/harness/guest-init.sh" checks || rc=1
	rmdir "$root/pidmax-harness-initramfs"
	host_run "$root" "no $root/pidmax-harness-initramfs" busybox sh "$root/init" checks || rc=1
	return $rc
}
