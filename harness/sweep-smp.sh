#!/bin/bash
# sweep-smp.sh - the harness's entry point: build what is missing, plan
# the boots, run them, report. A thin front over the stages, which each
# work on a results folder (DIR) and can be run alone:
#
#   build-kernel.sh     tree + series + config -> vmlinux and .config
#   build-initramfs.sh  busybox-static + guest-init.sh -> initramfs.cpio
#   accel.sh            KVM if a probe boot passes, else TCG
#   plan.sh             options -> DIR/jobs, a boot a line, each job with
#                       its expected values (lib.sh's make_job)
#   run-jobs.sh         DIR/jobs -> DIR/boots/*.log (boot-guest.sh each)
#   report.sh           DIR/jobs + logs -> results.ktap/.csv/.xml,
#                       checks.csv (parse-console.sh, judge.sh)
#   plot.sh             DIR/results.csv -> pid_max.svg, pid_max.png
#   budget.sh           online-tier logs -> pid_budget.csv/.txt/.svg
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HARNESS")
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

# shellcheck source=harness/sweep-options.sh
. "$HARNESS/sweep-options.sh"

local cpus_list=all cpus_given=0 online_list=$DEFAULT_ONLINE jobs=2
local possible_list=$DEFAULT_POSSIBLE wide_online=$DEFAULT_WIDE_ONLINE wide_hotplug=$DEFAULT_WIDE_HOTPLUG
local kernel="" config="" tree=6.1 variant=full accel=auto scenarios=yes
local build="$REPO/build" out="" list=0 shard="" baseline=0 tier_given="" pick=each
local -a only=()
parse_options "$USAGE" "fewest-kernels,only:,cpus:,online:,possible:,jobs:,kernel:,config:,tree:,variant:,accel:,scenarios:,build-dir:,out:,list,shard:,baseline,wide-online:,wide-hotplug:" "$@"
set -- "${OPTS[@]}"
while (($#)); do
	case $1 in
	--only) only+=("$2") ;;
	--cpus | --online | --possible | --wide-online | --wide-hotplug | --scenarios)
		tier_given=$1 ;;&
	--cpus) cpus_list=$2 cpus_given=1 ;;
	--online) online_list=$2 ;;
	--possible) possible_list=$2 ;;
	--wide-online) wide_online=$2 ;;
	--wide-hotplug) wide_hotplug=$2 ;;
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

# Check every input before anything is built or booted.
(($# == 0)) || usage_error "unexpected operand '$1'"
if ((${#only[@]})); then
	[[ -z $tier_given ]] || usage_error "--only and $tier_given: name every tier with --only"
	only_tiers "${only[@]}"
fi
parse_cpu_list "$cpus_list" >/dev/null || usage_error "--cpus: see above"
parse_cpu_list "$online_list" >/dev/null || usage_error "--online: see above"
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
local trees variants
trees=$(kernel_trees) || die "cannot read the kernel table"
in_words "$tree" "$trees" || usage_error "--tree wants one of $trees (harness/kernels), not '$tree'"
variants=$(kernel_variants "$tree")
[[ $variant == all ]] || in_words "$variant" "$variants" ||
	usage_error "--variant wants all or one of $variants, not '$variant'"
case $accel in auto | tcg | kvm) ;; *) usage_error "--accel wants auto, tcg or kvm, not '$accel'" ;; esac
case $scenarios in yes | no) ;; *) usage_error "--scenarios wants yes or no, not '$scenarios'" ;; esac
[[ $(parse_cpu_list "$cpus_list")$(parse_cpu_list "$online_list")$possible_list$wide_online$wide_hotplug != "" ||
	$scenarios == yes ]] ||
	usage_error "every tier's list is empty and --scenarios is no: nothing to boot"
if [[ -n $kernel ]]; then
	[[ $variant != all ]] || usage_error "--variant all builds its own kernels; drop --kernel"
	((baseline == 0)) || usage_error "--baseline builds the stock twins of its own kernels; drop --kernel"
fi
[[ $variant != all ]] || variant=$variants
if [[ $kernel == debian ]]; then
	[[ -z $config ]] || usage_error "--kernel debian brings its own .config; drop --config"
	kernel=$(compgen -G "$("$HARNESS/fetch-stock.sh" "$build")/vmlinuz-*" | head -n 1)
fi
if [[ -n $kernel ]]; then
	[[ -r $kernel ]] || die "--kernel $kernel is not readable"
	[[ -n $config ]] || config="$(dirname "$kernel")/.config"
	[[ -r $config ]] || die "no .config for $kernel: put it beside the kernel or pass --config FILE"
else
	[[ -z $config ]] || usage_error "--config goes with --kernel"
fi

# (the self-tests point PIDMAX_DEPS at true: they need no package)
"${PIDMAX_DEPS:-$HARNESS/deps.sh}" build
((list)) || command -v "${QEMU:-qemu-system-x86_64}" >/dev/null ||
	die "${QEMU:-qemu-system-x86_64} not found: apt-get install qemu-system-x86"

# The kernels: --kernel FILE, which boots every tier; or, of each
# variant, the builds of the kernel table (harness/kernels) that boot
# the tiers asked for, each with its tiers.
mkdir -p "$build"
build=$(cd "$build" && pwd)
local -a kernels=() configs=() labels=() kbuilds=() ktiers=()
local i initrd want t b
want=$(wanted_tiers)
# First: a kernel may carry it inside.
initrd=$("$HARNESS/build-initramfs.sh" "$build")
# Any --kernel may lack the series: the judge tells from its boot line.
local series=yes
local v kdir
if [[ -n $kernel ]]; then
	kernels=("$(realpath "$kernel")") configs=("$(realpath "$config")")
	labels=("$(basename "$kernel")") series=auto ktiers=("$want")
else
	for v in $variant; do
		local -A of=()
		for t in $want; do
			b=$(kernel_pick "$tree" "$v" "$t" "$pick") ||
				die "no kernel of $tree $v in $KERNEL_TABLE boots the $t tier"
			of[$b]+=" $t"
		done
		for b in $(kernel_builds "$tree" "$v"); do
			[[ -n ${of[$b]:-} ]] || continue
			kdir=$("$HARNESS/build-kernel.sh" "$build" "$tree" "$b")
			kernels+=("$kdir/vmlinux") configs+=("$kdir/.config")
			labels+=("$tree-$b") kbuilds+=("$b") ktiers+=("${of[$b]}")
		done
		unset of
	done
fi
# QEMU 10 for the wide tiers, when a kernel can boot them (x2APIC with
# interrupt remapping); unreachable, they are skips (exit 3).
local wide_qemu="" rc=0
for i in "${!kernels[@]}"; do
	[[ ${ktiers[i]} == *wide-* ]] && kernel_boots_wide "${configs[i]}" || continue
	wide_qemu=$("$HARNESS/fetch-qemu.sh" "$build") || rc=$?
	((rc == 0 || rc == 3)) || die "fetch-qemu.sh failed (see above)"
	break
done
# The baseline's stock kernels, built last: they pop the series off the
# tree that the builds above share.
local -a stock_map=()
if ((baseline)); then
	for i in "${!labels[@]}"; do
		kdir=$("$HARNESS/build-kernel.sh" --stock "$build" "$tree" "${kbuilds[i]}")
		stock_map+=("${labels[i]}=$kdir/vmlinux")
	done
fi
local -a probe_opt=()
((list == 0)) || probe_opt=(--no-probe)
if [[ $accel == auto ]]; then
	accel=$("$HARNESS/accel.sh" "${probe_opt[@]}" \
		"$build" "${kernels[0]}" "${configs[0]}" "$initrd")
fi

# The plan: every kernel's jobs in one list.
plan=$(mktemp)
runner=""
# A signal stops the runner, which stops every guest it started.
trap 'rm -f "$plan"' EXIT
trap '[[ -z $runner ]] || { kill -TERM "$runner"; wait "$runner"; }; exit 130' INT TERM HUP
for i in "${!kernels[@]}"; do
	plan_options "${ktiers[i]}"
	"$HARNESS/plan.sh" --kernel "${kernels[i]}" --config "${configs[i]}" \
		--initrd "$initrd" --label "${labels[i]}" --accel "$accel" --series "$series" \
		"${PLAN_OPTS[@]}" --wide-qemu "$wide_qemu" >>"$plan"
done
if ((list)); then
	cat "$plan"
	return 0
fi

# A fresh results folder: nothing from an earlier or killed run stays.
mkdir -p "$out"
out=$(cd "$out" && pwd)
clean_results "$out"
# DIR/plan is the whole list and DIR/kernels what was booted (the build
# id of a harness kernel, else the file's sha256): merge-results.sh
# checks that shards come from one plan of the same kernels.
cp "$plan" "$out/plan"
for i in "${!kernels[@]}"; do
	echo "${labels[i]} $(kernel_id "${kernels[i]}")"
done >"$out/kernels"
if [[ -n $shard ]]; then
	echo "$shard" >"$out/shard"
	"$HARNESS/shard.sh" "$shard" "$plan" >"$out/jobs"
else
	cp "$plan" "$out/jobs"
fi
info "booting $(grep -vc $'\tskip=' "$out/jobs") guests (${labels[*]}, $accel, $jobs at a time); results in $out"
"$HARNESS/run-jobs.sh" --jobs "$jobs" "$out" &
runner=$!
wait "$runner" || die "run-jobs.sh failed on $out"
runner=""

local summary
summary=$("$HARNESS/report.sh" "$out" | tail -n 1) || true
[[ $summary =~ $SUMMARY_RE ]] || die "report.sh failed on $out"
info "wrote $out/results.ktap, results.csv, results.xml and checks.csv"
"$HARNESS/plot.sh" "$out" >/dev/null || info "warning: no plot (see above)"
"$HARNESS/budget.sh" "$out" || info "warning: no PID budget (see above)"
if ((baseline)); then
	"$HARNESS/run-baseline.sh" --jobs "$jobs" "$out" "${stock_map[@]}" &
	runner=$!
	wait "$runner" || die "run-baseline.sh failed on $out"
	runner=""
fi
echo "$summary"
[[ $summary =~ $SUMMARY_RE ]] && ((BASH_REMATCH[2] == 0))
}

main "$@"
