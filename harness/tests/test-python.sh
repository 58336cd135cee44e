# shellcheck shell=bash
# test-python.sh - the package harness/pidmax (the first slice of the
# harness's core in Python): its unittest files, pyflakes, and a job list
# that plan.sh wrote held to the package's formula.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# The package's line coverage under its unittest files, in percent,
# below which python_unittest fails (issue 39; 98 % when it was set).
PYTHON_COVERAGE_MIN=90

# coverage_python: print a python3 that has the module coverage (Debian's
# python3-coverage): the one on PATH, else Debian's own /usr/bin/python3,
# where the package installs it; nothing when neither has it.
coverage_python() {
	local py
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import coverage' 2>/dev/null; then
			command -v "$py"
			return 0
		fi
	done
}

# python_unittest: run the package's unittest files; no byte code is
# written into the checkout. With python3-coverage they run under it:
# the data goes to $TMP (outside the checkout), the report's TOTAL line
# is printed, and a line coverage below PYTHON_COVERAGE_MIN % fails the
# test; without it they run alone.
test_python_unittest() {
	needs python3 python3
	local py out report rc=0
	local -a cov=()
	py=$(coverage_python)
	if [[ -n $py ]]; then
		cov=(-m coverage run --source=pidmax --omit='pidmax/tests/*')
	else
		py=python3
	fi
	out=$(cd "$HARNESS" && COVERAGE_FILE="$TMP/coverage" PYTHONDONTWRITEBYTECODE=1 \
		"$py" "${cov[@]}" -m unittest discover -s pidmax/tests -t . 2>&1) || {
		echo "$out"
		return 1
	}
	[[ $out == *"Ran "[1-9]*" tests"*OK* ]] || {
		echo "no test ran: $out"
		return 1
	}
	((${#cov[@]})) || return 0
	report=$(cd "$HARNESS" && COVERAGE_FILE="$TMP/coverage" PYTHONDONTWRITEBYTECODE=1 \
		"$py" -m coverage report --fail-under="$PYTHON_COVERAGE_MIN" 2>&1) || rc=$?
	grep '^TOTAL ' <<<"$report" || {
		echo "no TOTAL line in the coverage report: $report"
		return 1
	}
	((rc == 0)) || {
		echo "$report"
		echo "line coverage of harness/pidmax below $PYTHON_COVERAGE_MIN % (exit status $rc)"
		return 1
	}
}

test_python_pyflakes() {
	needs pyflakes3 python3-pyflakes
	pyflakes3 "$HARNESS/pidmax"
}

# The bash planner's job lines, read by the package and held to its own
# formula: a holes tier and its stock model, x86 tiers; one field
# changed is found.
test_python_checks_plans() {
	needs python3 python3
	local cfg="$TMP/config-arm64" out
	sed 's/^CONFIG_X86=y/CONFIG_ARM64=y/' "$FIX/config-6.12-full" >"$cfg"
	{
		"$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label a \
			--cpus 1,33 --online 2 --holes 8,64 --possible 200
		"$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label s \
			--series no --cpus "" --online "" --holes 64
		"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i --label x \
			--cpus 4,5,255 --online 8 --possible 256
	} >"$TMP/jobs"
	out=$(cd "$HARNESS" && PYTHONDONTWRITEBYTECODE=1 python3 -m pidmax check-jobs "$TMP/jobs") || {
		echo "$out"
		return 1
	}
	expect_eq "checked" "$out" "$(grep -vc $'\tskip=' "$TMP/jobs") jobs checked, 0 fields differ from the formula" || return 1
	sed -i '1s/\tline_min=301\t/\tline_min=300\t/' "$TMP/jobs"
	must_fail "line_min=300 want 301" bash -c 'cd "$1" && PYTHONDONTWRITEBYTECODE=1 python3 -m pidmax check-jobs "$2"' \
		_ "$HARNESS" "$TMP/jobs"
}

