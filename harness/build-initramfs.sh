#!/bin/bash
# build-initramfs.sh - pack busybox-static and guest-init.sh into the
# initramfs every guest boots, with the kernel's own gen_init_cpio.
#
# Usage: harness/build-initramfs.sh [--arch A] [--debian-arch D] BUILD_DIR
#        harness/build-initramfs.sh --modules OBJ BUILD_DIR
# Prints the path of the cpio archive; rebuilds it only when busybox or
# guest-init.sh changed. The host's busybox-static serves x86-64; for
# another architecture of harness/arches Debian's busybox-static of
# that architecture is fetched (fetch-deb.sh --arch, never installed)
# and the archive is BUILD_DIR/initramfs-A.cpio. guest-init.sh is the
# one init of every architecture.
#
# --debian-arch D gives A's Debian name (harness/arches' DEBIAN) from a
# caller that has read the tables (the sweep passes its architecture's):
# then the tables are not asked; without it arch_row reads A's row.
#
# --modules OBJ packs a kernel's own modules instead, those its build
# folder OBJ lists in OBJ/modules.order (the KUnit suite when the
# kernel builds it as a module), into OBJ/modules.cpio: each as
# /lib/modules/NAME.ko, their names in load order in /lib/modules/order,
# which guest-init.sh loads. It prints that archive's path, or nothing
# when the kernel builds no module. build-kernel.sh runs it after a
# build: the archive goes on top of the initramfs, inside the kernel or
# beside it (docs/harness.md).
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/build-initramfs.sh [--arch A] [--debian-arch D] BUILD_DIR
       harness/build-initramfs.sh --modules OBJ BUILD_DIR
Pack busybox-static and guest-init.sh into BUILD_DIR/initramfs.cpio
(initramfs-A.cpio for an architecture A other than x86_64).
  --debian-arch D  A's Debian architecture (harness/arches' DEBIAN):
                 given, the tables are not asked
  --modules OBJ  pack the modules of the kernel build folder OBJ
                 (OBJ/modules.order) into OBJ/modules.cpio instead
  --where  print the archive's path, and build and write nothing"
parse_options "$USAGE" "arch:,debian-arch:,modules:,where" "$@"
set -- "${OPTS[@]}"
arch=x86_64 modules="" where=0 debian_arch=""
while [[ $1 != -- ]]; do
	case $1 in
	--arch) arch=$2 ;;
	--debian-arch) debian_arch=$2 ;;
	--modules) modules=$2 ;;
	--where) where=1 && shift && continue ;;
	esac
	shift 2
done
shift
(($# == 1)) || usage_error "expects BUILD_DIR"
[[ -z $modules || $arch == x86_64 ]] || usage_error "--modules packs no busybox: leave --arch out"
[[ -z $modules || -z $debian_arch ]] || usage_error "--modules packs no busybox: leave --debian-arch out"
# ARCH_DEBIAN, A's Debian name (busybox's): given, or else A's row;
# --modules packs no busybox and asks nothing.
if [[ -n $debian_arch ]]; then
	ARCH_DEBIAN=$debian_arch
elif [[ -z $modules ]]; then
	arch_row "$arch" || usage_error "--arch: see above"
fi
build=$1
gen="$build/bin/gen_init_cpio"
# archive: the initramfs's path.
archive="$build/initramfs.cpio"
[[ $arch == x86_64 ]] || archive="$build/initramfs-$arch.cpio"
if ((where)); then
	realpath -m "$archive"
	exit 0
fi
# One build at a time in the folder (build-kernel.sh's own --modules
# runs under its lock).
mkdir -p "$build"
build_lock "$build"

# gen_tool: the kernel's own cpio packer ($gen), which makes
# /dev/console without needing root. Its source comes from the unpacked
# tree, or else straight from the tarball, so that --kernel FILE works
# without a kernel build.
gen_tool() {
	[[ ! -x $gen ]] || return 0
	mkdir -p "$build/bin"
	local gen_src tarball
	gen_src=$(ls "$build"/src/linux-source-*/usr/gen_init_cpio.c 2>/dev/null | head -n 1 || true)
	if [[ -z $gen_src ]]; then
		tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1 || true)
		[[ -n $tarball ]] ||
			die "no kernel tarball for gen_init_cpio: apt-get install linux-source-6.1"
		gen_src="$build/bin/gen_init_cpio.c"
		tar -xOf "$tarball" --wildcards '*/usr/gen_init_cpio.c' >"$gen_src" ||
			die "could not extract usr/gen_init_cpio.c from $tarball"
	fi
	cc -O2 -o "$gen.tmp" "$gen_src" || die "could not compile $gen_src (apt-get install gcc)"
	mv "$gen.tmp" "$gen"
}

# base_archive: busybox and guest-init.sh, the initramfs of every guest.
base_archive() {
	local out=$archive busybox=${BUSYBOX:-/bin/busybox} # the self-tests point it elsewhere
	local root id list applet
	if [[ $arch != x86_64 ]]; then
		# bookworm: the suite of the host (and of debian_mirror in lib.sh).
		root=$("$HARNESS/fetch-deb.sh" --arch "$ARCH_DEBIAN" "$build/deb-busybox-$arch" \
			bookworm busybox-static) || die "no busybox-static for $arch (see above)"
		busybox=$root/bin/busybox
	fi
	[[ -x $busybox ]] || die "$busybox is missing: apt-get install busybox-static"
	# (no grep -q on a pipe: under pipefail its early exit fails the pipe)
	[[ $(file -b "$busybox" 2>/dev/null) == *dynamically* ]] &&
		die "$busybox is dynamically linked: apt-get install busybox-static"
	gen_tool
	id=$(cat "$busybox" "$HARNESS/guest-init.sh" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
	if [[ -f $out && $(cat "$out.id" 2>/dev/null) == "$id" ]]; then
		echo "$out"
		return 0
	fi
	list="$build/initramfs.list"
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		# The shell points a background job's stdin at /dev/null; without
		# it every "sleep &" of the exhaustion check died at once.
		echo "nod /dev/null 0666 0 0 c 1 3"
		# The kernel's log, where init marks where a module's load starts.
		echo "nod /dev/kmsg 0600 0 0 c 1 11"
		echo "dir /bin 0755 0 0"
		echo "dir /proc 0755 0 0"
		echo "dir /sys 0755 0 0"
		echo "dir /tmp 1777 0 0"
		# The marker guest-init.sh looks for before it runs: no host has it.
		echo "dir /pidmax-harness-initramfs 0755 0 0"
		echo "file /bin/busybox $busybox 0755 0 0"
		for applet in sh mount echo cat grep sed head wc rm kill dmesg reboot sleep unshare insmod; do
			echo "slink /bin/$applet busybox 0777 0 0"
		done
		echo "file /init $HARNESS/guest-init.sh 0755 0 0"
	} >"$list"
	rm -f "$out.id"
	"$gen" "$list" >"$out.tmp" || die "gen_init_cpio failed (disk full?)"
	mv "$out.tmp" "$out"
	echo "$id" >"$out.id"
	echo "$out"
}

# modules_archive OBJ: the modules of OBJ/modules.order (kernel/NAME.ko
# on 6.1, kernel/NAME.o since 6.2: the Makefile's name either way) in
# OBJ/modules.cpio, or no archive when it lists none. Every time stamp
# of the archive is a file's own or 0, so the same modules make the
# same bytes and the kernel that carries them is not linked again.
modules_archive() {
	local obj=$1 path ko n=0 order list="$1/modules.list"
	[[ -r $obj/.config ]] || die "--modules $obj: not a kernel build folder (no .config)"
	grep -qx 'CONFIG_MODULES=y' "$obj/.config" || die "--modules $obj: the kernel builds no modules"
	[[ -r $obj/modules.order ]] || die "--modules $obj: no modules.order (build the modules first)"
	gen_tool
	order="$obj/modules.names"
	: >"$order.tmp"
	{
		echo "dir /lib 0755 0 0"
		echo "dir /lib/modules 0755 0 0"
		while read -r path; do
			[[ -n $path ]] || continue
			ko="${path%.*}.ko"
			[[ -r $obj/$ko ]] || die "$obj/modules.order names $path, but $obj/$ko is missing"
			echo "file /lib/modules/${ko##*/} $obj/$ko 0644 0 0"
			echo "${ko##*/}" >>"$order.tmp"
			n=$((n + 1))
		done <"$obj/modules.order"
		echo "file /lib/modules/order $order 0644 0 0"
	} >"$list"
	if ((n == 0)); then
		rm -f "$obj/modules.cpio" "$order.tmp"
		return 0
	fi
	# The list of names keeps its time stamp while it stays the same.
	cmp -s "$order.tmp" "$order" 2>/dev/null || mv "$order.tmp" "$order"
	rm -f "$order.tmp"
	"$gen" -t 0 "$list" >"$obj/modules.cpio.tmp" || die "gen_init_cpio failed (disk full?)"
	mv "$obj/modules.cpio.tmp" "$obj/modules.cpio"
	echo "$obj/modules.cpio"
}

if [[ -n $modules ]]; then
	modules_archive "$modules"
else
	base_archive
fi
