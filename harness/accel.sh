#!/bin/bash
# accel.sh - choose the accelerator for a sweep: KVM only when a short
# probe boot on it reaches the guest's final marker, TCG otherwise.
#
# The probe's verdict is kept in BUILD_DIR/kvm-probe for the rest of
# this host boot, so the sweeps of one CI run probe once, not each.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/accel.sh [--no-probe] BUILD_DIR KERNEL CONFIG INITRD
Print tcg or kvm, and say why on stderr. With --no-probe (for a plan
that boots nothing) an unprobed usable /dev/kvm is reported as tcg."

main() {
	local probe=1
	parse_options "$USAGE" "no-probe" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--no-probe) probe=0 ;;
		--) shift; break ;;
		esac
		shift
	done
	(($# == 4)) || usage_error "expects BUILD_DIR KERNEL CONFIG INITRD"
	local build=$1 kernel=$2 config=$3 initrd=$4
	local host_boot cache="$build/kvm-probe" cached_boot verdict how

	mkdir -p "$build"
	host_boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	if [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		verdict=tcg how="no usable /dev/kvm"
	elif [[ -r $cache ]] && read -r cached_boot verdict <"$cache" &&
		[[ $cached_boot == "$host_boot" && $verdict =~ ^(tcg|kvm)$ ]]; then
		how="KVM probe verdict cached for this host boot in $cache"
	elif ((probe == 0)); then
		verdict=tcg how="KVM not probed yet; a sweep that boots will probe it"
	else
		local job log="$build/kvm-probe.log" record
		job_kernel "$kernel" "$config" "$initrd" kvm-probe kvm ||
			die "cannot probe with $config"
		# A 20 s limit: a working KVM boots one CPU in about a second.
		job=$(make_job probe probe 1 1 1 timeout=20)
		"$HARNESS/boot-guest.sh" "$job" "$log" || true
		record=$("$HARNESS/parse-console.sh" "$log")
		verdict=tcg
		[[ $(kv_get "$record" end) == 1 ]] && verdict=kvm
		echo "$host_boot $verdict" >"$cache"
		how="KVM probe boot: $([[ $verdict == kvm ]] && echo passed || echo failed), log: $log"
	fi
	info "accelerator: $verdict ($how)"
	echo "$verdict"
}

main "$@"
