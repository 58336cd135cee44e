# shellcheck shell=bash disable=SC2034,SC2154 # sweep-smp.sh main's variables
# sweep-kernels.sh - the kernels of a sweep, sourced by sweep-smp.sh:
# which to build (the kernel table, harness/kernels), each with the
# tiers it boots, QEMU 10 for the wide tiers, the baseline's stock
# twins. Each function reads and sets sweep-smp.sh main's variables.

# sweep_kernels: --kernel FILE, which boots every tier asked for; or, of
# each variant, the table's builds that boot those tiers (kernel_pick:
# the first row listing a tier, the last with --fewest-kernels), built.
# Sets kernels, configs, labels, kbuilds and ktiers (a kernel's tiers);
# series=auto for a --kernel FILE, series=no for --kernel debian
# (kernel_stock: held to the formula's stock model). A build whose tree's suite is unreachable
# (build-kernel.sh exit 3), or --kernel debian of one (kernel_missing),
# goes to unbuilt ("LABEL BUILD TIER..."), its tiers skips (unbuilt_jobs).
sweep_kernels() {
	local want v b tiers kdir plan rc
	local -a builds=()
	want=$(wanted_tiers)
	if ((kernel_missing)); then
		unbuilt+=("debian-$tree debian $want")
		return 0
	fi
	if [[ -n $kernel ]]; then
		kernels=("$(realpath "$kernel")") configs=("$(realpath "$config")")
		labels=("$(basename "$kernel")") series=auto ktiers=("$want")
		# Debian's own kernels carry no series: the formula's stock model.
		((kernel_stock == 0)) || series=no
		return 0
	fi
	for v in $variant; do
		# shellcheck disable=SC2086 # the tiers, a word each
		plan=$(kernel_plan "$tree" "$arch" "$v" "$pick" $want) ||
			die "$KERNEL_TABLE, tree $tree, $arch: see above"
		mapfile -t builds <<<"$plan"
		for b in "${builds[@]}"; do
			read -r b tiers <<<"$b"
			rc=0
			kdir=$("$HARNESS/build-kernel.sh" --arch "$arch" "$build" "$tree" "$b") || rc=$?
			if ((rc == 3)); then
				unbuilt+=("$(kernel_name "$tree" "$b" "$arch") $b $tiers")
				continue
			fi
			((rc == 0)) || die "build-kernel.sh $tree $b failed (see above)"
			kernels+=("$kdir/${ARCH_IMAGE##*/}") configs+=("$kdir/.config")
			labels+=("$(kernel_name "$tree" "$b" "$arch")") kbuilds+=("$b") ktiers+=("$tiers")
		done
	done
}

# selftests_for: "CPIO N" of the tree's own pid_namespace selftests
# (build-selftests.sh) when the sweep builds the tree's kernels and boots
# the scenarios or the holes; nothing for a --kernel, or a tree without
# them.
selftests_for() {
	local w
	w=$(wanted_tiers)
	((${#kbuilds[@]})) && { in_words scenario "$w" || in_words holes "$w"; } || return 0
	"$HARNESS/build-selftests.sh" --arch "$arch" "$build" "$tree" || die "build-selftests.sh failed (see above)"
}

# unchanged_selftests_for: "CPIO N" of the tree's own pid_namespace
# selftests as its tarball has them, for the holes tier of a tree whose
# series changes them (the holes machine is where the series changes
# pid_max); nothing otherwise.
unchanged_selftests_for() {
	((${#kbuilds[@]})) && in_words holes "$(wanted_tiers)" || return 0
	local dir
	dir=$(tree_series_dir "$tree") || die "no series for tree $tree"
	grep -q '^+++ .*/tools/testing/selftests/pid_namespace/' "$dir"/*.patch 2>/dev/null || return 0
	"$HARNESS/build-selftests.sh" --arch "$arch" --stock "$build" "$tree" ||
		die "build-selftests.sh --stock failed (see above)"
}

# wide_qemu_for: print QEMU 10's path when a kernel boots the wide tiers
# (x2APIC with interrupt remapping), fetched; nothing when none does or
# it is unreachable (the tiers are then skips).
wide_qemu_for() {
	local i rc=0 qemu
	for i in "${!kernels[@]}"; do
		[[ ${ktiers[i]} == *wide-* ]] && kernel_boots_wide "${configs[i]}" || continue
		qemu=$("$HARNESS/fetch-qemu.sh" "$build") || rc=$?
		((rc == 0 || rc == 3)) || die "fetch-qemu.sh failed (see above)"
		echo "${qemu:-}"
		return 0
	done
}

# stock_kernels: the baseline's stock twin of every kernel, built last
# (they pop the series off the tree that the builds share); sets
# stock_map (LABEL=VMLINUX).
stock_kernels() {
	local i kdir
	for i in "${!labels[@]}"; do
		kdir=$("$HARNESS/build-kernel.sh" --stock --arch "$arch" "$build" "$tree" "${kbuilds[i]}")
		stock_map+=("${labels[i]}=$kdir/${ARCH_IMAGE##*/}")
	done
}

# unbuilt_jobs: a skip job per tier of each unbuilt kernel ("LABEL
# BUILD TIER..."), with the reason: its tree's suite (harness/trees)
# could not be reached.
unbuilt_jobs() {
	local u label t b suite
	((${#unbuilt[@]})) || return 0
	suite=$(tree_row "$tree") || return 1
	for u in "${unbuilt[@]}"; do
		read -r label b t <<<"$u"
		for t in $t; do
			kv_line "name=$label-$t" "tier=$t" "variant=${b%%-*}" "label=$label" \
				"skip=${suite%% *} is unreachable: no kernel of tree $tree to boot (harness/trees)"
		done
	done
}
