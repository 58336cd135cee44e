#!/bin/bash
# budget.sh - the PID budget, a reader of a results folder: what each
# online-tier boot's kernel spent before init forked, a least-squares
# line through it per kernel, and what that line projects for machines
# QEMU cannot boot.
#
#   pid_budget.csv  boot,kernel,online,possible,last_pid_at_init,tasks,
#                   kthreads: a row per online-tier boot that reported
#   pid_budget.txt  per kernel: PIDs per online CPU and the fixed part,
#                   the fit's residual, and for 1664, 4096 and 8192 CPUs
#                   the projected PIDs at init beside a fixed 32768 and
#                   the formula's pid_max; the CPU count at which a
#                   fixed 32768 runs out before init
#   pid_budget.svg  gnuplot (and .png): the measured points, the fit to
#                   8192 CPUs, the 32768 line and the formula's pid_max
#
# last_pid_at_init is the highest PID allocated when init started (the
# guest reads ns_last_pid first thing). Writes nothing when the folder
# has fewer than two online-tier boots with a budget. The numbers are
# harness/pidmax/budget.py's; the picture is drawn here, with gnuplot.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/budget.sh [--out OUT] DIR...
Write pid_budget.csv, pid_budget.txt and pid_budget.svg (and .png) from
the online-tier boots of each DIR/jobs and their console logs, into OUT
(default: the first DIR). Several DIRs put kernels side by side."

main() {
	local out=""
	parse_options "$USAGE" "out:" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--out) out=$2; shift 2 ;;
		--) shift; break ;;
		esac
	done
	(($# >= 1)) || usage_error "expects at least one DIR"
	[[ -n $out ]] || out=$1
	# The rows, the fits and the text: harness/pidmax/budget.py.
	PIDMAX_PROG=${0##*/} "$HARNESS/pidmax.sh" budget --out "$out" "$@"
	[[ -e $out/pid_budget.fits ]] || return 0
	# The numbers stand without the picture.
	if ! command -v gnuplot >/dev/null; then
		rm -f "$out/pid_budget.fits"
		info "no pid_budget.svg: gnuplot not found (apt-get install gnuplot-nox)"
		return 0
	fi
	plot_budget "$out"
}

# plot_budget DIR: DIR/pid_budget.svg and .png from DIR/pid_budget.csv
# and the fits (label, fixed part, per CPU) in DIR/pid_budget.fits.
plot_budget() {
	local out=$1 data label a b
	local -a plots=()
	data=$(mktemp -d)
	"$HARNESS/pidmax.sh" curve >"$data/formula"
	# The 2010 report that started it: 25163 processes before the login
	# prompt on a 1664-CPU machine (a later point in boot than init).
	echo "1664 25163" >"$data/report2010"
	while read -r label a b; do
		awk -F, -v k="$label" 'NR > 1 && $2 == k { print $3, $5 }' "$out/pid_budget.csv" >"$data/$label"
		plots+=("'$data/$label' with points pt 7 ps 1.2 title '$label: PIDs at init, measured'")
		plots+=("$a + $b * x with lines dt 2 title '$label: fit'")
	done <"$out/pid_budget.fits"
	rm -f "$out/pid_budget.fits"
	draw "$out/pid_budget" <<EOF
set termoption noenhanced
set title 'PIDs used before init, against online CPUs: a fixed 32768 runs out, pid_max = 1024 x CPUs does not'
set xlabel 'online CPUs (QEMU boots up to 255; beyond is the fit)'
set ylabel 'PIDs'
set logscale xy 2
set xrange [1:8192]
set yrange [16:8388608]
set format y '%.0f'
set key top left
set grid
set samples 400
plot 32768 with lines lw 2 title 'fixed 32768 (PID_MAX_DEFAULT)', \\
	'$data/formula' with lines lw 2 title 'pid_max: max(32768, 1024 x CPUs), clamped', \\
	'$data/report2010' with points pt 5 ps 1.5 title '2010 report: 25163 processes at login, 1664 CPUs', \\
	$(printf '%s, ' "${plots[@]}") 1/0 notitle
EOF
	rm -rf "$data"
}

main "$@"
