#!/bin/bash
# fetch-qemu.sh - fetch QEMU 10 from Debian's bookworm-backports for the
# wide tiers (more than 255 firmware-described CPUs; QEMU 7.2 stops at
# 255). The packages qemu-system-x86, qemu-system-common and
# qemu-system-data are downloaded with apt-get download through a
# private sources list, package lists and cache in the build folder, and
# unpacked with dpkg-deb -x: the host's apt sources and state are left
# alone and nothing is installed. Their shared libraries are bookworm's
# own; SeaBIOS comes from the host's seabios package.
#
# Prints the path of BUILD/qemu-backports/qemu-system-x86_64, a wrapper
# that runs the unpacked binary with its firmware paths. Exits 3 with one
# message when the suite cannot be reached (the sweep then reports the
# wide tiers as SKIPs). Fetches again only when the wrapper is missing.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/fetch-qemu.sh BUILD_DIR
Download and unpack QEMU from bookworm-backports into
BUILD_DIR/qemu-backports; print the path of its qemu-system-x86_64.
Exits 3 when the suite is unreachable. \$PIDMAX_BACKPORTS overrides the
sources line (default: deb $BACKPORTS_DEFAULT)."

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 1)) || usage_error "expects BUILD_DIR"
	local build dir wrapper
	build=$(mkdir -p "$1" && cd "$1" && pwd) || die "cannot use $1"
	dir="$build/qemu-backports"
	wrapper="$dir/qemu-system-x86_64"
	if [[ -x $wrapper ]] && "$wrapper" --version >/dev/null 2>&1; then
		echo "$wrapper"
		return 0
	fi
	command -v apt-get >/dev/null || die "apt-get not found: this needs Debian's apt"
	[[ -d /usr/share/seabios ]] || die "/usr/share/seabios is missing: apt-get install seabios"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/lists/partial" "$dir.tmp/cache/archives/partial" \
		"$dir.tmp/deb" "$dir.tmp/root"
	echo "deb ${PIDMAX_BACKPORTS:-$BACKPORTS_DEFAULT}" >"$dir.tmp/sources.list"
	# apt with every path of its own: the host's sources, lists, cache
	# and lock are never read or written.
	local -a apt=(apt-get -q -o "Dir::Etc::SourceList=$dir.tmp/sources.list"
		-o Dir::Etc::SourceParts=/nonexistent -o "Dir::State::Lists=$dir.tmp/lists"
		-o "Dir::Cache=$dir.tmp/cache" -o Debug::NoLocking=1
		-o APT::Sandbox::User=root)
	info "fetching QEMU from bookworm-backports (private apt lists; nothing installed)"
	if ! "${apt[@]}" update >"$dir.tmp/apt.log" 2>&1 ||
		grep -q '^[WE]: ' "$dir.tmp/apt.log"; then
		tail -n 3 "$dir.tmp/apt.log" >&2
		rm -rf "$dir.tmp"
		echo "${0##*/}: bookworm-backports is unreachable: the wide tiers are skipped" >&2
		exit 3
	fi
	local p
	local -a pkgs=()
	for p in qemu-system-x86 qemu-system-common qemu-system-data; do
		pkgs+=("$p/bookworm-backports")
	done
	(cd "$dir.tmp/deb" && "${apt[@]}" download "${pkgs[@]}") >>"$dir.tmp/apt.log" 2>&1 || {
		tail -n 3 "$dir.tmp/apt.log" >&2
		rm -rf "$dir.tmp"
		echo "${0##*/}: apt-get download from bookworm-backports failed: the wide tiers are skipped" >&2
		exit 3
	}
	local deb
	for deb in "$dir.tmp"/deb/*.deb; do
		dpkg-deb -x "$deb" "$dir.tmp/root" || die "dpkg-deb -x $deb failed (disk full?)"
	done
	rm -rf "$dir.tmp/lists" "$dir.tmp/cache"
	mv "$dir.tmp" "$dir"
	# The wrapper: QEMU's own firmware first, then the host's SeaBIOS
	# (the packaged bios-256k.bin is a link into the seabios package).
	cat >"$wrapper.tmp" <<EOF
#!/bin/sh
exec "$dir/root/usr/bin/qemu-system-x86_64" -L "$dir/root/usr/share/qemu" -L /usr/share/seabios "\$@"
EOF
	chmod +x "$wrapper.tmp"
	mv "$wrapper.tmp" "$wrapper"
	"$wrapper" --version >/dev/null 2>&1 || {
		"$wrapper" --version >&2 || true
		die "the unpacked QEMU does not run (a library it needs is missing?)"
	}
	info "$("$wrapper" --version | head -n 1)"
	echo "$wrapper"
}

main "$@"
