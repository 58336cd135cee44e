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
# has fewer than two online-tier boots with a budget.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/budget.sh [--out OUT] DIR...
Write pid_budget.csv, pid_budget.txt and pid_budget.svg (and .png) from
the online-tier boots of each DIR/jobs and their console logs, into OUT
(default: the first DIR). Several DIRs put kernels side by side."

main() {
	local out="" dir line parser
	local -A j=() r=()
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
	for dir; do
		[[ -r $dir/jobs ]] || die "$dir/jobs is missing: not a results folder"
	done
	mkdir -p "$out"
	rm -f "$out"/pid_budget.{csv,txt,svg,png}
	parser=$(parser_id)

	local csv="$out/pid_budget.csv.tmp" jobs="$out/pid_budget.jobs.tmp"
	echo "boot,kernel,online,possible,last_pid_at_init,tasks,kthreads" >"$csv"
	: >"$jobs"
	for dir; do
		while IFS= read -r line; do
			kv_load j "$line"
			[[ ${j[tier]:-} == @(online|wide-online) && -z ${j[skip]:-} && -e $dir/boots/${j[name]}.log ]] || continue
			echo "$line" >>"$jobs"
			boot_record "$dir/boots/${j[name]}.log" "$parser" || die "parse-console.sh failed on ${j[name]}"
			kv_load r "$BOOT_RECORD"
			[[ ${r[last_pid_at_init]:-none} =~ ^[0-9]+$ && ${r[online]:-none} =~ ^[0-9]+$ ]] || continue
			echo "${j[name]},${j[label]},${r[online]},${r[possible]},${r[last_pid_at_init]},${r[tasks]},${r[kthreads]}" >>"$csv"
		done <"$dir/jobs"
	done
	if (($(wc -l <"$csv") < 3)); then
		rm -f "$csv" "$jobs"
		info "fewer than two online-tier boots with a PID budget in $*: no fit"
		return 0
	fi
	mv "$csv" "$out/pid_budget.csv"
	csv="$out/pid_budget.csv"

	# The formula's pid_max at the projected CPU counts, per kernel: its
	# jobs say the variant (BASE_SMALL) and the limit (4194304: 64-bit).
	local label small is64 n txt="$out/pid_budget.txt.tmp"
	local -A limits=()
	while IFS= read -r line; do
		kv_load j "$line"
		[[ ${j[tier]:-} == @(online|wide-online) && -n ${j[pid_max_max]:-} && -z ${limits[${j[label]}]:-} ]] || continue
		small=0 is64=0
		[[ ${j[variant]} == small ]] && small=1
		[[ ${j[pid_max_max]} == 4194304 ]] && is64=1
		for n in 1664 4096 8192; do
			expected_vars "$n" "$small" "$is64"
			limits[${j[label]}]+="$n:$EXP_MAX "
		done
	done <"$jobs"
	rm -f "$jobs"

	: >"$out/pid_budget.fits.tmp"
	{
		echo "PID budget at init, from the online-tier boots: a least-squares line"
		echo "last_pid_at_init = fixed + per_cpu * online CPUs, per kernel."
		for label in $(tail -n +2 "$csv" | cut -d, -f2 | sort -u); do
			awk -F, -v k="$label" -v lim="${limits[$label]:-}" -v fits="$out/pid_budget.fits.tmp" '
				NR > 1 && $2 == k { n++; x[n] = $3; y[n] = $5 }
				END {
					for (i = 1; i <= n; i++) { sx += x[i]; sy += y[i] }
					mx = sx / n; my = sy / n
					for (i = 1; i <= n; i++) {
						sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my)
					}
					if (sxx == 0) {
						printf "\n%s: %d boots, all with %d CPUs online: no fit\n", k, n, x[1]
						exit
					}
					b = sxy / sxx; a = my - b * mx
					printf "%s %.6f %.6f\n", k, a, b >> fits
					for (i = 1; i <= n; i++) {
						e = y[i] - (a + b * x[i]); ss += e * e
						if (e < 0) e = -e
						if (e > worst) worst = e
					}
					split(lim, pairs, " ")
					for (i in pairs) { split(pairs[i], p, ":"); pm[p[1]] = p[2] }
					printf "\n%s: %d boots, %d to %d CPUs online\n", k, n, min(x, n), max(x, n)
					printf "  per online CPU   %8.2f PIDs\n", b
					printf "  fixed part       %8.1f PIDs\n", a
					printf "  residual         %8.1f PIDs RMS, %.1f at most\n", sqrt(ss / n), worst
					printf "  a fixed 32768 runs out before init at %.0f CPUs\n", (32768 - a) / b
					printf "  %6s %14s %12s %14s %12s\n", "CPUs", "PIDs at init", "fixed 32768", "formula pid_max", "headroom"
					split("1664 4096 8192", ns, " ")
					for (i = 1; i <= 3; i++) {
						m = ns[i]; u = a + b * m
						printf "  %6d %14.0f %12s %14s %11.1fx\n", m, u,
							(u >= 32768 ? "runs out" : sprintf("%.0f%% used", 100 * u / 32768)),
							pm[m], pm[m] / u
					}
				}
				function min(v, n,    i, r) { r = v[1]; for (i = 2; i <= n; i++) if (v[i] < r) r = v[i]; return r }
				function max(v, n,    i, r) { r = v[1]; for (i = 2; i <= n; i++) if (v[i] > r) r = v[i]; return r }
			' "$csv"
		done
	} >"$txt"
	mv "$txt" "$out/pid_budget.txt"
	# The numbers stand without the picture.
	if ! command -v gnuplot >/dev/null; then
		rm -f "$out/pid_budget.fits.tmp"
		info "no pid_budget.svg: gnuplot not found (apt-get install gnuplot-nox)"
		return 0
	fi
	plot_budget "$out"
}

# plot_budget DIR: DIR/pid_budget.svg and .png from DIR/pid_budget.csv
# and the fits (label, fixed part, per CPU) in DIR/pid_budget.fits.tmp.
plot_budget() {
	local out=$1 data label a b
	local -a plots=()
	data=$(mktemp -d)
	formula_curve 0 1 >"$data/formula"
	# The 2010 report that started it: 25163 processes before the login
	# prompt on a 1664-CPU machine (a later point in boot than init).
	echo "1664 25163" >"$data/report2010"
	while read -r label a b; do
		awk -F, -v k="$label" 'NR > 1 && $2 == k { print $3, $5 }' "$out/pid_budget.csv" >"$data/$label"
		plots+=("'$data/$label' with points pt 7 ps 1.2 title '$label: PIDs at init, measured'")
		plots+=("$a + $b * x with lines dt 2 title '$label: fit'")
	done <"$out/pid_budget.fits.tmp"
	rm -f "$out/pid_budget.fits.tmp"
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
