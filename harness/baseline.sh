#!/bin/bash
# baseline.sh - a transform of the job list: the same boots on the
# stock kernels (the same configurations built without the series,
# build-kernel.sh --stock).
#
# Every job keeps its QEMU command; its expected values come from the
# formula's stock model (expected_vars in lib.sh): the possible count
# for nr_cpu_ids, and a minimum not cut to pid_max. They differ from the
# series' where the possible map has holes (a job's cpu_ids field) and
# with BASE_SMALL past 4096 CPUs; a stock kernel that differs from its
# model fails, and the judge's reason says where. A pid_max the job sets
# on the command line stays. The boot is renamed LABEL-stock-CASE, the
# kernel is the stock one, its KUnit flag comes from the stock .config
# (the pristine tree has no pid_max suite), and series=auto. A job with
# selftests_stock has its selftests judged on the stock kernel (yes: the
# tree's own) or recorded (no: the series' version).
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
	local -A stock=() kunit=() small=() is64=()
	for pair; do
		[[ $pair == ?*=?* ]] || usage_error "'$pair' is not LABEL=KERNEL"
		label=${pair%%=*} kernel=${pair#*=}
		[[ -r $kernel && -r $(dirname "$kernel")/.config ]] ||
			die "stock kernel $kernel or its .config is missing"
		stock[$label]=$kernel
		params=$(kconfig_pid_params "$(dirname "$kernel")/.config") ||
			die "cannot read $(dirname "$kernel")/.config"
		read -r "small[$label]" "is64[$label]" "kunit[$label]" <<<"$params"
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
		expected_vars "${j[possible]}" "${small[$label]}" "${is64[$label]}" stock ||
			die "job ${j[name]}: bad possible count"
		new+=([line_default]=$EXP_MAX [line_min]=$EXP_MIN [pid_max_min]=$EXP_MIN [model]=stock)
		[[ ${j[pid_max]} != "${j[line_default]}" ]] || new[pid_max]=$EXP_MAX
		[[ -z ${j[selftests_stock]:-} ]] ||
			new[selftests_judged]=$([[ ${j[selftests_stock]} == yes ]] && echo yes || echo no)
		# The job's own fields in its own order, some replaced.
		IFS=$'\t' read -r -a fields <<<"$line"
		for f in "${!fields[@]}"; do
			k=${fields[f]%%=*}
			[[ -z ${new[$k]+set} ]] || { fields[f]="$k=${new[$k]}"; unset "new[$k]"; }
		done
		# (selftests_judged, where the job had none)
		for k in "${!new[@]}"; do
			fields+=("$k=${new[$k]}")
		done
		kv_line "${fields[@]}"
	done <"$jobs"
}

main "$@"
