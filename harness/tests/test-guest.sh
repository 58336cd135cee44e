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
