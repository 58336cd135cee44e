#!/bin/bash
# bench.sh - measure, in one run, what the harness costs on this machine:
# a cold kernel build, a rebuild after a change to one patch, single
# boots (-smp 1, -smp 1,maxcpus=255, 64/128/255 CPUs online), the whole
# hotplug tier 1..255, the possible tier (every N, and its NR_CPUS 8192
# build), the wide tiers (QEMU 10: one 288-online and one 512-possible
# boot, and their build), and a reference boot of the same kernel the
# way the kernel's kunit.py boots x86_64. Every figure is also given as a
# ratio to that reference. Measures only: it asserts no time.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HARNESS")
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/bench.sh [--out DIR] [--runs N]
Measure the harness's costs on this machine; asserts no time.
  --out DIR  results (default results/bench): bench.csv, bench.txt
  --runs N   boots per single-boot figure, median taken (default 5;
             the online boots run ceil(N/2) times)
Builds in DIR/build, from scratch, so the cold figure is honest."

main() {
local out="$REPO/results/bench" runs=5
parse_options "$USAGE" "out:,runs:" "$@"
set -- "${OPTS[@]}"
while (($#)); do
	case $1 in
	--out) out=$2 ;;
	--runs) runs=$2 ;;
	--) shift; break ;;
	esac
	shift 2
done
(($# == 0)) || usage_error "unexpected operand '$1'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage_error "--runs wants a positive number, not '$runs'"
"$HARNESS/deps.sh" build

mkdir -p "$out"
out=$(cd "$out" && pwd)
build="$out/build"
rows="$out/bench.rows.tmp"
: >"$rows"

# now: seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }
# elapsed START: seconds since START, two decimals.
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }
# median: the median of the numbers on stdin.
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# row METRIC SECONDS RUNS TARGET: one figure.
row() {
	echo "$1,$2,$3,$4" >>"$rows"
	info "$1: ${2}s (runs: $3)"
}

# boots NAME SMP COUNT [STYLE KERNEL]: boot COUNT times, print each
# duration; a boot that does not reach its final marker stops the bench.
boots() {
	local name=$1 smp=$2 count=$3 style=${4:-} k=${5:-$kernel} i log job
	job_kernel "$k" "$kdir/.config" "$(kernel_initrd "$kdir/.config" "$initrd")" bench tcg
	job=$(make_job "$name" bench "${smp##*=}" "${smp%%,*}" "$smp")
	for ((i = 1; i <= count; i++)); do
		log="$out/boots/$name-$i.log"
		BOOT_STYLE=$style "$HARNESS/boot-guest.sh" "$job" "$log"
		[[ $(kv_get "$("$HARNESS/parse-console.sh" "$log")" end) == 1 ]] ||
			die "$name boot $i did not reach its final marker: $log"
		sed 's/.* seconds=\([0-9.]*\).*/\1/' "$log.meta"
	done
}

# tier_rows NAME COUNTS TARGET SWEEP_OPTION...: the sweep of one tier as
# users run it (full variant), timed whole, and a row per boot of it.
tier_rows() {
	local name=$1 ns=$2 target=$3 t n
	shift 3
	t=$(now)
	"$HARNESS/sweep-smp.sh" --variant full --accel tcg "$@" \
		--build-dir "$build" --out "$out/$name-tier" >"$out/$name-tier.log" 2>&1 ||
		die "the $name tier failed: $out/$name-tier.log"
	row "${name}_tier" "$(elapsed "$t")" 1 "$target"
	for n in ${ns//,/ }; do
		row "boot_${name}_$n" "$(awk -F, -v n="$n" 'NR > 1 && $1 == n { print $7; exit }' \
			"$out/$name-tier/results.csv")" 1 ""
	done
}

# The kernels of the table's 6.1 full variant: the 1..255 tiers', the
# possible tier's, the wide tiers'.
local k_main k_possible k_wide
k_main=$(kernel_pick 6.1 full hotplug each) &&
	k_possible=$(kernel_pick 6.1 full possible each) &&
	k_wide=$(kernel_pick 6.1 full wide-online each) ||
	die "the kernel table has no 6.1 full kernels for every tier"

rm -rf "$build" "$out/boots"
mkdir -p "$build" "$out/boots"

# 1. Cold build: unpack, quilt push, configure, build vmlinux.
t=$(now)
kdir=$("$HARNESS/build-kernel.sh" "$build" 6.1 "$k_main")
row cold_build "$(elapsed "$t")" 1 240
kernel="$kdir/vmlinux"

# 2. Rebuild after a change to one patch: bench/comment.patch (a word of
#    a comment in kernel/pid.c) pushed on top of the series, built the
#    way mutants.sh builds (quilt pops and pushes, make recompiles what
#    it touches and relinks); the series itself is left alone.
t=$(now)
"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_main" "$HARNESS/bench/comment.patch" >/dev/null
row rebuild_one_patch "$(elapsed "$t")" 1 60
kdir=$("$HARNESS/build-kernel.sh" --bzimage "$build" 6.1 "$k_main")
initrd=$("$HARNESS/build-initramfs.sh" "$build")

# 3. The reference: the same kernel as a bzImage, booted like kunit.py.
ref=$(boots reference-kunit-py 1 "$runs" kunit "$kdir/bzImage" | median)
row reference_kunit_py_boot "$ref" "$runs" ""

# 4. Single boots, medians.
# (Each in a variable first: a failed boot then stops the bench.)
half=$(((runs + 1) / 2))
v=$(boots smp-1 1 "$runs" | median)
row boot_smp_1 "$v" "$runs" 1.0
v=$(boots maxcpus-255 1,maxcpus=255 "$runs" | median)
row boot_maxcpus_255 "$v" "$runs" ""
v=$(boots online-64 64 "$half" | median)
row boot_online_64 "$v" "$half" ""
v=$(boots online-128 128 "$half" | median)
row boot_online_128 "$v" "$half" ""
v=$(boots online-255 255 "$half" | median)
row boot_online_255 "$v" "$half" 30

# 5. The whole hotplug tier, as users run it (2 guests at a time).
t=$(now)
"$HARNESS/sweep-smp.sh" --kernel "$kernel" --accel tcg --cpus all \
	--online "" --scenarios no --build-dir "$build" \
	--out "$out/hotplug-tier" >"$out/hotplug-tier.log" 2>&1 ||
	die "the hotplug tier failed: $out/hotplug-tier.log"
row hotplug_tier_1_255 "$(elapsed "$t")" 1 240

# 6. The possible tier of one variant, as users run it (its NR_CPUS 8192
#    build first, timed apart), and each N's boot from its results.
t=$(now)
"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_possible" >/dev/null
row cold_build_maxsmp "$(elapsed "$t")" 1 ""
tier_rows possible "$DEFAULT_POSSIBLE" 300 --only "possible:$DEFAULT_POSSIBLE"

# 7. The wide tiers: QEMU 10 fetched, the wide build, one 288-online and
#    one 512-possible boot; skipped when bookworm-backports is out of
#    reach.
if "$HARNESS/fetch-qemu.sh" "$build" >/dev/null; then
	t=$(now)
	"$HARNESS/build-kernel.sh" "$build" 6.1 "$k_wide" >/dev/null
	row cold_build_wide "$(elapsed "$t")" 1 ""
	tier_rows wide "288 512" "" --only wide-online:288 --only wide-hotplug:512
else
	info "no QEMU 10: the wide figures are left out"
fi

# The report: CSV and a text table, each figure also as x reference.
{
	echo "metric,seconds,runs,ratio_to_reference,target_seconds"
	awk -F, -v ref="$ref" '{ printf "%s,%s,%s,%.2f,%s\n", $1, $2, $3, $2 / ref, $4 }' "$rows"
} >"$out/bench.csv.tmp"
mv "$out/bench.csv.tmp" "$out/bench.csv"
{
	echo "harness/bench.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(qemu-system-x86_64 --version | head -n 1)"
	printf '%-24s %9s %5s %12s %8s\n' metric seconds runs x_reference target
	awk -F, -v ref="$ref" '{
		printf "%-24s %9s %5s %12.2f %8s\n", $1, $2, $3, $2 / ref, ($4 == "" ? "-" : $4) }' "$rows"
} >"$out/bench.txt"
rm -f "$rows"
cat "$out/bench.txt"
}

main "$@"
