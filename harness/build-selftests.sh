#!/bin/bash
# build-selftests.sh - the kernel's own pid_namespace selftests of a tree
# (tools/testing/selftests/pid_namespace: pid_max, regression_enomem,
# pidns_init_via_setns on 7.3), built static with the selftests' own
# Makefile on the host and packed into a cpio archive that a guest gets
# beside its initramfs: /selftests/pid_namespace/NAME.
#
# Usage: harness/build-selftests.sh BUILD_DIR TREE
# Needs the tree unpacked by build-kernel.sh (BUILD_DIR/src/linux-source-
# TREE). Prints "CPIO COUNT" (the archive and how many programs it holds),
# or nothing when the tree has no pid_namespace selftests. Builds again
# only when the selftests' sources changed.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/build-selftests.sh BUILD_DIR TREE
Build TREE's pid_namespace selftests static and pack them into
BUILD_DIR/selftests-TREE.cpio; print \"CPIO COUNT\", or nothing when the
tree has none."

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 2)) || usage_error "expects BUILD_DIR TREE"
	local build tree=$2
	build=$(cd "$1" && pwd) || die "no build folder $1"
	local src="$build/src/linux-source-$tree" gen="$build/bin/gen_init_cpio"
	local dir="$src/tools/testing/selftests/pid_namespace"
	[[ -d $src ]] || die "$src is missing: harness/build-kernel.sh $build $tree BUILD first"
	[[ -r $dir/Makefile ]] || return 0
	[[ -x $gen ]] || die "$gen is missing: harness/build-initramfs.sh $build first"
	local out="$build/selftests-$tree" cpio="$build/selftests-$tree.cpio" id
	id=$(cat "$dir"/* "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
	if [[ ! -f $cpio || $(cat "$cpio.id" 2>/dev/null) != "$id" ]]; then
		info "building the pid_namespace selftests of $tree (static)"
		rm -rf "$out" "$cpio.id"
		mkdir -p "$out"
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
