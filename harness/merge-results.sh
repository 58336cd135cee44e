#!/bin/bash
# merge-results.sh - join the results folders of the shards of one sweep
# (sweep-smp.sh --shard I/N, on as many CI runners) into one folder, and
# report it as one run: results.ktap, results.csv, results.xml,
# checks.csv, variants.csv, the pictures and the PID budget, the
# baseline and compare.csv when the shards have them, and the
# "N passed, N failed, N skipped" line. A merge of all shards equals one unsharded
# run, boot for boot.
#
# Refuses, and writes nothing but the error, when the shards come from
# different plans (options, kernels, series: DIR/plan and DIR/kernels
# differ), when a boot of the plan is in no shard, or in two. Exits
# non-zero on any failed boot, like the sweep.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/merge-results.sh OUT DIR...
Join the shard folders DIR... into OUT and report them as one sweep."

# plan_key FILE: a plan without the fields that name paths on one
# machine (kernel, config, initrd), to compare plans across runners.
plan_key() {
	sed -E 's/\t(kernel|config|initrd)=[^\t]*//g' "$1"
}

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# >= 2)) || usage_error "expects OUT and at least one shard DIR"
	local out=$1 d first=$2 name
	shift
	for d; do
		[[ -r $d/plan && -r $d/jobs && -r $d/kernels ]] ||
			die "$d is not a sweep's results folder (no plan, jobs or kernels)"
		plan_key "$d/plan" | cmp -s - <(plan_key "$first/plan") ||
			die "$d and $first come from different plans (options or kernels differ)"
		cmp -s "$d/kernels" "$first/kernels" ||
			die "$d and $first booted different kernels or series: $(tr '\n' ' ' <"$d/kernels")vs $(tr '\n' ' ' <"$first/kernels")"
	done

	# Every boot of the plan in exactly one shard.
	local -A owner=()
	local line
	for d; do
		while IFS= read -r line; do
			name=$(kv_get "$line" name)
			[[ -z ${owner[$name]:-} ]] || die "boot $name is in two shards: ${owner[$name]} and $d"
			owner[$name]=$d
		done <"$d/jobs"
	done
	while IFS= read -r line; do
		name=$(kv_get "$line" name)
		[[ -n ${owner[$name]:-} ]] || die "boot $name of the plan is in no shard"
		unset 'owner[$name]'
	done <"$first/plan"
	((${#owner[@]} == 0)) || die "shards hold boots the plan lacks: ${!owner[*]}"

	mkdir -p "$out"
	clean_results "$out"
	mkdir -p "$out/boots"
	for d; do
		cp -p "$d"/boots/. "$out/boots/" -R
	done
	cp "$first/plan" "$out/plan"
	cp "$first/plan" "$out/jobs"
	cp "$first/kernels" "$out/kernels"
	local summary
	summary=$("$HARNESS/report.sh" "$out" | tail -n 1) || true
	[[ $summary =~ $SUMMARY_RE ]] || die "report.sh failed on $out"
	"$HARNESS/plot.sh" "$out" >/dev/null || info "warning: no plot (see above)"
	"$HARNESS/budget.sh" "$out" || info "warning: no PID budget (see above)"
	# Shards run with --baseline: their baselines merged the same way
	# (failed stock boots do not fail the merge), and compared.
	local -a bases=()
	for d; do
		[[ ! -d $d/baseline ]] || bases+=("$d/baseline")
	done
	if ((${#bases[@]})); then
		((${#bases[@]} == $#)) || die "only ${#bases[@]} of the $# shards have a baseline"
		"$HARNESS/merge-results.sh" "$out/baseline" "${bases[@]}" >/dev/null ||
			[[ -r $out/baseline/results.csv ]] || die "the baselines do not merge (see above)"
		"$HARNESS/compare.sh" "$out"
	fi
	info "merged $# shards into $out"
	echo "$summary"
	[[ $summary =~ $SUMMARY_RE ]] && ((BASH_REMATCH[2] == 0))
}

main "$@"
