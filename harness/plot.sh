#!/bin/bash
# plot.sh - draw a sweep's pid_max against the CPU count with gnuplot:
# the measured boots as points over the formula's curve, to 8192 CPUs.
#
# Usage: harness/plot.sh DIR
# Reads DIR/results.csv (its tier and variant columns) and writes
# DIR/pid_max.svg and DIR/pid_max.png: per variant in the folder, the
# formula's curve and the hotplug-, online- and possible-tier boots as
# points (the last drawn apart: CPU ids from possible_cpus=, not CPUs
# that firmware describes).
# Scenario boots (overrides, nr_cpus=...) are left out. Works for any
# kernel label: the variant comes from each boot's .config.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/plot.sh DIR
Draw DIR/results.csv as DIR/pid_max.svg and DIR/pid_max.png."
parse_options "$USAGE" "" "$@"
set -- "${OPTS[@]:1}"
(($# == 1)) || usage_error "expects DIR"
out=$1
[[ -r $out/results.csv ]] || die "$out/results.csv is missing: run harness/report.sh $out"

data="$out/plot.tmp"
rm -f "$out/pid_max.svg" "$out/pid_max.png"
mkdir -p "$data"
trap 'rm -rf "$data"' EXIT

# points VARIANT TIER: "cpus pid_max" of that variant's boots of TIER.
points() {
	awk -F, -v v="$1" -v t="$2" 'NR > 1 && $10 == t && $11 == v &&
		$1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { print $1, $3 }' "$out/results.csv"
}

plots=()
for v in full small; do
	[[ -n $(points "$v" hotplug)$(points "$v" online)$(points "$v" possible)$(points "$v" wide-online)$(points "$v" wide-hotplug) ]] || continue
	small=()
	[[ $v != small ]] || small=(--small)
	"$HARNESS/pidmax.sh" curve "${small[@]}" >"$data/$v.formula"
	points "$v" hotplug >"$data/$v.hotplug"
	points "$v" online >"$data/$v.online"
	points "$v" possible >"$data/$v.possible"
	points "$v" wide-online >"$data/$v.wide-online"
	points "$v" wide-hotplug >"$data/$v.wide-hotplug"
	plots+=("'$data/$v.formula' with lines lw 2 title '$v: formula'")
	[[ -s $data/$v.hotplug ]] &&
		plots+=("'$data/$v.hotplug' with points pt 7 ps 0.8 title '$v: -smp 1,maxcpus=N'")
	[[ -s $data/$v.online ]] &&
		plots+=("'$data/$v.online' with points pt 9 ps 1.5 title '$v: N CPUs online'")
	[[ -s $data/$v.possible ]] &&
		plots+=("'$data/$v.possible' with points pt 5 ps 1.2 title '$v: -smp 1, possible_cpus=N'")
	# Past 255, CPUs the firmware describes (QEMU 10, q35, x2APIC).
	[[ -s $data/$v.wide-online ]] &&
		plots+=("'$data/$v.wide-online' with points pt 11 ps 1.8 title '$v: N CPUs online, q35 x2APIC (QEMU 10)'")
	[[ -s $data/$v.wide-hotplug ]] &&
		plots+=("'$data/$v.wide-hotplug' with points pt 13 ps 1.8 title '$v: -smp 256,maxcpus=N, q35 x2APIC (QEMU 10)'")
done
((${#plots[@]} > 0)) || die "no boot of any tier with a pid_max in $out/results.csv"

joined=$(printf '%s, ' "${plots[@]}")
draw "$out/pid_max" <<EOF
set termoption noenhanced
set title 'Boot-time pid_max = min(limit, max(default, 1024 x nr_cpu_ids))'
set xlabel "CPU ids (nr_cpu_ids)\nQEMU 7.2 describes up to 255, QEMU 10 on q35 up to 4096, possible_cpus=N up to 8192"
set ylabel 'pid_max'
set logscale xy 2
set xrange [1:8192]
set yrange [2048:8388608]
set format y '%.0f'
set key top left
set grid
set arrow from 255, graph 0 to 255, graph 1 nohead dt 2
set arrow from 4096, graph 0 to 4096, graph 1 nohead dt 3
plot ${joined%, }
EOF
echo "$out/pid_max.svg"
