#!/bin/bash
# sweep-smp.sh - the harness's entry point: build what is missing, plan
# the boots, run them, report. A thin front over the stages, which each
# work on a results folder (DIR) and can be run alone:
#
#   sweep-options.sh    (sourced) the options: help, reading, checks
#   sweep-kernels.sh    (sourced) which kernels: the table harness/kernels
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
# shellcheck source=harness/sweep-kernels.sh
. "$HARNESS/sweep-kernels.sh"

# A tier's list is "default" until an option names it: then it is the
# architecture's (arch_defaults, once --arch is known).
local cpus_list=default cpus_given=0 online_list=default jobs=2 holes_list=default
local possible_list=default wide_online=default wide_hotplug=default
local kernel="" config="" tree=6.1 variant=full accel=auto scenarios=default arch=x86_64
local build="$REPO/build" out="" list=0 shard="" baseline=0 tier_given="" pick=each kernel_missing=0 kernel_stock=0
local -a only=()
read_options "$@"
# Check every input before anything is built or booted.
arch_row "$arch" || usage_error "--arch wants one of $(arch_names) (harness/arches), not '$arch'"
arch_defaults
check_lists
check_kernel_options
# (the self-tests point PIDMAX_DEPS at true: they need no package)
"${PIDMAX_DEPS:-$HARNESS/deps.sh}" build "$arch"
((list)) || command -v "${QEMU:-$ARCH_QEMU}" >/dev/null ||
	die "${QEMU:-$ARCH_QEMU} not found: apt-get install ${ARCH_PACKAGES%%,*} (harness/deps.sh build $arch)"

mkdir -p "$build"
build=$(cd "$build" && pwd)
# First: a kernel may carry it inside.
local initrd
initrd=$("$HARNESS/build-initramfs.sh" --arch "$arch" "$build")
# The kernels, each with the tiers it boots; QEMU 10 if a kernel boots
# the wide tiers; the baseline's stock kernels.
local -a kernels=() configs=() labels=() kbuilds=() ktiers=() stock_map=() unbuilt=()
local series=yes wide_qemu="" selftests="" unchanged="" i
sweep_kernels
wide_qemu=$(wide_qemu_for)
selftests=$(selftests_for)
unchanged=$(unchanged_selftests_for)
((baseline == 0)) || stock_kernels
local -a probe_opt=()
((list == 0)) || probe_opt=(--no-probe)
# Nothing built (the tree's suite unreachable): nothing to probe with;
# KVM runs the host's own architecture only.
((${#kernels[@]})) && [[ $arch == "$(uname -m)" ]] || accel=tcg
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
		"${PLAN_OPTS[@]}" --wide-qemu "$wide_qemu" --selftests "$selftests" \
		--selftests-unchanged "$unchanged" >>"$plan"
done
unbuilt_jobs >>"$plan"
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
local booting_from=$SECONDS
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
# The whole run's time, builds included (bash's SECONDS: since start).
info "done in $((SECONDS / 60)) min $((SECONDS % 60)) s: ${booting_from} s building and planning, $((SECONDS - booting_from)) s booting and reporting"
echo "$summary"
[[ $summary =~ $SUMMARY_RE ]] && ((BASH_REMATCH[2] == 0))
}

main "$@"
