#!/bin/bash
# bench.sh - measure, in one run, what the harness costs on this machine:
# a cold kernel build, a rebuild after a change to one patch, single
# boots (-smp 1, -smp 1,maxcpus=255, 64/128/255 CPUs online), the whole
# hotplug tier 1..255 against its floor (one-CPU boots booted alone
# across the tier's range) and the host CPU a boot of the harness itself
# (the tier's jobs against the fake QEMU), the possible tier (every N, its
# NR_CPUS 8192 build, and the cost per CPU id at 8192 against 4096), the
# wide tiers (QEMU 10: 288 online, 512 and 4096 firmware-described
# CPUs; their build, unless it is the possible tier's), and a reference
# boot of the same kernel the way the kernel's kunit.py boots x86_64.
# Each figure is a median with its min and max; a ratio to its floor
# where one exists, else to the reference. Measures only: it asserts no
# time. --only runs some of its sections.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HARNESS")
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

SECTIONS="build reference single hotplug possible wide"
USAGE="Usage: harness/bench.sh [--out DIR] [--runs N] [--only LIST]
Measure the harness's costs on this machine; asserts no time.
  --out DIR    results (default results/bench): bench.csv, bench.txt
  --runs N     boots per single-boot figure, median taken (default 5;
               the online boots run ceil(N/2) times)
  --only LIST  only these sections, comma-separated (default: all of
               ${SECTIONS// /,})
Builds in DIR/build, from scratch when the section build runs, so the
cold figure is honest; without it the kernels already in DIR/build are
used (and built when missing)."

main() {
local out="$REPO/results/bench" runs=5 only=${SECTIONS// /,} sec
parse_options "$USAGE" "out:,runs:,only:" "$@"
set -- "${OPTS[@]}"
while (($#)); do
	case $1 in
	--out) out=$2 ;;
	--runs) runs=$2 ;;
	--only) only=$2 ;;
	--) shift; break ;;
	esac
	shift 2
done
(($# == 0)) || usage_error "unexpected operand '$1'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage_error "--runs wants a positive number, not '$runs'"
for sec in ${only//,/ }; do
	in_words "$sec" "$SECTIONS" || usage_error "--only: no section '$sec' (sections: $SECTIONS)"
done
# wanted SECTION: whether --only names it.
wanted() { in_words "$1" "${only//,/ }"; }
"$HARNESS/deps.sh" build

mkdir -p "$out"
out=$(cd "$out" && pwd)
build="$out/build"
rows="$out/bench.rows.tmp"
: >"$rows"
ratios=()

# now: seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }
# elapsed START: seconds since START, two decimals.
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }
# stats: "MEDIAN MIN MAX RUNS" of the numbers on stdin.
stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan nan nan 0"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f %.2f %.2f %d\n", m, v[1], v[NR], NR }'
}
# row METRIC "MEDIAN MIN MAX RUNS" FLOOR TARGET: one figure; FLOOR (the
# least it could take, "" for none) and TARGET ("" for none) in seconds.
row() {
	local med min max n
	read -r med min max n <<<"$2"
	echo "$1,$med,$min,$max,$n,$3,$4" >>"$rows"
	info "$1: ${med}s (min $min, max $max, runs: $n)${3:+, floor ${3}s}"
}
# once SECONDS: the stats of a figure measured once.
once() { echo "$1 $1 $1 1"; }
# csv_seconds CSV TIER [N]: the boot seconds of results.csv's rows of a
# tier (of CPU count N only, when given), one a line.
csv_seconds() {
	awk -F, -v t="$2" -v n="${3:-}" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["tier"] == t && (n == "" || $h["cpus"] == n) { print $h["seconds"] }' "$1"
}

# boots NAME SMP COUNT [STYLE KERNEL]: boot COUNT times, print each
# duration; a boot that does not reach its final marker stops the bench.
boots() {
	local name=$1 smp=$2 count=$3 style=${4:-} k=${5:-$kernel} i log job
	job_kernel "$k" "$kdir/.config" "$("$HARNESS/pidmax.sh" initrd-of "$kdir/.config" "$initrd")" bench tcg
	job=$(make_job "$name" bench "${smp##*=}" "${smp%%,*}" "$smp")
	for ((i = 1; i <= count; i++)); do
		log="$out/boots/$name-$i.log"
		BOOT_STYLE=$style "$HARNESS/boot-guest.sh" "$job" "$log"
		[[ $(job_field "$("$HARNESS/parse-console.sh" "$log")" end) == 1 ]] ||
			die "$name boot $i did not reach its final marker: $log"
		sed 's/.* seconds=\([0-9.]*\).*/\1/' "$log.meta"
	done
}

# tier_rows NAME TIER COUNTS TARGET SWEEP_OPTION...: the sweep of one
# tier as users run it (full variant), timed whole, and a row per boot.
tier_rows() {
	local name=$1 tier=$2 ns=$3 target=$4 t n
	shift 4
	t=$(now)
	"$HARNESS/sweep-smp.sh" --variant full --accel tcg "$@" \
		--build-dir "$build" --out "$out/$name-tier" >"$out/$name-tier.log" 2>&1 ||
		die "the $name tier failed: $out/$name-tier.log"
	row "${name}_tier" "$(once "$(elapsed "$t")")" "" "$target"
	for n in ${ns//,/ }; do
		row "boot_${name}_$n" "$(csv_seconds "$out/$name-tier/results.csv" "$tier" "$n" | stats)" "" ""
	done
}
# per_id_ratio CSV TIER A B: the time a CPU id at B over that at A (the
# boots of B and A ids of a tier), "nan" when either is missing.
per_id_ratio() {
	local a b
	a=$(csv_seconds "$1" "$2" "$3" | stats) b=$(csv_seconds "$1" "$2" "$4" | stats)
	awk -v a="${a%% *}" -v b="${b%% *}" -v na="$3" -v nb="$4" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2f\n", (b / nb) / (a / na); else print "nan" }'
}

# The kernels of the table's 6.1 full variant: the 1..255 tiers', the
# possible tier's, the wide tiers'.
local k_main k_possible k_wide
k_main=$(kernel_pick 6.1 x86_64 full hotplug each) &&
	k_possible=$(kernel_pick 6.1 x86_64 full possible each) &&
	k_wide=$(kernel_pick 6.1 x86_64 full wide-online each) ||
	die "the kernel table has no 6.1 full kernels for every tier"

# The commit measured, as it was when the bench began.
commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
wanted build && rm -rf "$build"
rm -rf "$out/boots"
mkdir -p "$build" "$out/boots"
ref=nan

# 1. Cold build: unpack, quilt push, configure, build vmlinux.
if wanted build; then
	t=$(now)
	"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_main" >/dev/null
	row cold_build "$(once "$(elapsed "$t")")" "" 240
fi
kdir=$("$HARNESS/build-kernel.sh" "$build" 6.1 "$k_main")
kernel="$kdir/vmlinux"

# 2. Rebuild after a change to one patch: bench/comment.patch (a word of
#    a comment in kernel/pid.c) pushed on top of the series, built the
#    way mutants.sh builds (quilt pops and pushes, make recompiles what
#    it touches and relinks); the series itself is left alone.
if wanted build; then
	t=$(now)
	"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_main" "$HARNESS/bench/comment.patch" >/dev/null
	row rebuild_one_patch "$(once "$(elapsed "$t")")" "" 60
fi
initrd=$("$HARNESS/build-initramfs.sh" "$build")

# 3. The reference: the same kernel as a bzImage, booted like kunit.py.
local v
if wanted reference; then
	kdir=$("$HARNESS/build-kernel.sh" --bzimage "$build" 6.1 "$k_main")
	ref=$(boots reference-kunit-py 1 "$runs" kunit "$kdir/bzImage" | stats)
	row reference_kunit_py_boot "$ref" "" ""
fi

# 4. Single boots, alone. (Each in a variable first: a failed boot then
#    stops the bench.)
if wanted single; then
	half=$(((runs + 1) / 2))
	v=$(boots smp-1 1 "$runs" | stats)
	row boot_smp_1 "$v" "" 1.0
	v=$(boots maxcpus-255 1,maxcpus=255 "$runs" | stats)
	row boot_maxcpus_255 "$v" "" ""
	v=$(boots online-64 64 "$half" | stats)
	row boot_online_64 "$v" "" ""
	v=$(boots online-128 128 "$half" | stats)
	row boot_online_128 "$v" "" ""
	v=$(boots online-255 255 "$half" | stats)
	row boot_online_255 "$v" "" 30
fi

! wanted hotplug || hotplug_tier
! wanted possible || possible_tier
! wanted wide || wide_tiers
report
}

# hotplug_tier: the whole hotplug tier (1..255 possible, one online), as
# users run it (2 guests at a time), against its floor: one-CPU boots
# booted alone at 1, 64, 128, 192 and 255 possible CPUs, three each,
# their median times the tier's boots over the guests run at once (two;
# one on one core). The floor is not taken from the tier's own boots:
# they run two at a time and so already carry their contention. Then
# the host CPU a boot of the harness itself: the tier's job list run
# again against the fake QEMU, which replays a recorded console and
# boots nothing, and reported.
hotplug_tier() {
	local t tier_s boot solo floor n
	solo=$(for n in 1 64 128 192 255; do
		boots "solo-$n" "1,maxcpus=$n" 3
	done | stats) || die "a solo boot of the floor failed"
	row hotplug_floor_solo_boot "$solo" "" ""
	t=$(now)
	"$HARNESS/sweep-smp.sh" --kernel "$kernel" --accel tcg --cpus all \
		--online "" --scenarios no --build-dir "$build" \
		--out "$out/hotplug-tier" >"$out/hotplug-tier.log" 2>&1 ||
		die "the hotplug tier failed: $out/hotplug-tier.log"
	tier_s=$(elapsed "$t")
	boot=$(csv_seconds "$out/hotplug-tier/results.csv" hotplug | stats)
	row hotplug_tier_boot "$boot" "" ""
	floor=$(awk -v s="${solo%% *}" -v b="$boot" -v c="$(nproc)" 'BEGIN {
		split(b, f, " "); printf "%.2f", s * f[4] / (c < 2 ? 1 : 2) }')
	row hotplug_tier_1_255 "$(once "$tier_s")" "$floor" 240
	row host_cpu_per_boot "$(once "$(host_cpu "$out/hotplug-tier/jobs")")" "" ""
}

# host_cpu JOBS: the host CPU seconds (user and system, every process) a
# boot of the job list JOBS costs the harness: run-jobs.sh and
# report.sh over the fake QEMU replaying one recorded boot.
host_cpu() {
	local dir="$out/host-cpu" n user sys
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$1" "$dir/jobs"
	n=$(grep -vc $'\tskip=' "$dir/jobs")
	local TIMEFORMAT='%U %S'
	{ time {
		QEMU="$HARNESS/tests/fake-qemu.sh" FAKE_QEMU_MODE=replay \
			FAKE_QEMU_LOG="$HARNESS/tests/fixtures/hotplug-033.log" \
			PIDMAX_FAIL_TAIL=0 "$HARNESS/run-jobs.sh" "$dir" >/dev/null
		"$HARNESS/report.sh" "$dir" >/dev/null 2>&1 || true
	}; } 2>"$dir/time"
	# (time's line is the last: a boot's own messages may come before.)
	read -r user sys < <(tail -n 1 "$dir/time")
	awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { printf "%.3f", (u + s) / n }'
}

# possible_tier: the possible tier of one variant, as users run it (its
# NR_CPUS 8192 build first, timed apart: the wide kernel, also the wide
# tiers'), each N's boot, and the cost of a CPU id at 8192 against 4096
# (linear: 1.0).
possible_tier() {
	local t possible
	possible=$("$HARNESS/pidmax.sh" default possible)
	t=$(now)
	"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_possible" >/dev/null
	row "cold_build_${k_possible//-/_}" "$(once "$(elapsed "$t")")" "" ""
	tier_rows possible possible "$possible" 300 --only "possible:$possible"
	ratios+=("possible_per_id_8192_over_4096 $(per_id_ratio "$out/possible-tier/results.csv" possible 4096 8192) 1.2")
}

# wide_tiers: QEMU 10 fetched, the wide build, one 288-online boot and
# 512 and 4096 firmware-described CPUs; left out when bookworm-backports
# is out of reach.
wide_tiers() {
	local t
	if ! "$HARNESS/fetch-qemu.sh" "$build" >/dev/null; then
		info "no QEMU 10: the wide figures are left out"
		return 0
	fi
	if [[ $k_wide != "$k_possible" ]]; then
		t=$(now)
		"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_wide" >/dev/null
		row "cold_build_${k_wide//-/_}" "$(once "$(elapsed "$t")")" "" ""
	fi
	tier_rows wide wide-online 288 "" --only wide-online:288
	tier_rows wide_hotplug wide-hotplug "512,4096" "" --only wide-hotplug:512,4096
	ratios+=("wide_hotplug_per_id_4096_over_512 $(per_id_ratio "$out/wide_hotplug-tier/results.csv" wide-hotplug 512 4096) -")
}

# report: bench.csv and bench.txt from the rows (each median also as a
# ratio to its floor, or else to the reference boot) and the ratios.
report() {
	local r
	local -a f
	{
		echo "metric,median_s,min_s,max_s,runs,floor_s,x_floor,x_reference,target_s"
		awk -F, -v ref="${ref%% *}" '{ printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", $1, $2, $3, $4, $5, $6,
			($6 == "" ? "" : sprintf("%.2f", $2 / $6)),
			(ref + 0 > 0 ? sprintf("%.2f", $2 / ref) : ""), $7 }' "$rows"
	} >"$out/bench.csv.tmp"
	mv "$out/bench.csv.tmp" "$out/bench.csv"
	{
		echo "harness/bench.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(qemu-system-x86_64 --version | head -n 1)"
		printf '%-32s %8s %8s %8s %4s %8s %7s %7s %6s\n' metric median min max runs floor x_floor x_ref target
		awk -F, -v ref="${ref%% *}" '{
			printf "%-32s %8s %8s %8s %4s %8s %7s %7s %6s\n", $1, $2, $3, $4, $5, ($6 == "" ? "-" : $6),
				($6 == "" ? "-" : sprintf("%.2f", $2 / $6)),
				(ref + 0 > 0 ? sprintf("%.2f", $2 / ref) : "-"), ($7 == "" ? "-" : $7) }' "$rows"
		for r in "${ratios[@]}"; do
			read -r -a f <<<"$r"
			printf '%-32s %8s  (a ratio%s)\n' "${f[0]}" "${f[1]}" \
				"$([[ ${f[2]} == - ]] || echo "; at most ${f[2]} wanted")"
		done
	} >"$out/bench.txt"
	rm -f "$rows"
	cat "$out/bench.txt"
}

main "$@"
