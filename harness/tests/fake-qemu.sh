#!/bin/bash
# fake-qemu.sh - stands in for qemu-system-x86_64 in the self-tests.
#
# Given "-machine dumpdtb=FILE", writes to FILE a device tree of the
# -smp count's cpu nodes, each with enable-method = "psci" as QEMU's
# virt has them (with dtc), and exits. Else it finds the
# "-serial file:LOG" argument like QEMU would and, by $FAKE_QEMU_MODE:
#   replay  copy $FAKE_QEMU_LOG to LOG and exit 0 (a recorded boot)
#   hang    write the start of a boot to LOG, then never exit
#   crash   write nothing and exit 1 (QEMU refused to start)
set -euo pipefail

# $FAKE_QEMU_ARGS: a file that gets the command line, an argument a line.
[[ -z ${FAKE_QEMU_ARGS:-} ]] || printf '%s\n' "$@" >"$FAKE_QEMU_ARGS"
# $FAKE_QEMU_COPY_INITRD: a file that gets a copy of the -initrd given.
log="" dtb="" smp=1
while (($#)); do
	if [[ $1 == -serial && ${2:-} == file:* ]]; then
		log=${2#file:}
	fi
	[[ $1 != -machine || ${2:-} != dumpdtb=* ]] || dtb=${2#dumpdtb=}
	[[ $1 != -smp ]] || smp=${2%%,*}
	if [[ $1 == -initrd && -n ${FAKE_QEMU_COPY_INITRD:-} ]]; then
		cp "$2" "$FAKE_QEMU_COPY_INITRD"
	fi
	shift
done
if [[ -n $dtb ]]; then
	{
		echo '/dts-v1/; / { #address-cells = <1>; #size-cells = <0>; cpus { #address-cells = <1>; #size-cells = <0>;'
		for ((i = 0; i < smp; i++)); do
			echo "cpu@$i { reg = <$i>; enable-method = \"psci\"; };"
		done
		echo '}; };'
	} | dtc -q -I dts -O dtb -o "$dtb" -
	exit 0
fi
[[ -n $log ]] || {
	echo "fake-qemu: no -serial file:LOG" >&2
	exit 1
}
[[ -n ${FAKE_QEMU_PIDFILE:-} ]] && echo $$ >>"$FAKE_QEMU_PIDFILE"

case ${FAKE_QEMU_MODE:-replay} in
replay)
	cp "$FAKE_QEMU_LOG" "$log"
	;;
hang)
	echo "Linux version 6.1.0 (fake)" >"$log"
	while :; do sleep 1; done
	;;
crash)
	echo "fake-qemu: cannot start" >&2
	exit 1
	;;
*)
	echo "fake-qemu: unknown mode '$FAKE_QEMU_MODE'" >&2
	exit 2
	;;
esac
