#!/bin/bash
# fetch-stock.sh - fetch Debian's own kernel, for comparison: the image
# package that linux-image-amd64 (linux-image-arm64 with --arch arm64)
# depends on, downloaded and unpacked into the build folder. Nothing is
# installed on the host.
#
# Without SUITE: the host's own suite, through the host's apt (apt-get
# download; bookworm's image package holds boot/vmlinuz-VERSION and
# boot/config-VERSION). With SUITE (trixie-backports), or for another
# architecture (bookworm's, then): through fetch-deb.sh's private apt
# lists; where the image package only depends on linux-binary-VERSION
# (usr/lib/modules/VERSION/vmlinuz) and linux-base-VERSION (.../config),
# those are fetched instead (trixie's packaging).
#
# Debian's arm64 vmlinuz is an uncompressed Image (no EFI zboot), which
# QEMU 7.2's -kernel loads as it is (bookworm's 6.1 and trixie-backports'
# 7.3, checked).
#
# Prints the directory that holds vmlinuz-VERSION and, beside it, its
# .config, so "sweep-smp.sh --kernel DIR/vmlinuz-VERSION" finds both.
# Fetches again only when the package's version changed. Exits 3 when
# SUITE is unreachable.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/fetch-stock.sh [--arch A] BUILD_DIR [SUITE]
Download and unpack Debian's kernel of architecture A (harness/arches,
default x86_64: amd64) of SUITE (default the host's) into BUILD_DIR/stock;
print the directory of its vmlinuz and .config. Exits 3 when SUITE is
unreachable."

# host_package: the image package linux-image-amd64 depends on in the
# host's apt lists.
host_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

# fetch_host BUILD_DIR: the host suite's kernel into DIR.tmp/root; sets pkg.
fetch_host() {
	pkg=$(host_package)
	# A machine whose package lists were never fetched knows no kernel
	# package: as root, fetch them (the system's own sources, unchanged).
	if [[ -z $pkg && $EUID == 0 ]]; then
		info "apt knows no linux-image-amd64: apt-get update"
		apt-get update -q >/dev/null 2>&1 || true
		pkg=$(host_package)
	fi
	[[ -n $pkg ]] ||
		die "apt knows no linux-image-amd64 dependency: run apt-get update (as root)"
	dir="$1/stock/$pkg"
	found "$dir" && return 0
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/deb" "$dir.tmp/root"
	info "downloading $pkg (apt-get download; not installed)"
	(cd "$dir.tmp/deb" && apt-get download -q "$pkg" >/dev/null 2>"$dir.tmp/apt.log") || {
		tail -n 5 "$dir.tmp/apt.log" >&2
		die "apt-get download $pkg failed (see above)"
	}
	local deb
	deb=$(compgen -G "$dir.tmp/deb/*.deb" | head -n 1)
	[[ -n $deb ]] || die "apt-get download left no .deb for $pkg"
	dpkg-deb -x "$deb" "$dir.tmp/root" || die "dpkg-deb -x $deb failed (disk full?)"
}

# fetch_suite BUILD_DIR SUITE DEBIAN_ARCH: SUITE's kernel of DEBIAN_ARCH
# (the image package, or linux-binary-VERSION and linux-base-VERSION
# where it only depends on them) into DIR.tmp/root; sets pkg. Exits 3
# unreachable.
fetch_suite() {
	local rc=0 deps root meta=linux-image-$3
	local -a fetch=(fetch-deb.sh --arch "$3")
	fetch[0]=$HARNESS/fetch-deb.sh
	deps=$("${fetch[@]}" --depends "$1/stock/$2-$3-lists" "$2" "$meta") || rc=$?
	((rc == 0)) || exit "$rc"
	pkg=$(grep -m 1 '^linux-image-[0-9]' <<<"$deps") ||
		die "$meta of $2 depends on no linux-image-VERSION"
	dir="$1/stock/$pkg"
	found "$dir" && return 0
	local ver=${pkg#linux-image-}
	local -a pkgs=("$pkg")
	deps=$("${fetch[@]}" --depends "$1/stock/$2-$3-lists" "$2" "$pkg") || rc=$?
	((rc == 0)) || exit "$rc"
	! grep -qx "linux-binary-$ver" <<<"$deps" || pkgs=("linux-binary-$ver" "linux-base-$ver")
	root=$("${fetch[@]}" "$1/stock/deb-$2-$3" "$2" "${pkgs[@]}") || rc=$?
	((rc == 0)) || exit "$rc"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	# Moved, not copied: found() answers before fetch-deb.sh is asked again.
	mv "$root" "$dir.tmp/root"
}

# found DIR: DIR holds a kernel fetched before.
found() {
	[[ -r $1/.config ]] && compgen -G "$1/vmlinuz-*" >/dev/null
}

main() {
	local arch=x86_64
	parse_options "$USAGE" "arch:" "$@"
	set -- "${OPTS[@]}"
	[[ $1 != --arch ]] || { arch=$2; shift 2; }
	shift
	(($# == 1 || $# == 2)) || usage_error "expects BUILD_DIR [SUITE]"
	arch_row "$arch" || usage_error "--arch: see above"
	local build pkg="" dir=""
	build=$(mkdir -p "$1" && cd "$1" && pwd) || die "cannot use $1"
	command -v apt-get >/dev/null || die "apt-get not found: this needs Debian's apt"
	if (($# == 2)); then
		fetch_suite "$build" "$2" "$ARCH_DEBIAN"
	elif [[ $arch != x86_64 ]]; then
		# The host's apt knows amd64 only: bookworm (the host's suite, as
		# in debian_mirror) through private lists.
		fetch_suite "$build" bookworm "$ARCH_DEBIAN"
	else
		fetch_host "$build"
	fi
	if found "$dir"; then
		echo "$dir"
		return 0
	fi
	# bookworm: boot/vmlinuz-V, boot/config-V; trixie: usr/lib/modules/V/.
	local vmlinuz config r=$dir.tmp/root
	vmlinuz=$(compgen -G "$r/boot/vmlinuz-*" | head -n 1) || true
	config=$(compgen -G "$r/boot/config-*" | head -n 1) || true
	local ver=${pkg#linux-image-}
	if [[ -z $vmlinuz ]]; then
		[[ -r $r/usr/lib/modules/$ver/vmlinuz ]] && vmlinuz=$r/usr/lib/modules/$ver/vmlinuz
		[[ -r $r/usr/lib/modules/$ver/config ]] && config=$r/usr/lib/modules/$ver/config
	fi
	[[ -n $vmlinuz && -n $config ]] || die "$pkg holds no vmlinuz and config (boot/ or usr/lib/modules/)"
	mv "$vmlinuz" "$dir.tmp/vmlinuz-$ver"
	cp "$config" "$dir.tmp/.config"
	rm -rf "$dir.tmp/root" "$dir.tmp/deb" "$dir.tmp/apt.log"
	mv "$dir.tmp" "$dir"
	echo "$dir"
}

main "$@"
