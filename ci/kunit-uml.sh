#!/bin/bash
# kunit-uml.sh - run the series' KUnit suite with the kernel's own
# runner, as kernel developers do:
#
#   tools/testing/kunit/kunit.py run --kconfig_add CONFIG_PID_MAX_KUNIT_TEST=y pid_max
#
# on a pristine linux-source-TREE tree (6.1 by default; harness/trees)
# with its series pushed by quilt,
# under UML (kunit.py's default architecture; --arch=x86_64 for QEMU).
# Passes when kunit.py ran the pid_max suite with every case passing.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/kunit-uml.sh [--build-dir DIR] [--arch ARCH] [--tree TREE]
Run kunit.py's pid_max suite on linux-source-TREE (default 6.1; its source
and series are its row of harness/trees: 7.3 is fetched, mainline/'s
series) with the series, in DIR/kunit-tree-TREE (default build/); ARCH is
um (default) or x86_64. A tree whose suite is unreachable is a SKIP.
Prints KTAP and \"N passed, N failed, N skipped\"."

main() {
	local build="$REPO/build" arch=um tree=6.1
	parse_options "$USAGE" "build-dir:,arch:,tree:" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--build-dir) build=$2; shift 2 ;;
		--arch) arch=$2; shift 2 ;;
		--tree) tree=$2; shift 2 ;;
		--) shift; break ;;
		esac
	done
	(($# == 0)) || usage_error "unexpected operand '$1'"
	case $arch in um | x86_64) ;; *) usage_error "--arch wants um or x86_64, not '$arch'" ;; esac
	tree_row "$tree" >/dev/null || usage_error "--tree: no tree '$tree' in harness/trees"
	command -v python3 >/dev/null || die "python3 not found: apt-get install python3"
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	local tarball rc=0 series
	tarball=${PIDMAX_TARBALL:-$(tree_tarball "$build" "$tree")} || rc=$?
	if ((rc == 3)); then
		printf 'KTAP version 1\n1..1\nok 1 kunit.py_run_pid_max_%s_%s # SKIP the suite of tree %s is unreachable (harness/trees)\n' \
			"$arch" "$tree" "$tree"
		summary_line 0 0 1
		return 0
	fi
	((rc == 0)) || die "no source for tree $tree (see above)"
	[[ -r $tarball ]] || die "$tarball is missing: apt-get install linux-source-$tree"
	series=$(tree_series_dir "$tree")
	local -a files=("$series/series")
	mapfile -t -O 1 files < <(grep -v -E '^[[:space:]]*(#|$)' "$series/series" | sed "s|^|$series/|")

	# A tree of its own, so the harness's builds keep theirs: pristine
	# from the tarball, the series pushed as a user would.
	local work="$build/kunit-tree-$tree" id
	id=$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)-$(stat -c '%s %Y' "$tarball")
	if [[ $(cat "$work/.harness-id" 2>/dev/null) != "$id" ]]; then
		info "unpacking $tarball and pushing the series into $work"
		rm -rf "$work"
		mkdir -p "$work/patches"
		tar -xf "$tarball" -C "$work" --strip-components=1 || die "could not unpack $tarball (disk full?)"
		cp "${files[@]}" "$work/patches/"
		(cd "$work" && QUILT_PATCHES=patches quilt push -a -q --fuzz=0) >/dev/null ||
			die "the series does not apply to $tarball with --fuzz=0"
		echo "$id" >"$work/.harness-id"
	fi

	local log="$build/kunit-$arch-$tree.log" out summary
	echo "KTAP version 1"
	echo "1..1"
	(cd "$work" && python3 tools/testing/kunit/kunit.py run --arch="$arch" \
		--build_dir="$build/kunit-$arch-$tree" --jobs="$(nproc)" \
		--kconfig_add CONFIG_PID_MAX_KUNIT_TEST=y pid_max) >"$log" 2>&1 || true
	out=$(sed 's/^\[[0-9:]*\] //' "$log")
	grep -E '^(=+ .*pid_max|\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete|Elapsed)' <<<"$out" |
		sed 's/^/# /' || true
	summary=$(grep -o 'Testing complete\..*' <<<"$out" | tail -n 1 || true)
	if [[ $summary =~ ^Testing\ complete\.\ Ran\ ([0-9]+)\ tests:\ passed:\ ([0-9]+)$ ]] &&
		((BASH_REMATCH[1] == BASH_REMATCH[2] && BASH_REMATCH[1] > 0)) &&
		grep -qE '^=+ \[PASSED\] pid_max =+$' <<<"$out"; then
		echo "ok 1 kunit.py_run_pid_max_${arch}_$tree"
		summary_line 1 0 0
	else
		tail -n 20 "$log" | sed 's/^/# /'
		echo "not ok 1 kunit.py_run_pid_max_${arch}_$tree # ${summary:-no summary} (log: $log)"
		summary_line 0 1 0
		return 1
	fi
}

main "$@"
