#!/bin/bash
# report.sh - the reporter: judge every boot of a results folder from its
# job and its console log, and write what the folder reports. Boots
# nothing, so it re-judges a finished (or copied) folder at any time:
#
#   results.ktap  a boot a test; each host-side check of a boot a
#                 subtest, the guest's own KTAP and the KUnit suite
#                 nested under theirs (kunit.py parse reads it)
#   results.csv   cpus,online,pid_max,expected,pid_max_min,expected_min,
#                 seconds,verdict,boot,tier,variant,line_min: a row per
#                 boot (pid_max_min as the guest's probe found it,
#                 line_min as the kernel's boot line states it)
#   results.xml   the boots as JUnit test cases
#   checks.csv    boot,tier,variant,check,result,reason: a row per check
#   variants.csv  with both variants in the folder: their rows side by
#                 side, joined on the boot's name without its kernel label
#
# A job with no console log failed ("not run"); a job with a skip field
# is a KTAP SKIP and a JUnit <skipped/>. Each file is written under a
# temporary name and renamed at the end, so a killed report never
# leaves a complete-looking file. Ends with "N passed, N failed, N
# skipped" (lib.sh summary_line) and exits 1 when a boot failed.
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
# shellcheck source=harness/judge.sh
. "$HARNESS/judge.sh"
USAGE="Usage: harness/report.sh DIR
Judge the boots of DIR/jobs from DIR/boots and write DIR/results.ktap,
results.csv, results.xml, checks.csv (and variants.csv)."
parse_options "$USAGE" "" "$@"
set -- "${OPTS[@]:1}"
(($# == 1)) || usage_error "expects DIR"
local out=$1
[[ -r $out/jobs ]] || die "$out/jobs is missing: not a results folder"

local -a lines=()
mapfile -t lines <"$out/jobs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
local ktap="$tmp/ktap" csv="$tmp/csv" xml="$tmp/xml" checks="$tmp/checks"
local cases="$tmp/cases" vrows="$tmp/variants"
: >"$cases"
: >"$vrows"
{
	echo "KTAP version 1"
	echo "1..${#lines[@]}"
} >"$ktap"
echo "cpus,online,pid_max,expected,pid_max_min,expected_min,seconds,verdict,boot,tier,variant,line_min" >"$csv"
echo "boot,tier,variant,check,result,reason" >"$checks"

local passed=0 failed=0 skipped=0 i=0 line log verdict reason seconds parser
local -A j=() r=()
parser=$(parser_id)
for line in "${lines[@]}"; do
	i=$((i + 1))
	kv_load j "$line"
	[[ -n ${j[name]:-} && -n ${j[tier]:-} && -n ${j[variant]:-} ]] ||
		die "$out/jobs line $i is not a job (no name, tier or variant)"
	log="$out/boots/${j[name]}.log"
	r=() reason="" seconds=0
	if [[ -n ${j[skip]:-} ]]; then
		verdict=skip reason=${j[skip]}
		skipped=$((skipped + 1))
		echo "ok $i ${j[name]} # SKIP $reason" >>"$ktap"
	elif [[ ! -e $log ]]; then
		verdict=fail reason="not run: the sweep was interrupted"
		failed=$((failed + 1))
		echo "not ok $i ${j[name]} # $reason" >>"$ktap"
	else
		boot_record "$log" "$parser" || die "parse-console.sh failed on $log"
		kv_load r "$BOOT_RECORD"
		judge_boot "$line" "$BOOT_RECORD"
		report_boot "$i" >>"$ktap"
		seconds=${r[seconds]-none}
		if [[ $verdict == pass ]]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	fi
	[[ $seconds =~ ^[0-9.]+$ ]] || seconds=0
	junit_case >>"$cases"
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "${j[possible]:-none}" \
		"${r[online]-none}" "${r[pid_max]-none}" "${j[pid_max]:-none}" \
		"${r[pid_max_min]-none}" "${j[pid_max_min]:-none}" \
		"${r[seconds]-none}" "$verdict" "${j[name]}" "${j[tier]}" \
		"${j[variant]}" "${r[line_min]-none}" >>"$csv"
	printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "${j[name]#"${j[label]:-}-"}" \
		"${j[tier]}" "${j[variant]}" "${j[possible]:-none}" "${j[online]:-none}" \
		"${r[pid_max]-none}" "${j[pid_max]:-none}" "$verdict" >>"$vrows"
done

echo "# totals: pass:$passed fail:$failed skip:$skipped" >>"$ktap"
{
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	printf '<testsuites tests="%d" failures="%d" skipped="%d">\n' "${#lines[@]}" "$failed" "$skipped"
	printf ' <testsuite name="pid_max sweep%s" tests="%d" failures="%d" skipped="%d">\n' \
		"$([[ ! -r $out/shard ]] || echo ", shard $(cat "$out/shard")")" \
		"${#lines[@]}" "$failed" "$skipped"
	sed 's/^/ /' "$cases"
	echo " </testsuite>"
	echo "</testsuites>"
} >"$xml"

# Both variants in the folder: side by side, joined on the boot's name
# without its kernel label ("hotplug-033"), in the full variant's order.
rm -f "$out/variants.csv"
if grep -q '^[^,]*,[^,]*,full,' "$vrows" && grep -q '^[^,]*,[^,]*,small,' "$vrows"; then
	awk -F, '
		BEGIN { print "cpus,online,full_pid_max,full_expected,full_verdict,small_pid_max,small_expected,small_verdict,boot,tier" }
		$3 == "small" { small[$1] = $6 "," $7 "," $8 }
		$3 == "full" { order[++n] = $1; row[$1] = $4 "," $5 "," $6 "," $7 "," $8; tier[$1] = $2 }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				print row[k] "," (k in small ? small[k] : "none,none,none") "," k "," tier[k]
			}
		}' "$vrows" >"$out/variants.csv.tmp"
	mv "$out/variants.csv.tmp" "$out/variants.csv"
fi
cp "$checks" "$out/checks.csv.tmp"
cp "$xml" "$out/results.xml.tmp"
cp "$csv" "$out/results.csv.tmp"
cp "$ktap" "$out/results.ktap.tmp"
local f
for f in checks.csv results.xml results.csv results.ktap; do
	mv "$out/$f.tmp" "$out/$f"
done
((skipped == 0)) || info "$skipped skipped (# SKIP in $out/results.ktap, with the reason)"
summary_line "$passed" "$failed" "$skipped"
((failed == 0))
}

# xml_escape VAR TEXT: TEXT with XML's five special characters escaped,
# into VAR.
xml_escape() {
	local s=$2
	s=${s//&/\&amp;}
	s=${s//</\&lt;}
	s=${s//>/\&gt;}
	s=${s//\"/\&quot;}
	s=${s//\'/\&apos;}
	printf -v "$1" '%s' "$s"
}

# csv_quote VAR TEXT: TEXT as one CSV field (RFC 4180), into VAR.
csv_quote() {
	if [[ $2 == *[,\"]* ]]; then
		printf -v "$1" '"%s"' "${2//\"/\"\"}"
	else
		printf -v "$1" '%s' "$2"
	fi
}

# nested_sections ARRAY: the boot's nested KTAP (BOOT_NESTED, from
# parse-console.sh) into the associative ARRAY by section: console,
# guest_checks and kunit, each the section's lines.
nested_sections() {
	local -n _ns=$1
	local l
	_ns=([console]="" [guest_checks]="" [kunit]="")
	for l in "${BOOT_NESTED[@]}"; do
		_ns[${l%%$'\t'*}]+=${l#*$'\t'}$'\n'
	done
}

# report_boot I: the KTAP of boot I from its job (j) and JUDGE_LINES:
# the boot's subtest with a subtest per check, and each check's rows
# into checks.csv; sets verdict and reason.
report_boot() {
	local -A v=() c=() sec=()
	local n=0 check why quoted
	kv_load v "${JUDGE_LINES[0]}"
	nested_sections sec
	# Selftests recorded, not judged (selftests_judged=no): the guest's
	# result line of each is nested as a SKIP that keeps what it said, so
	# that no KTAP reader counts it as a failure of the boot.
	[[ ${j[selftests_judged]:-} != no ]] ||
		sec[guest_checks]=$(sed -E 's/^([[:space:]]*)(not ok|ok) ([0-9]+) (selftest_[^ ]*)(.*)$/\1ok \3 \4 # SKIP recorded, not judged: the guest said "\2\5"/' \
			<<<"${sec[guest_checks]}")$'\n'
	verdict=${v[verdict]} reason=${v[reason]}
	echo "    KTAP version 1"
	echo "    # Subtest: ${j[name]}"
	[[ $verdict == pass ]] || printf '%s' "${sec[console]}"
	echo "    1..$((${#JUDGE_LINES[@]} - 1))"
	for check in "${JUDGE_LINES[@]:1}"; do
		n=$((n + 1))
		kv_load c "$check"
		why=${c[reason]}
		if [[ ${c[check]} == @(guest_checks|kunit) && ${c[result]} != skip &&
			-n ${sec[${c[check]}]} ]]; then
			echo "        KTAP version 1"
			echo "        # Subtest: ${c[check]}"
			printf '%s' "${sec[${c[check]}]}"
		fi
		case ${c[result]} in
		ok) echo "    ok $n ${c[check]}" ;;
		skip) echo "    ok $n ${c[check]} # SKIP $why" ;;
		*) echo "    not ok $n ${c[check]} # $why" ;;
		esac
		csv_quote quoted "$why"
		printf '%s,%s,%s,%s,%s,%s\n' "${j[name]}" "${j[tier]}" \
			"${j[variant]}" "${c[check]}" "${c[result]}" "$quoted" >>"$checks"
	done
	if [[ $verdict == pass ]]; then
		echo "ok $1 ${j[name]}"
	elif [[ $verdict == timeout ]]; then
		echo "not ok $1 ${j[name]} # TIMEOUT ${reason#TIMEOUT: }"
	else
		echo "not ok $1 ${j[name]} # $reason"
	fi
}

# junit_case: the JUnit test case of the boot of job j: <skipped/>, or
# <failure> with every failed check.
junit_case() {
	local tier name why
	xml_escape tier "${j[tier]}"
	xml_escape name "${j[name]}"
	xml_escape why "$reason"
	printf '  <testcase classname="pid_max.%s" name="%s" time="%s">\n' "$tier" "$name" "$seconds"
	case $verdict in
	pass) ;;
	skip) printf '    <skipped message="%s"/>\n' "$why" ;;
	*)
		printf '    <failure type="%s" message="%s">' "$verdict" "$why"
		printf 'console log: boots/%s.log</failure>\n' "$name"
		;;
	esac
	echo "  </testcase>"
}

main "$@"
