#!/bin/bash
# plot.sh - draw a sweep's pid_max against the CPU count with gnuplot:
# the measured boots as points over the formula's curve, to 8192 CPUs.
#
# Usage: harness/plot.sh OUT_DIR
# Reads OUT_DIR/{jobs,results.csv} of one variant, or OUT_DIR/full and
# OUT_DIR/small of a --variant all sweep, and writes OUT_DIR/pid_max.svg
# and OUT_DIR/pid_max.png. Hotplug-tier and online-tier boots are drawn
# apart; scenario boots (overrides, nr_cpus=...) are left out.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

(($# == 1)) || die "usage: ${0##*/} OUT_DIR"
out=$1
command -v gnuplot >/dev/null || die "gnuplot not found: apt-get install gnuplot-nox"

data="$out/plot.tmp"
mkdir -p "$data"
trap 'rm -rf "$data"' EXIT

# points VARIANT_DIR TIER: "cpus pid_max" of that tier's boots.
points() {
	paste -d' ' <(cut -d' ' -f1 "$1/jobs") <(tail -n +2 "$1/results.csv" | tr ',' ' ') |
		awk -v tier="-$2-" 'index($1, tier) && $4 ~ /^[0-9]+$/ { print $2, $4 }'
}

plots=()
for v in full small; do
	if [[ -r $out/$v/results.csv ]]; then
		dir=$out/$v
	elif [[ -r $out/results.csv && $(head -n 1 "$out/jobs") == *-$v-* ]]; then
		dir=$out
	else
		continue
	fi
	small=0
	[[ $v == small ]] && small=1
	for ((n = 1; n <= 8192; n = n < 32 ? n + 1 : n + n / 16)); do
		expected_vars "$n" "$small" 1
		echo "$n $EXP_MAX"
	done >"$data/$v.formula"
	points "$dir" hotplug >"$data/$v.hotplug"
	points "$dir" online >"$data/$v.online"
	plots+=("'$data/$v.formula' with lines lw 2 title '$v: formula'")
	[[ -s $data/$v.hotplug ]] &&
		plots+=("'$data/$v.hotplug' with points pt 7 ps 0.8 title '$v: -smp 1,maxcpus=N'")
	[[ -s $data/$v.online ]] &&
		plots+=("'$data/$v.online' with points pt 9 ps 1.5 title '$v: N CPUs online'")
done
((${#plots[@]} > 0)) || die "no results.csv with boots in $out"

joined=$(printf '%s, ' "${plots[@]}")
for term in "svg size 900,600 dynamic" "pngcairo size 900,600"; do
	ext=svg
	[[ $term == png* ]] && ext=png
	gnuplot <<EOF || die "gnuplot failed to draw $out/pid_max.$ext"
set terminal $term
set output '$out/pid_max.$ext.tmp'
set termoption noenhanced
set title 'Boot-time pid_max = min(limit, max(default, 1024 x nr_cpu_ids))'
set xlabel 'CPUs (nr_cpu_ids); QEMU boots up to 255, beyond is the formula only'
set ylabel 'pid_max'
set logscale xy 2
set xrange [1:8192]
set yrange [2048:8388608]
set format y '%.0f'
set key top left
set grid
set arrow from 255, graph 0 to 255, graph 1 nohead dt 2
plot ${joined%, }
EOF
	mv "$out/pid_max.$ext.tmp" "$out/pid_max.$ext"
done
echo "$out/pid_max.svg"
