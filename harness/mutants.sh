#!/bin/bash
# mutants.sh - show that the sweep fails on broken kernels: push each
# deliberate fault of a tree's mutants folder (MUTANTS of harness/trees:
# 6.1's in harness/mutants/, 7.3's in harness/mutants/7.3/) on top of
# the tree's series, rebuild (incrementally) each variant's kernel of
# the kernel table for the architecture (on 6.1 the full and the
# BASE_SMALL one), sweep a few CPU counts on each, and print which
# checks caught it, by the check names of each sweep's checks.csv.
#
# A mutant's header says what it needs, a line each: "Harness-Arch:
# LIST" the architectures it runs on (default x86_64; on another it is a
# skip with the reason), "Harness-Online: LIST" its own online list,
# "Harness-Possible: LIST" and "Harness-Holes: LIST" the possible and
# holes tiers at LIST, on the table's kernel for them.
#
# Exits non-zero if any mutant survives (every boot passed), could not
# be built, or left a sweep without results. Ends with "N passed, N
# failed, N skipped", one test per mutant.
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {
	HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	REPO=$(dirname "$HARNESS")
	# shellcheck source=harness/lib.sh
	. "$HARNESS/lib.sh"
	read_options "$@"
	check_options
	if ((list)); then
		for m in "${mutants[@]}"; do
			list_mutant "$m" || die "no plan for mutant $m (see above)"
		done
		return 0
	fi
	run_all
}

# read_options ARG...: the command line into the settings every function
# below reads (tree, arch, build, out, accel, pick, only, hotplug,
# online_list, list).
read_options() {
USAGE="Usage: harness/mutants.sh [--tree T] [--arch A] [--build-dir DIR] [--out DIR]
                          [--accel A] [--fewest-kernels] [--variant V]
                          [--cpus LIST] [--online LIST] [--list]
Push each mutant of the tree's mutants folder (harness/trees: 6.1's in
harness/mutants/, 7.3's in harness/mutants/7.3/) on top of the series,
build each variant's kernel (harness/kernels), sweep a few CPU counts on
each, and print a table of the checks that caught it (also in
DIR/mutants.txt).
  --tree T         a tree of harness/kernels (default: 6.1)
  --arch A         an architecture of harness/arches (default: x86_64);
                   a mutant whose Harness-Arch header leaves it out is
                   a skip
  --build-dir DIR  where the tree and builds live (default: build/)
  --out DIR        where results go (default: results/mutants)
  --accel A        tcg (default) or kvm
  --fewest-kernels each tier on the last kernel of its variant that
                   boots it (sweep-smp.sh --fewest-kernels): on 6.1 one
                   build a variant
  --variant V      full or small: that variant of the kernel table
                   only; all (default) every variant of the tree, as
                   sweep-smp.sh's --variant
  --cpus LIST      the hotplug tier's counts (x86_64: 1,5,32,33,38,255;
                   arm64: 1,32,33); \"\" boots none
  --online LIST    the online tier's counts (default 2,33), unless a
                   mutant's Harness-Online names its own; \"\" boots none
  --list           print each mutant's builds and tiers (or why it is a
                   skip), build and boot nothing"

tree=6.1 arch=x86_64 build="$REPO/build" out="$REPO/results/mutants" accel=tcg pick=each only=all
hotplug=default online_list=2,33 list=0
parse_options "$USAGE" "tree:,arch:,build-dir:,out:,accel:,fewest-kernels,variant:,cpus:,online:,list" "$@"
set -- "${OPTS[@]}"
while (($#)); do
	case $1 in
	--fewest-kernels) pick=fewest; shift; continue ;;
	--list) list=1; shift; continue ;;
	--tree) tree=$2 ;;
	--arch) arch=$2 ;;
	--build-dir) build=$2 ;;
	--out) out=$2 ;;
	--accel) accel=$2 ;;
	--variant) only=$2 ;;
	--cpus) hotplug=$2 ;;
	--online) online_list=$2 ;;
	--) shift; break ;;
	esac
	shift 2
done
(($# == 0)) || usage_error "unexpected operand '$1'"
}

# check_options: refuse bad settings; set variants (the variants to
# build), the default hotplug list, mutants (the patches) and image.
check_options() {
[[ $hotplug =~ ^[0-9,-]*$ || $hotplug == default ]] || usage_error "--cpus wants a LIST like 1,32-34, not '$hotplug'"
[[ $online_list =~ ^[0-9,-]*$ ]] || usage_error "--online wants a LIST like 2,33, not '$online_list'"
case $accel in tcg | kvm) ;; *) usage_error "--accel wants tcg or kvm, not '$accel'" ;; esac
arch_row "$arch" || usage_error "--arch: see above"
local folder
variants=$(kernel_variants "$tree" "$arch") || die "cannot read the kernel table"
[[ -n $variants ]] || usage_error "--tree wants one of $(kernel_trees "$arch") (harness/kernels, $arch), not '$tree'"
if [[ $only != all ]]; then
	in_words "$only" "$variants" || usage_error "--variant wants all or one of: $variants (tree $tree), not '$only'"
	variants=$only
fi
# Small lists that still reach every regime: the floor (1, 5), the edge
# of scaling (32, 33), pid_max_min's own edge (38), and the top (255);
# on arm64 (one CPU online of -smp N under TCG) the floor and the edge.
if [[ $hotplug == default ]]; then
	hotplug=1,5,32,33,38,255
	[[ $arch == x86_64 ]] || hotplug=1,32,33
fi
folder=$(tree_mutants_dir "$tree") || die "cannot read harness/trees"
[[ -n $folder ]] || usage_error "tree $tree has no mutants (MUTANTS of harness/trees)"
mapfile -t mutants < <(find "$folder" -maxdepth 1 -name '*.patch' | sort)
((${#mutants[@]} > 0)) || die "no mutants in $folder"
image=${ARCH_IMAGE##*/}
}

# run_all: build and sweep every mutant, print its KTAP line and the
# table (also DIR/mutants.txt), and the summary line.
run_all() {
mkdir -p "$build" "$out"
build=$(cd "$build" && pwd)
rm -f "$out/mutants.txt"
out=$(cd "$out" && pwd)

echo "KTAP version 1"
echo "1..${#mutants[@]}"
table="$out/mutants.txt.tmp"
printf '%-16s %-8s %-8s %s\n' mutant variant verdict "checks that failed a boot" >"$table"
passed=0 failed=0 skipped=0 i=0
for m in "${mutants[@]}"; do
	i=$((i + 1))
	run_mutant "$m"
done
mv "$table" "$out/mutants.txt"
sed 's/^/# /' "$out/mutants.txt"
summary_line "$passed" "$failed" "$skipped"
((failed == 0))
}

# header PATCH KEY: the value of the mutant's first "Harness-KEY: LIST"
# line (digits, commas, dashes; names too for Arch), or nothing.
header() {
	sed -n "s/^Harness-$2: *\([0-9A-Za-z_,-]*\)\$/\1/p" "$1" | head -n 1
}

# read_mutant PATCH: name, its architectures (arches), and the tiers it
# boots, TIER:LIST each (tiers); skip says why it does not run on $arch.
read_mutant() {
	local l
	name=$(basename "$1" .patch)
	arches=$(header "$1" Arch)
	arches=${arches:-x86_64}
	skip=""
	in_words "$arch" "${arches//,/ }" ||
		skip="Harness-Arch: $arches: not for $arch"
	tiers=()
	[[ -z $hotplug ]] || tiers+=("hotplug:$hotplug")
	l=$(header "$1" Online)
	l=${l:-$online_list}
	[[ -z $l ]] || tiers+=("online:$l")
	l=$(header "$1" Possible)
	[[ -z $l ]] || tiers+=("possible:$l")
	l=$(header "$1" Holes)
	[[ -z $l ]] || tiers+=("holes:$l")
	[[ -n $skip || ${#tiers[@]} -gt 0 ]] || skip="no tier to boot: --cpus and --online are empty and its header names none"
}

# builds_of VARIANT: the table's builds that boot the mutant's tiers, a
# line each: BUILD, then the sweep's --only options for it.
builds_of() {
	local line b t plan
	local -a names=()
	local -A want=()
	for t in "${tiers[@]}"; do
		names+=("${t%%:*}")
		want[${t%%:*}]=$t
	done
	plan=$(kernel_plan "$tree" "$arch" "$1" "$pick" "${names[@]}") || die "$KERNEL_TABLE, tree $tree: see above"
	while read -r b line; do
		printf '%s' "$b"
		for t in $line; do
			printf ' --only %s' "${want[$t]}"
		done
		echo
	done <<<"$plan"
}

# list_mutant PATCH: --list's lines of one mutant.
list_mutant() {
	local v line plan
	read_mutant "$1"
	if [[ -n $skip ]]; then
		echo "$name skip $skip"
		return 0
	fi
	for v in $variants; do
		plan=$(builds_of "$v") || return 1
		while read -r line; do
			echo "$name $v $line"
		done <<<"$plan"
	done
}

# caught_by DIR...: the checks that failed a boot in sweeps' checks.csv,
# in the judge's order. A boot whose KUnit suite ran and failed counts
# for "kunit" alone, so the table shows which checks would have caught
# the mutant without it; a suite that never ran (a panic before it) is
# no such failure.
caught_by() {
	local d
	local -a checks=()
	(($#)) || set -- /nonexistent
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
# caught_by's cell; fails when the table has no plan for it or a build
# failed. Uses $name and $tiers of
# the mutant.
mutant_cell() {
	local line b kdir plan
	local -a dirs=() builds=() opts=()
	plan=$(builds_of "$2") || {
		echo no-plan
		return 1
	}
	mapfile -t builds <<<"$plan"
	for line in "${builds[@]}"; do
		read -r b line <<<"$line"
		read -r -a opts <<<"$line"
		if ! kdir=$("$HARNESS/build-kernel.sh" --arch "$arch" "$build" "$tree" "$b" "$1" 2>"$out/$name-$b.build.log"); then
			cat "$out/$name-$b.build.log" >&2
			echo build-failed
			return 1
		fi
		"$HARNESS/sweep-smp.sh" --arch "$arch" --kernel "$kdir/$image" --accel "$accel" "${opts[@]}" \
			--build-dir "$build" --out "$out/$name/$b" >"$out/$name-$b.sweep.log" 2>&1 || true
		dirs+=("$out/$name/$b")
	done
	caught_by "${dirs[@]}"
}

# run_mutant PATCH: one mutant's KTAP line and table rows; counts it.
run_mutant() {
	local v cell verdict built=1
	local -a cells=()
	read_mutant "$1"
	if [[ -n $skip ]]; then
		skipped=$((skipped + 1))
		echo "ok $i mutant_$name # SKIP $skip"
		printf '%-16s %-8s %-8s %s\n' "$name" - skipped "$skip" >>"$table"
		return 0
	fi
	for v in $variants; do
		cells+=("$(mutant_cell "$1" "$v")") || built=0
	done
	# Caught when a check failed a boot of some variant; a sweep that
	# left no checks.csv is a failure of its own, never a catch.
	verdict=SURVIVED
	for cell in "${cells[@]}"; do
		[[ $cell == - || $verdict != SURVIVED ]] || verdict=caught
	done
	for cell in "${cells[@]}"; do
		[[ $cell != no-results ]] || verdict=no-results
	done
	((built)) || verdict=not-built
	if [[ $verdict == caught ]]; then
		passed=$((passed + 1))
		echo "ok $i mutant_$name # caught by $(caught_line "${cells[@]}")"
	else
		failed=$((failed + 1))
		echo "not ok $i mutant_$name # $verdict"
	fi
	for v in $variants; do
		printf '%-16s %-8s %-8s %s\n' "$name" "$v" "$verdict" "${cells[0]:-}" >>"$table"
		cells=("${cells[@]:1}")
	done
}

# caught_line CELL...: "full: CHECKS; small: CHECKS", each variant's cell.
caught_line() {
	local v line=""
	for v in $variants; do
		line+="${line:+; }$v: $1"
		shift
	done
	echo "$line"
}

main "$@"
