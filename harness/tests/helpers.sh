# shellcheck shell=bash
# helpers.sh - what every self-test file shares; run-tests.sh sources it
# before the test files. Each test runs in a subshell of its own with
# errexit, nounset and pipefail in force, in a fresh folder $TMP.
#
#   TESTS, HARNESS, FIX   the tests, the harness, the recorded logs
#   skip REASON           end the test as a KTAP SKIP with REASON
#   needs CMD PACKAGE     skip unless CMD is on this machine
#   unreachable_apt       needs apt-get, whose fetches fail at once
#   fake_build DIR        a build folder whose gen_init_cpio is a fake:
#                         a sweep with --kernel FILE needs no kernel tree
#
# The sweeps of the tests never need a Debian package: run-tests.sh
# points PIDMAX_DEPS (the package check) at true, BUSYBOX at a fake, and
# every sweep at a fake QEMU and a build folder from fake_build.

TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HARNESS=$(dirname "$TESTS")
FIX="$TESTS/fixtures"
# The recorded console logs in fixtures/ ran the suite's first version.
export PIDMAX_KUNIT_CASES="$FIX/kunit-pid_max-v1.cases"
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
# Set for each test by run-tests.sh.
TMP=${TMP:-/nonexistent}

# skip REASON: this test does not apply here; run-tests.sh counts it apart.
skip() {
	echo "SKIP: $*"
	exit 77
}

# needs CMD PACKAGE: skip the test unless CMD is installed.
needs() {
	command -v "$1" >/dev/null || skip "$1 not found (Debian package $2)"
}

# unreachable_apt: needs apt-get, and the apt of this test gives up on an
# unreachable archive at once, not after its retries (7 s a fetch).
unreachable_apt() {
	needs apt-get apt
	printf 'Acquire::Retries "0";\n' >"$TMP/apt.conf"
	export APT_CONFIG=$TMP/apt.conf
}

# fake_build DIR: DIR/bin/gen_init_cpio writes a stand-in initramfs, so
# build-initramfs.sh neither unpacks a kernel tarball nor compiles.
fake_build() {
	mkdir -p "$1/bin"
	printf '#!/bin/sh\necho "fake initramfs for the self-tests"\n' >"$1/bin/gen_init_cpio"
	chmod +x "$1/bin/gen_init_cpio"
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[[ $2 == "$3" ]] || {
		echo "$1: got '$2', want '$3'"
		return 1
	}
}

# job_for CPUS ONLINE SMALL IS64 [KUNIT [FIELD=VALUE...]]: a job line
# for a boot with CPUS possible and ONLINE online CPUs of a kernel with
# that BASE_SMALL, 64BIT and KUnit suite, as plan.sh makes them.
job_for() {
	job_kernel_is /k /c /i t tcg "$3" "$4" "${5:-0}"
	make_job "case-$1" hotplug "$1" "$2" "1,maxcpus=$1" "${@:6}"
}

# pick_fields KEY...: the fields KEY=VALUE of each job line read, in the
# line's order, whatever fields lie between them.
pick_fields() {
	awk -F'\t' -v keys="$*" '
		BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
		{ out = ""
		  for (i = 1; i <= NF; i++) {
			key = substr($i, 1, index($i, "=") - 1)
			if (key in want) out = out (out == "" ? "" : "\t") $i
		  }
		  print out }'
}

# judged LOG CPUS ONLINE SMALL IS64 [KUNIT [FIELD=VALUE...]]: judge.sh's
# whole answer for a recorded log.
judged() {
	"$HARNESS/judge.sh" "$(job_for "${@:2}")" "$("$HARNESS/parse-console.sh" "$1")"
}

# judge LOG CPUS ONLINE SMALL IS64 [KUNIT [FIELD=VALUE...]]: "VERDICT" or
# "VERDICT: CHECK,CHECK" with every check that failed, in order.
judge() {
	judged "$@" | awk -F'\t' '
		NR == 1 { v = substr($1, 9); next }
		$2 == "result=fail" { s = s "," substr($1, 7) }
		END { print v (s == "" ? "" : ": " substr(s, 2)) }'
}

# reason_of CHECK LOG CPUS ONLINE ...: the reason judge.sh gives for CHECK.
reason_of() {
	judged "${@:2}" | awk -F'\t' -v c="check=$1" '$1 == c { print substr($3, 8) }'
}

# edit_log SRC DST SED_SCRIPT: a copy of a recorded log (serial line
# ends CR LF made LF), edited, with its meta.
edit_log() {
	tr -d '\r' <"$1" | sed "$3" >"$2"
	cp "$1.meta" "$2.meta"
}

# fake_job SMP TIMEOUT: a job line for boot-guest.sh with the fake QEMU.
fake_job() {
	local f=$FIX/config-6.1-full
	job_kernel "$f" "$f" "$f" fake tcg
	make_job fake hotplug "${1##*=}" 1 "$1" "timeout=$2"
}

# sweep CPUS ONLINE LOG [OPTION...]: a sweep of a recorded log through
# the fake QEMU.
sweep() {
	fake_build "$TMP/build"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=replay FAKE_QEMU_LOG="$3" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/sweep" --cpus "$1" --online "$2" --possible "" --scenarios no "${@:4}"
}

# wide_config FILE [LINE...]: the recorded 6.1 .config with the KUnit
# suite as a wide kernel's (NR_CPUS 8192, x2APIC, interrupt remapping),
# and LINEs after it (a later line wins, as in pidmax/kconfig.py).
wide_config() {
	{
		sed 's/^CONFIG_NR_CPUS=.*/CONFIG_NR_CPUS=8192/' "$FIX/config-6.1-full-kunit"
		printf '%s\n' CONFIG_X86_X2APIC=y CONFIG_IRQ_REMAP=y "${@:2}"
	} >"$1"
}

# split_run RUN N PREFIX: the finished results folder RUN cut into N
# shard folders PREFIX1..PREFIXN, as N runners with --shard I/N would
# have left them (shard.sh's split, the same logs).
split_run() {
	local i d skip name names
	for ((i = 1; i <= $2; i++)); do
		d="$3$i"
		mkdir -p "$d/boots"
		cp "$1/plan" "$1/kernels" "$d/"
		echo "$i/$2" >"$d/shard"
		"$HARNESS/shard.sh" "$i/$2" "$1/plan" >"$d/jobs"
		# (a skipped job has no log)
		names=$("$HARNESS/pidmax.sh" field name skip <"$d/jobs")
		while IFS=$'\t' read -r name skip; do
			[[ $skip != none ]] || cp "$1/boots/$name.log"* "$d/boots/"
		done <<<"$names"
	done
}

# must_fail WANT_MESSAGE CMD...: CMD exits non-zero, says WANT_MESSAGE,
# and reports no pass.
must_fail() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "succeeded: $*"
		return 1
	fi
	[[ $out == *"$want"* ]] || {
		echo "message lacks '$want': $out"
		return 1
	}
	if grep -qE '^[1-9][0-9]* passed' <<<"$out"; then
		echo "reported a pass: $out"
		return 1
	fi
}

# report_folder DIR: a results folder with four jobs of two variants: a
# recorded passing boot, a boot never run, and their small twins.
report_folder() {
	local out=$1 cfg="$TMP/config-small"
	mkdir -p "$out/boots"
	sed 's/^CONFIG_BASE_SMALL=0/CONFIG_BASE_SMALL=1/' "$FIX/config-6.1-full" >"$cfg"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i \
		--label a --cpus 255 --online 33 --scenarios no >"$out/jobs"
	"$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i \
		--label b --cpus 255 --online 33 --scenarios no >>"$out/jobs"
	cp "$FIX/hotplug-255.log" "$out/boots/a-hotplug-255.log"
	cp "$FIX/hotplug-255.log.meta" "$out/boots/a-hotplug-255.log.meta"
	cp "$FIX/hotplug-255.log" "$out/boots/b-hotplug-255.log"
}

# plant_stale DIR: an earlier run's outputs, to be removed by the next.
plant_stale() {
	local f
	mkdir -p "$1/boots"
	for f in results.ktap results.csv results.xml checks.csv variants.csv \
		pid_max.svg pid_max.png jobs plan boots/old.log; do
		echo stale >"$1/$f"
	done
}

# same_results A B: the two folders report the same boots, verdicts and
# checks; only the timings (results.csv's seconds) may differ.
same_results() {
	local f rc=0
	for f in jobs results.ktap checks.csv; do
		cmp -s "$1/$f" "$2/$f" || {
			echo "$f differs: $(diff "$1/$f" "$2/$f" | head -n 4)"
			rc=1
		}
	done
	cmp -s <(cut -d, -f1-6,8- "$1/results.csv") <(cut -d, -f1-6,8- "$2/results.csv") || {
		echo "results.csv differs"
		rc=1
	}
	return $rc
}
