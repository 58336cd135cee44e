#!/bin/bash
# run-baseline.sh - the baseline of a finished sweep (sweep-smp.sh
# --baseline): its jobs again on the stock kernels (baseline.sh) in
# DIR/baseline, booted, reported and pictured like any results folder,
# then DIR/compare.csv (compare.sh). The stock verdicts are shown; the
# exit status is 0 unless a stage itself failed, since the sweep's is
# the patched kernels'.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/run-baseline.sh [--jobs N] DIR LABEL=KERNEL...
Boot DIR's jobs again on the stock kernels (each job of kernel LABEL on
KERNEL) into DIR/baseline, report them and write DIR/compare.csv.
Exits 0 when stock boots fail, on purpose (the sweep's exit status is
the patched kernels'); 1 when a stage fails; 130, 143 or 129 when INT,
TERM or HUP stops it. A DIR/baseline that holds other files and is not
a results folder is refused."

# stop_runner STATUS: stop the runner started in the background, if
# any, and exit with STATUS.
stop_runner() {
	[[ -z ${runner:-} ]] || {
		kill -TERM "$runner" 2>/dev/null || true
		wait "$runner" || true
	}
	exit "$1"
}

main() {
	local jobs=2
	parse_options "$USAGE" "jobs:" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--jobs) jobs=$2 ;;
		esac
		shift 2
	done
	shift
	(($# >= 2)) || usage_error "expects DIR and at least one LABEL=KERNEL"
	local out=$1 b="$1/baseline" m summary runner=""
	shift
	[[ -r $out/jobs && -r $out/plan ]] || die "$out is not a sweep's results folder"
	mkdir -p "$b"
	clean_results "$b"
	"$HARNESS/baseline.sh" "$out/plan" "$@" >"$b/plan"
	"$HARNESS/baseline.sh" "$out/jobs" "$@" >"$b/jobs"
	for m; do
		echo "${m%%=*}-stock $(kernel_id "${m#*=}")"
	done >"$b/kernels"
	[[ ! -r $out/shard ]] || cp "$out/shard" "$b/shard"
	info "booting the baseline: $(grep -vc $'\tskip=' "$b/jobs") guests on the stock kernels; results in $b"
	# A signal stops the runner, which stops every guest it started;
	# the exit status says which signal, as a shell's does.
	trap 'stop_runner 130' INT
	trap 'stop_runner 143' TERM
	trap 'stop_runner 129' HUP
	"$HARNESS/run-jobs.sh" --jobs "$jobs" "$b" &
	runner=$!
	wait "$runner" || die "run-jobs.sh failed on $b"
	runner=""
	summary=$("$HARNESS/report.sh" "$b" | tail -n 1) || true
	[[ $summary =~ $SUMMARY_RE ]] || die "report.sh failed on $b"
	"$HARNESS/plot.sh" "$b" >/dev/null || info "warning: no plot of the baseline"
	"$HARNESS/compare.sh" "$out"
	info "baseline (stock kernels, not in the exit status): $summary"
}

main "$@"
