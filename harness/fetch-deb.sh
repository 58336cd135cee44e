#!/bin/bash
# fetch-deb.sh - download Debian packages of another suite (for example
# bookworm-backports or trixie-backports) and unpack them, never
# installing anything: apt-get download through a private sources list,
# package lists and cache in DEST, the archive the host's apt already
# uses (lib.sh's debian_mirror), then dpkg-deb -x into DEST/root. The
# host's apt sources, lists, cache and lock are never read or written.
#
# Exits 3 with one message when the suite or a package cannot be had;
# DEST is then left as it was. Fetches again only when DEST/root is
# missing or holds other packages.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/fetch-deb.sh [--depends] [--arch A] DEST SUITE PACKAGE...
Download PACKAGEs of SUITE from the host's Debian archive with private
apt lists and unpack them into DEST/root; print DEST/root. Exits 3 when
SUITE or a package cannot be had. \$PIDMAX_MIRROR overrides the archive.
  --arch A   Debian's architecture A (arm64) instead of the host's: its
             package lists are as private as the rest (the host's apt
             never learns of A; no dpkg --add-architecture)
  --depends  download nothing: print what each PACKAGE depends on in
             SUITE, a package a line (how fetch-stock.sh finds the
             versioned kernel behind linux-image-amd64)"

main() {
	local depends=0 arch=""
	parse_options "$USAGE" "depends,arch:" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--depends) depends=1 ;;
		--arch) arch=$2; shift ;;
		esac
		shift
	done
	shift
	[[ -z $arch || $arch =~ ^[a-z0-9]+$ ]] || usage_error "--arch '$arch': a Debian architecture, such as arm64"
	(($# >= 3)) || usage_error "expects DEST SUITE PACKAGE..."
	local dest suite=$2
	dest=$(mkdir -p "$(dirname "$1")" && cd "$(dirname "$1")" && pwd)/$(basename "$1") ||
		die "cannot use $1"
	shift 2
	[[ $suite =~ ^[a-z0-9-]+$ ]] || usage_error "SUITE '$suite': letters, digits and - only"
	if ((depends == 0)) && [[ -d $dest/root && $(cat "$dest/packages" 2>/dev/null) == "$suite${arch:+:$arch} $*" ]]; then
		echo "$dest/root"
		return 0
	fi
	fetch "$@"
}

# fetch PACKAGE...: fetch the packages of main's suite (and arch) into
# dest through private apt lists in dest.tmp, or with --depends print
# their dependencies; an unreachable suite is exit 3.
fetch() {
	command -v apt-get >/dev/null || die "apt-get not found: this needs Debian's apt"
	local mirror tmp="$dest.tmp"
	mirror=$(debian_mirror) || exit 3
	rm -rf "$tmp"
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/deb" "$tmp/root"
	echo "deb${arch:+ [arch=$arch]} $mirror $suite main" >"$tmp/sources.list"
	local -a apt=(apt-get -q -o "Dir::Etc::SourceList=$tmp/sources.list"
		-o Dir::Etc::SourceParts=/nonexistent -o "Dir::State::Lists=$tmp/lists"
		-o "Dir::Cache=$tmp/cache" -o Debug::NoLocking=1
		-o APT::Sandbox::User=root)
	[[ -z $arch ]] || apt+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
	info "fetching $* from $suite${arch:+ for $arch} ($mirror; private apt lists, nothing installed)"
	if ! "${apt[@]}" update >"$tmp/apt.log" 2>&1 || grep -q '^[WE]: ' "$tmp/apt.log"; then
		tail -n 3 "$tmp/apt.log" >&2
		rm -rf "$tmp"
		echo "${0##*/}: $suite is unreachable" >&2
		exit 3
	fi
	if ((depends)); then
		"${apt[@]/#apt-get/apt-cache}" depends "$@" 2>>"$tmp/apt.log" |
			awk '$1 == "Depends:" && $2 !~ /^</ { print $2 }' || true
		rm -rf "$tmp"
		return 0
	fi
	local p
	local -a pkgs=()
	for p; do
		pkgs+=("$p/$suite")
	done
	if ! (cd "$tmp/deb" && "${apt[@]}" download "${pkgs[@]}") >>"$tmp/apt.log" 2>&1; then
		tail -n 3 "$tmp/apt.log" >&2
		rm -rf "$tmp"
		echo "${0##*/}: apt-get download of $* from $suite failed" >&2
		exit 3
	fi
	local deb
	for deb in "$tmp"/deb/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root" || die "dpkg-deb -x $deb failed (disk full?)"
	done
	rm -rf "$tmp/lists" "$tmp/cache"
	echo "$suite${arch:+:$arch} $*" >"$tmp/packages"
	rm -rf "$dest"
	mv "$tmp" "$dest"
	echo "$dest/root"
}

main "$@"
