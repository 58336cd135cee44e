# shellcheck shell=bash
# test-python.sh - the package harness/pidmax (the first slice of the
# harness's core in Python): its unittest files, pyflakes, and a job list
# that plan.sh wrote held to the package's formula.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# python_unittest: run the package's unittest files; no byte code is
# written into the checkout.
test_python_unittest() {
	needs python3 python3
	local out
	out=$(cd "$HARNESS" && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover \
		-s pidmax/tests -t . 2>&1) || {
		echo "$out"
		return 1
	}
	[[ $out == *"Ran "[1-9]*" tests"*OK* ]] || {
		echo "no test ran: $out"
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

