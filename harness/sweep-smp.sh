#!/bin/bash
# sweep-smp.sh - the harness's entry point: build what is missing, boot a
# guest for each CPU count, and check /proc/sys/kernel/pid_max in each.
#
#   build-kernel.sh     tree + series + config -> vmlinux and .config
#   build-initramfs.sh  busybox-static + guest-init.sh -> initramfs.cpio
#   boot-guest.sh       one QEMU boot -> console log
#   parse-console.sh    console log -> record; lib.sh judges it
#   report.sh           records -> results.ktap, results.csv
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

Two tiers, set on the QEMU command line only:
  hotplug  -smp 1,maxcpus=N: N possible CPUs, one online (fast)
  online   -smp N: all N CPUs online

Options:
  --cpus LIST      hotplug tier CPU counts (default: all = 1-255);
                   LIST is like 1,2,32-34,255; "" skips the tier
  --online LIST    online tier CPU counts
                   (default: 1,2,32,33,64,128,255); "" skips the tier
  --jobs N         guests booted at once (default: 2)
  --kernel FILE    boot this vmlinux instead of building one; the
                   expected values come from FILE's directory's .config
  --config FILE    the .config of --kernel FILE
  --tree T         kernel tree to build: 6.1 (default) or 6.12
  --variant V      config variant to build: full (default), small
                   (CONFIG_BASE_SMALL), or all (both, in DIR/full and
                   DIR/small, side by side in DIR/variants.csv)
  --accel A        auto (default: KVM only if a probe boot passes),
                   tcg or kvm
  --build-dir DIR  where the tree and builds live (default: build/)
  --out DIR        where results go (default: results/)
  -h, --help       this text

Writes DIR/results.ktap, DIR/results.csv and DIR/boots/*.log, prints a
line per boot, ends with "N passed, N failed", and exits non-zero when
anything failed.
EOF
}

cpus_list=all
online_list=1,2,32,33,64,128,255
jobs=2
kernel=""
config=""
tree=6.1
variant=full
accel=auto
build="$REPO/build"
out="$REPO/results"

need_arg() {
	(($# >= 2)) || die "option $1 needs a value (see --help)"
}
while (($#)); do
	case $1 in
	--cpus) need_arg "$@"; cpus_list=$2; shift ;;
	--online) need_arg "$@"; online_list=$2; shift ;;
	--jobs) need_arg "$@"; jobs=$2; shift ;;
	--kernel) need_arg "$@"; kernel=$2; shift ;;
	--config) need_arg "$@"; config=$2; shift ;;
	--tree) need_arg "$@"; tree=$2; shift ;;
	--variant) need_arg "$@"; variant=$2; shift ;;
	--accel) need_arg "$@"; accel=$2; shift ;;
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
[[ -n $hotplug || -n $online ]] || die "--cpus and --online are both empty: nothing to boot"

"$HARNESS/deps.sh" build

# --variant all: one sweep per variant, in DIR/full and DIR/small, and a
# side-by-side table of the two in DIR/variants.csv.
if [[ $variant == all ]]; then
	[[ -z $kernel ]] || die "--variant all builds its own kernels; drop --kernel"
	mkdir -p "$out"
	rm -f "$out/variants.csv"
	passed=0 failed=0
	for v in full small; do
		last=$("$0" --cpus "$cpus_list" --online "$online_list" --jobs "$jobs" \
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

# KVM is used only when a probe boot on it gets to the final marker.
if [[ $accel == auto ]]; then
	accel=tcg
	if [[ -r /dev/kvm && -w /dev/kvm ]]; then
		probe="$out/boots/kvm-probe.log"
		"$HARNESS/boot-guest.sh" "$kernel" "$initrd" 1 1 "$probe" 20 kvm &
		running[$!]=probe
		wait "$!" || true
		unset 'running[$!]'
		if "$HARNESS/parse-console.sh" "$probe" | grep -q ' end=1 '; then
			accel=kvm
		fi
	fi
	info "accelerator: $accel (KVM probe boot: $([[ $accel == kvm ]] && echo passed || echo 'failed or no /dev/kvm'))"
fi

# The job list: NAME CPUS ONLINE EXPECTED EXPECTED_MIN, in boot order.
for n in $hotplug; do
	read -r e emin _ < <(expected_pid_max "$n" "$small" "$is64")
	printf '%s-hotplug-%03d %d 1 %s %s\n' "$label" "$n" "$n" "$e" "$emin"
done >"$out/jobs"
for n in $online; do
	read -r e emin _ < <(expected_pid_max "$n" "$small" "$is64")
	printf '%s-online-%03d %d %d %s %s\n' "$label" "$n" "$n" "$n" "$e" "$emin"
done >>"$out/jobs"
total=$(wc -l <"$out/jobs")
info "booting $total guests ($label, $accel, $jobs at a time); results in $out"

# finish PID: judge the boot PID ran and print its line.
declare -gA job_of=()
done_count=0
finish() {
	local pid=$1 name cpus want record verdict reason
	read -r name cpus want <<<"${job_of[$pid]}"
	unset 'running[$pid]' 'job_of[$pid]'
	record=$("$HARNESS/parse-console.sh" "$out/boots/$name.log")
	read -r verdict reason < <(judge_boot "$record" "$cpus" "$want" "$small" "$is64" "$kunit")
	printf '%s %s %s\n%s\n%s %s\n' "$name" "$cpus" "$want" "$record" \
		"$verdict" "$reason" >"$out/boots/$name.rec"
	done_count=$((done_count + 1))
	printf '[%d/%d] %-24s %-7s pid_max=%s %s\n' "$done_count" "$total" \
		"$name" "$verdict" "$(sed -n 's/.* pid_max=\([^ ]*\).*/\1/p' <<<"$record")" \
		"$([[ $verdict == pass ]] || echo "($reason)")"
}

while read -r name cpus want _; do
	while ((${#running[@]} >= jobs)); do
		wait -n -p pid "${!running[@]}" || true
		finish "$pid"
	done
	# Generous: a one-CPU boot takes 1-3 s, 255 online CPUs under 60 s.
	timeout=$((60 + want))
	"$HARNESS/boot-guest.sh" "$kernel" "$initrd" "$cpus" "$want" \
		"$out/boots/$name.log" "$timeout" "$accel" &
	running[$!]=1
	job_of[$!]="$name $cpus $want"
done <"$out/jobs"
while ((${#running[@]} > 0)); do
	wait -n -p pid "${!running[@]}" || true
	finish "$pid"
done

read -r passed failed < <("$HARNESS/report.sh" "$out")
info "wrote $out/results.ktap and $out/results.csv"
echo "$passed passed, $failed failed"
((failed == 0))
}

main "$@"
