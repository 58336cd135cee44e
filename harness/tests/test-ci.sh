# shellcheck shell=bash
# test-ci.sh - the CI helpers: kunit-parse.sh and the ready CI definitions.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

test_kunit_parse_judges_ktap() {
	local rc=0 out build="$TMP/build" tree
	# kunit.py from a tree the sweep unpacked (only read: no bytecode is
	# written), else from the tarball into $TMP.
	tree=$(realpath -m "$HARNESS/../build/src/linux-source-6.1")
	if [[ -r $tree/tools/testing/kunit/kunit.py ]]; then
		mkdir -p "$build/src"
		ln -s "$tree" "$build/src/linux-source-6.1"
		export PYTHONDONTWRITEBYTECODE=1
	else
		[[ -r /usr/src/linux-source-6.1.tar.xz ]] ||
			skip "no kunit.py: no unpacked tree in build/ and no linux-source-6.1"
	fi
	sweep 255 "" "$FIX/hotplug-255.log" --out "$TMP/kpsweep" >/dev/null 2>&1 || {
		echo "the fake sweep failed"
		return 1
	}
	report_folder "$TMP/kp"
	"$HARNESS/report.sh" "$TMP/kp" >/dev/null 2>&1 || true
	out=$("$HARNESS/../ci/kunit-parse.sh" --build-dir "$build" "$TMP/kp/results.ktap") && rc=1
	[[ $out == *"Testing complete."*"failed: "* ]] || {
		echo "kunit.py did not see the failures: $out"
		rc=1
	}
	"$HARNESS/../ci/kunit-parse.sh" --build-dir "$build" "$TMP/kpsweep/results.ktap" >/dev/null || {
		echo "kunit.py parse rejects a passing sweep's results.ktap"
		rc=1
	}
	return $rc
}

# The ready CI definitions parse as YAML, shard the sweep over a matrix
# whose size matches --shard's N, merge after it, and run only options
# that sweep-smp.sh documents.
test_ci_definitions() {
	local repo=$HARNESS/.. out opt help rc=0
	out=$(python3 - "$repo/ci/github/pid-max-sweep.yml" "$repo/ci/gitlab/pid-max-sweep.gitlab-ci.yml" <<'PY'
import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))
gl = yaml.safe_load(open(sys.argv[2]))
shards = gh["jobs"]["sweep"]["strategy"]["matrix"]["shard"]
assert shards == list(range(1, len(shards) + 1)), shards
runs = [s.get("run", "") for s in gh["jobs"]["sweep"]["steps"]]
sweep = [r for r in runs if "harness/sweep-smp.sh" in r]
assert len(sweep) == 1 and "--shard ${{ matrix.shard }}/%d" % len(shards) in sweep[0], sweep
assert gh["jobs"]["merge"]["needs"] == "sweep"
assert any("harness/merge-results.sh" in s.get("run", "") for s in gh["jobs"]["merge"]["steps"])
assert gl["sweep"]["parallel"] >= 2 and gl["sweep"]["stage"] == "sweep"
script = " ".join(gl["sweep"]["script"])
assert '--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"' in script, script
assert gl["merge"]["needs"][0]["job"] == "sweep"
assert any("harness/merge-results.sh" in c for c in gl["merge"]["script"])
print(sweep[0] + " " + script)
PY
	) || {
		echo "the CI definitions do not parse or lack a part: $out"
		return 1
	}
	# (the help in a variable: grep -q on a pipe would SIGPIPE the writer)
	help=$("$HARNESS/sweep-smp.sh" --help)
	for opt in $(grep -o -- '--[a-z-]*' <<<"$out" | sort -u); do
		grep -q -- "^  $opt " <<<"$help" || {
			echo "the CI definitions use $opt, which sweep-smp.sh --help does not name"
			rc=1
		}
	done
	return $rc
}
