#!/bin/bash
# mutants.sh - show that the sweep fails on broken kernels: push each
# deliberate fault in harness/mutants/ on top of the series, rebuild
# (incrementally) the full and the BASE_SMALL kernel, sweep a few CPU
# counts on each, and print which check caught it.
#
# Usage: harness/mutants.sh [--tree T] [--build-dir DIR] [--out DIR]
#                           [--accel A]
# Exits non-zero if any mutant survives (every boot passed) or could not
# be built. Ends with "N passed, N failed", one test per mutant.
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HARNESS")
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

tree=6.1
build="$REPO/build"
out="$REPO/results/mutants"
accel=tcg
while (($#)); do
	case $1 in
	--tree) tree=${2:?--tree needs a value}; shift ;;
	--build-dir) build=${2:?--build-dir needs a value}; shift ;;
	--out) out=${2:?--out needs a value}; shift ;;
	--accel) accel=${2:?--accel needs a value}; shift ;;
	-h | --help) sed -n '2,11p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done

# Small lists that still reach every regime: the floor (1, 5), the edge
# of scaling (32, 33), pid_max_min's own edge (38), and the top (255).
HOTPLUG=1,5,32,33,38,255
ONLINE=2,33

mkdir -p "$build" "$out"
build=$(cd "$build" && pwd)
out=$(cd "$out" && pwd)
mapfile -t mutants < <(ls "$HARNESS"/mutants/*.patch)
((${#mutants[@]} > 0)) || die "no mutants in $HARNESS/mutants"

# caught_by DIR: the checks that failed a boot in a sweep's results.ktap.
caught_by() {
	local ktap=$1/results.ktap
	[[ -r $ktap ]] || {
		echo "no-results"
		return
	}
	# (grep finds nothing when the mutant survived: not an error here)
	# A boot failed by the KUnit suite counts for "kunit" alone, so the
	# table shows which checks would have caught the mutant without it.
	{ grep -E '^not ok ' "$ktap" || true; } | awk '
		/KUnit/ { k = 1; next }
		/-hotplug-/ { h = 1 }
		/-online-/ { o = 1 }
		END {
			s = ""
			if (h) s = s "hotplug,"
			if (o) s = s "online,"
			if (k) s = s "kunit,"
			print (s == "" ? "-" : substr(s, 1, length(s) - 1))
		}'
}

echo "KTAP version 1"
echo "1..${#mutants[@]}"
table="$out/mutants.txt.tmp"
printf '%-16s %-24s %-24s %s\n' mutant "caught (full)" "caught (small)" verdict >"$table"
passed=0 failed=0 i=0
for m in "${mutants[@]}"; do
	name=$(basename "$m" .patch)
	i=$((i + 1))
	cells=()
	built=1
	for v in full small; do
		if ! kdir=$("$HARNESS/build-kernel.sh" "$build" "$tree" "$v" "$m" 2>"$out/$name-$v.build.log"); then
			cat "$out/$name-$v.build.log" >&2
			built=0
			cells+=("build-failed")
			continue
		fi
		"$HARNESS/sweep-smp.sh" --kernel "$kdir/vmlinux" --accel "$accel" \
			--cpus "$HOTPLUG" --online "$ONLINE" --scenarios no --build-dir "$build" \
			--out "$out/$name/$v" >"$out/$name-$v.sweep.log" 2>&1 || true
		cells+=("$(caught_by "$out/$name/$v")")
	done
	if ((built)) && [[ ${cells[0]} != - || ${cells[1]} != - ]]; then
		verdict=caught
		passed=$((passed + 1))
		echo "ok $i mutant_$name # caught by full: ${cells[0]}; small: ${cells[1]}"
	else
		verdict=SURVIVED
		((built)) || verdict=not-built
		failed=$((failed + 1))
		echo "not ok $i mutant_$name # $verdict"
	fi
	printf '%-16s %-24s %-24s %s\n' "$name" "${cells[0]}" "${cells[1]}" "$verdict" >>"$table"
done
mv "$table" "$out/mutants.txt"
sed 's/^/# /' "$out/mutants.txt"
echo "$passed passed, $failed failed"
((failed == 0))
}

main "$@"
