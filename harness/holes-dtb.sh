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
USAGE="Usage: harness/holes-dtb.sh [--cpus N] OUT HOLES QEMU QEMU_ARG...
Write to OUT the device tree QEMU (with QEMU_ARGs: the machine, -smp N,
-m) gives its guest, less the enable-method of the cpu nodes in HOLES
(a CPU list like 1-16, or \"\" for none). Needs dtc and its fdtput
(device-tree-compiler).
  --cpus N  describe N CPUs: cpu nodes past QEMU's own, each with the
            MPIDR virt gives it with a GICv3 (16 to a cluster) and
            PSCI as its enable method; QEMU never runs them, and the
            guest's maxcpus=1 never asks for them"

main() {
	# (No getopt: the QEMU_ARGs are options of QEMU's.)
	local cpus=0
	case ${1:-} in
	-h | --help) echo "$USAGE"; return 0 ;;
	--cpus) cpus=${2:-}; shift 2 ;;
	-*) usage_error "unknown option '$1'" ;;
	esac
	[[ $cpus =~ ^[0-9]+$ ]] && ((cpus <= 4096)) || usage_error "--cpus wants a count up to 4096, not '$cpus'"
	(($# >= 3)) || usage_error "expects OUT HOLES QEMU QEMU_ARG..."
	local out=$1 holes qemu=$3 id
	holes=$("$HARNESS/pidmax.sh" cpu-list "$2" 8192 0) || usage_error "HOLES: see above"
	[[ -n $holes ]] || ((cpus)) || usage_error "HOLES names no CPU and --cpus adds none"
	shift 3
	command -v fdtput >/dev/null && command -v dtc >/dev/null ||
		die "dtc or fdtput not found: apt-get install device-tree-compiler"
	rm -f "$out.tmp"
	"$qemu" "$@" -nodefaults -display none -machine "dumpdtb=$out.tmp" >"$out.log" 2>&1 ||
		die "$qemu could not dump its device tree: $(tail -n 1 "$out.log")"
	((cpus == 0)) || more_cpus "$out.tmp" "$cpus" 2>>"$out.log" ||
		die "could not describe $cpus CPUs in the device tree: $(tail -n 1 "$out.log")"
	for id in $holes; do
		fdtput -d "$out.tmp" "/cpus/cpu@$id" enable-method 2>>"$out.log" ||
			die "the device tree has no /cpus/cpu@$id with an enable-method (HOLES $2 past -smp?)"
	done
	mv "$out.tmp" "$out"
	rm -f "$out.log"
}

# more_cpus DTB N: cpu nodes up to cpu@N-1 added to DTB's /cpus, after
# the ones QEMU wrote: the source again with the nodes, which dtc
# merges into the node of the same path.
more_cpus() {
	local i=0 n=$2
	while fdtget "$1" "/cpus/cpu@$i" reg >/dev/null 2>&1; do
		i=$((i + 1))
	done
	{
		dtc -q -I dtb -O dts "$1"
		echo "/ { cpus {"
		for (( ; i < n; i++)); do
			printf 'cpu@%d { device_type = "cpu"; compatible = "arm,cortex-a57"; reg = <0x%x>; enable-method = "psci"; };\n' \
				"$i" $(((i / 16) << 8 | i % 16))
		done
		echo "}; };"
	} | dtc -q -I dts -O dtb -o "$1.more" - && mv "$1.more" "$1"
}

main "$@"
