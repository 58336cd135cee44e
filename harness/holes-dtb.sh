#!/bin/bash
# holes-dtb.sh - the device tree of a machine whose possible-CPU map has
# holes: QEMU's own device tree of the machine (dumpdtb), with the
# enable-method property taken off the cpu nodes of the ids in HOLES.
#
# arm64's smp_init_cpus() gives every cpu node of the device tree a
# logical id in order and marks it possible only when its enable method
# can be set up; a node without one is skipped, and its id stays a hole.
# setup_nr_cpu_ids() then sets nr_cpu_ids to the highest possible id + 1,
# while num_possible_cpus() counts the ones set.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/holes-dtb.sh OUT HOLES QEMU QEMU_ARG...
Write to OUT the device tree QEMU (with QEMU_ARGs: the machine, -smp N,
-m) gives its guest, less the enable-method of the cpu nodes in HOLES
(a CPU list like 1-16). Needs dtc's fdtput (device-tree-compiler)."

main() {
	# (No getopt: the QEMU_ARGs are options of QEMU's.)
	case ${1:-} in
	-h | --help) echo "$USAGE"; return 0 ;;
	-*) usage_error "unknown option '$1'" ;;
	esac
	(($# >= 3)) || usage_error "expects OUT HOLES QEMU QEMU_ARG..."
	local out=$1 holes qemu=$3 id
	holes=$(parse_cpu_list "$2" 8192 0) || usage_error "HOLES: see above"
	[[ -n $holes ]] || usage_error "HOLES names no CPU"
	shift 3
	command -v fdtput >/dev/null || die "fdtput not found: apt-get install device-tree-compiler"
	rm -f "$out.tmp"
	"$qemu" "$@" -nodefaults -display none -machine "dumpdtb=$out.tmp" >"$out.log" 2>&1 ||
		die "$qemu could not dump its device tree: $(tail -n 1 "$out.log")"
	for id in $holes; do
		fdtput -d "$out.tmp" "/cpus/cpu@$id" enable-method 2>>"$out.log" ||
			die "the device tree has no /cpus/cpu@$id with an enable-method (HOLES $2 past -smp?)"
	done
	mv "$out.tmp" "$out"
	rm -f "$out.log"
}

main "$@"
