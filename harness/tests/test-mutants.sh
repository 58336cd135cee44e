# shellcheck shell=bash
# test-mutants.sh - what mutants.sh boots (--list: nothing built): each
# tree's mutants folder (MUTANTS of harness/trees), a mutant's header
# (Harness-Arch, -Online, -Possible, -Holes), the kernel table's build
# for each tier, and the skips of another architecture.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# mutant NAME HEADER...: a mutant patch in $TMP/m with those header
# lines (its diff is never applied by --list).
mutant() {
	mkdir -p "$TMP/m"
	{
		echo "$1: a fault of the self-tests."
		echo
		printf '%s\n' "${@:2}"
		printf -- '--- a/kernel/pid.c\n+++ b/kernel/pid.c\n'
	} >"$TMP/m/$1.patch"
}

# The headers: the architectures (x86_64 when none), the tiers each
# adds or replaces, on a kernel table's builds of a tree 9.9 of its own
# (each tier on its variant's first kernel that boots it, or with
# --fewest-kernels the last); the lists of --cpus and --online (a mutant
# left with no tier a skip); another architecture's mutant a skip with
# the reason.
test_mutants_headers() {
	local rc=0 out
	mutant a-plain
	mutant b-online "Harness-Online: 2,33,255"
	mutant c-possible "Harness-Possible: 4097"
	mutant d-arm "Harness-Arch: arm64" "Harness-Holes: 64"
	{
		cat "$HARNESS/trees"
		echo "9.9 host . $TMP/m"
	} >"$TMP/trees"
	cat >"$TMP/kernels" <<-'EOF'
		9.9 x86_64 full  full     external hotplug,online,scenario
		9.9 x86_64 full  full-big builtin  hotplug,online,possible
		9.9 x86_64 small small    external hotplug,online,possible
		9.9 arm64  full  full     external hotplug,online,holes
	EOF
	export PIDMAX_TREES="$TMP/trees" PIDMAX_KERNELS="$TMP/kernels"
	out=$("$HARNESS/mutants.sh" --list --tree 9.9) || return 1
	expect_eq "each kernel" "$out" "a-plain full full --only hotplug:1,5,32,33,38,255 --only online:2,33
a-plain small small --only hotplug:1,5,32,33,38,255 --only online:2,33
b-online full full --only hotplug:1,5,32,33,38,255 --only online:2,33,255
b-online small small --only hotplug:1,5,32,33,38,255 --only online:2,33,255
c-possible full full --only hotplug:1,5,32,33,38,255 --only online:2,33
c-possible full full-big --only possible:4097
c-possible small small --only hotplug:1,5,32,33,38,255 --only online:2,33 --only possible:4097
d-arm skip Harness-Arch: arm64: not for x86_64" || rc=1
	out=$("$HARNESS/mutants.sh" --list --tree 9.9 --variant full --fewest-kernels --cpus 1 --online "" |
		grep -e '^c-possible ' -e '^b-online ') || return 1
	expect_eq "fewest, lists" "$out" "b-online full full-big --only hotplug:1 --only online:2,33,255
c-possible full full-big --only hotplug:1 --only possible:4097" || rc=1
	out=$("$HARNESS/mutants.sh" --list --tree 9.9 --arch arm64 --online "") || return 1
	expect_eq "arm64" "$(grep -v ' skip Harness-Arch: x86_64: not for arm64$' <<<"$out")" \
		"d-arm full full --only hotplug:1,32,33 --only holes:64" || rc=1
	out=$("$HARNESS/mutants.sh" --list --tree 9.9 --variant small --cpus "" --online "") || return 1
	expect_eq "no tier" "$out" "a-plain skip no tier to boot: --cpus and --online are empty and its header names none
b-online small small --only online:2,33,255
c-possible small small --only possible:4097
d-arm skip Harness-Arch: arm64: not for x86_64" || rc=1
	must_fail "--cpus wants a LIST" "$HARNESS/mutants.sh" --list --tree 9.9 --cpus 1,x || rc=1
	sed -i "s|^9\.9 .*|9.9 host . -|" "$TMP/trees"
	must_fail "tree 9.9 has no mutants" "$HARNESS/mutants.sh" --list --tree 9.9 || rc=1
	return $rc
}

# 7.3's own mutants (harness/mutants/7.3): min-above-max on either
# architecture (KUnit sees it in any boot), num-possible on arm64 alone
# with the holes machine at 64 (x86's possible map is dense).
test_mutants_7_3() {
	local rc=0 out
	out=$("$HARNESS/mutants.sh" --list --tree 7.3 --fewest-kernels --cpus 1 --online "") || return 1
	expect_eq "x86_64" "$out" "min-above-max full full-maxsmp-wide --only hotplug:1
num-possible skip Harness-Arch: arm64: not for x86_64" || rc=1
	out=$("$HARNESS/mutants.sh" --list --tree 7.3 --arch arm64 --fewest-kernels --cpus 1 --online "") || return 1
	expect_eq "arm64" "$(sed 's/ full [^ ]* --only/ full BUILD --only/' <<<"$out")" \
		"min-above-max full BUILD --only hotplug:1
num-possible full BUILD --only hotplug:1 --only holes:64" || rc=1
	return $rc
}
