#!/bin/bash
# parse-console.sh - turn one guest's console log into a one-line record.
#
# Usage: harness/parse-console.sh LOG
# Reads LOG (and LOG.meta from boot-guest.sh, when present) and prints
# one record: TAB-separated KEY=VALUE fields (lib.sh's format) with the
# markers, the KTAP counts and the
# names of failed guest checks, the CPU counts and pid_max values the
# guest reported, its PID budget (the last PID allocated when init
# started, tasks and kernel threads then), the CPUs the kernel says it
# brought up, the kernel's boot line, any panic or oops seen on the
# console, and the results of the KUnit suite "pid_max" run at boot.
# It only reads; judge.sh judges a record against its job.
#
# With --write it also keeps, beside the log, LOG.record (the record
# after a parser=ID field: lib.sh's boot_record reads it instead of
# parsing again) and LOG.nested: the KTAP that report.sh nests under the
# boot's checks, each line behind its section's name and a TAB: console
# (the kernel's noteworthy lines, quoted under a failed boot),
# guest_checks (the guest's own KTAP) and kunit (the suite's cases).
# The one pass reads every pattern the host looks for on a console.
set -euo pipefail

# (Run once a boot: no dirname, head or tr of its own.)
HARNESS=${BASH_SOURCE[0]%/*}
[[ $HARNESS != "${BASH_SOURCE[0]}" ]] || HARNESS=.
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/parse-console.sh [--write] LOG
Print the record of one guest's console LOG (and LOG.meta).
  --write  also write LOG.record and LOG.nested beside it"
write=0
parse_options "$USAGE" "write" "$@"
set -- "${OPTS[@]}"
[[ $1 != --write ]] || { write=1; shift; }
shift
(($# == 1)) || usage_error "expects one LOG"
log=$1
[[ -r $log ]] || die "$log is not readable"

meta="qemu_exit=none timed_out=0 seconds=0"
[[ ! -r $log.meta ]] || read -r meta <"$log.meta" || true
meta=${meta// /$'\t'}
nested=/dev/null
((write == 0)) || nested="$log.nested.tmp"

record=$(awk -v meta="$meta" -v nested="$nested" '
# count_cpus("0-3,8") = 5: the size of a kernel CPU list.
function count_cpus(list,    n, parts, i, r) {
	n = 0
	split(list, parts, ",")
	for (i in parts) {
		if (split(parts[i], r, "-") == 2)
			n += r[2] - r[1] + 1
		else if (parts[i] ~ /^[0-9]+$/)
			n++
	}
	return n
}
function num(v) { return v ~ /^[0-9]+$/ ? v : "none" }
# kv_fields(f): the KEY=VALUE words of a "# name: K=V K=V" line into f.
function kv_fields(f,    i, kv) {
	split("", f)
	for (i = 3; i <= NF; i++)
		if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
}

BEGIN {
	begin = end = 0; plan = "none"; oks = notoks = 0; failed = ""
	possible = online = pid_max = pid_max_min = pid_max_max = "none"
	line_default = line_min = "none"
	panic = oops = stall = sysctl_err = 0; panic_msg = "none"; brought_up = "none"
	last_pid = tasks = kthreads = "none"
	ns_child = ns_written = ns_top = ns_next = ns_parent = "none"
	selftests_ok = 0
	kunit = "none"; kplan = "none"; kok = knotok = 0; knames = kfailed = ""
	# What fails a boot when the console shows it, and what is quoted
	# under a failed boot.
	# (arm64 dumps a stack as "Call trace:", x86 as "Call Trace:".)
	BAD = "(^|[] ])(Oops|BUG|WARNING)[: ]|Call [Tt]race:"
	# An RCU CPU stall warning (kernel/rcu/tree_stall.h): under TCG the
	# pace of the emulator on a busy host, which fails a boot all the same.
	STALL = "rcu: INFO: [a-z_]+ (self-detected stall|detected stalls)"
	NOTEWORTHY = "smp: Brought up|Kernel panic|Oops|BUG|WARNING|invalid opcode|Error|failed|stall on|stalls on"
	printf "" > nested
}
# The serial console ends its lines with CR LF; a kernel with
# CONFIG_PRINTK_TIME (or printk.time=1) stamps them.
{ gsub(/\r/, ""); sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
# The KTAP to nest under the boot: the first 12 noteworthy kernel lines,
# the cases of the suite, the results of the guest itself.
{
	if ($0 ~ NOTEWORTHY && $0 !~ /^# / && nc++ < 12)
		print "console\t    # console: " $0 > nested
	if ($0 ~ /^[ \t]+# Subtest: pid_max$/)
		n_suite = 1
	else if (n_suite && $0 ~ /^[ \t]+(1\.\.[0-9]+|ok [0-9]+ |not ok [0-9]+ )/) {
		l = $0
		sub(/^[ \t]+/, "", l)
		print "kunit\t        " l > nested
	} else if (n_suite && $0 ~ /^(not )?ok [0-9]+ pid_max$/)
		n_suite = 0
	else if ($0 ~ /^PIDMAX-HARNESS-BEGIN$/) {
		n_guest = 1
		n_suite = 0
	} else if ($0 ~ /^PIDMAX-HARNESS-END$/)
		n_guest = 0
	else if (n_guest && $0 ~ /^(1\.\.[0-9]+|ok [0-9]+ |not ok [0-9]+ |# )/)
		print "guest_checks\t        " $0 > nested
}
/Kernel panic - not syncing/ {
	panic = 1
	if (panic_msg == "none") {
		panic_msg = substr($0, index($0, "not syncing") + 11)
		sub(/^:? */, "", panic_msg)
		gsub(/\t/, " ", panic_msg)
	}
}
# "smp: Brought up 1 node, 202 CPUs": the CPUs the kernel brought up.
/smp: Brought up [0-9]+ nodes?, [0-9]+ CPUs?/ {
	if (match($0, /, [0-9]+ CPU/))
		brought_up = substr($0, RSTART + 2, RLENGTH - 6)
}
/Failed to set sysctl parameter .kernel\.pid_max=/ { sysctl_err = 1 }
$0 ~ BAD { oops = 1 }
$0 ~ STALL { stall = 1 }
# The KUnit suite of the series, run before init (nested KTAP).
/^[ \t]+# Subtest: pid_max$/ { in_kunit = 1; kunit = "running"; next }
in_kunit && /^[ \t]+1\.\.[0-9]+$/ { sub(/^[ \t]+1\.\./, ""); kplan = $0; next }
in_kunit && /^[ \t]+ok [0-9]+ / { kok++; knames = knames "," $3; next }
in_kunit && /^[ \t]+not ok [0-9]+ / {
	knotok++
	kfailed = kfailed (kfailed == "" ? "" : ",") $4
	next
}
in_kunit && /^ok [0-9]+ pid_max$/ { kunit = "ok"; in_kunit = 0; next }
in_kunit && /^not ok [0-9]+ pid_max$/ { kunit = "notok"; in_kunit = 0; next }
/^PIDMAX-HARNESS-BEGIN$/ { begin = 1; in_kunit = 0; next }
!begin { next }
/^PIDMAX-HARNESS-END$/ { end = 1; next }
/^1\.\.[0-9]+$/ { plan = substr($0, 4); next }
/^ok [0-9]+ selftest_[^ ]+$/ { selftests_ok++ }
/^ok [0-9]+ / { oks++; next }
/^not ok [0-9]+ / {
	notoks++
	failed = failed (failed == "" ? "" : ",") $4
	next
}
/^# cpus: / {
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "possible") possible = count_cpus(kv[2])
		if (kv[1] == "online") online = count_cpus(kv[2])
	}
	next
}
/^# pid_budget: / {
	kv_fields(f)
	last_pid = num(f["last_pid_at_init"]); tasks = num(f["tasks"]); kthreads = num(f["kthreads"])
	next
}
# What the child pid namespace saw (pidns_checks of guest-init.sh).
/^# pidns: / {
	kv_fields(f)
	ns_child = num(f["child"]); ns_written = num(f["written"]); ns_top = num(f["top"])
	ns_next = num(f["next"]); ns_parent = num(f["parent"])
	next
}
/^# pid_max: / { pid_max = num($3); next }
/^# pid_max_min: / { pid_max_min = num($3); next }
/^# pid_max_max: / { pid_max_max = num($3); next }
/^# boot_line: / {
	if (match($0, /default: [0-9]+/))
		line_default = substr($0, RSTART + 9, RLENGTH - 9)
	if (match($0, /minimum: [0-9]+/))
		line_min = substr($0, RSTART + 9, RLENGTH - 9)
	next
}
END {
	printf "%s\tbegin=%d\tend=%d\tplan=%s\toks=%d\tnotoks=%d\tfailed=%s", \
		meta, begin, end, plan, oks, notoks, (failed == "" ? "none" : failed)
	printf "\tpossible=%s\tonline=%s\tpid_max=%s\tpid_max_min=%s\tpid_max_max=%s", \
		possible, online, pid_max, pid_max_min, pid_max_max
	printf "\tline_default=%s\tline_min=%s", line_default, line_min
	printf "\tpanic=%d\toops=%d\tstall=%d\tsysctl_err=%d", panic, oops, stall, sysctl_err
	printf "\tpanic_msg=%s\tbrought_up=%s", panic_msg, brought_up
	printf "\tlast_pid_at_init=%s\ttasks=%s\tkthreads=%s", last_pid, tasks, kthreads
	printf "\tpidns_child=%s\tpidns_written=%s\tpidns_top=%s\tpidns_next=%s\tpidns_parent=%s", \
		ns_child, ns_written, ns_top, ns_next, ns_parent
	printf "\tselftests_ok=%d", selftests_ok
	printf "\tkunit=%s\tkunit_plan=%s\tkunit_oks=%d\tkunit_notoks=%d", \
		kunit, kplan, kok, knotok
	printf "\tkunit_failed=%s\tkunit_passed=%s\n", \
		(kfailed == "" ? "none" : kfailed), \
		(knames == "" ? "none" : substr(knames, 2))
}' "$log")
printf '%s\n' "$record"
if ((write)); then
	# The caller may know the parser's id already (boot_record).
	printf 'parser=%s\t%s\n' "${PIDMAX_PARSER_ID:-$(parser_id)}" "$record" >"$log.record.tmp"
	mv "$log.nested.tmp" "$log.nested"
	mv "$log.record.tmp" "$log.record"
fi
