#!/bin/bash
# build-initramfs.sh - pack busybox-static and guest-init.sh into the
# initramfs every guest boots, with the kernel's own gen_init_cpio.
#
# Usage: harness/build-initramfs.sh [--arch A] BUILD_DIR
# Prints the path of the cpio archive; rebuilds it only when busybox or
# guest-init.sh changed. The host's busybox-static serves x86-64; for
# another architecture of harness/arches Debian's busybox-static of
# that architecture is fetched (fetch-deb.sh --arch, never installed)
# and the archive is BUILD_DIR/initramfs-A.cpio. guest-init.sh is the
# one init of every architecture.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/build-initramfs.sh [--arch A] BUILD_DIR
Pack busybox-static and guest-init.sh into BUILD_DIR/initramfs.cpio
(initramfs-A.cpio for an architecture A other than x86_64)."
parse_options "$USAGE" "arch:" "$@"
set -- "${OPTS[@]}"
arch=x86_64
[[ $1 != --arch ]] || { arch=$2; shift 2; }
shift
(($# == 1)) || usage_error "expects BUILD_DIR"
arch_row "$arch" || usage_error "--arch: see above"
build=$1
gen="$build/bin/gen_init_cpio"
out="$build/initramfs.cpio"
busybox=${BUSYBOX:-/bin/busybox} # the self-tests point it elsewhere
if [[ $arch != x86_64 ]]; then
	out="$build/initramfs-$arch.cpio"
	# bookworm: the suite of the host (and of debian_mirror in lib.sh).
	root=$("$HARNESS/fetch-deb.sh" --arch "$ARCH_DEBIAN" "$build/deb-busybox-$arch" \
		bookworm busybox-static) || die "no busybox-static for $arch (see above)"
	busybox=$root/bin/busybox
fi

[[ -x $busybox ]] || die "$busybox is missing: apt-get install busybox-static"
# (no grep -q on a pipe: under pipefail its early exit fails the pipe)
[[ $(file -b "$busybox" 2>/dev/null) == *dynamically* ]] &&
	die "$busybox is dynamically linked: apt-get install busybox-static"

# The kernel's own cpio packer makes /dev/console without needing root.
# Its source comes from the unpacked tree, or else straight from the
# tarball, so that --kernel FILE works without a kernel build.
if [[ ! -x $gen ]]; then
	mkdir -p "$build/bin"
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
fi

id=$(cat "$busybox" "$HARNESS/guest-init.sh" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
if [[ -f $out && $(cat "$out.id" 2>/dev/null) == "$id" ]]; then
	echo "$out"
	exit 0
fi

list="$build/initramfs.list"
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	# The shell points a background job's stdin at /dev/null; without
	# it every "sleep &" of the exhaustion check died at once.
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "dir /bin 0755 0 0"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 1777 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	for applet in sh mount echo cat grep sed head wc rm kill dmesg reboot sleep unshare; do
		echo "slink /bin/$applet busybox 0777 0 0"
	done
	echo "file /init $HARNESS/guest-init.sh 0755 0 0"
} >"$list"
rm -f "$out.id"
"$gen" "$list" >"$out.tmp" || die "gen_init_cpio failed (disk full?)"
mv "$out.tmp" "$out"
echo "$id" >"$out.id"
echo "$out"
