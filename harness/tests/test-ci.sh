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

# fake_kunit_py TREE: a kunit.py at TREE/tools/testing/kunit/ that starts
# QEMU as 7.3's does: its accelerators ("-accel kvm -accel hvf -accel
# tcg") before the qemu_config's own extra_qemu_params; it reports the
# suite passed when QEMU exits 0.
fake_kunit_py() {
	mkdir -p "$1/tools/testing/kunit"
	cat >"$1/tools/testing/kunit/kunit.py" <<'PY'
import ast, re, subprocess, sys
config = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--qemu_config="))
extra = ast.literal_eval(re.search(r"extra_qemu_params=(\[[^]]*\])", open(config).read()).group(1))
cmd = ["qemu-system-x86_64", "-nodefaults", "-m", "1024", "-kernel", "vmlinux",
       "-append", "console=ttyS0", "-no-reboot", "-nographic", "-serial", "file:serial.log",
       "-accel", "kvm", "-accel", "hvf", "-accel", "tcg"] + extra
if subprocess.call(cmd) == 0:
    print("======== [PASSED] pid_max ========")
    print("Testing complete. Ran 7 tests: passed: 7")
PY
}

# The kernel's kunit.py chooses its own accelerators; ci/kunit-uml.sh
# --exec must run its QEMU under the probe's verdict alone. Here the
# verdict is TCG (no usable /dev/kvm, or the probe's cached "tcg"), and
# the fake QEMU must see "-accel tcg" and no other accelerator.
test_kunit_exec_runs_under_probed_accel() {
	local build="$TMP/build" kdir="$TMP/k" args="$TMP/args" out
	fake_build "$build"
	fake_kunit_py "$build/src/linux-source-7.3"
	mkdir -p "$kdir" "$TMP/qemu"
	echo "fake vmlinux" >"$kdir/vmlinux"
	printf 'CONFIG_PID_MAX_KUNIT_TEST=y\nCONFIG_BASE_SMALL=0\nCONFIG_64BIT=y\n' >"$kdir/.config"
	ln -s "$TESTS/fake-qemu.sh" "$TMP/qemu/qemu-system-x86_64"
	echo "$(cat /proc/sys/kernel/random/boot_id) tcg" >"$build/kvm-probe"
	: >"$TMP/empty"
	out=$(PATH="$TMP/qemu:$PATH" PIDMAX_TARBALL="$kdir/vmlinux" FAKE_QEMU_ARGS="$args" \
		FAKE_QEMU_LOG="$TMP/empty" "$HARNESS/../ci/kunit-uml.sh" --build-dir "$build" \
		--tree 7.3 --exec --kernel-dir "$kdir") || {
		echo "kunit-uml.sh --exec failed: $out"
		return 1
	}
	expect_eq "the accelerators QEMU saw" "$(grep -x -A1 -e -accel -e -enable-kvm "$args" | grep -v -e '^--$' | paste -sd' ')" "-accel tcg"
	[[ $out == *"under tcg"* ]] || {
		echo "the verdict does not name the accelerator: $out"
		return 1
	}
}

# qemu-accel.sh keeps the accelerator it is given and drops the rest,
# for either verdict, keeping the caller's properties of the one kept.
test_qemu_accel_keeps_the_verdict() {
	local args="$TMP/args" verdict want
	mkdir -p "$TMP/qemu"
	: >"$TMP/empty"
	ln -s "$TESTS/fake-qemu.sh" "$TMP/qemu/qemu-system-x86_64"
	for verdict in tcg kvm; do
		PATH="$TMP/qemu:$PATH" "$HARNESS/qemu-accel.sh" --wrap "$TMP/wrap-$verdict" "$verdict" >/dev/null
		PATH="$TMP/wrap-$verdict:$TMP/qemu:$PATH" FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$TMP/empty" \
			qemu-system-x86_64 -accel kvm -accel hvf -accel tcg -enable-kvm \
			-accel tcg,thread=single -serial "file:$TMP/serial"
		want="-accel tcg,thread=single"
		[[ $verdict == tcg ]] || want="-accel kvm"
		expect_eq "under $verdict, the accelerators" \
			"$(grep -x -A1 -e -accel -e -enable-kvm "$args" | grep -v -e '^--$' | paste -sd' ')" "$want"
	done
}

# The judge's list of KUnit cases is the suite's: every KUNIT_CASE() of
# the KUnit patch of both series, in order, and nothing else.
test_kunit_cases_match_the_series() {
	local want series got
	want=$(grep -v '^#' "$HARNESS/config/kunit-pid_max.cases")
	for series in "$HARNESS/.." "$HARNESS/../mainline"; do
		got=$(cat "$series"/*.patch | sed -n 's/^+\tKUNIT_CASE(\([a-z0-9_]*\)),$/\1/p')
		expect_eq "the cases of $(basename "$(realpath "$series")")" "$got" "$want"
	done
}

# ci/test.sh's run of the group all removes a tree's build folders after
# the last step that uses the tree, and only the folders it made: here
# 6.1's source and objects are the run's, 7.3's object folder was there
# before it, and 6.12 is used by a later step. The image folders are
# named by build-kernel.sh itself (--fragments), so that the test fails
# if its names and the removal's patterns part.
test_ci_prunes_what_the_run_built() {
	local b=$TMP/prune rc=0 out k61 k73
	# (whole, then its first line: head on a pipe would SIGPIPE the writer)
	k61=$("$HARNESS/build-kernel.sh" --fragments "$b" 6.1 full) || return 1
	k73=$("$HARNESS/build-kernel.sh" --fragments --arch arm64 "$b" 7.3 full-kmod-nr4096) || return 1
	k61=${k61%%$'\n'*} k73=${k73%%$'\n'*}
	expect_eq "6.1's image folder" "$k61" "$b/kernel-6.1-full" || rc=1
	mkdir -p "$b/src/linux-source-6.1" "$b/src/linux-source-6.12" "$b/src/linux-source-7.3" \
		"$b/obj-6.1-full" "$b/obj-6.12-full" "$k61" "$b/obj-7.3-arm64-full" \
		"$b/obj-7.3-full" "$k73" "$b/logs"
	out=$(
		# shellcheck source=ci/test.sh
		. "$HARNESS/../ci/test.sh"
		# shellcheck disable=SC2034 # read by prune_builds
		KEPT=$(printf '%s\n' "$b/obj-7.3-arm64-full" "$b/logs")
		prune_builds "$b" mutants-6.1 sweep-6.12 sweep-7.3
		prune_builds "$b" sweep-6.12 sweep-7.3 boot-6.12
		prune_builds "$b" mutants-7.3-arm64 sweep-debian kunit-parse
		prune_builds "$b" sweep-debian kunit-parse
	) || rc=1
	local gone kept
	for gone in src/linux-source-6.1 obj-6.1-full kernel-6.1-full src/linux-source-7.3 obj-7.3-full \
		"${k73#"$b/"}"; do
		[[ ! -e $b/$gone ]] || { echo "$gone was not removed"; rc=1; }
	done
	for kept in src/linux-source-6.12 obj-6.12-full obj-7.3-arm64-full logs; do
		[[ -d $b/$kept ]] || { echo "$kept was removed"; rc=1; }
	done
	[[ $out == "=== removing what this run built of 6.1, which no later step uses: src/linux-source-6.1 obj-6.1-full kernel-6.1-full
=== removing what this run built of 7.3, which no later step uses: src/linux-source-7.3 obj-7.3-full kernel-7.3-arm64-full-kmod-nr4096" ]] ||
		{ echo "unexpected output: $out"; rc=1; }
	return $rc
}
