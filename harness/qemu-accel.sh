#!/bin/bash
# qemu-accel.sh - run a QEMU under one accelerator, whatever its caller
# asked for. The kernel's kunit.py builds its own QEMU command: 7.3's
# puts "-accel kvm -accel hvf -accel tcg" before its qemu_config's
# arguments, and QEMU takes the first accelerator that initialises, so
# on a host whose /dev/kvm exists but hangs a guest it would boot under
# KVM whatever the harness's probe (accel.sh) said.
#
#   harness/qemu-accel.sh --wrap DIR ACCEL
#       write DIR/qemu-system-x86_64 and DIR/qemu-system-aarch64, each a
#       two-line script that runs the QEMU of that name found on PATH now
#       (without DIR) through this script with ACCEL; put DIR first on
#       PATH for kunit.py. Prints DIR.
#   harness/qemu-accel.sh ACCEL QEMU ARG...
#       run QEMU with ARG..., less every accelerator option but the last
#       -accel naming ACCEL (the qemu_config's own, which kunit.py puts
#       last; its properties kept), or with "-accel ACCEL" when none
#       names it.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/qemu-accel.sh --wrap DIR ACCEL
       harness/qemu-accel.sh ACCEL QEMU [ARG...]
Run QEMU under ACCEL (tcg or kvm) alone, dropping every other -accel,
--accel, -enable-kvm and -no-kvm; --wrap writes QEMU stand-ins into DIR."

# The QEMUs that --wrap stands in for: x86_64 (kunit.py exec and run
# --arch x86_64) and arm64 (kunit.py run --arch arm64).
WRAPPED="qemu-system-x86_64 qemu-system-aarch64"

# wrap DIR ACCEL: the stand-ins, each naming the QEMU it runs.
wrap() {
	local dir=$1 accel=$2 name real
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	for name in $WRAPPED; do
		rm -f "$dir/$name"
		real=$(PATH=$(path_without "$dir") command -v "$name") || continue
		printf '#!/bin/sh\nexec %q %q %q "$@"\n' "$HARNESS/qemu-accel.sh" "$accel" "$real" >"$dir/$name"
		chmod +x "$dir/$name"
	done
	echo "$dir"
}

# path_without DIR: $PATH less DIR.
path_without() {
	local -a parts kept=()
	local p
	IFS=: read -r -a parts <<<"$PATH"
	for p in "${parts[@]}"; do
		[[ $p == "$1" ]] || kept+=("$p")
	done
	(IFS=:; echo "${kept[*]}")
}

# run ACCEL QEMU ARG...: exec QEMU with the accelerator options filtered.
run() {
	local accel=$1 qemu=$2 value="" chosen=""
	shift 2
	local -a args=()
	while (($#)); do
		case $1 in
		-accel | --accel)
			(($# >= 2)) || die "$1 without a value"
			value=$2
			shift
			;;
		-accel=* | --accel=*) value=${1#*=} ;;
		-enable-kvm | --enable-kvm | -no-kvm | --no-kvm)
			shift
			continue
			;;
		*)
			args+=("$1")
			shift
			continue
			;;
		esac
		shift
		[[ ${value%%,*} != "$accel" ]] || chosen=$value
	done
	exec "$qemu" "${args[@]}" -accel "${chosen:-$accel}"
}

main() {
	local wrap_dir=""
	if [[ ${1:-} == --help || ${1:-} == -h ]]; then
		echo "$USAGE"
		return 0
	fi
	if [[ ${1:-} == --wrap ]]; then
		(($# == 3)) || usage_error "--wrap wants DIR and ACCEL"
		wrap_dir=$2
		shift 2
	else
		(($# >= 2)) || usage_error "expects ACCEL QEMU [ARG...]"
	fi
	case $1 in tcg | kvm) ;; *) usage_error "the accelerator is tcg or kvm, not '$1'" ;; esac
	if [[ -n $wrap_dir ]]; then
		wrap "$wrap_dir" "$1"
	else
		run "$@"
	fi
}

main "$@"
