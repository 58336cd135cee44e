# shellcheck shell=bash
# test-build.sh - the builds: check-config.sh, missing tools, a stale series, a full disk.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

test_check_config() {
	local frag="$TMP/frag"
	"$HARNESS/check-config.sh" "$FIX/config-6.1-full-kunit" "$HARNESS/config/pidmax.config" \
		"$HARNESS/config/arch-x86_64.config" "$HARNESS/config/variant-full.config" || {
		echo "the recorded full config fails its own fragments"
		return 1
	}
	# A later fragment overrides an earlier one, as merge_config.sh does.
	printf 'CONFIG_NR_CPUS=512\n' >"$frag"
	printf 'CONFIG_NR_CPUS=256\n' >"$frag.2"
	"$HARNESS/check-config.sh" "$FIX/config-6.1-full" "$frag" "$frag.2" || {
		echo "a later fragment's value did not win"
		return 1
	}
	printf 'CONFIG_NR_CPUS=512\n# CONFIG_SMP is not set\n' >"$frag"
	local msg
	if msg=$("$HARNESS/check-config.sh" "$FIX/config-6.1-full" "$frag" 2>&1); then
		echo "options that did not stick passed"
		return 1
	fi
	[[ $msg == *"CONFIG_NR_CPUS=512"* && $msg == *"CONFIG_SMP"* ]] || {
		echo "message does not name both options: $msg"
		return 1
	}
}

test_missing_busybox_named() {
	BUSYBOX=/nonexistent/busybox must_fail "apt-get install busybox-static" \
		"$HARNESS/build-initramfs.sh" "$TMP/nobusybox"
}

test_missing_tarball_named() {
	PIDMAX_TARBALL=/nonexistent/linux-source-6.1.tar.xz must_fail \
		"apt-get install linux-source-6.1" \
		"$HARNESS/build-kernel.sh" "$TMP/notarball" 6.1 full
}

# A tree whose kernel/pid.c is not the one the series was made for.
test_stale_series_refused() {
	local tree="$TMP/stale/linux-source-6.1" b="$TMP/stale-build"
	mkdir -p "$tree/kernel"
	printf 'int pid_max = 1;\n' >"$tree/kernel/pid.c"
	tar -C "$TMP/stale" -cJf "$TMP/stale.tar.xz" linux-source-6.1
	PIDMAX_TARBALL="$TMP/stale.tar.xz" must_fail \
		"the series does not apply to linux-source-6.1 with --fuzz=0" \
		"$HARNESS/build-kernel.sh" "$b" 6.1 full || return 1
	[[ ! -e $b/src/linux-source-6.1/.harness-series ]] || {
		echo "a failed push was recorded as applied"
		return 1
	}
	[[ ! -d $b/src/linux-source-6.1/.pc ]] || {
		echo "a failed push left patches applied"
		return 1
	}
}

# no_tables: the tables of the commands that follow are files that do
# not exist, so that any question to them fails.
no_tables() {
	export PIDMAX_KERNELS=/nonexistent/kernels PIDMAX_TREES=/nonexistent/trees \
		PIDMAX_ARCHES=/nonexistent/arches
}

# FACTS_61_WIDE: what build-kernel.sh is told of 6.1's full-maxsmp-wide
# (harness/kernels, trees, arches), with a name of its own.
FACTS_61_WIDE=(--name told-6.1-wide --initrd builtin --suite host --series "$HARNESS/.."
	--make x86 --cross "" --image vmlinux)

# build-kernel.sh told every fact of a build asks the tables nothing
# (none exists here): --fragments answers from the facts, and a build
# runs on to its series (the fake tarball's stale pid.c), its folders
# named by --name.
test_build_told_its_facts_asks_no_table() {
	needs quilt quilt
	local tree="$TMP/stale/linux-source-6.1" b="$TMP/build" out rc=0
	no_tables
	out=$("$HARNESS/build-kernel.sh" --fragments "${FACTS_61_WIDE[@]}" "$b" 6.1 full-maxsmp-wide) || {
		echo "--fragments with its facts failed: $out"
		return 1
	}
	expect_eq "--fragments" "$out" "$b/kernel-told-6.1-wide
builtin
$HARNESS/config/pidmax.config
$HARNESS/config/arch-x86_64.config
$HARNESS/config/variant-full.config
$HARNESS/config/maxsmp.config
$HARNESS/config/wide.config" || rc=1
	mkdir -p "$tree/kernel"
	printf 'int pid_max = 1;\n' >"$tree/kernel/pid.c"
	tar -C "$TMP/stale" -cJf "$TMP/stale.tar.xz" linux-source-6.1
	PIDMAX_TARBALL="$TMP/stale.tar.xz" must_fail "the series does not apply to linux-source-6.1" \
		"$HARNESS/build-kernel.sh" "${FACTS_61_WIDE[@]}" "$b" 6.1 full-maxsmp-wide || rc=1
	[[ -s $b/logs/build-told-6.1-wide.log ]] || { echo "no log named by --name: $(ls "$b/logs")"; rc=1; }
	return $rc
}

# Some of the facts but not all: refused before anything is built, the
# missing ones named; a bad INITRD too. Asked of the tables, a build or
# architecture they lack is named.
test_build_part_of_the_facts_refused() {
	local b="$TMP/build" rc=0
	must_fail "--series --make --cross --image missing" \
		"$HARNESS/build-kernel.sh" "${FACTS_61_WIDE[@]:0:6}" "$b" 6.1 full-maxsmp-wide || rc=1
	must_fail "--initrd wants builtin or external, not 'inside'" \
		"$HARNESS/build-kernel.sh" "${FACTS_61_WIDE[@]:0:2}" --initrd inside \
		"${FACTS_61_WIDE[@]:4}" "$b" 6.1 full-maxsmp-wide || rc=1
	[[ ! -e $b ]] || { echo "a refused build wrote $b"; rc=1; }
	must_fail "no build 'nosuch' of tree '6.1' for x86_64" \
		"$HARNESS/build-kernel.sh" --fragments "$b" 6.1 nosuch || rc=1
	must_fail 'unknown architecture "sparc"' \
		"$HARNESS/build-kernel.sh" --fragments --arch sparc "$b" 6.1 full || rc=1
	local code=0
	"$HARNESS/build-kernel.sh" --fragments --arch sparc "$b" 6.1 full 2>/dev/null || code=$?
	expect_eq "a bad --arch's exit status" "$code" 2 || rc=1
	return $rc
}

# build-initramfs.sh told the architecture's Debian name (as the sweep
# tells it) asks the tables nothing, nor does --modules, which packs no
# busybox (as build-kernel.sh runs it) and is refused the name; without
# either, it asks them.
test_initramfs_told_its_debian_arch() {
	local b="$TMP/b"
	fake_build "$b"
	no_tables
	"$HARNESS/build-initramfs.sh" --debian-arch amd64 "$b" >/dev/null || return 1
	[[ -s $b/initramfs.cpio ]] || { echo "no initramfs"; return 1; }
	must_fail "--modules $TMP/obj: not a kernel build folder" \
		"$HARNESS/build-initramfs.sh" --modules "$TMP/obj" "$b" || return 1
	must_fail "--modules packs no busybox: leave --debian-arch out" \
		"$HARNESS/build-initramfs.sh" --debian-arch amd64 --modules "$TMP/obj" "$b" || return 1
	must_fail "/nonexistent/arches" "$HARNESS/build-initramfs.sh" "$b"
}

# A full disk: the initramfs is written into /dev/full.
test_full_disk_named() {
	local b="$TMP/full"
	mkdir -p "$b/bin"
	printf '#!/bin/sh\nhead -c 1048576 /dev/zero\n' >"$b/bin/gen_init_cpio"
	chmod +x "$b/bin/gen_init_cpio"
	ln -s /dev/full "$b/initramfs.cpio.tmp"
	must_fail "gen_init_cpio failed (disk full?)" "$HARNESS/build-initramfs.sh" "$b" || return 1
	[[ ! -e $b/initramfs.cpio ]] || {
		echo "a failed write left an initramfs behind"
		return 1
	}
}

# selftests_tree TOP VALUE: a tree's pid_namespace selftests (a "program"
# t, its source copied by a Makefile of their own) and what
# build-selftests.sh extracts beside them, with kernel/pid.c.
selftests_tree() {
	local st="$1/tools/testing/selftests"
	mkdir -p "$st/pid_namespace" "$st/pidfd" "$st/clone3" "$1/tools/include" "$1/kernel"
	touch "$st/lib.mk" "$st/kselftest.h" "$st/kselftest_harness.h"
	printf 'int x = %s;\n' "$2" >"$st/pid_namespace/t.c"
	printf 'int pid = %s;\n' "$2" >"$1/kernel/pid.c"
	printf 'all:\n\tcp t.c $(OUTPUT)/t && chmod +x $(OUTPUT)/t\n' >"$st/pid_namespace/Makefile"
}

# build-selftests.sh --series: the tarball's pid_namespace selftests with
# the series' changes to them alone (its change to kernel/pid.c, not
# extracted, left out), from a build folder inside a git checkout (git
# apply would skip them there, silently, unless kept from it), made
# again when the series changes; --stock has the tarball's own.
test_selftests_with_the_series() {
	needs git git
	local rc=0 b="$TMP/repo/build" s="$TMP/series" out
	selftests_tree "$TMP/a" 1
	tar -C "$TMP" -cJf "$TMP/linux-source-9.9.tar.xz" --transform 's|^a|linux-source-9.9|' a
	selftests_tree "$TMP/b" 2
	mkdir -p "$s"
	(cd "$TMP" && diff -ru a b) >"$s/one.patch" || true
	grep -q '^+++ b/kernel/pid.c' "$s/one.patch" || { echo "no patch of kernel/pid.c: $(cat "$s/one.patch")"; return 1; }
	echo one.patch >"$s/series"
	git init -q "$TMP/repo"
	fake_build "$b"
	# Told the facts of the tables (the sweep's way), it asks them
	# nothing: there are none here, and 9.9 is no tree of theirs.
	no_tables
	local -a facts=(--suite host --series-dir "$s" --make x86 --cross "")
	out=$(PIDMAX_TARBALL="$TMP/linux-source-9.9.tar.xz" \
		"$HARNESS/build-selftests.sh" --series "${facts[@]}" "$b" 9.9) || return 1
	expect_eq "cpio" "$out" "$b/selftests-9.9-series.cpio 1" || rc=1
	expect_eq "series'" "$(cat "$b/selftests-9.9-series/t")" "int x = 2;" || rc=1
	out=$(PIDMAX_TARBALL="$TMP/linux-source-9.9.tar.xz" "$HARNESS/build-selftests.sh" --stock \
		"${facts[@]}" "$b" 9.9) || return 1
	expect_eq "stock" "$(cat "$b/selftests-9.9-stock/t")" "int x = 1;" || rc=1
	sed -i 's/^+int x = 2;/+int x = 3;/' "$s/one.patch"
	PIDMAX_TARBALL="$TMP/linux-source-9.9.tar.xz" \
		"$HARNESS/build-selftests.sh" --series "${facts[@]}" "$b" 9.9 >/dev/null || return 1
	expect_eq "series changed" "$(cat "$b/selftests-9.9-series/t")" "int x = 3;" || rc=1
	must_fail "--stock or --series, not both" "$HARNESS/build-selftests.sh" --stock --series "$b" 9.9 || rc=1
	must_fail "--make --cross missing" "$HARNESS/build-selftests.sh" --stock "${facts[@]:0:4}" "$b" 9.9 || rc=1
	must_fail "--suite wants a value" "$HARNESS/build-selftests.sh" --stock --suite "" "${facts[@]:2}" "$b" 9.9 || rc=1
	# Not told them, it asks the tables, which are named.
	must_fail "/nonexistent/" "$HARNESS/build-selftests.sh" --stock "$b" 9.9 || rc=1
	return $rc
}

# build-initramfs.sh --modules: the modules a kernel's modules.order
# lists (kernel/NAME.ko as 6.1 writes it, kernel/NAME.o since 6.2), in
# its order, as /lib/modules/NAME.ko, their names in /lib/modules/order;
# no archive for a kernel that builds none; a listed module that is
# missing, or a kernel without CONFIG_MODULES, is an error.
test_modules_archive() {
	local b="$TMP/b" obj="$TMP/obj" rc=0 out
	mkdir -p "$b/bin" "$obj/kernel" "$obj/lib"
	# The fake packer prints its list in place of an archive.
	printf '#!/bin/sh\n[ "$1 $2" = "-t 0" ] || exit 1\ncat "$3"\n' >"$b/bin/gen_init_cpio"
	chmod +x "$b/bin/gen_init_cpio"
	printf 'CONFIG_MODULES=y\n' >"$obj/.config"
	printf 'kernel/pid_max_kunit.o\nlib/other.ko\n' >"$obj/modules.order"
	touch "$obj/kernel/pid_max_kunit.ko" "$obj/lib/other.ko"
	out=$("$HARNESS/build-initramfs.sh" --modules "$obj" "$b")
	expect_eq "printed" "$out" "$obj/modules.cpio" || rc=1
	expect_eq "archive" "$(cat "$obj/modules.cpio")" "dir /lib 0755 0 0
dir /lib/modules 0755 0 0
file /lib/modules/pid_max_kunit.ko $obj/kernel/pid_max_kunit.ko 0644 0 0
file /lib/modules/other.ko $obj/lib/other.ko 0644 0 0
file /lib/modules/order $obj/modules.names 0644 0 0" || rc=1
	expect_eq "order" "$(cat "$obj/modules.names")" "pid_max_kunit.ko
other.ko" || rc=1
	: >"$obj/modules.order"
	expect_eq "none" "$("$HARNESS/build-initramfs.sh" --modules "$obj" "$b")" "" || rc=1
	[[ ! -e $obj/modules.cpio ]] || { echo "an archive of no module stayed"; rc=1; }
	echo "kernel/gone.o" >"$obj/modules.order"
	must_fail "names kernel/gone.o, but $obj/kernel/gone.ko is missing" \
		"$HARNESS/build-initramfs.sh" --modules "$obj" "$b" || rc=1
	: >"$obj/.config"
	must_fail "the kernel builds no modules" \
		"$HARNESS/build-initramfs.sh" --modules "$obj" "$b" || rc=1
	return $rc
}

# A shell file of the harness is run or sourced, as its first line says:
# one with #! is executable; one without (lib.sh, which every script
# sources, and the self-tests' files) is not, so that nobody runs a
# library as a program.
test_sourced_files_not_executable() {
	local f rc=0
	for f in "$HARNESS"/*.sh "$TESTS"/*.sh "$HARNESS/../ci/"*.sh; do
		if [[ $(head -c 2 "$f") == '#!' ]]; then
			[[ -x $f ]] || { echo "${f#"$HARNESS/"} has #! but is not executable"; rc=1; }
		else
			[[ ! -x $f ]] || { echo "${f#"$HARNESS/"} is sourced but executable"; rc=1; }
		fi
	done
	return $rc
}

# hold_build_lock DIR: start a process that holds DIR's build lock as a
# build does (flock on DIR/.pidmax-lock, its process id in the file)
# until DIR/release exists, 60 s at most; HOLDER is its process id, set
# once it holds the lock.
hold_build_lock() {
	local i
	mkdir -p "$1"
	(
		exec 9<>"$1/.pidmax-lock"
		flock 9
		echo "$BASHPID" >"$1/.pidmax-lock"
		touch "$1/held"
		for ((i = 0; i < 600; i++)); do
			[[ ! -e $1/release ]] || break
			sleep 0.1
		done
	) >/dev/null 2>&1 &
	HOLDER=$!
	for ((i = 0; i < 200; i++)); do
		[[ ! -e $1/held ]] || return 0
		sleep 0.1
	done
	echo "the lock of $1 was never held"
	return 1
}

# wait_for FILE TEXT PID: wait until FILE holds TEXT while process PID
# runs, 20 s at most.
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		! grep -qF -- "$2" "$1" 2>/dev/null || return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	echo "no '$2' from process $3: $(cat "$1")"
	return 1
}

# Two builds in one build folder never interleave: while a process holds
# the folder's lock, build-initramfs.sh, build-kernel.sh and
# build-selftests.sh each wait, say once which process they wait for,
# and write nothing until it ends; then each runs on (to its usual end
# here: an initramfs, no tarball, no tree) and leaves its own process id
# in the lock file.
test_build_waits_for_the_lock() {
	needs flock util-linux
	local b="$TMP/b" rc=0 f want
	local -A pid=()
	fake_build "$b"
	hold_build_lock "$b"
	# shellcheck disable=SC2064 # the folder is known now
	trap "touch '$b/release'" EXIT
	"$HARNESS/build-initramfs.sh" "$b" >"$TMP/initramfs.out" 2>"$TMP/initramfs.err" &
	pid[initramfs]=$!
	PIDMAX_TARBALL=/nonexistent/linux-source-6.1.tar.xz \
		"$HARNESS/build-kernel.sh" "$b" 6.1 full >/dev/null 2>"$TMP/kernel.err" &
	pid[kernel]=$!
	# A tree no table has: the shared tree's selftests need no row of it.
	"$HARNESS/build-selftests.sh" "$b" 9.9 >/dev/null 2>"$TMP/selftests.err" &
	pid[selftests]=$!
	want="waiting for process $HOLDER, which builds in $(cd "$b" && pwd -P)"
	for f in initramfs kernel selftests; do
		wait_for "$TMP/$f.err" "$want" "${pid[$f]}" || rc=1
	done
	[[ ! -e $b/initramfs.cpio ]] || { echo "an initramfs was written under the lock"; rc=1; }
	touch "$b/release"
	wait "${pid[initramfs]}" || { echo "build-initramfs.sh failed: $(cat "$TMP/initramfs.err")"; rc=1; }
	[[ -s $b/initramfs.cpio ]] || { echo "no initramfs after the lock"; rc=1; }
	! wait "${pid[kernel]}" || { echo "build-kernel.sh built without a tarball"; rc=1; }
	grep -q "apt-get install linux-source-6.1" "$TMP/kernel.err" || { echo "build-kernel.sh: $(cat "$TMP/kernel.err")"; rc=1; }
	! wait "${pid[selftests]}" || { echo "build-selftests.sh built without a tree"; rc=1; }
	for f in initramfs kernel selftests; do
		expect_eq "$f's waits" "$(grep -c 'waiting for process' "$TMP/$f.err")" 1 || rc=1
	done
	f=$(cat "$b/.pidmax-lock")
	[[ $f == "${pid[initramfs]}" || $f == "${pid[kernel]}" || $f == "${pid[selftests]}" ]] ||
		{ echo "the lock file holds '$f', no build's process id"; rc=1; }
	return $rc
}

# The stages a build starts itself find its folder in PIDMAX_LOCKED
# (build-kernel.sh's build-initramfs.sh --modules) and run without
# waiting for the lock their build holds; another folder's lock is no
# reason to wait either.
test_build_lock_not_taken_twice() {
	needs flock util-linux
	local b="$TMP/b" other="$TMP/other" rc=0
	fake_build "$b"
	mkdir -p "$other"
	hold_build_lock "$b"
	# shellcheck disable=SC2064 # the folder is known now
	trap "touch '$b/release'" EXIT
	PIDMAX_LOCKED="$(cd "$other" && pwd -P):$(cd "$b" && pwd -P)" timeout 20 \
		"$HARNESS/build-initramfs.sh" "$b" >/dev/null 2>"$TMP/err" ||
		{ echo "the build's own stage waited or failed: $(cat "$TMP/err")"; rc=1; }
	fake_build "$other"
	timeout 20 "$HARNESS/build-initramfs.sh" "$other" >/dev/null 2>"$TMP/err" ||
		{ echo "a build in another folder waited or failed: $(cat "$TMP/err")"; rc=1; }
	return $rc
}
