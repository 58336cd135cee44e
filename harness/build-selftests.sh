#!/bin/bash
# build-selftests.sh - the kernel's own pid_namespace selftests of a tree
# (tools/testing/selftests/pid_namespace: pid_max, regression_enomem,
# pidns_init_via_setns on 7.3), built static with the selftests' own
# Makefile on the host and packed into a cpio archive that a guest gets
# beside its initramfs: /selftests/pid_namespace/NAME.
#
# Usage: harness/build-selftests.sh [--arch A] [--stock] BUILD_DIR TREE
# Needs the tree unpacked by build-kernel.sh (BUILD_DIR/src/linux-source-
# TREE). Prints "CPIO COUNT" (the archive and how many programs it holds),
# or nothing when the tree has no pid_namespace selftests. Builds again
# only when the selftests' sources changed. --arch A cross-builds them
# with harness/arches' compiler; --stock builds them as the tree's
# tarball has them, without the series (the selftests a kernel's
# maintainers would run unchanged).
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/build-selftests.sh [--arch A] [--stock] BUILD_DIR TREE
Build TREE's pid_namespace selftests static and pack them into
BUILD_DIR/selftests-TREE[-A][-stock].cpio; print \"CPIO COUNT\", or
nothing when the tree has none.
  --arch A  for architecture A of harness/arches (default x86_64)
  --stock   as the tree's tarball has them, without the series"

main() {
	local arch=x86_64 stock=0
	parse_options "$USAGE" "arch:,stock" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--arch) arch=$2; shift ;;
		--stock) stock=1 ;;
		esac
		shift
	done
	shift
	(($# == 2)) || usage_error "expects BUILD_DIR TREE"
	arch_row "$arch" || usage_error "--arch: see above"
	local build tree=$2 name=$2
	build=$(cd "$1" && pwd) || die "no build folder $1"
	[[ $arch == x86_64 ]] || name+=-$arch
	((stock == 0)) || name+=-stock
	local src="$build/src/linux-source-$tree" gen="$build/bin/gen_init_cpio"
	[[ -d $src ]] || die "$src is missing: harness/build-kernel.sh $build $tree BUILD first"
	((stock == 0)) || src=$(stock_sources "$build" "$tree") || die "no stock selftests of $tree (see above)"
	local dir="$src/tools/testing/selftests/pid_namespace"
	[[ -r $dir/Makefile ]] || return 0
	[[ -x $gen ]] || die "$gen is missing: harness/build-initramfs.sh $build first"
	local out="$build/selftests-$name" cpio="$build/selftests-$name.cpio" id
	id=$(cat "$dir"/* "${BASH_SOURCE[0]}" "$ARCH_TABLE" | sha256sum | cut -d' ' -f1)
	if [[ ! -f $cpio || $(cat "$cpio.id" 2>/dev/null) != "$id" ]]; then
		local how=static
		((stock == 0)) || how+=", as the tarball has them"
		info "building the pid_namespace selftests of $tree for $arch ($how)"
		rm -rf "$out" "$cpio.id"
		mkdir -p "$out"
		# lib.mk's CC is $(CROSS_COMPILE)gcc.
		ARCH=$ARCH_MAKE CROSS_COMPILE=$ARCH_CROSS \
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

# stock_sources BUILD TREE: a folder holding what the pid_namespace
# selftests build from (their folder, lib.mk and the headers they
# include, tools/include), as TREE's tarball has them; extracted into
# BUILD once per tarball. Prints the folder.
stock_sources() {
	local tarball dir="$1/src/selftests-stock-$2" id top
	tarball=$(tree_tarball "$1" "$2") || return 1
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
