#!/bin/bash
# report.sh - write a sweep's results.ktap, results.csv and, for CI
# systems, results.xml (JUnit).
#
# Usage: harness/report.sh OUT_DIR
# Reads OUT_DIR/jobs (see sweep-smp.sh for its fields, a job a line, in
# sweep order) and each OUT_DIR/boots/NAME.rec written by
# sweep-smp.sh. A job with no record counts as failed ("not run"). Both
# files are written under a temporary name and renamed at the end, so a
# killed report never leaves a complete-looking file behind. Prints
# "PASSED FAILED" on stdout.
set -euo pipefail

# shellcheck source=harness/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(($# == 1)) || {
	echo "usage: ${0##*/} OUT_DIR" >&2
	exit 2
}
out=$1
[[ -r $out/jobs ]] || {
	echo "${0##*/}: error: $out/jobs is missing" >&2
	exit 1
}

njobs=$(wc -l <"$out/jobs")
ktap="$out/results.ktap.tmp"
csv="$out/results.csv.tmp"
xml="$out/results.xml.tmp"
cases="$out/results.cases.tmp"
: >"$cases"
passed=0 failed=0 i=0

# xml_escape TEXT: TEXT with XML's five special characters escaped.
xml_escape() {
	local s=$1
	s=${s//&/&amp;}
	s=${s//</&lt;}
	s=${s//>/&gt;}
	s=${s//\"/&quot;}
	s=${s//\'/&apos;}
	printf '%s' "$s"
}

{
	echo "KTAP version 1"
	echo "1..$njobs"
} >"$ktap"
echo "cpus,online,pid_max,expected,pid_max_min,expected_min,seconds,verdict" >"$csv"

while read -r name cpus _online _smp expected expected_min _; do
	i=$((i + 1))
	rec="$out/boots/$name.rec"
	log="$out/boots/$name.log"
	if [[ -r $rec ]] && (($(wc -l <"$rec") >= 3)); then
		record=$(sed -n 2p "$rec")
		read -r verdict reason < <(sed -n 3p "$rec")
	else
		record="" verdict=fail reason="not run: the sweep was interrupted"
	fi
	# The guest's own KTAP, nested as the subtest of this boot.
	if [[ -r $log ]]; then
		tr -d '\r' <"$log" |
			sed -n '/^PIDMAX-HARNESS-BEGIN$/,/^PIDMAX-HARNESS-END$/p' |
			grep -E '^(KTAP version|1\.\.|ok |not ok |# )' |
			sed 's/^/  /' >>"$ktap" || true
	fi
	if [[ $verdict == pass ]]; then
		passed=$((passed + 1))
		echo "ok $i $name" >>"$ktap"
	else
		failed=$((failed + 1))
		case $verdict in
		timeout) echo "not ok $i $name # TIMEOUT ${reason#TIMEOUT: }" ;;
		*) echo "not ok $i $name # $reason" ;;
		esac >>"$ktap"
	fi
	# The JUnit case: a <failure> with the reason unless it passed.
	seconds=$(record_field seconds "$record")
	[[ $seconds =~ ^[0-9.]+$ ]] || seconds=0
	{
		printf '  <testcase classname="pid_max" name="%s" time="%s">\n' \
			"$(xml_escape "$name")" "$seconds"
		if [[ $verdict != pass ]]; then
			printf '    <failure type="%s" message="%s">console log: boots/%s.log</failure>\n' \
				"$verdict" "$(xml_escape "$reason")" "$(xml_escape "$name")"
		fi
		echo "  </testcase>"
	} >>"$cases"
	printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$cpus" "$(record_field online "$record")" \
		"$(record_field pid_max "$record")" "$expected" \
		"$(record_field pid_max_min "$record")" "$expected_min" \
		"$(record_field seconds "$record")" "$verdict" >>"$csv"
done <"$out/jobs"

echo "# totals: pass:$passed fail:$failed" >>"$ktap"
{
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	printf '<testsuites tests="%d" failures="%d">\n' "$njobs" "$failed"
	printf ' <testsuite name="pid_max sweep" tests="%d" failures="%d">\n' "$njobs" "$failed"
	sed 's/^/ /' "$cases"
	echo " </testsuite>"
	echo "</testsuites>"
} >"$xml"
rm -f "$cases"
mv "$xml" "$out/results.xml"
mv "$csv" "$out/results.csv"
mv "$ktap" "$out/results.ktap"
echo "$passed $failed"
