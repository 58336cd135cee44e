#!/bin/bash
# deps.sh - make sure the Debian packages the harness needs are installed.
#
# Usage: harness/deps.sh [build|test|self] [ARCH...]
#   build: what building the kernel and booting guests needs
#   test:  that, plus what the self-tests and series checks need
#   self:  what the lint and the self-tests alone need (no kernel tree,
#          QEMU or gnuplot: the self-tests that need them are skips)
#   ARCH:  an architecture of harness/arches whose packages (its cross
#          compiler, emulator, dtc) are wanted too
# As root it installs what is missing with apt-get; otherwise it names
# the exact command to run and fails.
set -euo pipefail

# The kernel tree under test comes from Debian's own source package;
# gcc..libssl-dev build it, busybox-static and cpio make the initramfs,
# gnuplot-nox draws the results; python3 runs harness/pidmax (the parser,
# judge and reporter), and python3-pyflakes checks it; git applies the
# series' changes to the selftests alone (build-selftests.sh --series).
BUILD_PKGS=(linux-source-6.1 xz-utils gcc make flex bison bc libelf-dev
	libssl-dev perl quilt patch busybox-static cpio qemu-system-x86
	gawk coreutils gnuplot-nox python3 git)
TEST_PKGS=(shellcheck linux-source-6.12 python3 python3-yaml python3-pyflakes python3-coverage)
SELF_PKGS=(shellcheck python3 python3-yaml python3-pyflakes python3-coverage gawk coreutils)

# shellcheck source=harness/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
USAGE="Usage: harness/deps.sh [build|test|self] [ARCH...]
Install (as root) or name the Debian packages the harness needs, with
those of each architecture ARCH (harness/arches)."
parse_options "$USAGE" "" "$@"
set -- "${OPTS[@]:1}"
mode=${1:-build}
case $mode in
build) want=("${BUILD_PKGS[@]}") ;;
test) want=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
self) want=("${SELF_PKGS[@]}") ;;
*) usage_error "wants build, test or self, not '$mode'" ;;
esac
(($# == 0)) || shift

# install PKG...: install those of PKGs not installed (as root), or name
# them and fail.
install() {
	local pkg status log
	local -a missing=()
	for pkg; do
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || missing+=("$pkg")
	done
	((${#missing[@]} == 0)) && return 0
	if ((EUID != 0)); then
		{
			echo "${0##*/}: missing Debian packages: ${missing[*]}"
			echo "${0##*/}: install them with:"
			echo "  sudo apt-get install --no-install-recommends ${missing[*]}"
		} >&2
		exit 1
	fi
	echo "${0##*/}: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	log=$(mktemp)
	if ! apt-get update -q >"$log" 2>&1 ||
		! apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "${0##*/}: error: apt-get could not install: ${missing[*]}" >&2
		rm -f "$log"
		exit 1
	fi
	rm -f "$log"
}

# The group first: it brings python3, which reads the architecture table.
install "${want[@]}"
want=()
for a; do
	arch_row "$a" || usage_error "ARCH: see above"
	IFS=, read -r -a pkgs <<<"$ARCH_PACKAGES"
	want+=("${pkgs[@]}")
done
install "${want[@]}"
