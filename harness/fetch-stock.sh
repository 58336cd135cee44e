#!/bin/bash
# fetch-stock.sh - fetch Debian's own kernel, for comparison: the image
# package that linux-image-amd64 depends on, downloaded with apt-get
# download and unpacked with dpkg-deb -x into the build folder. Nothing
# is installed on the host.
#
# Prints the directory that holds vmlinuz-VERSION and, beside it, its
# .config, so "sweep-smp.sh --kernel DIR/vmlinuz-VERSION" finds both.
# Fetches again only when the package's version changed.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/fetch-stock.sh BUILD_DIR
Download and unpack Debian's amd64 kernel image into BUILD_DIR/stock;
print the directory of its vmlinuz and .config."

# stock_package: the image package linux-image-amd64 depends on.
stock_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 1)) || usage_error "expects BUILD_DIR"
	local build pkg dir deb
	build=$(mkdir -p "$1" && cd "$1" && pwd) || die "cannot use $1"
	command -v apt-get >/dev/null || die "apt-get not found: this needs Debian's apt"
	pkg=$(stock_package)
	# A machine whose package lists were never fetched knows no kernel
	# package: as root, fetch them (the system's own sources, unchanged).
	if [[ -z $pkg && $EUID == 0 ]]; then
		info "apt knows no linux-image-amd64: apt-get update"
		apt-get update -q >/dev/null 2>&1 || true
		pkg=$(stock_package)
	fi
	[[ -n $pkg ]] ||
		die "apt knows no linux-image-amd64 dependency: run apt-get update (as root)"
	dir="$build/stock/$pkg"
	if [[ -r $dir/.config ]] && compgen -G "$dir/vmlinuz-*" >/dev/null; then
		echo "$dir"
		return 0
	fi
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/deb" "$dir.tmp/root"
	info "downloading $pkg (apt-get download; not installed)"
	(cd "$dir.tmp/deb" && apt-get download -q "$pkg" >/dev/null 2>"$dir.tmp/apt.log") || {
		tail -n 5 "$dir.tmp/apt.log" >&2
		die "apt-get download $pkg failed (see above)"
	}
	deb=$(compgen -G "$dir.tmp/deb/*.deb" | head -n 1)
	[[ -n $deb ]] || die "apt-get download left no .deb for $pkg"
	dpkg-deb -x "$deb" "$dir.tmp/root" || die "dpkg-deb -x $deb failed (disk full?)"
	local vmlinuz config
	vmlinuz=$(compgen -G "$dir.tmp/root/boot/vmlinuz-*" | head -n 1)
	config=$(compgen -G "$dir.tmp/root/boot/config-*" | head -n 1)
	[[ -n $vmlinuz && -n $config ]] || die "$deb holds no boot/vmlinuz-* and boot/config-*"
	mv "$vmlinuz" "$dir.tmp/"
	cp "$config" "$dir.tmp/.config"
	rm -rf "$dir.tmp/root" "$dir.tmp/deb" "$dir.tmp/apt.log"
	mv "$dir.tmp" "$dir"
	echo "$dir"
}

main "$@"
