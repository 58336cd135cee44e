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

local passed=0 failed=0 skipped=0 i=0 line log record judged verdict reason
local seconds n check result why
local -A j=() r=() c=()
for line in "${lines[@]}"; do
	i=$((i + 1))
	kv_load j "$line"
	[[ -n ${j[name]:-} && -n ${j[tier]:-} && -n ${j[variant]:-} ]] ||
		die "$out/jobs line $i is not a job (no name, tier or variant)"
	log="$out/boots/${j[name]}.log"
	record="" reason="" seconds=0
	if [[ -n ${j[skip]:-} ]]; then
		verdict=skip reason=${j[skip]}
		skipped=$((skipped + 1))
		echo "ok $i ${j[name]} # SKIP $reason" >>"$ktap"
	elif [[ ! -e $log ]]; then
		verdict=fail reason="not run: the sweep was interrupted"
		failed=$((failed + 1))
		echo "not ok $i ${j[name]} # $reason" >>"$ktap"
	else
		record=$("$HARNESS/parse-console.sh" "$log")
		judged=$("$HARNESS/judge.sh" "$line" "$record")
		kv_load r "$(head -n 1 <<<"$judged")"
		verdict=${r[verdict]} reason=${r[reason]}
		seconds=$(kv_get "$record" seconds)
		nested "$log" "$tmp"
		{
			echo "    KTAP version 1"
			echo "    # Subtest: ${j[name]}"
			[[ $verdict == pass ]] || cat "$tmp/console"
			echo "    1..$(($(wc -l <<<"$judged") - 1))"
		} >>"$ktap"
		n=0
		while IFS= read -r check; do
			n=$((n + 1))
			kv_load c "$check"
			result=${c[result]} why=${c[reason]}
			if [[ -s $tmp/${c[check]} && $result != skip ]]; then
				{
					echo "        KTAP version 1"
					echo "        # Subtest: ${c[check]}"
					cat "$tmp/${c[check]}"
				} >>"$ktap"
			fi
			case $result in
			ok) echo "    ok $n ${c[check]}" ;;
			skip) echo "    ok $n ${c[check]} # SKIP $why" ;;
			*) echo "    not ok $n ${c[check]} # $why" ;;
			esac >>"$ktap"
			printf '%s,%s,%s,%s,%s,%s\n' "${j[name]}" "${j[tier]}" \
				"${j[variant]}" "${c[check]}" "$result" "$(csv_quote "$why")" >>"$checks"
		done < <(tail -n +2 <<<"$judged")
		if [[ $verdict == pass ]]; then
			passed=$((passed + 1))
			echo "ok $i ${j[name]}" >>"$ktap"
		else
			failed=$((failed + 1))
			case $verdict in
			timeout) echo "not ok $i ${j[name]} # TIMEOUT ${reason#TIMEOUT: }" ;;
			*) echo "not ok $i ${j[name]} # $reason" ;;
			esac >>"$ktap"
		fi
	fi
	[[ $seconds =~ ^[0-9.]+$ ]] || seconds=0
	# The JUnit case: <skipped/>, or <failure> with every failed check.
	{
		printf '  <testcase classname="pid_max.%s" name="%s" time="%s">\n' \
			"$(xml_escape "${j[tier]}")" "$(xml_escape "${j[name]}")" "$seconds"
		case $verdict in
		pass) ;;
		skip) printf '    <skipped message="%s"/>\n' "$(xml_escape "$reason")" ;;
		*)
			printf '    <failure type="%s" message="%s">' "$verdict" "$(xml_escape "$reason")"
			printf 'console log: boots/%s.log</failure>\n' "$(xml_escape "${j[name]}")"
			;;
		esac
		echo "  </testcase>"
	} >>"$cases"
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "${j[possible]:-none}" \
		"$(kv_get "$record" online)" "$(kv_get "$record" pid_max)" "${j[pid_max]:-none}" \
		"$(kv_get "$record" pid_max_min)" "${j[pid_max_min]:-none}" \
		"$(kv_get "$record" seconds)" "$verdict" "${j[name]}" "${j[tier]}" \
		"${j[variant]}" "$(kv_get "$record" line_min)" >>"$csv"
	printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "${j[name]#"${j[label]:-}-"}" \
		"${j[tier]}" "${j[variant]}" "${j[possible]:-none}" "${j[online]:-none}" \
		"$(kv_get "$record" pid_max)" "${j[pid_max]:-none}" "$verdict" >>"$vrows"
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

# xml_escape TEXT: TEXT with XML's five special characters escaped.
xml_escape() {
	local s=$1
	s=${s//&/\&amp;}
	s=${s//</\&lt;}
	s=${s//>/\&gt;}
	s=${s//\"/\&quot;}
	s=${s//\'/\&apos;}
	printf '%s' "$s"
}

# csv_quote TEXT: TEXT as one CSV field (RFC 4180).
csv_quote() {
	if [[ $1 == *[,\"]* ]]; then
		printf '"%s"' "${1//\"/\"\"}"
	else
		printf '%s' "$1"
	fi
}

# nested LOG DIR: the KTAP that the console LOG nests under two checks,
# indented for results.ktap: the guest's own results into DIR/guest_checks
# and the KUnit suite's cases into DIR/kunit (empty when absent); and
# into DIR/console the kernel's own words on a failure (the CPUs it
# brought up, errors, oopses, the panic), at most 12 lines.
nested() {
	tr -d '\r' <"$1" | awk -v g="$2/guest_checks" -v k="$2/kunit" -v c="$2/console" '
		BEGIN { printf "" > g; printf "" > k; printf "" > c }
		{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
		/smp: Brought up|Kernel panic|Oops|BUG|WARNING|invalid opcode|Error|failed/ &&
			!/^# / && nc++ < 12 { print "    # console: " $0 > c }
		/^[ \t]+# Subtest: pid_max$/ { suite = 1; next }
		suite && /^[ \t]+(1\.\.[0-9]+|ok [0-9]+ |not ok [0-9]+ )/ {
			sub(/^[ \t]+/, ""); print "        " $0 > k; next
		}
		suite && /^(not )?ok [0-9]+ pid_max$/ { suite = 0; next }
		/^PIDMAX-HARNESS-BEGIN$/ { guest = 1; suite = 0; next }
		/^PIDMAX-HARNESS-END$/ { guest = 0; next }
		guest && /^(1\.\.[0-9]+|ok [0-9]+ |not ok [0-9]+ |# )/ { print "        " $0 > g }'
}

main "$@"
