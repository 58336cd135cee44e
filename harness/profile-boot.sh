#!/bin/bash
# profile-boot.sh - where a guest's boot spends its time, two ways: boot
# one job as boot-guest.sh does, with printk.time=1 added, and print
#  1. the longest gaps between the kernel's own timestamped console
#     lines (the step after the line named took that long), and
#  2. CPU 0's instruction pointer sampled through the QEMU monitor at a
#     fixed interval, each sample named by its function in the job's
#     vmlinux (nm).
# Under TCG the monitor sees the instruction pointer as of the last exit
# from translated code: a tight loop of chained blocks is charged to the
# last helper or TLB flush before it (trust the gaps for how long, the
# samples for where to look). The host's perf sees only QEMU.
#
# Usage: harness/profile-boot.sh [--every S] JOB LOG
#   JOB, LOG   as boot-guest.sh (a line of a sweep's DIR/jobs, such as
#              grep possible-8192 DIR/jobs)
#   --every S  seconds between samples (default 0.25; 0: no sampled boot)
# Boots twice: once unsampled (LOG.gaps), once sampled (LOG).
# Writes LOG.samples (seconds since start, RIP, function) and prints
# the 12 longest gaps, the functions by share of the samples, then each
# tenth of the boot's samples by its commonest function. A sample taken
# in 32-bit code (firmware, the PVH entry) is "?".
set -euo pipefail

main() {
HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/profile-boot.sh [--every S] JOB LOG
Boot JOB (a job line) as boot-guest.sh does, sampling the guest's
instruction pointer through the QEMU monitor every S seconds (default
0.25); print the kernel functions by share of the samples."
local every=0.25
parse_options "$USAGE" "every:" "$@"
set -- "${OPTS[@]}"
while [[ $1 != -- ]]; do
	case $1 in
	--every)
		every=$2
		shift
		;;
	esac
	shift
done
shift
(($# == 2)) || usage_error "expects JOB and LOG"
[[ $every =~ ^[0-9]*\.?[0-9]+$ ]] || usage_error "--every takes seconds, not '$every'"
local job=$1 log=$2 kernel qemu
kernel=$(job_field "$job" kernel)
[[ -r $kernel ]] || die "kernel $kernel is not readable"
command -v nm >/dev/null || die "nm not found: apt-get install binutils"
qemu=$(job_field "$job" qemu)
[[ $qemu == none || -z $qemu ]] && qemu=${QEMU:-qemu-system-x86_64}
qemu=$(command -v "$qemu") || die "$qemu not found: apt-get install qemu-system-x86"

profile "$job" "$log" "$kernel" "$qemu" "$every"
}

# profile JOB LOG KERNEL QEMU EVERY: the two boots of main's JOB, the
# unsampled one's gaps, and the sampled one's functions; its status.
profile() {
local job=$1 log=$2 kernel=$3 qemu=$4 every=$5 port
# The job's QEMU, behind a wrapper that adds the monitor on a local
# TCP port (bash reaches it through /dev/tcp; no socat needed).
# (tmp is global: the EXIT trap runs after main has returned)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))
printf '#!/bin/sh\nexec "%s" -monitor tcp:127.0.0.1:%s,server=on,wait=off "$@"\n' \
	"$qemu" "$port" >"$tmp/qemu"
chmod +x "$tmp/qemu"
# Boot 1, unsampled: the kernel's own timestamps (a sampled boot can
# fail the early TSC calibration, and its timestamps stay 0 until late).
local append
append=$(job_field "$job" append)
[[ $append != none ]] || append=""
"$HARNESS/boot-guest.sh" "$job"$'\t'"append=${append:+$append }printk.time=1" "$log.gaps" ||
	die "the unsampled boot failed to run (see $log.gaps.qemu)"
echo "unsampled boot: $(cat "$log.gaps.meta")"
gaps "$log.gaps"
! [[ $every =~ ^0*\.?0*$ ]] || return 0
# Boot 2, sampled.
"$HARNESS/boot-guest.sh" "$job"$'\t'"qemu=$tmp/qemu" "$log" &
local boot=$! start=$EPOCHREALTIME
sample "$port" "$every" "$boot" "$start" >"$tmp/rips"
local rc=0
wait "$boot" || rc=$?
resolve "$kernel" "$tmp/rips" >"$log.samples"
summary "$log.samples"
echo "sampled boot: $(cat "$log.meta" 2>/dev/null)"
return "$rc"
}

# sample PORT EVERY PID START: "seconds rip" lines of the monitor's
# "info registers" until PID ends or the monitor closes.
sample() {
	local port=$1 every=$2 pid=$3 start=$4 fd line i
	for ((i = 0; i < 100; i++)); do
		{ exec {fd}<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
	((i < 100)) || die "no QEMU monitor on port $port"
	while kill -0 "$pid" 2>/dev/null; do
		{ printf 'info registers\n' >&"$fd"; } 2>/dev/null || break
		while IFS= read -r -t 5 line <&"$fd"; do
			if [[ $line =~ [RE]IP=([0-9a-f]{8,16}) ]]; then
				local us=$((${EPOCHREALTIME//[.,]/} - ${start//[.,]/}))
				local rip=0000000000000000${BASH_REMATCH[1]}
				printf '%d.%02d %s\n' $((us / 1000000)) $((us % 1000000 / 10000)) "${rip: -16}"
				break
			fi
		done
		sleep "$every"
	done
	exec {fd}>&-
}

# resolve VMLINUX RIPS: each sample with the function holding its RIP.
resolve() {
	{
		nm -n "$1" | awk '$2 ~ /^[tTwW]$/ { print "S", $1, $3 }'
		awk '{ print "R", $2, $1 }' "$2"
	} | sort -k2,2 -k1,1r | awk '
		$1 == "S" { fn = $3; next }
		{ print $3, $2, (fn == "" ? "?" : fn) }' | sort -n
}

# gaps LOG: the longest steps between timestamped console lines.
gaps() {
	echo "longest steps (seconds, then the console line they follow):"
	tr -d '\r' <"$1" | awk -F'[][]' '/^\[ *[0-9]+\.[0-9]+\]/ {
		t = $2 + 0; if (NR > 1) printf "%8.3f  %s\n", t - p, substr(prev, 1, 100)
		p = t; prev = $0 }' | sort -rn | head -n 12
}

# summary SAMPLES: functions by share, then the boot by tenths.
summary() {
	local n
	n=$(wc -l <"$1")
	((n > 0)) || die "no samples: the guest ended before the monitor answered"
	echo "$n samples"
	awk '{ c[$3]++ } END { for (f in c) printf "%5.1f%% %5d %s\n", 100 * c[f] / NR, c[f], f }' "$1" |
		sort -rn | head -n 25
	echo "by tenth of the samples (from s, commonest function, its share):"
	awk -v n="$n" '{ t = int(10 * (NR - 1) / n); if (!(t in from)) from[t] = $1; c[t, $3]++ }
		END { for (t = 0; t < 10; t++) { best = ""; for (k in c) { split(k, p, SUBSEP)
			if (p[1] == t && (best == "" || c[k] > c[t, best])) best = p[2] }
			if (best != "") printf "%7.2fs %-40s %d%%\n", from[t], best, 100 * c[t, best] * 10 / n } }' "$1"
}

main "$@"
