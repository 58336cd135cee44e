#!/bin/bash
# build-selftests.sh - the kernel's own pid_namespace selftests of a tree
# (tools/testing/selftests/pid_namespace: pid_max, regression_enomem,
# pidns_init_via_setns on 7.3), built static with the selftests' own
# Makefile on the host and packed into a cpio archive that a guest gets
# beside its initramfs: /selftests/pid_namespace/NAME.
#
# Usage: harness/build-selftests.sh [--arch A] [--stock|--series] [FACTS] BUILD_DIR TREE
# Needs the tree unpacked by build-kernel.sh (BUILD_DIR/src/linux-source-
# TREE), as its series left it. Prints "CPIO COUNT" (the archive and how
# many programs it holds), or nothing when the tree has no pid_namespace
# selftests. Builds again only when the selftests' sources changed.
# --arch A cross-builds them with the architecture's compiler (harness/
# arches, or --make and --cross, which the sweep gives with the tree's
# suite and series folder: then the tables are not asked); --stock
# builds them as the tree's tarball has them, without the series (the
# selftests a kernel's maintainers would run unchanged); --series as the
# tarball has them with the series' changes to them alone, in a folder
# of their own (for a kernel the sweep did not build, Debian's own,
# whatever state the shared tree is in). Neither needs the tree unpacked.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/build-selftests.sh [--arch A] [--stock|--series] [FACTS] BUILD_DIR TREE
Build TREE's pid_namespace selftests static and pack them into
BUILD_DIR/selftests-TREE[-A][-stock|-series].cpio; print \"CPIO COUNT\",
or nothing when the tree has none.
  --arch A  for architecture A of harness/arches (default x86_64)
  --stock   as the tree's tarball has them, without the series
  --series  as the tree's tarball has them with the series' changes to
            them, not from the shared tree (a kernel not built here)
FACTS, what the tables say of the tree and the architecture: the ones
the build needs, or none (none: the tables are asked, once; the sweep
gives them all):
  --suite S  the tree's suite (harness/trees; with --stock or --series)
  --series-dir DIR  the tree's series folder (with --series)
  --make M  the architecture's make ARCH (harness/arches)
  --cross P  its cross-compiler prefix (may be empty)"

# The facts the tables hold, by their options' names, in the order
# pidmax/tables.py's SelftestsFacts gives them; selftests_facts keeps
# the ones the build needs.
FACTS=(suite series-dir make cross)

main() {
	local arch=x86_64 how="" longopts
	local -A fact=()
	longopts=$(IFS=,; echo "arch:,stock,series,${FACTS[*]/%/:}")
	parse_options "$USAGE" "$longopts" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--arch) arch=$2; shift ;;
		--stock | --series)
			[[ -z $how || $how == "${1#--}" ]] || usage_error "--stock or --series, not both"
			how=${1#--}
			;;
		*) fact[${1#--}]=$2; shift ;;
		esac
		shift
	done
	shift
	(($# == 2)) || usage_error "expects BUILD_DIR TREE"
	local build tree=$2 name=$2 suite series_dir make_arch cross
	selftests_facts
	build=$(cd "$1" && pwd) || die "no build folder $1"
	build_lock "$build"
	[[ $arch == x86_64 ]] || name+=-$arch
	[[ -z $how ]] || name+=-$how
	local src="$build/src/linux-source-$tree" gen="$build/bin/gen_init_cpio"
	case $how in
	stock) src=$(stock_sources "$build" "$tree" "$suite") || die "no stock selftests of $tree (see above)" ;;
	series) src=$(series_sources "$build" "$tree" "$suite" "$series_dir") ||
		die "no selftests of $tree with its series (see above)" ;;
	*) [[ -d $src ]] || die "$src is missing: harness/build-kernel.sh $build $tree BUILD first" ;;
	esac
	local dir="$src/tools/testing/selftests/pid_namespace"
	[[ -r $dir/Makefile ]] || return 0
	[[ -x $gen ]] || die "$gen is missing: harness/build-initramfs.sh $build first"
	local out="$build/selftests-$name" cpio="$build/selftests-$name.cpio" id
	id=$( (cat "$dir"/* "${BASH_SOURCE[0]}" && echo "$make_arch $cross") | sha256sum | cut -d' ' -f1)
	if [[ ! -f $cpio || $(cat "$cpio.id" 2>/dev/null) != "$id" ]]; then
		local what=static
		case $how in
		stock) what+=", as the tarball has them" ;;
		series) what+=", the tarball's with the series' changes" ;;
		esac
		[[ -z $cross ]] || command -v "${cross}gcc" >/dev/null ||
			die "${cross}gcc not found: harness/deps.sh build $arch installs it"
		info "building the pid_namespace selftests of $tree for $arch ($what)"
		rm -rf "$out" "$cpio.id"
		mkdir -p "$out"
		# lib.mk's CC is $(CROSS_COMPILE)gcc.
		ARCH=$make_arch CROSS_COMPILE=$cross \
			make -s -C "$dir" OUTPUT="$out" LDFLAGS=-static >"$out.log" 2>&1 || {
			tail -n 15 "$out.log" >&2
			die "the pid_namespace selftests of $tree did not build (log: $out.log)"
		}
		pack "$out" "$gen" >"$cpio.tmp" || die "gen_init_cpio failed (disk full?)"
		mv "$cpio.tmp" "$cpio"
		echo "$id" >"$cpio.id"
	fi
	echo "$cpio $(find "$out" -maxdepth 1 -type f -perm -u+x | wc -l)"
}

# selftests_facts: the facts of the tree and the architecture that the
# build needs (FACTS, by how), from main's fact: given, or none and then
# asked of the tables once (pidmax.sh table selftests, which prints them
# as options; a plain build asks the architecture's row alone). One it
# needs missing or empty (but --cross) is a usage error, and so is an
# architecture the tables lack.
selftests_facts() {
	case $how in
	"") FACTS=(make cross) ;;
	stock) FACTS=(suite make cross) ;;
	esac
	if [[ -z $how ]] && ((${#fact[@]} == 0)); then
		# The shared tree's selftests need no row of the tree: the
		# architecture's, asked once, says what they build with.
		arch_row "$arch" || usage_error "--arch: see above"
		fact=([make]=$ARCH_MAKE [cross]=$ARCH_CROSS)
	fi
	told_facts selftests "$tree" "$arch" || {
		arch_row "$arch" 2>/dev/null || usage_error "--arch: see above"
		die "no tree '$tree' in the tables (see above)"
	}
	suite=${fact[suite]:-} series_dir=${fact[series-dir]:-} make_arch=${fact[make]}
	cross=${fact[cross]}
	local f
	for f in "${FACTS[@]}"; do
		[[ $f == cross || -n ${fact[$f]} ]] || usage_error "--$f wants a value"
	done
}

# stock_sources BUILD TREE SUITE: a folder holding what the
# pid_namespace selftests build from (their folder, lib.mk and the
# headers they include, tools/include), as TREE's tarball (of SUITE)
# has them; extracted into BUILD once per tarball. Prints the folder.
# $PIDMAX_TARBALL overrides the tarball (the self-tests' fake one), as
# in build-kernel.sh.
stock_sources() {
	local tarball dir="$1/src/selftests-stock-$2" id top
	tarball=${PIDMAX_TARBALL:-$(suite_tarball "$1" "$2" "$3")} || return 1
	id=$(stat -c '%s %Y' "$tarball")
	if [[ $(cat "$dir/.harness-tarball" 2>/dev/null) != "$id" ]]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		top=$(tar -tf "$tarball" | head -n 1) || true
		top=${top%%/*}
		tar -xf "$tarball" -C "$dir" --strip-components=1 \
			"$top/tools/testing/selftests/pid_namespace" "$top/tools/testing/selftests/pidfd" \
			"$top/tools/testing/selftests/clone3" "$top/tools/testing/selftests/lib.mk" \
			"$top/tools/testing/selftests/kselftest.h" \
			"$top/tools/testing/selftests/kselftest_harness.h" "$top/tools/include" ||
			die "could not extract the selftests from $tarball"
		echo "$id" >"$dir/.harness-tarball"
	fi
	echo "$dir"
}

# series_sources BUILD TREE SUITE SERIES_DIR: stock_sources' folder
# copied, with the changes of TREE's series (SERIES_DIR, the folder of
# its row of harness/trees; $PIDMAX_SERIES_DIR overrides it) to the
# pid_namespace selftests applied: git apply --include, with no fuzz,
# takes those files of each patch and leaves the rest (kernel/ and the
# others, not in the folder). Made again when the tarball or the series
# changed. Prints the folder.
series_sources() {
	local stock series dir="$1/src/selftests-series-$2" id p
	local -a patches
	stock=$(stock_sources "$1" "$2" "$3") || return 1
	series=${PIDMAX_SERIES_DIR:-$4}
	[[ -r $series/series ]] || die "$series/series is missing"
	series=$(cd "$series" && pwd)
	mapfile -t patches < <(grep -v -E '^[[:space:]]*(#|$)' "$series/series")
	id=$( (cat "$stock/.harness-tarball" "$series/series" && cd "$series" && cat "${patches[@]}") |
		sha256sum | cut -d' ' -f1) || die "the series of $series/series is not readable"
	if [[ $(cat "$dir/.harness-series" 2>/dev/null) != "$id" ]]; then
		rm -rf "$dir" "$dir.tmp"
		cp -a "$stock" "$dir.tmp"
		for p in "${patches[@]}"; do
			# Git would take a repository around the build folder (this
			# checkout's) for its own and skip paths outside it: none
			# is looked for above the folder.
			(cd "$dir.tmp" && GIT_CEILING_DIRECTORIES=$1/src git apply \
				--include='tools/testing/selftests/pid_namespace/*' "$series/$p") ||
				die "$p does not apply to the pid_namespace selftests of $2"
		done
		echo "$id" >"$dir.tmp/.harness-series"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# pack DIR GEN: the cpio archive of DIR's programs under
# /selftests/pid_namespace, on stdout.
pack() {
	local f list
	list=$(mktemp)
	{
		echo "dir /selftests 0755 0 0"
		echo "dir /selftests/pid_namespace 0755 0 0"
		for f in "$1"/*; do
			[[ -f $f && -x $f ]] || continue
			echo "file /selftests/pid_namespace/${f##*/} $f 0755 0 0"
		done
	} >"$list"
	local rc=0
	"$2" "$list" || rc=$?
	rm -f "$list"
	return $rc
}

main "$@"
