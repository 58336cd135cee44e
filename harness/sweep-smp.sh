#!/bin/bash
# sweep-smp.sh - the harness's entry point: build what is missing, boot a
# guest for each CPU count, and check /proc/sys/kernel/pid_max in each.
#
#   build-kernel.sh     tree + series + config -> vmlinux and .config
#   build-initramfs.sh  busybox-static + guest-init.sh -> initramfs.cpio
#   boot-guest.sh       one QEMU boot -> console log
#   parse-console.sh    console log -> record; lib.sh judges it
#   report.sh           records -> results.ktap, results.csv, results.xml
#   plot.sh             results.csv -> pid_max.svg, pid_max.png
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HARNESS")
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

usage() {
	cat <<EOF
Usage: harness/sweep-smp.sh [OPTION]...
Boot QEMU guests with 1..255 possible CPUs and check that pid_max is
max(32768, 1024 * nr_cpu_ids) clamped to PID_MAX_LIMIT in each.

Two tiers, set on the QEMU command line only (the kernel command line
carries no pid_max setting), and six scenario boots:
  hotplug  -smp 1,maxcpus=N: N possible CPUs, one online (fast)
  online   -smp N: all N CPUs online

Options:
  --cpus LIST      hotplug tier CPU counts (default: all = 1-255);
                   LIST is like 1,2,32-34,255; "" skips the tier
  --online LIST    online tier CPU counts
                   (default: 1,2,32,33,64,128,255); "" skips the tier
  --jobs N         guests booted at once (default: 2); a guest with 16
                   or more CPUs online always boots alone
  --kernel FILE    boot this vmlinux instead of building one; the
                   expected values come from FILE's directory's .config
  --config FILE    the .config of --kernel FILE
  --tree T         kernel tree to build: 6.1 (default) or 6.12
  --variant V      config variant to build: full (default), small
                   (CONFIG_BASE_SMALL), or all (both, in DIR/full and
                   DIR/small, side by side in DIR/variants.csv)
  --scenarios Y/N  yes (default): also boot the six scenario guests: the
                   extended checks (bad writes, PIDs above 32768,
                   exhaustion), sysctl.kernel.pid_max= in and out of
                   range, nr_cpus=, possible_cpus= and maxcpus=
  --accel A        auto (default: KVM only if a probe boot passes),
                   tcg or kvm
  --build-dir DIR  where the tree and builds live (default: build/)
  --out DIR        where results go (default: results/)
  -h, --help       this text

Writes DIR/results.ktap, DIR/results.csv, DIR/results.xml (JUnit),
DIR/pid_max.svg and .png (gnuplot) and DIR/boots/*.log, prints a line
per boot (and a progress line on a terminal), ends with
"N passed, N failed", and exits non-zero when anything failed.
EOF
}

cpus_list=all
cpus_given=0
online_list=1,2,32,33,64,128,255
jobs=2
kernel=""
config=""
tree=6.1
variant=full
accel=auto
scenarios=yes
build="$REPO/build"
out="$REPO/results"

need_arg() {
	(($# >= 2)) || die "option $1 needs a value (see --help)"
}
while (($#)); do
	case $1 in
	--cpus) need_arg "$@"; cpus_list=$2; cpus_given=1; shift ;;
	--online) need_arg "$@"; online_list=$2; shift ;;
	--jobs) need_arg "$@"; jobs=$2; shift ;;
	--kernel) need_arg "$@"; kernel=$2; shift ;;
	--config) need_arg "$@"; config=$2; shift ;;
	--tree) need_arg "$@"; tree=$2; shift ;;
	--variant) need_arg "$@"; variant=$2; shift ;;
	--accel) need_arg "$@"; accel=$2; shift ;;
	--scenarios) need_arg "$@"; scenarios=$2; shift ;;
	--build-dir) need_arg "$@"; build=$2; shift ;;
	--out) need_arg "$@"; out=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done

# Check every input before anything is built or booted.
hotplug=$(parse_cpu_list "$cpus_list") || die "--cpus: see above"
online=$(parse_cpu_list "$online_list") || die "--online: see above"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, not '$jobs'"
case $variant in
full | small | all) ;;
*) die "--variant wants full, small or all, not '$variant'" ;;
esac
case $accel in
auto | tcg | kvm) ;;
*) die "--accel wants auto, tcg or kvm, not '$accel'" ;;
esac
case $scenarios in
yes | no) ;;
*) die "--scenarios wants yes or no, not '$scenarios'" ;;
esac
[[ -n $hotplug || -n $online || $scenarios == yes ]] ||
	die "--cpus and --online are both empty and --scenarios is no: nothing to boot"

"$HARNESS/deps.sh" build
command -v "${QEMU:-qemu-system-x86_64}" >/dev/null ||
	die "${QEMU:-qemu-system-x86_64} not found: apt-get install qemu-system-x86"

# --variant all: one sweep per variant, in DIR/full and DIR/small, and a
# side-by-side table of the two in DIR/variants.csv.
if [[ $variant == all ]]; then
	[[ -z $kernel ]] || die "--variant all builds its own kernels; drop --kernel"
	mkdir -p "$out"
	rm -f "$out/variants.csv"
	passed=0 failed=0
	for v in full small; do
		last=$("$0" --cpus "$cpus_list" --online "$online_list" --jobs "$jobs" \
			--scenarios "$scenarios" \
			--tree "$tree" --variant "$v" --accel "$accel" \
			--build-dir "$build" --out "$out/$v" | tee /dev/stderr | tail -n 1) || true
		[[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] ||
			die "the $v sweep ended without its summary line"
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
	done
	{
		echo "cpus,online,full_pid_max,full_expected,full_verdict,small_pid_max,small_expected,small_verdict"
		paste -d, <(tail -n +2 "$out/full/results.csv" | cut -d, -f1-4,8) \
			<(tail -n +2 "$out/small/results.csv" | cut -d, -f3,4,8)
	} >"$out/variants.csv.tmp"
	mv "$out/variants.csv.tmp" "$out/variants.csv"
	info "wrote $out/variants.csv (full and small side by side)"
	"$HARNESS/plot.sh" "$out" >/dev/null || info "warning: no plot (see above)"
	echo "$passed passed, $failed failed"
	((failed == 0))
	exit
fi

mkdir -p "$build"
build=$(cd "$build" && pwd)
if [[ -n $kernel ]]; then
	[[ -r $kernel ]] || die "--kernel $kernel is not readable"
	[[ -n $config ]] || config="$(dirname "$kernel")/.config"
	[[ -r $config ]] || die "no .config for $kernel: put it beside the kernel or pass --config FILE"
	label="$(basename "$kernel")"
else
	[[ -z $config ]] || die "--config goes with --kernel"
	kdir=$("$HARNESS/build-kernel.sh" "$build" "$tree" "$variant")
	kernel="$kdir/vmlinux"
	config="$kdir/.config"
	label="$tree-$variant"
fi
params=$(kconfig_pid_params "$config") || die "cannot use $config"
read -r small is64 kunit <<<"$params"
initrd=$("$HARNESS/build-initramfs.sh" "$build")

# A fresh results folder: nothing from an earlier or killed run stays.
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/boots" "$out/jobs" "$out/results.ktap" "$out/results.csv"
mkdir -p "$out/boots"

# Every guest started is killed when the sweep ends, however it ends.
declare -gA running=()
stop_guests() {
	local pid
	for pid in "${!running[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
trap 'stop_guests; exit 130' INT TERM HUP
trap stop_guests EXIT

# KVM is used only when a probe boot on it gets to the final marker. The
# verdict is kept in the build folder for the rest of this host boot, so
# the sweeps of one CI run (variants, trees) probe once, not each.
if [[ $accel == auto ]]; then
	accel=tcg
	host_boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	cache="$build/kvm-probe"
	if [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		how="no usable /dev/kvm"
	elif read -r cached_boot verdict <"$cache" 2>/dev/null &&
		[[ $cached_boot == "$host_boot" ]]; then
		accel=$verdict
		how="KVM probe verdict cached for this host boot in $cache"
	else
		probe="$out/boots/kvm-probe.log"
		"$HARNESS/boot-guest.sh" "$kernel" "$initrd" 1 "$probe" 20 kvm &
		running[$!]=probe
		wait "$!" || true
		unset 'running[$!]'
		if [[ $(record_field end "$("$HARNESS/parse-console.sh" "$probe")") == 1 ]]; then
			accel=kvm
		fi
		echo "$host_boot $accel" >"$cache"
		how="KVM probe boot: $([[ $accel == kvm ]] && echo passed || echo failed)"
	fi
	info "accelerator: $accel ($how)"
fi

# Under TCG a kernel since 6.3 sees only QEMU's present CPUs (see
# tcg_counts_hotplug_cpus in lib.sh): no hotplug tier, and the scenario
# boots bring their CPUs online instead.
version=$(kconfig_version "$config")
slots=yes
if [[ $accel == tcg ]] && ! tcg_counts_hotplug_cpus "$version"; then
	slots=no
	why="Linux ${version:-?} under TCG ignores QEMU's hotpluggable CPUs (-smp 1,maxcpus=N gives 1 possible CPU)"
	((cpus_given == 0)) || [[ -z $hotplug ]] ||
		die "$why: use --cpus '' and --online LIST for this kernel"
	[[ -z $hotplug ]] || info "$why: skipping the hotplug tier"
	hotplug=""
fi

# The job list, in boot order, a job a line:
#   NAME CPUS ONLINE SMP EXPECTED EXPECTED_MIN APPEND SYSCTL_ERR
# CPUS and ONLINE are what the guest must report, SMP is QEMU's -smp,
# EXPECTED the pid_max it must show (the formula's unless an override
# applies), APPEND extra kernel parameters ("-": none) and SYSCTL_ERR 1
# when the kernel must reject a sysctl.kernel.pid_max= setting.
: >"$out/jobs"
add_job() {
	local name=$1 cpus=$2 online=$3 smp=$4 append=${5:--} want=${6:-} err=${7:-0}
	expected_vars "$cpus" "$small" "$is64"
	echo "$label-$name $cpus $online $smp ${want:-$EXP_MAX} $EXP_MIN $append $err" >>"$out/jobs"
}
for n in $hotplug; do
	add_job "$(printf 'hotplug-%03d' "$n")" "$n" 1 "1,maxcpus=$n"
done
for n in $online; do
	add_job "$(printf 'online-%03d' "$n")" "$n" "$n" "$n"
done
if [[ $scenarios == yes ]]; then
	# 64 possible CPUs, one online; all 64 online where slots=no.
	s64=1,maxcpus=64 on=1 on40=1
	[[ $slots == yes ]] || s64=64 on=64 on40=40
	# A 64-CPU guest (pid_max above 32768 when full-sized) runs the slow
	# checks: bad writes, PIDs above 32768 and the wrap, exhaustion.
	add_job extended-064 64 "$on" "$s64" pidmax_harness=extended
	# The command line override still works on top of the heuristic
	# (30000 is in range for both variants) and is refused out of range.
	add_job sysctl-override 64 "$on" "$s64" sysctl.kernel.pid_max=30000 30000
	add_job sysctl-too-low 64 "$on" "$s64" sysctl.kernel.pid_max=100 "" 1
	# nr_cpus= and possible_cpus= lower nr_cpu_ids, so pid_max follows;
	# maxcpus= only limits the CPUs brought up, so pid_max does not.
	add_job nr_cpus-40 40 "$on40" "$s64" nr_cpus=40
	add_job possible_cpus-40 40 "$on40" "$s64" possible_cpus=40
	add_job maxcpus-2 40 2 40 maxcpus=2
fi
total=$(wc -l <"$out/jobs")
info "booting $total guests ($label, $accel, $jobs at a time); results in $out"

# finish PID: judge the boot PID ran and print its line.
declare -gA job_of=()
done_count=0 fail_count=0
start_time=$(date +%s)
# A progress line on a terminal only: done/total, failures, time left.
progress=0
[[ -t 2 ]] && progress=1
finish() {
	local pid=$1 name cpus online want err record verdict reason
	read -r name cpus online want err <<<"${job_of[$pid]}"
	unset 'running[$pid]' 'job_of[$pid]'
	record=$("$HARNESS/parse-console.sh" "$out/boots/$name.log")
	read -r verdict reason < <(judge_boot "$record" "$cpus" "$online" \
		"$small" "$is64" "$kunit" "$want" "$err")
	printf '%s %s %s\n%s\n%s %s\n' "$name" "$cpus" "$online" "$record" \
		"$verdict" "$reason" >"$out/boots/$name.rec"
	done_count=$((done_count + 1))
	[[ $verdict == pass ]] || fail_count=$((fail_count + 1))
	((progress)) && printf '\r\033[K' >&2
	printf '[%d/%d] %-28s %-7s pid_max=%s %s\n' "$done_count" "$total" \
		"$name" "$verdict" "$(record_field pid_max "$record")" \
		"$([[ $verdict == pass ]] || echo "($reason)")"
	if ((progress)); then
		local spent=$(($(date +%s) - start_time))
		printf '%d/%d done, %d failed, about %ds left' "$done_count" "$total" \
			"$fail_count" $((spent * (total - done_count) / done_count)) >&2
	fi
}

# A guest with many CPUs online keeps every host core busy on its own:
# it boots alone, never beside another guest (two at once starved their
# RCU kthreads into stall warnings).
heavy=0
while read -r name cpus online smp want _ append err; do
	limit=$jobs
	if ((${smp%%,*} >= 16)); then
		limit=1
	elif ((heavy)); then
		limit=1
	fi
	while ((${#running[@]} >= limit)); do
		wait -n -p pid "${!running[@]}" || true
		finish "$pid"
	done
	heavy=0
	((${smp%%,*} >= 16)) && heavy=1
	# Generous: a one-CPU boot takes 1-3 s, 255 online CPUs under 60 s.
	timeout=$((60 + ${smp%%,*}))
	[[ $append == - ]] && append=""
	GUEST_APPEND=$append "$HARNESS/boot-guest.sh" "$kernel" "$initrd" \
		"$smp" "$out/boots/$name.log" "$timeout" "$accel" &
	running[$!]=1
	job_of[$!]="$name $cpus $online $want $err"
done <"$out/jobs"
while ((${#running[@]} > 0)); do
	wait -n -p pid "${!running[@]}" || true
	finish "$pid"
done

((progress)) && printf '\r\033[K' >&2
read -r passed failed < <("$HARNESS/report.sh" "$out")
info "wrote $out/results.ktap, results.csv and results.xml"
"$HARNESS/plot.sh" "$out" >/dev/null || info "warning: no plot (see above)"
echo "$passed passed, $failed failed"
((failed == 0))
}

main "$@"
