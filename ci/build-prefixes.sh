#!/bin/bash
# build-prefixes.sh - every prefix of a tree's series builds on its own:
# on a pristine copy of the tree (its row of harness/trees), configured
# once from tinyconfig and harness/config/prefix.config (the code the
# series touches, with KUnit and the suite as modules), each patch is
# pushed in turn with "quilt push --fuzz=0" and the objects the series
# touches are compiled with W=1: kernel/pid.o always, kernel/pid_max_kunit.o
# once the suite exists (as a module, CONFIG_KUNIT=m), and the tree's
# pid_namespace selftests when the patch touches them. A prefix passes
# when everything compiles and no warning appears that the pristine tree
# does not give (warnings are compared without their line numbers).
#
# Prints KTAP, a test per prefix (the pristine tree is prefix 0), and
# ends with "N passed, N failed, N skipped". The tree is removed when
# every prefix passed and kept for a look when one failed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/build-prefixes.sh [--build-dir DIR] TREE
Compile every prefix of TREE's series (a tree of harness/trees: 6.1
takes the top-level series, 7.3 mainline/'s) with W=1 on a pristine
tree in DIR (default build/): kernel/pid.o, the KUnit suite as a module,
the pid_namespace selftests; fail on a new warning. The tree is removed
once every prefix passed. A tree whose source is unreachable is a SKIP."

# configure DIR SRC: merge harness/config/prefix.config into the
# configuration of the tree in SRC (configured in DIR). A symbol the
# tree does not have yet (the suite's, before the patch that adds it) is
# dropped by olddefconfig and taken once a patch brings its Kconfig.
configure() {
	"$2/scripts/kconfig/merge_config.sh" -m -O "$1" "$1/.config" \
		"$REPO/harness/config/prefix.config" >/dev/null
	make -s -C "$2" O="$1" olddefconfig >/dev/null
}

# compile DIR SRC TOUCHED: compile the objects for the tree in SRC
# (configured in DIR) after a push; print the warnings, line numbers
# dropped, sorted and unique. Fails when a compile fails. TOUCHED is the
# list of files the last patch touches (empty for the pristine tree):
# the configuration is merged again only when it names a Kconfig file
# (about 6 s a prefix on the 2-core machine of README.md).
compile() {
	local dir=$1 src=$2 touched=$3 log="$1/compile.log"
	local -a objs=(kernel/pid.o)
	if [[ -z $touched || $touched == *Kconfig* ]]; then
		configure "$dir" "$src"
	fi
	if [[ -e $src/kernel/pid_max_kunit.c ]]; then
		if ! grep -qx 'CONFIG_PID_MAX_KUNIT_TEST=m' "$dir/.config"; then
			echo "# the suite is in the tree but not configured as a module"
			return 1
		fi
		objs+=(kernel/pid_max_kunit.o)
	fi
	if ! make -s -C "$src" O="$dir" -j"$(nproc)" W=1 "${objs[@]}" >"$log" 2>&1; then
		sed 's/^/# /' "$log" | tail -n 20
		return 1
	fi
	if [[ -z $touched || $touched == *tools/testing/selftests/pid_namespace/* ]]; then
		mkdir -p "$dir/selftests"
		if ! make -s -C "$src/tools/testing/selftests/pid_namespace" \
			OUTPUT="$dir/selftests" >>"$log" 2>&1; then
			sed 's/^/# /' "$log" | tail -n 20
			return 1
		fi
	fi
	grep -E 'warning:' "$log" | sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort -u || true
}

main() {
	local build="$REPO/build"
	parse_options "$USAGE" "build-dir:" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--build-dir) build=$2 ;;
		esac
		shift 2
	done
	shift
	(($# == 1)) || usage_error "expects TREE"
	local tree=$1 tarball rc=0
	tree_row "$tree" >/dev/null || usage_error "no tree '$tree' in harness/trees"
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	tree_tarball_ktap "$build" "$tree" "prefixes_$tree" tarball || rc=$?
	((rc != 3)) || return 0
	local series src dir
	series=$(tree_series_dir "$tree")
	src="$build/prefixes-$tree/src" dir="$build/prefixes-$tree/obj"
	rm -rf "$build/prefixes-$tree"
	mkdir -p "$src/patches" "$dir"
	tar -xf "$tarball" -C "$src" --strip-components=1 || die "could not unpack $tarball (disk full?)"
	local -a patches
	mapfile -t patches < <(grep -v -E '^[[:space:]]*(#|$)' "$series/series")
	cp "$series/series" "${patches[@]/#/$series/}" "$src/patches/"
	make -s -C "$src" O="$dir" tinyconfig >/dev/null
	run_prefixes "$tree" "$series" "$src" "$dir" "${patches[@]}" || return 1
	# Every run unpacks the tree afresh: once every prefix has passed,
	# nothing in the folder is worth its 1.5 to 2 GB of disk.
	rm -rf "$build/prefixes-$tree"
}

# run_prefixes TREE SERIES SRC DIR PATCH...: push each PATCH of the
# series folder SERIES in turn onto the pristine tree SRC (configured
# in DIR), compile every prefix, print its KTAP and the summary line;
# fails when a prefix failed.
run_prefixes() {
	local tree=$1 series=$2 src=$3 dir=$4
	shift 4
	local -a patches=("$@")
	local base warnings new i n=0 passed=0 failed=0 touched
	echo "KTAP version 1"
	echo "1..$((${#patches[@]} + 1))"
	for ((i = 0; i <= ${#patches[@]}; i++)); do
		n=$((n + 1))
		touched=""
		if ((i > 0)); then
			touched=$(sed -n 's|^+++ b/||p' "$series/${patches[i - 1]}")
			if ! (cd "$src" && QUILT_PATCHES=patches quilt push -q --fuzz=0 >/dev/null); then
				echo "not ok $n prefix_$tree ${patches[i - 1]%.patch} # does not apply"
				failed=$((failed + 1))
				break
			fi
		fi
		local name="prefix_$tree ${i}${touched:+ ${patches[i - 1]%.patch}}"
		if ! warnings=$(compile "$dir" "$src" "$touched"); then
			echo "$warnings"
			echo "not ok $n $name # does not compile"
			failed=$((failed + 1))
			continue
		fi
		((i > 0)) || base=$warnings
		new=$(comm -13 <(echo "$base") <(echo "$warnings") | sed '/^$/d')
		if [[ -n $new ]]; then
			sed 's/^/# new warning: /' <<<"$new"
			echo "not ok $n $name"
			failed=$((failed + 1))
		else
			echo "ok $n $name"
			passed=$((passed + 1))
		fi
	done
	((failed == 0)) || echo "# the tree and its compile log are kept for a look: $src, $dir"
	summary_line "$passed" "$failed" 0
	((failed == 0))
}

main "$@"
