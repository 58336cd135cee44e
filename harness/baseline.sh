#!/bin/bash
# baseline.sh - a transform of the job list: the same boots on the
# stock kernels (the same configurations built without the series,
# build-kernel.sh --stock).
#
# Every job keeps its QEMU command and its expected values, which come
# from the formula: a stock kernel that differs from it fails, and the
# judge's reason says where. The boot is renamed LABEL-stock-CASE, the
# kernel is the stock one, its KUnit flag comes from the stock .config
# (the pristine tree has no pid_max suite), and series=auto, so the
# boot line's inputs, which only the series prints, are a SKIP.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/baseline.sh JOBS LABEL=KERNEL...
Print the jobs of JOBS again for the stock kernels: each job of kernel
LABEL boots KERNEL (its .config beside it) as LABEL-stock."

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# >= 2)) || usage_error "expects JOBS and at least one LABEL=KERNEL"
	local jobs=$1 pair label kernel k params
	shift
	[[ -r $jobs ]] || die "$jobs is not readable"
	local -A stock=() kunit=()
	for pair; do
		[[ $pair == ?*=?* ]] || usage_error "'$pair' is not LABEL=KERNEL"
		label=${pair%%=*} kernel=${pair#*=}
		[[ -r $kernel && -r $(dirname "$kernel")/.config ]] ||
			die "stock kernel $kernel or its .config is missing"
		stock[$label]=$kernel
		params=$(kconfig_pid_params "$(dirname "$kernel")/.config") ||
			die "cannot read $(dirname "$kernel")/.config"
		kunit[$label]=${params##* }
	done

	local line case f
	local -a fields=()
	local -A j=() new=()
	while IFS= read -r line; do
		kv_load j "$line"
		label=${j[label]:-}
		[[ -n ${stock[$label]:-} ]] ||
			die "job ${j[name]:-?} is of kernel '$label', which has no stock kernel"
		case=${j[name]#"$label"-}
		if [[ -n ${j[skip]:-} ]]; then
			JK_LABEL=$label-stock JK_VARIANT=${j[variant]} make_skip "$case" "${j[tier]}" "${j[skip]}"
			continue
		fi
		new=([name]="$label-stock-$case" [label]="$label-stock"
			[kernel]="${stock[$label]}" [config]="$(dirname "${stock[$label]}")/.config"
			[kunit]="${kunit[$label]}" [series]=auto)
		# The job's own fields in its own order, some replaced.
		IFS=$'\t' read -r -a fields <<<"$line"
		for f in "${!fields[@]}"; do
			k=${fields[f]%%=*}
			[[ -z ${new[$k]+set} ]] || fields[f]="$k=${new[$k]}"
		done
		kv_line "${fields[@]}"
	done <"$jobs"
}

main "$@"
