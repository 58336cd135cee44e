# shellcheck shell=bash
# test-budget.sh - the PID budget: budget.sh's fit on boots that lie on a known line.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# budget.sh on online boots whose PIDs at init lie exactly on
# 20 + 6 * CPUs: the fit must find 6 per CPU, 20 fixed, no residual,
# and a fixed 32768 running out at (32768 - 20) / 6 = 5458 CPUs.
test_budget_fit_known_line() {
	local out="$TMP/budget" n rc=0
	mkdir -p "$out/boots"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full-kunit" \
		--initrd /i --label k --cpus 8 --online 1,2,8,64 --scenarios no >"$out/jobs"
	for n in 1 2 8 64; do
		edit_log "$FIX/budget-online-008.log" "$out/boots/k-online-$(printf %03d "$n").log" \
			"s/^# pid_budget: .*/# pid_budget: last_pid_at_init=$((20 + 6 * n)) tasks=1 kthreads=1/
			 s/^# cpus: possible=0-7 online=0-7/# cpus: possible=0-$((n - 1)) online=0-$((n - 1))/"
	done
	cp "$FIX/budget-online-008.log" "$out/boots/k-hotplug-008.log"
	"$HARNESS/budget.sh" "$out" || return 1
	expect_eq "csv" "$(cat "$out/pid_budget.csv")" "boot,kernel,online,possible,last_pid_at_init,tasks,kthreads
k-online-001,k,1,1,26,1,1
k-online-002,k,2,2,32,1,1
k-online-008,k,8,8,68,1,1
k-online-064,k,64,64,404,1,1" || rc=1
	grep -q '^  per online CPUs* *6.00 PIDs$' "$out/pid_budget.txt" || rc=1
	grep -q '^  fixed part *20.0 PIDs$' "$out/pid_budget.txt" || rc=1
	grep -q '^  residual *0.0 PIDs RMS' "$out/pid_budget.txt" || rc=1
	grep -q 'runs out before init at 5458 CPUs$' "$out/pid_budget.txt" || rc=1
	grep -q '^ *8192 *49172 *runs out *4194304 *85.3x$' "$out/pid_budget.txt" || rc=1
	((rc == 0)) || cat "$out/pid_budget.txt"
	return $rc
}

# The same boots drawn: the points, the fit and the formula.
test_budget_picture() {
	needs gnuplot gnuplot-nox
	local out="$TMP/budget" n
	mkdir -p "$out/boots"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full-kunit" \
		--initrd /i --label k --cpus "" --online 1,8 --scenarios no >"$out/jobs"
	for n in 1 8; do
		edit_log "$FIX/budget-online-008.log" "$out/boots/k-online-00$n.log" \
			"s/^# pid_budget: .*/# pid_budget: last_pid_at_init=$((20 + 6 * n)) tasks=1 kthreads=1/
			 s/^# cpus: possible=0-7 online=0-7/# cpus: possible=0-$((n - 1)) online=0-$((n - 1))/"
	done
	"$HARNESS/budget.sh" "$out" >/dev/null
	[[ -s $out/pid_budget.svg && -s $out/pid_budget.png ]] || {
		echo "no picture: $(ls "$out")"
		return 1
	}
}
