#!/bin/bash
# mutants.sh - show that the sweep fails on broken kernels: push each
# deliberate fault in harness/mutants/ on top of the series, rebuild
# (incrementally) each variant's kernel of the kernel table (on 6.1 the
# full and the BASE_SMALL one), sweep a few CPU
# counts on each, and print which checks caught it, by the check names
# of each sweep's checks.csv.
#
# Exits non-zero if any mutant survives (every boot passed) or could not
# be built. Ends with "N passed, N failed, N skipped", one test per mutant.
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HARNESS")
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/mutants.sh [--tree T] [--build-dir DIR] [--out DIR]
                          [--accel A] [--fewest-kernels] [--variant V]
Push each mutant of harness/mutants/ on top of the series, build each
variant's kernel (harness/kernels), sweep a few CPU counts on each, and
print a table of the checks that caught it (also in DIR/mutants.txt).
  --tree T         a tree of harness/kernels (default: 6.1)
  --build-dir DIR  where the tree and builds live (default: build/)
  --out DIR        where results go (default: results/mutants)
  --accel A        tcg (default) or kvm
  --fewest-kernels each tier on the last kernel of its variant that
                   boots it (sweep-smp.sh --fewest-kernels): on 6.1 one
                   build a variant
  --variant V      full or small: that variant of the kernel table
                   only; all (default) every variant of the tree, as
                   sweep-smp.sh's --variant"

local tree=6.1 build="$REPO/build" out="$REPO/results/mutants" accel=tcg pick=each only=all
parse_options "$USAGE" "tree:,build-dir:,out:,accel:,fewest-kernels,variant:" "$@"
set -- "${OPTS[@]}"
while (($#)); do
	case $1 in
	--fewest-kernels) pick=fewest; shift; continue ;;
	--tree) tree=$2 ;;
	--build-dir) build=$2 ;;
	--out) out=$2 ;;
	--accel) accel=$2 ;;
	--variant) only=$2 ;;
	--) shift; break ;;
	esac
	shift 2
done
(($# == 0)) || usage_error "unexpected operand '$1'"
local variants
variants=$(kernel_variants "$tree") || die "cannot read the kernel table"
[[ -n $variants ]] || usage_error "--tree wants one of $(kernel_trees) (harness/kernels), not '$tree'"
if [[ $only != all ]]; then
	in_words "$only" "$variants" || usage_error "--variant wants all or one of: $variants (tree $tree), not '$only'"
	variants=$only
fi
case $accel in tcg | kvm) ;; *) usage_error "--accel wants tcg or kvm, not '$accel'" ;; esac

# Small lists that still reach every regime: the floor (1, 5), the edge
# of scaling (32, 33), pid_max_min's own edge (38), and the top (255).
# A mutant's header may ask for its own online list with a line
# "Harness-Online: LIST" (starved needs 255 CPUs online), and for a
# possible tier with "Harness-Possible: LIST" (no-clamp: 4097 CPU ids
# reach the clamp), booted on the same kernel where its .config allows.
HOTPLUG=1,5,32,33,38,255
ONLINE=2,33

mkdir -p "$build" "$out"
build=$(cd "$build" && pwd)
rm -f "$out/mutants.txt"
out=$(cd "$out" && pwd)
mapfile -t mutants < <(ls "$HARNESS"/mutants/*.patch)
((${#mutants[@]} > 0)) || die "no mutants in $HARNESS/mutants"

# caught_line: "full: CHECKS; small: CHECKS", each variant's cell.
caught_line() {
	local v line="" k=0
	for v in $variants; do
		line+="${line:+; }$v: ${cells[k]}"
		k=$((k + 1))
	done
	echo "$line"
}

# caught_by DIR...: the checks that failed a boot in sweeps' checks.csv,
# in the judge's order. A boot whose KUnit suite ran and failed counts
# for "kunit" alone, so the table shows which checks would have caught
# the mutant without it; a suite that never ran (a panic before it) is
# no such failure.
caught_by() {
	local d
	local -a checks=()
	for d; do
		[[ -r $d/checks.csv ]] || {
			echo "no-results"
			return
		}
		checks+=("$d/checks.csv")
	done
	awk -F, '
		FNR == 1 { next }
		!($4 in rank) { rank[$4] = ++n; name[n] = $4 }
		$5 == "fail" { fail[$1, $4] = 1; boots[$1] = 1 }
		$4 == "kunit" && $5 == "fail" && $0 !~ /KUnit suite pid_max: none,/ { suite[$1] = 1 }
		END {
			for (b in boots)
				for (i = 1; i <= n; i++)
					if (fail[b, name[i]] && (!suite[b] || name[i] == "kunit"))
						hit[i] = 1
			s = ""
			for (i = 1; i <= n; i++)
				if (hit[i]) s = s "," name[i]
			print (s == "" ? "-" : substr(s, 2))
		}' "${checks[@]}"
}

# mutant_cell PATCH VARIANT: build VARIANT's kernels with the mutant
# PATCH (the table's build for each tier it boots), sweep each, print
# caught_by's cell; fails when a build failed. Uses $name, $online and
# $possible of the mutant.
mutant_cell() {
	local line b tiers t kdir plan
	local -a dirs=() builds=() opts=()
	local -A only=([hotplug]="hotplug:$HOTPLUG" [online]="online:${online:-$ONLINE}")
	[[ -z $possible ]] || only[possible]="possible:$possible"
	plan=$(kernel_plan "$tree" x86_64 "$2" "$pick" "${!only[@]}") || die "$KERNEL_TABLE, tree $tree: see above"
	mapfile -t builds <<<"$plan"
	for line in "${builds[@]}"; do
		read -r b tiers <<<"$line"
		opts=()
		for t in $tiers; do
			opts+=(--only "${only[$t]}")
		done
		if ! kdir=$("$HARNESS/build-kernel.sh" "$build" "$tree" "$b" "$1" 2>"$out/$name-$b.build.log"); then
			cat "$out/$name-$b.build.log" >&2
			echo build-failed
			return 1
		fi
		"$HARNESS/sweep-smp.sh" --kernel "$kdir/vmlinux" --accel "$accel" "${opts[@]}" \
			--build-dir "$build" --out "$out/$name/$b" >"$out/$name-$b.sweep.log" 2>&1 || true
		dirs+=("$out/$name/$b")
	done
	caught_by "${dirs[@]}"
}

echo "KTAP version 1"
echo "1..${#mutants[@]}"
table="$out/mutants.txt.tmp"
printf '%-16s %-8s %-8s %s\n' mutant variant verdict "checks that failed a boot" >"$table"
passed=0 failed=0 i=0
for m in "${mutants[@]}"; do
	name=$(basename "$m" .patch)
	i=$((i + 1))
	cells=()
	built=1
	online=$(sed -n 's/^Harness-Online: *\([0-9,-]*\)$/\1/p' "$m" | head -n 1)
	possible=$(sed -n 's/^Harness-Possible: *\([0-9,-]*\)$/\1/p' "$m" | head -n 1)
	for v in $variants; do
		cells+=("$(mutant_cell "$m" "$v")") || built=0
	done
	verdict=SURVIVED
	((built)) || verdict=not-built
	for cell in "${cells[@]}"; do
		[[ $verdict != SURVIVED || $cell == - ]] || verdict=caught
	done
	if [[ $verdict == caught ]]; then
		passed=$((passed + 1))
		echo "ok $i mutant_$name # caught by $(caught_line)"
	else
		failed=$((failed + 1))
		echo "not ok $i mutant_$name # $verdict"
	fi
	for v in $variants; do
		printf '%-16s %-8s %-8s %s\n' "$name" "$v" "$verdict" "${cells[0]:-}" >>"$table"
		cells=("${cells[@]:1}")
	done
done
mv "$table" "$out/mutants.txt"
sed 's/^/# /' "$out/mutants.txt"
summary_line "$passed" "$failed" 0
((failed == 0))
}

main "$@"
