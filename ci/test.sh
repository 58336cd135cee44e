#!/bin/bash
# test.sh - the project's test command (README.md; .ci/run calls it).
#
# Installs what it needs (as root), then runs, each as a step:
#   lint               every shell script through shellcheck -S warning
#   harness self-tests harness/tests/run-tests.sh (no VM)
#   series checks      ci/check-series.sh on 6.1 and 6.12: patch --fuzz=0,
#                      quilt push -a, checkpatch --strict
#   kunit.py run       the suite through the kernel's own runner under UML
#                      (ci/kunit-uml.sh)
#   sweep 6.1          harness/sweep-smp.sh: both variants (full, small),
#                      hotplug tier 1..255, online tier at 12 counts,
#                      possible tier at 256, 4096, 4097 (NR_CPUS 8192)
#   baseline 6.1       sweep-smp.sh --baseline: the same boots (a reduced
#                      list of every tier) on stock kernels built without
#                      the series; compare.csv beside the patched values
#   wide 6.1           QEMU 10 (bookworm-backports, fetched, never
#                      installed): 288 CPUs online, 512 and 1024 possible
#   mutants            harness/mutants.sh: every deliberate fault caught
#   sweep 6.12         the full variant on the other tree Debian ships,
#                      online tier at 17 counts (its hotplug tier is a
#                      SKIP under TCG)
#   sweep debian       Debian's own kernel (--kernel debian): hotplug 1,
#                      33, 255, online 1, 8, 32, 64 and possible 4097
#   kunit.py parse     the kernel's own KTAP consumer reads the sweeps'
#                      results.ktap (ci/kunit-parse.sh)
# A step that fails does not stop the others. Ends with the sum of all
# steps as "N passed, N failed" and exits non-zero if anything failed.
set -euo pipefail

# All of it in main(): bash reads the whole script before running any
# of it, so editing a script during a long run cannot derail the run.
main() {

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/test.sh
Run everything CI runs (see the comment at the top of ci/test.sh);
results in \$RESULTS_DIR (default results/ci)."
parse_options "$USAGE" "" "$@"
set -- "${OPTS[@]:1}"
(($# == 0)) || usage_error "takes no operands"
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
step series-6.12 ci/check-series.sh 6.12
step kunit-uml ci/kunit-uml.sh
# 6.1, both variants: the default lists, every N in the hotplug tier
# and twelve online boots (the PID budget's points).
# The possible tier on a reduced list that still crosses every regime
# past QEMU's 255 (256, the last unclamped 4096, the clamped 4097): the
# 8192-id boot alone takes about 5 minutes here.
step sweep-6.1 harness/sweep-smp.sh --tree 6.1 --variant all --out "$out/6.1" \
	--possible 256,4096,4097 --wide-online "" --wide-hotplug ""
# The baseline: a reduced list of every tier and the scenarios, booted on
# the patched kernels and again on the same configurations built without
# the series; the stock verdicts are reported, the exit status is the
# patched kernels'. compare.csv shows where the two differ. The patched
# side repeats some boots of sweep-6.1 (about 2 minutes) so that the
# comparison is one run; 4096 ids is left to sweep-6.1 (48 s a boot).
step baseline-6.1 harness/sweep-smp.sh --tree 6.1 --variant all --baseline \
	--out "$out/baseline-6.1" --cpus 1,33,255 --online 1,8,64 --possible 256,4097 \
	--wide-online "" --wide-hotplug ""
# The wide tiers on a reduced list: QEMU 10 from bookworm-backports (never
# installed), 288 CPUs online and 512 and 1024 firmware-described possible
# CPUs, on the full variant (the default lists add 256, 384 and 512 online).
step wide-6.1 harness/sweep-smp.sh --tree 6.1 --variant full --out "$out/wide-6.1" \
	--cpus "" --online "" --possible "" --scenarios no --wide-online 288 --wide-hotplug 512,1024
step mutants-6.1 harness/mutants.sh --tree 6.1 --out "$out/mutants"
# 6.12, full variant. Under TCG 6.12 sees no hotpluggable CPUs (see
# tcg_counts_hotplug_cpus in harness/lib.sh), so no hotplug tier: a
# reduced list of fully online boots covers every regime instead, and
# the hotplug tier is reported as a SKIP with that reason.
step sweep-6.12 harness/sweep-smp.sh --tree 6.12 --variant full \
	--out "$out/6.12" \
	--online 1,2,4,5,8,16,31,32,33,34,37,38,64,100,128,200,255
# Debian's own kernel (fetched, never installed): pid_max judged against
# the formula, its PID budget beside the harness's kernel.
step sweep-debian harness/sweep-smp.sh --kernel debian --out "$out/debian" \
	--cpus 1,33,255 --online 1,8,32,64 --possible 4097 --scenarios no \
	--wide-online "" --wide-hotplug ""
step kunit-parse ci/kunit-parse.sh "$out/6.1/results.ktap" \
	"$out/6.12/results.ktap" "$out/debian/results.ktap" "$out/wide-6.1/results.ktap"

echo "$passed passed, $failed failed"
((failed == 0))
}

main "$@"
