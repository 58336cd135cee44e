# shellcheck shell=bash
# sweep-options.sh - sweep-smp.sh's options: its help text, reading and
# checking them (--only among them), and which tiers they ask of each
# kernel's plan. Sourced by sweep-smp.sh (after lib.sh), never run; the
# functions read and set sweep-smp.sh main's variables.

# shellcheck disable=SC2034,SC2154 # read by sweep-smp.sh; lib.sh's DEFAULT_*
USAGE="Usage: harness/sweep-smp.sh [OPTION]...
Boot QEMU guests with 1 to 8192 possible CPUs and check that pid_max is
max(32768, 1024 * nr_cpu_ids) clamped to PID_MAX_LIMIT in each.

Five tiers on x86-64 (none puts a pid_max setting on the kernel command
line), and six scenario boots:
  hotplug   -smp 1,maxcpus=N: N possible CPUs, one online (fast), 1..255
            (6.12 and 7.3 under TCG: on the machine vmware,
            harness/machines, the only one where they count them)
  online    -smp N: all N CPUs online, 1..255
  possible  -smp 1 and the kernel parameter possible_cpus=N: N CPU ids
            no firmware describes, one online, up to 8192 (NR_CPUS
            8192: the 6.1 kernels of harness/kernels)
  wide-online, wide-hotplug  past 255 CPUs the firmware describes, up
            to 4096, on QEMU 10 (see --wide-online, --wide-hotplug)
Four on arm64 (--arch arm64: QEMU's virt with GICv3, up to 512 CPUs):
  hotplug   -smp N and the kernel's maxcpus=1: N possible, one online
            (QEMU hotplugs no arm64 CPU), default $DEFAULT_HOTPLUG_arm64
  online    -smp N, default $DEFAULT_ONLINE_arm64
  holes     -smp N, maxcpus=1 and QEMU's device tree less the enable
            method of cpu@1..cpu@N/4: CPU ids never possible, so
            nr_cpu_ids (N) exceeds the possible count (N - N/4), beside
            a control with the holes at the top; default $DEFAULT_HOLES_arm64
            (see --holes)
  possible  -smp 1, maxcpus=1 and a device tree describing N CPUs, past
            the 512 virt runs: default $DEFAULT_POSSIBLE_arm64 (NR_CPUS
            4096 kernels)

Options:
  --arch A         the architecture, a row of harness/arches: x86_64
                   (the default) or arm64 (cross-built, booted under
                   TCG); each tier's default list is the architecture's
  --only TIER:LIST boot only these tiers, each at its LIST (repeatable;
                   every tier not named is off): hotplug, online,
                   possible, wide-online, wide-hotplug, holes, and
                   scenarios (no LIST). One boot: --only online:8. Not
                   with the tiers' own options below
  --holes LIST     holes tier CPU counts N, at least 4 (arm64;
                   default: $DEFAULT_HOLES_arm64); \"\" skips the tier
  --cpus LIST      hotplug tier CPU counts (default: all = 1-255);
                   LIST is like 1,2,32-34,255; \"\" skips the tier
  --online LIST    online tier CPU counts
                   (default: $DEFAULT_ONLINE); \"\" skips the tier
  --possible LIST  possible tier CPU counts, up to 8192
                   (default: $DEFAULT_POSSIBLE); \"\" skips the tier
  --wide-online LIST   all N CPUs online past 255, N firmware-described
                   CPUs (default: $DEFAULT_WIDE_ONLINE)
  --wide-hotplug LIST  -smp 256,maxcpus=N and maxcpus=1: N firmware-
                   described possible CPUs (default: $DEFAULT_WIDE_HOTPLUG);
                   both wide tiers boot QEMU 10 from bookworm-backports
                   (fetch-qemu.sh, never installed) on q35 with x2APIC
                   and interrupt remapping, a kernel built with them
                   (the 6.1 kernels); unreachable, they are skips
  --jobs N         guests booted at once (default: 2); a guest with 16
                   or more CPUs online always boots alone
  --kernel FILE    boot this vmlinux or bzImage instead of building
                   one; the expected values come from FILE's
                   directory's .config. \"debian\": Debian's own amd64
                   (or --arch's) kernel of --tree's suite (harness/trees:
                   6.1 the host's, 7.3 trixie-backports'), fetched into
                   the build folder (never installed) by fetch-stock.sh
  --config FILE    the .config of --kernel FILE
  --tree T         kernel tree to build, a tree of the kernel table
                   harness/kernels: 6.1 (default), 6.12 or 7.3 (fetched
                   from trixie-backports, harness/trees; unreachable, its
                   tiers are skips); each kernel boots every tier its
                   .config allows, the rest skip
  --variant V      the tree's variant to build: full (default), small
                   (CONFIG_BASE_SMALL), or all (every variant, planned
                   into one job list, side by side in DIR/variants.csv)
  --fewest-kernels  boot each tier on the last kernel of its variant
                   in harness/kernels that lists it, not the first: on
                   6.1 one build a variant (NR_CPUS 8192, x2APIC) boots
                   every tier, its 1..255 boots slower (docs/speed.md);
                   what CI does to save builds
  --scenarios Y/N  yes (default): also boot the six scenario guests: the
                   extended checks (bad writes, PIDs above 32768,
                   exhaustion), sysctl.kernel.pid_max= in and out of
                   range, nr_cpus=, possible_cpus= and maxcpus=
  --accel A        auto (default: KVM only if a probe boot passes),
                   tcg or kvm
  --build-dir DIR  where the tree and builds live (default: build/)
  --out DIR        where results go (default: results/)
  --baseline       also build every kernel without the series (the
                   stock kernel) and boot the same jobs on it
                   (baseline.sh), into DIR/baseline; DIR/compare.csv
                   has stock and patched values side by side. The
                   exit status is the patched kernels' alone
  --list           print the job list (plan.sh) and boot nothing
  --shard I/N      run only shard I of N of the job list (shard.sh:
                   every boot in exactly one shard, heavy boots spread);
                   results in DIR (default: results/shard-I-of-N), to
                   be joined by harness/merge-results.sh
  -h, --help       this text

Writes DIR/jobs, DIR/boots/*.log, DIR/results.ktap, results.csv,
results.xml (JUnit), checks.csv, pid_max.svg and .png (gnuplot), and
from the online tier pid_budget.csv, .txt and .svg; prints
a line per boot (and a progress line on a terminal), ends with
\"N passed, N failed, N skipped\", and exits non-zero when anything failed.
harness/report.sh DIR judges a finished folder again without booting."

# only_tiers TIER:LIST...: --only: every tier off, then each one named
# on at its LIST (sets the tier options of main).
only_tiers() {
	local t
	cpus_list="" cpus_given=1 online_list="" possible_list="" scenarios=no
	wide_online="" wide_hotplug="" holes_list=""
	for t; do
		case $t in
		hotplug:*) cpus_list=${t#*:} ;;
		online:*) online_list=${t#*:} ;;
		possible:*) possible_list=${t#*:} ;;
		wide-online:*) wide_online=${t#*:} ;;
		wide-hotplug:*) wide_hotplug=${t#*:} ;;
		holes:*) holes_list=${t#*:} ;;
		scenarios) scenarios=yes ;;
		*) usage_error "--only wants TIER:LIST (hotplug, online, possible, wide-online, wide-hotplug, holes) or scenarios, not '$t'" ;;
		esac
	done
}

# wanted_tiers: the tiers main's options ask for (TIERS's names).
wanted_tiers() {
	local -a w=()
	[[ -z $(parse_cpu_list "$cpus_list" "$ARCH_MAXCPUS") ]] || w+=(hotplug)
	[[ -z $(parse_cpu_list "$online_list" "$ARCH_MAXCPUS") ]] || w+=(online)
	[[ $scenarios != yes ]] || w+=(scenario)
	[[ -z $possible_list ]] || w+=(possible)
	[[ -z $wide_online ]] || w+=(wide-online)
	[[ -z $wide_hotplug ]] || w+=(wide-hotplug)
	[[ -z $holes_list ]] || w+=(holes)
	echo "${w[*]}"
}

# arch_defaults: every tier list no option named ("default") becomes
# the architecture's (arch_default in lib.sh); under --only every tier
# has its list already.
arch_defaults() {
	[[ $cpus_list != default ]] || cpus_list=$(arch_default HOTPLUG "$arch")
	[[ $online_list != default ]] || online_list=$(arch_default ONLINE "$arch")
	[[ $holes_list != default ]] || holes_list=$(arch_default HOLES "$arch")
	[[ $possible_list != default ]] || possible_list=$(arch_default POSSIBLE "$arch")
	[[ $wide_online != default ]] || wide_online=$(arch_default WIDE_ONLINE "$arch")
	[[ $wide_hotplug != default ]] || wide_hotplug=$(arch_default WIDE_HOTPLUG "$arch")
	[[ $scenarios != default ]] || scenarios=$(arch_default SCENARIOS "$arch")
	# A default hotplug list other than "all" is given to plan.sh.
	[[ $cpus_list == all ]] || cpus_given=1
}

# plan_options TIERS: set PLAN_OPTS to plan.sh's options for a kernel
# that boots TIERS (a space-separated list), every other tier off.
# Without --cpus plan.sh's own default stands for the hotplug tier (on a
# kernel that cannot boot it, a skip; a LIST given would be an error).
plan_options() {
	PLAN_OPTS=()
	if ! in_words hotplug "$1"; then
		PLAN_OPTS+=(--cpus "")
	elif ((cpus_given)); then
		PLAN_OPTS+=(--cpus "$cpus_list")
	fi
	PLAN_OPTS+=(--scenarios "$(in_words scenario "$1" && echo yes || echo no)"
		--online "$(! in_words online "$1" || echo "$online_list")"
		--possible "$(! in_words possible "$1" || echo "$possible_list")"
		--wide-online "$(! in_words wide-online "$1" || echo "$wide_online")"
		--wide-hotplug "$(! in_words wide-hotplug "$1" || echo "$wide_hotplug")"
		--holes "$(! in_words holes "$1" || echo "$holes_list")")
}

# read_options ARG...: main's options into main's variables.
read_options() {
	parse_options "$USAGE" "fewest-kernels,only:,cpus:,online:,possible:,jobs:,kernel:,config:,tree:,variant:,accel:,scenarios:,build-dir:,out:,list,shard:,baseline,wide-online:,wide-hotplug:,holes:,arch:" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--only) only+=("$2") ;;
		--cpus | --online | --possible | --wide-online | --wide-hotplug | --scenarios | --holes)
			tier_given=$1 ;;&
		--cpus) cpus_list=$2 cpus_given=1 ;;
		--online) online_list=$2 ;;
		--possible) possible_list=$2 ;;
		--wide-online) wide_online=$2 ;;
		--wide-hotplug) wide_hotplug=$2 ;;
		--holes) holes_list=$2 ;;
		--arch) arch=$2 ;;
		--jobs) jobs=$2 ;;
		--kernel) kernel=$2 ;;
		--config) config=$2 ;;
		--tree) tree=$2 ;;
		--variant) variant=$2 ;;
		--accel) accel=$2 ;;
		--scenarios) scenarios=$2 ;;
		--build-dir) build=$2 ;;
		--out) out=$2 ;;
		--shard) shard=$2 ;;
		--list) list=1; shift; continue ;;
		--baseline) baseline=1; shift; continue ;;
		--fewest-kernels) pick=fewest; shift; continue ;;
		--) shift; break ;;
		esac
		shift 2
	done
	(($# == 0)) || usage_error "unexpected operand '$1'"
}

# check_lists: every tier's list (the wide ones made comma lists),
# --scenarios, --jobs, --shard and --out.
check_lists() {
	if ((${#only[@]})); then
		[[ -z $tier_given ]] || usage_error "--only and $tier_given: name every tier with --only"
		only_tiers "${only[@]}"
	fi
	parse_cpu_list "$cpus_list" "$ARCH_MAXCPUS" >/dev/null || usage_error "--cpus: see above"
	parse_cpu_list "$online_list" "$ARCH_MAXCPUS" >/dev/null || usage_error "--online: see above"
	parse_cpu_list "$holes_list" "$ARCH_MAXCPUS" 4 >/dev/null || usage_error "--holes: see above"
	parse_cpu_list "$possible_list" "$MAX_NR_CPUS" >/dev/null || usage_error "--possible: see above"
	wide_online=$(parse_cpu_list "$wide_online" "$MAX_Q35_CPUS") || usage_error "--wide-online: see above"
	wide_hotplug=$(parse_cpu_list "$wide_hotplug" "$MAX_Q35_CPUS" "$MIN_WIDE_HOTPLUG") ||
		usage_error "--wide-hotplug: see above (N above the 256 CPUs QEMU is given)"
	wide_online=${wide_online//$'\n'/,} wide_hotplug=${wide_hotplug//$'\n'/,}
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs wants a positive number, not '$jobs'"
	local shard_i shard_n
	if [[ -n $shard ]]; then
		parse_shard "$shard" shard_i shard_n || usage_error "--shard wants I/N with 1 <= I <= N, not '$shard'"
		[[ -n $out ]] || out="$REPO/results/shard-$shard_i-of-$shard_n"
	fi
	[[ -n $out ]] || out="$REPO/results"
	case $scenarios in yes | no) ;; *) usage_error "--scenarios wants yes or no, not '$scenarios'" ;; esac
	[[ $(parse_cpu_list "$cpus_list" "$ARCH_MAXCPUS")$(parse_cpu_list "$online_list" "$ARCH_MAXCPUS")$possible_list$wide_online$wide_hotplug$holes_list != "" ||
		$scenarios == yes ]] ||
		usage_error "every tier's list is empty and --scenarios is no: nothing to boot"
}

# debian_kernel: --kernel debian made the path of Debian's own kernel of
# --tree's suite (harness/trees: the host's, or one fetched from), by
# fetch-stock.sh; a host kernel of another tree is refused. Returns 1,
# with kernel_missing=1, when the suite is unreachable.
debian_kernel() {
	local row suite rc=0 dir version
	local -a from=()
	row=$(tree_row "$tree") || die "no tree $tree in harness/trees"
	suite=${row%% *}
	[[ $suite == host ]] || from=("$suite")
	dir=$("$HARNESS/fetch-stock.sh" --arch "$arch" "$build" "${from[@]}") || rc=$?
	if ((rc == 3)); then
		kernel="" kernel_missing=1
		return 1
	fi
	((rc == 0)) || die "fetch-stock.sh failed (see above)"
	kernel=$(compgen -G "$dir/vmlinuz-*" | head -n 1) ||
		die "fetch-stock.sh left no vmlinuz-* in $dir"
	version=$(kconfig_version "$dir/.config")
	kernel_stock=1
	[[ $version == "$tree".* ]] ||
		die "--kernel debian --tree $tree: Debian's kernel from the host's apt is $version, not $tree (harness/trees names where each tree comes from)"
}

# check_kernel_options: --tree, --variant (all made the tree's list),
# --accel, --kernel (debian fetched) and --config.
check_kernel_options() {
	local trees variants
	trees=$(kernel_trees "$arch") || die "cannot read the kernel table"
	in_words "$tree" "$trees" || usage_error "--tree wants one of $trees (harness/kernels, $arch), not '$tree'"
	variants=$(kernel_variants "$tree" "$arch")
	[[ $variant == all ]] || in_words "$variant" "$variants" ||
		usage_error "--variant wants all or one of $variants, not '$variant'"
	case $accel in auto | tcg | kvm) ;; *) usage_error "--accel wants auto, tcg or kvm, not '$accel'" ;; esac
	if [[ -n $kernel ]]; then
		[[ $variant != all ]] || usage_error "--variant all builds its own kernels; drop --kernel"
		((baseline == 0)) || usage_error "--baseline builds the stock twins of its own kernels; drop --kernel"
	fi
	[[ $variant != all ]] || variant=$variants
	if [[ $kernel == debian ]]; then
		[[ -z $config ]] || usage_error "--kernel debian brings its own .config; drop --config"
		debian_kernel || return 0
	fi
	if [[ -n $kernel ]]; then
		[[ -r $kernel ]] || die "--kernel $kernel is not readable"
		[[ -n $config ]] || config="$(dirname "$kernel")/.config"
		[[ -r $config ]] || die "no .config for $kernel: put it beside the kernel or pass --config FILE"
	else
		[[ -z $config ]] || usage_error "--config goes with --kernel"
	fi
}
