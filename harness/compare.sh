#!/bin/bash
# compare.sh - a reader of a results folder and its baseline: the stock
# kernels' values beside the patched ones, boot for boot.
#
#   DIR/compare.csv  boot,variant,cpus,stock_pid_max,stock_pid_max_min,
#                    patched_pid_max,patched_pid_max_min,same
#
# boot is the boot's name without its kernel label ("possible-4097"),
# pid_max the value /proc showed, pid_max_min the minimum the kernel's
# boot line states (where it lies above pid_max no value is writable,
# so the guest's probe has none to find). same is yes when both values
# agree. Reads DIR/jobs, DIR/results.csv and the same of DIR/baseline
# (sweep-smp.sh --baseline); prints the boots that differ.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/compare.sh DIR
Write DIR/compare.csv from DIR and DIR/baseline (both reported), a row
per boot of both; print the rows where stock and patched differ."

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 1)) || usage_error "expects DIR"
	local out=$1 d
	for d in "$out" "$out/baseline"; do
		[[ -r $d/jobs && -r $d/results.csv ]] ||
			die "$d has no jobs or results.csv: run the sweep with --baseline, or harness/report.sh $d"
	done
	# Columns of results.csv by name, so a new column cannot shift them.
	awk -F'\t' '
		# A job line: its case is its name without "LABEL-".
		FILENAME ~ /jobs$/ {
			name = label = ""
			for (f = 1; f <= NF; f++) {
				if ($f ~ /^name=/) name = substr($f, 6)
				if ($f ~ /^label=/) label = substr($f, 7)
			}
			kase[name] = substr(name, length(label) + 2)
			next
		}
		FNR == 1 {
			n = split($0, h, ",")
			for (f = 1; f <= n; f++) col[h[f]] = f
			stock = FILENAME ~ /baseline\/results.csv$/
			next
		}
		{
			split($0, v, ",")
			if (v[col["verdict"]] == "skip") next
			k = v[col["variant"]] SUBSEP kase[v[col["boot"]]]
			val = v[col["pid_max"]] "," v[col["line_min"]]
			if (stock) s[k] = val
			else { order[++n_p] = k; p[k] = val; cpus[k] = v[col["cpus"]] }
		}
		END {
			print "boot,variant,cpus,stock_pid_max,stock_pid_max_min,patched_pid_max,patched_pid_max_min,same"
			for (i = 1; i <= n_p; i++) {
				k = order[i]
				if (!(k in s)) continue
				split(k, kv, SUBSEP)
				same = (s[k] == p[k] && p[k] !~ /none/) ? "yes" : "no"
				print kv[2] "," kv[1] "," cpus[k] "," s[k] "," p[k] "," same
			}
		}' "$out/jobs" "$out/baseline/jobs" FS=, "$out/results.csv" "$out/baseline/results.csv" \
		>"$out/compare.csv.tmp"
	mv "$out/compare.csv.tmp" "$out/compare.csv"
	local rows differ
	rows=$(($(wc -l <"$out/compare.csv") - 1))
	differ=$(awk -F, 'NR > 1 && $8 == "no"' "$out/compare.csv")
	((rows > 0)) || die "no boot of $out has a counterpart in $out/baseline"
	info "compare.csv: $rows boots, $(grep -c . <<<"$differ" || true) where stock and patched differ"
	[[ -z $differ ]] || printf '%s\n' "$differ"
}

main "$@"
