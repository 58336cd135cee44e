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
Exits 3 when the suite is unreachable. The archive is the host's apt's
(\$PIDMAX_MIRROR overrides it; \$PIDMAX_BACKPORTS, a sources line, is
still read for its archive)."

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
	[[ -d /usr/share/seabios ]] || die "/usr/share/seabios is missing: apt-get install seabios"
	# $PIDMAX_BACKPORTS, an older spelling: a sources line's archive.
	[[ -z ${PIDMAX_BACKPORTS:-} ]] || export PIDMAX_MIRROR=${PIDMAX_BACKPORTS%% *}
	rm -rf "$dir"
	local rc=0
	"$HARNESS/fetch-deb.sh" "$dir" bookworm-backports \
		qemu-system-x86 qemu-system-common qemu-system-data >/dev/null || rc=$?
	if ((rc == 3)); then
		rm -rf "$dir"
		echo "${0##*/}: bookworm-backports is unreachable: the wide tiers are skipped" >&2
		exit 3
	fi
	((rc == 0)) || die "fetch-deb.sh failed (see above)"
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
