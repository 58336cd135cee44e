#!/bin/bash
# kunit-uml.sh - run the series' KUnit suite with the kernel's own
# runner, as kernel developers do:
#
#   tools/testing/kunit/kunit.py run --kconfig_add CONFIG_PID_MAX_KUNIT_TEST=y pid_max
#
# on a pristine linux-source-TREE tree (6.1 by default; harness/trees)
# with its series pushed by quilt,
# under UML (kunit.py's default architecture; --arch=x86_64 for QEMU,
# --arch=arm64 for QEMU's virt, cross-compiled with harness/arches'
# compiler). Passes when kunit.py ran the pid_max suite with every case
# passing.
#
# --exec runs the suite with `kunit.py exec` instead: no build of its
# own, the kernel the sweep boots (the full variant's last row of
# harness/kernels, built by harness/build-kernel.sh if it is not yet),
# booted by kunit.py in QEMU as a PVH vmlinux (ci/kunit-qemu-pvh.py)
# with one CPU, its output parsed by kunit.py. The test command runs it
# on 6.1, a cold UML build fewer (docs/ci.md).
#
# Wherever kunit.py starts QEMU (exec, and run --arch x86_64), it runs
# under the accelerator harness/accel.sh's probe chose, as the sweep's
# boots do: 7.3's kunit.py asks for KVM first, and a /dev/kvm that
# exists but hangs a guest must not decide (harness/qemu-accel.sh). An
# arm64 guest runs under TCG: KVM runs the host's architecture only.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/kunit-uml.sh [--build-dir DIR] [--arch ARCH] [--tree TREE] [--exec [--kernel-dir KDIR]]
Run kunit.py's pid_max suite on linux-source-TREE (default 6.1; its source
and series are its row of harness/trees: 7.3 is fetched, mainline/'s
series) with the series, in DIR/kunit-tree-TREE (default build/); ARCH is
um (default), x86_64 or arm64. A tree whose suite is unreachable is a SKIP.
  --exec  kunit.py exec on the sweep's own kernel of the tree (built in
          DIR if need be) in QEMU, instead of kunit.py run's own build
  --kernel-dir KDIR  with --exec: the folder of a kernel already built
          with the suite (its vmlinux and .config) instead of the sweep's
QEMU runs under the accelerator harness/accel.sh chooses (KVM only if a
probe boot passes), whatever kunit.py asks for (harness/qemu-accel.sh).
Prints KTAP and \"N passed, N failed, N skipped\"."

# run_in_tree TREE TARBALL LOG: kunit.py run of the suite on a tree of
# its own (the harness's builds keep theirs), pristine from the tarball
# with the series pushed as a user would; its output in LOG.
run_in_tree() {
	local tree=$1 tarball=$2 log=$3 series work id
	series=$(tree_series_dir "$tree")
	local -a files=("$series/series")
	mapfile -t -O 1 files < <(grep -v -E '^[[:space:]]*(#|$)' "$series/series" | sed "s|^|$series/|")
	work="$build/kunit-tree-$tree"
	id=$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)-$(stat -c '%s %Y' "$tarball")
	if [[ $(cat "$work/.harness-id" 2>/dev/null) != "$id" ]]; then
		info "unpacking $tarball and pushing the series into $work"
		rm -rf "$work"
		mkdir -p "$work/patches"
		tar -xf "$tarball" -C "$work" --strip-components=1 || die "could not unpack $tarball (disk full?)"
		cp "${files[@]}" "$work/patches/"
		(cd "$work" && QUILT_PATCHES=patches quilt push -a -q --fuzz=0) >/dev/null ||
			die "the series does not apply to $tarball with --fuzz=0"
		echo "$id" >"$work/.harness-id"
	fi
	local -a cross=()
	[[ $arch == @(um|x86_64) ]] || {
		arch_row "$arch" || die "no architecture $arch in harness/arches"
		cross=(--cross_compile="$ARCH_CROSS")
	}
	(cd "$work" && python3 tools/testing/kunit/kunit.py run --arch="$arch" "${cross[@]}" \
		--build_dir="$build/kunit-$arch-$tree" --jobs="$(nproc)" \
		--kconfig_add CONFIG_PID_MAX_KUNIT_TEST=y pid_max) >"$log" 2>&1 || true
}

# sweep_kernel TREE: the folder of the kernel the sweep boots for the
# tree's full variant (kernel_pick, the last row: on 6.1 the one
# --fewest-kernels boots), built as the sweep builds it.
sweep_kernel() {
	local tree=$1 name
	name=$(kernel_pick "$tree" x86_64 full hotplug fewest) || die "harness/kernels has no full kernel of tree $tree"
	[[ $(kernel_initrd_mode "$tree" "$name") != builtin ]] ||
		"$REPO/harness/build-initramfs.sh" "$build" >/dev/null
	"$REPO/harness/build-kernel.sh" "$build" "$tree" "$name" ||
		die "build-kernel.sh $tree $name failed (see above)"
}

# use_probed_accel KDIR: kunit.py's QEMU runs under the accelerator
# harness/accel.sh chooses by booting that kernel, as the sweep's QEMU
# does (the verdict cached for this host boot): stand-ins for QEMU put
# first on PATH (harness/qemu-accel.sh) drop every other accelerator
# that kunit.py asks for. Sets ACCEL, for the verdict's line.
use_probed_accel() {
	local kdir=$1 initrd wrap
	initrd=$("$REPO/harness/build-initramfs.sh" "$build") || die "build-initramfs.sh failed (see above)"
	ACCEL=$("$REPO/harness/accel.sh" "$build" "$kdir/vmlinux" "$kdir/.config" "$initrd") ||
		die "accel.sh failed (see above)"
	wrap=$("$REPO/harness/qemu-accel.sh" --wrap "$build/qemu-accel" "$ACCEL") ||
		die "qemu-accel.sh --wrap failed (see above)"
	PATH=$wrap:$PATH
}

# exec_on_sweep_kernel TREE LOG [KDIR]: kunit.py exec of the suite on
# the kernel built in KDIR, by default the one the sweep boots for the
# tree (sweep_kernel); kunit.py of the same tree boots it as a PVH
# vmlinux under the probed accelerator.
exec_on_sweep_kernel() {
	local tree=$1 log=$2 kdir=${3:-} dir
	[[ -n $kdir ]] || kdir=$(sweep_kernel "$tree")
	grep -qx 'CONFIG_PID_MAX_KUNIT_TEST=y' "$kdir/.config" ||
		die "$kdir was built without CONFIG_PID_MAX_KUNIT_TEST"
	use_probed_accel "$kdir"
	# kunit.py exec writes its test.log beside the kernel: a folder of
	# its own, the kernel linked in.
	dir="$build/kunit-exec-$tree"
	mkdir -p "$dir"
	ln -sfn "$kdir/vmlinux" "$dir/vmlinux"
	(cd "$build/src/linux-source-$tree" && python3 tools/testing/kunit/kunit.py exec \
		--build_dir="$dir" --qemu_config="$REPO/ci/kunit-qemu-pvh.py" \
		--kunitconfig="$REPO/harness/config/pid_max.kunitconfig" --timeout=300 pid_max) \
		>"$log" 2>&1 || true
}

# verdict NAME LOG HOW: KTAP line of kunit.py's run in LOG: passes when
# it ran the pid_max suite with every case passing. HOW (the accelerator
# QEMU ran under, or empty under UML) is part of its reason.
verdict() {
	local name=$1 log=$2 how=${3:+, $3} out summary
	out=$(sed 's/^\[[0-9:]*\] //' "$log")
	grep -E '^(=+ .*pid_max|\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete|Elapsed)' <<<"$out" |
		sed 's/^/# /' || true
	summary=$(grep -o 'Testing complete\..*' <<<"$out" | tail -n 1 || true)
	if [[ $summary =~ ^Testing\ complete\.\ Ran\ ([0-9]+)\ tests:\ passed:\ ([0-9]+)$ ]] &&
		((BASH_REMATCH[1] == BASH_REMATCH[2] && BASH_REMATCH[1] > 0)) &&
		grep -qE '^=+ \[PASSED\] pid_max =+$' <<<"$out"; then
		echo "ok 1 $name"
		[[ -z $how ]] || echo "# ${how#, }"
		summary_line 1 0 0
	else
		tail -n 20 "$log" | sed 's/^/# /'
		echo "not ok 1 $name # ${summary:-no summary} (log: $log$how)"
		summary_line 0 1 0
		return 1
	fi
}

main() {
	local arch="" tree=6.1 mode=run kdir=""
	build="$REPO/build"
	parse_options "$USAGE" "build-dir:,arch:,tree:,exec,kernel-dir:" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--build-dir) build=$2; shift 2 ;;
		--arch) arch=$2; shift 2 ;;
		--tree) tree=$2; shift 2 ;;
		--exec) mode="exec"; shift ;;
		--kernel-dir) kdir=$2; shift 2 ;;
		--) shift; break ;;
		esac
	done
	(($# == 0)) || usage_error "unexpected operand '$1'"
	[[ $mode == run || -z $arch ]] || usage_error "--exec boots x86_64 in QEMU: leave --arch out"
	[[ $mode == exec || -z $kdir ]] || usage_error "--kernel-dir goes with --exec"
	[[ -z $kdir || -r $kdir/vmlinux ]] || usage_error "--kernel-dir: no $kdir/vmlinux"
	[[ $mode == run ]] || arch=x86_64
	case ${arch:=um} in um | x86_64 | arm64) ;; *) usage_error "--arch wants um, x86_64 or arm64, not '$arch'" ;; esac
	tree_row "$tree" >/dev/null || usage_error "--tree: no tree '$tree' in harness/trees"
	command -v python3 >/dev/null || die "python3 not found: apt-get install python3"
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	local tarball rc=0 name="kunit.py_${mode}_pid_max_${arch}_$tree"
	if [[ -n ${PIDMAX_TARBALL:-} ]]; then
		tarball=$PIDMAX_TARBALL
	else
		tree_tarball_ktap "$build" "$tree" "$name" tarball || rc=$?
		((rc != 3)) || return 0
	fi
	local log="$build/kunit-$arch-$tree.log"
	[[ $mode == run ]] || log="$build/kunit-exec-$tree.log"
	echo "KTAP version 1"
	echo "1..1"
	ACCEL=""
	if [[ $mode == exec ]]; then
		exec_on_sweep_kernel "$tree" "$log" "$kdir"
	else
		# kunit.py run --arch x86_64 boots in QEMU: under the
		# accelerator the probe chose with the sweep's kernel.
		if [[ $arch == x86_64 ]]; then
			kdir=$(sweep_kernel "$tree")
			use_probed_accel "$kdir"
		elif [[ $arch != um ]]; then
			ACCEL=tcg
			PATH=$("$REPO/harness/qemu-accel.sh" --wrap "$build/qemu-accel-tcg" tcg):$PATH ||
				die "qemu-accel.sh --wrap failed (see above)"
		fi
		run_in_tree "$tree" "$tarball" "$log"
	fi
	verdict "$name" "$log" "${ACCEL:+under $ACCEL}"
}

main "$@"
