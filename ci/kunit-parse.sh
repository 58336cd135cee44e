#!/bin/bash
# kunit-parse.sh - read KTAP files with the kernel's own KTAP consumer,
# "tools/testing/kunit/kunit.py parse", and fail on a parse error or a
# total that is not all passed (skips allowed). kunit.py parse itself
# exits 0 whatever it read, so its summary line is what is judged.
#
# kunit.py comes from the unpacked tree in build/, or is taken from
# /usr/src/linux-source-6.1.tar.xz into build/kunit-py when there is none.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/kunit-parse.sh [--build-dir DIR] KTAP...
Parse each KTAP file with kunit.py parse; prints a KTAP line per file
and \"N passed, N failed, N skipped\"."

main() {
	local build="$REPO/build"
	parse_options "$USAGE" "build-dir:" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--build-dir) build=$2; shift 2 ;;
		--) shift; break ;;
		esac
	done
	(($# >= 1)) || usage_error "expects KTAP files"
	command -v python3 >/dev/null || die "python3 not found: apt-get install python3"

	local kunit="$build/src/linux-source-6.1/tools/testing/kunit/kunit.py"
	if [[ ! -r $kunit ]]; then
		kunit="$build/kunit-py/tools/testing/kunit/kunit.py"
		if [[ ! -r $kunit ]]; then
			local tarball=${PIDMAX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
			[[ -r $tarball ]] || die "$tarball is missing: apt-get install linux-source-6.1"
			mkdir -p "$build/kunit-py"
			tar -xf "$tarball" -C "$build/kunit-py" --strip-components=1 \
				--wildcards '*/tools/testing/kunit/*' ||
				die "could not take tools/testing/kunit from $tarball"
		fi
	fi

	local f out summary i=0 passed=0 failed=0
	echo "KTAP version 1"
	echo "1..$#"
	for f; do
		i=$((i + 1))
		if [[ ! -r $f ]]; then
			echo "not ok $i $f # missing"
			failed=$((failed + 1))
			continue
		fi
		out=$(python3 "$kunit" parse "$(realpath "$f")" 2>&1) || true
		summary=$(grep -o 'Testing complete\..*' <<<"$out" | tail -n 1 || true)
		grep -E '\[ERROR\]|\[CRASHED\]' <<<"$out" | head -n 20 | sed 's/^/# /' || true
		echo "# kunit.py parse $f: ${summary:-no summary}"
		if [[ $summary =~ ^Testing\ complete\.\ Ran\ [0-9]+\ tests:\ passed:\ [0-9]+(,\ skipped:\ [0-9]+)?$ ]] &&
			! grep -q '\[ERROR\]' <<<"$out"; then
			echo "ok $i $f"
			passed=$((passed + 1))
		else
			echo "not ok $i $f"
			failed=$((failed + 1))
		fi
	done
	summary_line "$passed" "$failed" 0
	((failed == 0))
}

main "$@"
