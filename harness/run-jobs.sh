#!/bin/bash
# run-jobs.sh - the runner: boot every job of a results folder's job
# list into DIR/boots/NAME.log and NAME.log.meta, and parse and judge
# each boot once as it ends (python3 -m pidmax finish): its record,
# nested KTAP and verdict stay beside the log, where report.sh reads
# them to write the folder's results.
#
# A guest with 16 or more CPUs online keeps every host core busy on its
# own, so it boots alone (two at once starved their RCU kthreads into
# stall warnings); the others boot up to --jobs at a time. The progress
# line's time left weighs the boots left by lib.sh's job_weight. Every guest
# started is killed when the runner ends, however it ends.
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/run-jobs.sh [--jobs N] DIR
Boot the jobs of DIR/jobs (plan.sh), --jobs N at a time (default 2),
into DIR/boots. Prints a line per boot (and a progress line on a
terminal), and the last lines of a failed boot's console
(\$PIDMAX_FAIL_TAIL, default 15; 0 for none). Jobs with a skip field
boot nothing."

local jobs=2
parse_options "$USAGE" "jobs:" "$@"
set -- "${OPTS[@]}"
while (($#)); do
	case $1 in
	--jobs) jobs=$2; shift ;;
	--) shift; break ;;
	esac
	shift
done
(($# == 1)) || usage_error "expects DIR"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs wants a positive number, not '$jobs'"
local out=$1
[[ -r $out/jobs ]] || die "$out/jobs is missing: plan first (harness/plan.sh)"
mkdir -p "$out/boots"

declare -gA running=() ended=()
stop_guests() {
	local pid
	for pid in "${!running[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
trap 'stop_guests; exit 130' INT TERM HUP
trap stop_guests EXIT

# The jobs to boot, read once into arrays (no subshell a job: on this
# kind of host each fork costs a few milliseconds of a busy core).
local -a lines=() todo=() names=() onlines=() weights=()
local line i total=0 weight_left=0 weight_done=0
local -A f=()
mapfile -t lines <"$out/jobs"
for line in "${lines[@]}"; do
	kv_load f "$line"
	[[ ${f[skip]-none} == none ]] || continue
	[[ ${f[online]-} =~ ^[0-9]+$ ]] || die "job ${f[name]-}: bad online field"
	todo[total]=$line names[total]=${f[name]-none} onlines[total]=${f[online]}
	job_weight "$line" "weights[$total]"
	weight_left=$((weight_left + weights[total]))
	total=$((total + 1))
done
local done_count=0 fail_count=0 start_time progress=0
start_time=$EPOCHSECONDS
[[ -t 2 ]] && progress=1
# console_tail LOG: the end of a failed boot's console, so that a CI log
# shows how the guest ended (the whole log stays in DIR/boots).
console_tail() {
	local n=${PIDMAX_FAIL_TAIL:-15}
	((n > 0)) || return 0
	echo "    last $n lines of $1:"
	tail -n "$n" "$1" 2>/dev/null | sed 's/^/    | /' || true
}
# running and ended: a guest's pid to its job's index.
# reap: wait for a guest to end; it moves from running to ended.
reap() {
	local pid
	wait -n -p pid "${!running[@]}" || true
	ended[$pid]=${running[$pid]}
	unset 'running[$pid]'
}
# finish_ended: finish every guest that ended (one or two).
finish_ended() {
	local pid
	for pid in "${!ended[@]}"; do
		finish "$pid"
	done
}
# finish PID: parse and judge the boot PID ran, once (its record,
# nested KTAP and verdict stay beside the log for report.sh), and print
# its line.
finish() {
	local i=${ended[$1]} name verdict pid_max failed
	unset 'ended[$1]'
	name=${names[i]}
	read -r verdict pid_max failed < <(PYTHONPATH=$HARNESS python3 -m pidmax \
		finish "${todo[i]}" "$out/boots/$name.log" || echo error) || true
	[[ $verdict != error ]] || die "the judge failed on $name"
	[[ $failed != - ]] || failed=""
	done_count=$((done_count + 1))
	weight_done=$((weight_done + weights[i])) weight_left=$((weight_left - weights[i]))
	[[ $verdict == pass ]] || fail_count=$((fail_count + 1))
	((progress)) && printf '\r\033[K' >&2
	printf '[%d/%d] %-28s %-7s pid_max=%s%s\n' "$done_count" "$total" \
		"$name" "$verdict" "$pid_max" \
		"${failed:+ (failed: $failed)}"
	[[ $verdict == pass ]] || console_tail "$out/boots/$name.log"
	if ((progress)); then
		local spent=$((EPOCHSECONDS - start_time))
		printf '%d/%d done, %d failed, about %ds left' "$done_count" "$total" \
			"$fail_count" $((spent * weight_left / weight_done)) >&2
	fi
}

local heavy=0 limit
for ((i = 0; i < total; i++)); do
	limit=$jobs
	((onlines[i] >= 16 || heavy)) && limit=1
	while ((${#running[@]} >= limit)); do
		reap
	done
	heavy=0
	((onlines[i] >= 16)) && heavy=1
	"$HARNESS/boot-guest.sh" "${todo[i]}" "$out/boots/${names[i]}.log" &
	running[$!]=$i
	# The next guest first, then the host's parsing of those that
	# ended: a free slot never waits for the judge.
	finish_ended
done
while ((${#running[@]} > 0)); do
	reap
	finish_ended
done
((progress)) && printf '\r\033[K' >&2
return 0
}

main "$@"
