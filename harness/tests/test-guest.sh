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
