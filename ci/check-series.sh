#!/bin/bash
# check-series.sh - the series checks: against a pristine copy of the
# tree (its row of harness/trees), every patch applies in
# series order with "patch -p1 --fuzz=0", the series pushes with
# "quilt push -a --fuzz=0", and every patch is clean under the tree's
# "scripts/checkpatch.pl --strict".
#
# Usage: ci/check-series.sh [TREE]   (a tree of harness/kernels; 6.1)
#        ci/check-series.sh --mainline   (the same as TREE 7.3)
# The tree's source and series folder are its row of harness/trees.
# Prints KTAP and ends with "N passed, N failed, N skipped".
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/check-series.sh [TREE | --mainline]
Check TREE's series on a pristine TREE (of harness/kernels; default 6.1):
patch --fuzz=0, quilt push -a, checkpatch.pl --strict. harness/trees
names each tree's source and series: 7.3 is fetched from trixie-backports
into build/ (harness/fetch-deb.sh, nothing installed), a SKIP when the
suite is unreachable, and takes the series of mainline/.
  --mainline  the same as TREE 7.3 (kept for scripts that use it)"
parse_options "$USAGE" "mainline" "$@"
mainline=0
[[ ${OPTS[0]} != --mainline ]] || { mainline=1; OPTS=("${OPTS[@]:1}"); }
set -- "${OPTS[@]:1}"
(($# <= 1)) || usage_error "expects at most one TREE"
# The tree's tarball and series folder come from harness/trees (lib.sh's
# tree_tarball fetches a tree of another suite into build/).
if ((mainline)); then
	(($# == 0)) || usage_error "--mainline takes no TREE"
	tree=7.3
else
	tree=${1:-6.1}
	in_words "$tree" "$(kernel_trees)" || usage_error "TREE is one of $(kernel_trees) (harness/kernels), not '$tree'"
fi
rc=0 tarball=""
tree_tarball_ktap "$REPO/build" "$tree" "series_$tree" tarball || rc=$?
((rc != 3)) || exit 0
SERIES_DIR=$(tree_series_dir "$tree")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xf "$tarball" -C "$work" --strip-components=1 || {
	echo "${0##*/}: error: could not unpack $tarball (disk full?)" >&2
	exit 1
}
mapfile -t patches < <(grep -v -E '^[[:space:]]*(#|$)' "$SERIES_DIR/series")

n=0 passed=0 failed=0
# check NAME CMD...: one KTAP line for CMD, its output as diagnostics.
check() {
	local name=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		passed=$((passed + 1))
		echo "ok $n $name"
	else
		failed=$((failed + 1))
		sed 's/^/# /' <<<"$out"
		echo "not ok $n $name"
	fi
}

echo "KTAP version 1"
echo "1..$((2 * ${#patches[@]} + 2))"
for p in "${patches[@]}"; do
	check "patch_fuzz0_$tree ${p%.patch}" \
		patch -d "$work" -p1 --fuzz=0 --no-backup-if-mismatch -i "$SERIES_DIR/$p"
done
# Undo, then the same series through quilt.
for ((i = ${#patches[@]} - 1; i >= 0; i--)); do
	patch -d "$work" -p1 -R --fuzz=0 --no-backup-if-mismatch -s \
		-i "$SERIES_DIR/${patches[i]}" >/dev/null 2>&1 || true
done
check "pristine_again_$tree" bash -c "! find '$work' -name '*.rej' -o -name '*.orig' | grep -q ."
mkdir "$work/patches"
cp "$SERIES_DIR/series" "${patches[@]/#/$SERIES_DIR/}" "$work/patches/"
check "quilt_push_all_$tree" bash -c "cd '$work' && QUILT_PATCHES=patches quilt push -a -q --fuzz=0"
# From the top of the pristine tree, as its own docs ask, and with the
# patch's absolute path: given a relative path to a file git tracks in
# the current directory, checkpatch checks the file as source instead.
# One warning may stand, and is named here: FILE_PATH_CHANGES ("does
# MAINTAINERS need updating?") on the patches that add kernel/pid_internal.h
# and kernel/pid_max_kunit.c, since MAINTAINERS has no entry for
# kernel/pid.c and a contributor does not add one (the patch says so
# below its "---"). And UNKNOWN_COMMIT_ID
# is left out: Debian's tarball has no git history, so checkpatch cannot
# look up the commits a message cites; how it cites them (12 hex digits
# and the quoted subject) is still checked, as GIT_COMMIT_ID.
for p in "${patches[@]}"; do
	if grep -q '^new file mode' "$SERIES_DIR/$p"; then
		echo "# $p adds files: checkpatch's FILE_PATH_CHANGES warning stands (no MAINTAINERS entry for kernel/pid.c)"
	fi
	check "checkpatch_strict_$tree ${p%.patch}" \
		bash -c "cd '$work' && scripts/checkpatch.pl --strict -q --ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID '$SERIES_DIR/$p'"
done
echo "# totals: pass:$passed fail:$failed"
summary_line "$passed" "$failed" 0
((failed == 0))
