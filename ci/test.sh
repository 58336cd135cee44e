#!/bin/bash
# test.sh - the project's test command (README.md; .ci/run calls it).
#
# Installs what it needs (as root), then runs, each as a step:
#   lint               every shell script through shellcheck -S warning
#   harness self-tests harness/tests/run-tests.sh (no VM)
#   series checks      ci/check-series.sh: patch --fuzz=0, quilt, checkpatch
#   sweep              harness/sweep-smp.sh: kernel build, then the hotplug
#                      tier for every N in 1..255 and the online tier
# A step that fails does not stop the others. Ends with the sum of all
# steps as "N passed, N failed" and exits non-zero if anything failed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
out=${RESULTS_DIR:-$REPO/results/ci}

"$REPO/harness/deps.sh" test

passed=0 failed=0
# step NAME CMD...: run CMD with its output shown; add the counts of its
# "N passed, N failed" line, or count it as one test by its exit code.
step() {
	local name=$1 rc=0 last
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$REPO/.step.log" || rc=$?
	last=$(tail -n 1 "$REPO/.step.log")
	rm -f "$REPO/.step.log"
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		((rc == 0 || BASH_REMATCH[2] > 0)) || failed=$((failed + 1))
	elif ((rc == 0)); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	echo "=== $name: exit $rc"
}

mapfile -t scripts < <(git ls-files '*.sh' .ci/run 2>/dev/null || find . -name '*.sh' -not -path './build/*')
step shellcheck shellcheck -S warning "${scripts[@]}"
step self-tests harness/tests/run-tests.sh
step series-6.1 ci/check-series.sh 6.1
step sweep-6.1 harness/sweep-smp.sh --out "$out/6.1-full" \
	--cpus 1-255 --online 1,2,32,33,64,128,255

echo "$passed passed, $failed failed"
((failed == 0))
