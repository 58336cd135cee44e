#!/bin/bash
# test.sh - the project's test command (README.md; .ci/run calls it).
#
# Installs what it needs (as root), then runs the steps named on its
# command line, or every step of "all" (what CI runs) with none. Each
# step is one row of the step table below, its command with it (--list
# prints them with what each needs and about how long it takes); its
# counts come from its closing "N passed, N failed, N skipped" line, or
# from its exit status. A step that fails does not stop the others.
# Ends with a table of every step (wall seconds, counts, exit status),
# written to steps.csv in the results folder as well, and the sum as
# "N passed, N failed, N skipped"; exits non-zero if anything failed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"

# CPU counts that cross every regime of the formula up to 255: the
# floors' edges 4/5 (BASE_SMALL) and 32/33, the clamp of BASE_SMALL at
# 32/33, pid_max_min's 37/38, and the top.
REGIME_CPUS=1,2,4,5,8,16,31,32,33,34,37,38,64,100,128,200,255
# The same for a full kernel alone (no BASE_SMALL edges), with fewer
# points between: the hotplug tier of 6.12 and 7.3 (machine vmware);
# their online tier takes 117 s for 200 CPUs, 165 s for 255.
FULL_REGIME_CPUS=1,2,31,32,33,34,37,38,64,128,255
# The online tier of CI's 6.1 sweep: the default list (DEFAULT_ONLINE
# of harness/pidmax/plan.py) without 96, 128 and 192 (boots of 7 to 64 s that run
# alone), still crossing 32/33 and the top, and the PID budget's fit.
CI_ONLINE=1,2,4,8,16,32,33,64,255
# CI's 6.1 steps boot every tier on one kernel a variant
# (--fewest-kernels: NR_CPUS 8192 with x2APIC, the wide tiers' kernel),
# two builds instead of five; the NR_CPUS 256 kernels that users' sweeps
# boot the 1..255 tiers on are left to the full lists (docs/ci.md).

# The step table: step NAME TREE NEEDS ABOUT WHAT COMMAND... is one row.
# TREE is the kernel tree (harness/trees) whose builds under build/ the
# step makes or uses, or - for none (a step that unpacks a tree of its
# own removes it itself); a run of the group all removes the trees it
# unpacked once their last step is done (prune_builds). COMMAND is the
# step's command line, where @OUT@ stands for the results
# folder; a command @NAME is made at run time by the function
# step_NAME (it sets CMD, or SKIP to why the step cannot run). ABOUT is
# the wall time measured on the 2-core machine of README.md from a
# fresh clone of 74234d1 on 2026-12-05 (kernels built in the step that
# first needs them, about 6.5 minutes for a wide 6.1 kernel; packages
# installed); kunit-uml's and the boot steps' from earlier runs.
STEP_NAMES=()
declare -A STEP_TREE=() STEP_ROW=() STEP_CMD=()
step() {
	STEP_NAMES+=("$1")
	STEP_TREE[$1]=$2
	STEP_ROW[$1]="$3|$4|$5"
	STEP_CMD[$1]=$(printf '%q ' "${@:6}")
}
step shellcheck - "shellcheck" "25 s" "every shell script through shellcheck -S warning" @shellcheck
step self-tests - "bash, gawk, python3" "1.5 min" "harness/tests/run-tests.sh: the harness's own tests, no VM" \
	harness/tests/run-tests.sh
step series-6.1 - "linux-source-6.1, quilt" "20 s" "patch --fuzz=0, quilt push -a, checkpatch --strict" \
	ci/check-series.sh 6.1
step series-6.12 - "linux-source-6.12, quilt" "30 s" "the same on 6.12" ci/check-series.sh 6.12
step series-7.3 - "linux-source-7.3 (fetched), quilt" "40 s" \
	"mainline/'s series on 7.3: the same checks (a SKIP if trixie-backports is unreachable)" \
	ci/check-series.sh --mainline
step send-7.3 - "linux-source-7.3 (fetched), git, python3, perl" "2.5 min" \
	"harness/send-series.sh with a made-up identity: signed, per-patch To/Cc, applies with git am" \
	ci/check-send.sh @OUT@/send
# 6.12 takes 6.1's series unchanged (series-6.12 applies it): its
# prefixes are 6.1's, compiled once.
step prefixes-6.1 - "linux-source-6.1, quilt, gcc" "1.5 min" \
	"every prefix of the series compiles on its own with W=1 (kernel/pid.o, the KUnit suite as a module), no new warning" \
	ci/build-prefixes.sh 6.1
step prefixes-7.3 - "linux-source-7.3 (fetched), quilt, gcc" "2.5 min" \
	"the same for mainline/'s series on 7.3, with the pid_namespace selftests (a SKIP if trixie-backports is unreachable)" \
	ci/build-prefixes.sh 7.3
# kunit.py run under UML (kunit-uml, kunit-uml-7.3: a cold UML build of
# 4.5 to 5 minutes each) is the group kunit, left out of all to keep the
# test command within 50 minutes (docs/testing.md); kunit.py exec on the
# kernel a sweep step built is CI's kunit.py run.
step kunit-uml - "linux-source-6.1, gcc" "5 min" \
	"the suite through the kernel's own kunit.py run under UML (a build of its own)" ci/kunit-uml.sh
step kunit-exec-6.1 6.1 "sweep-6.1's kernel (built if need be)" "2 s" \
	"kunit.py exec: the suite on the sweep's kernel, booted by kunit.py" ci/kunit-uml.sh --exec --tree 6.1
step kunit-uml-7.3 - "linux-source-7.3 (fetched), gcc" "5 min" \
	"the same on 7.3 with mainline/'s series (a SKIP if trixie-backports is unreachable)" \
	ci/kunit-uml.sh --tree 7.3
step kunit-run-7.3-arm64 - "linux-source-7.3 (fetched), the arm64 cross gcc, QEMU for arm" "5 min" \
	"kunit.py run --arch arm64 on 7.3 with mainline/'s series: its own cross build, booted on QEMU's virt under TCG" \
	ci/kunit-uml.sh --tree 7.3 --arch arm64
# 6.1, both variants, on reduced lists that cross every regime (the full
# lists stay the defaults users get; CI's 90 minutes do not hold them and
# the other steps on a slow day): the hotplug tier at the edges of the
# formula (BASE_SMALL's 4/5 and 31/32/33, the full kernel's 32/33,
# pid_max_min's 37/38, the top) and between, ten of the twelve default
# online boots (the PID budget's points; 96 and 192 left out, about a
# minute), the possible tier at 256, the last unclamped 4096 and the
# clamped 4097.
step sweep-6.1 6.1 "QEMU, 2 kernel builds" "17 min" \
	"both variants, one kernel each: hotplug at 18 counts, 9 online, possible 256,4096,4097" \
	harness/sweep-smp.sh --tree 6.1 --variant all --fewest-kernels --out @OUT@/6.1 \
	--cpus "$REGIME_CPUS,254" --online "$CI_ONLINE" --possible "256,4096,4097" \
	--wide-online "" --wide-hotplug ""
# The baseline: a reduced list of every tier and the scenarios, on the
# patched kernels and again on the same configurations built without
# the series; the exit status is the patched kernels'. The patched side
# repeats some boots of sweep-6.1 (about 2 minutes) so that the
# comparison is one run; 4096 ids is left to sweep-6.1.
step baseline-6.1 6.1 "QEMU, 2 stock relinks" "3.5 min" \
	"a reduced list of every tier on patched and stock kernels, compare.csv" \
	harness/sweep-smp.sh --tree 6.1 --variant all --fewest-kernels --baseline \
	--out @OUT@/baseline-6.1 --cpus "1,33,255" --online "1,8,64" --possible "256,4097" \
	--wide-online "" --wide-hotplug ""
# QEMU 10 from bookworm-backports (never installed), full variant (the
# default lists add 256, 384 and 512 online, 2048 and 4096 possible).
step wide-6.1 6.1 "QEMU 10 (fetched), sweep-6.1's kernel" "2.5 min" \
	"288 CPUs online, 512 and 1024 firmware-described possible CPUs" \
	harness/sweep-smp.sh --tree 6.1 --variant full --fewest-kernels --out @OUT@/wide-6.1 \
	--only wide-online:288 --only "wide-hotplug:512,1024"
# Every mutant on the full variant (users' default is both variants:
# each was caught on both when last run; docs/ci.md).
step mutants-6.1 6.1 "QEMU, mutant relinks" "4.5 min" \
	"harness/mutants.sh on the full variant: every deliberate fault caught" \
	harness/mutants.sh --tree 6.1 --fewest-kernels --variant full --out @OUT@/mutants
# Under TCG 6.12 and 7.3 count QEMU's hotpluggable CPUs only on a
# detected hypervisor: their hotplug tier boots on the machine vmware
# (harness/machines) and crosses every regime of a full kernel; the
# online tier crosses 32/33 with no such description. 7.3 boots every
# tier on its NR_CPUS 8192 x2APIC kernel (one build), 512
# firmware-described CPUs past 255 on QEMU 10's q35 (wide-vmware: 49 s;
# 288 online did not finish in 267 s beside a build), and the scenarios
# (pid_max in a child pid namespace, the selftests).
step sweep-6.12 6.12 "QEMU, 1 build" "6 min" \
	"the full variant on 6.12: hotplug on the machine vmware at 11 counts, 4 online" \
	harness/sweep-smp.sh --tree 6.12 --variant full --out @OUT@/6.12 \
	--cpus "$FULL_REGIME_CPUS" --online "1,32,33,64"
step sweep-7.3 7.3 "linux-source-7.3 (fetched), QEMU 10, 1 build" "8.5 min" \
	"the full variant on 7.3: hotplug (vmware) at 11 counts, 4 online, 512 possible on q35, the scenarios" \
	harness/sweep-smp.sh --tree 7.3 --variant full --fewest-kernels --out @OUT@/7.3 \
	--cpus "$FULL_REGIME_CPUS" --online "1,32,33,64" --possible "" \
	--wide-online "" --wide-hotplug 512
step kunit-exec-7.3 7.3 "sweep-7.3's kernel (built if need be)" "2 s" \
	"kunit.py exec on 7.3's sweep kernel (a SKIP if trixie-backports is unreachable)" \
	ci/kunit-uml.sh --exec --tree 7.3
# 7.3's mutants (harness/mutants/7.3) on the kernel sweep-7.3 built (a
# relink each): min-above-max, which KUnit's
# pid_max_min_never_above_pid_max catches in any boot, at three boots;
# num-possible is arm64's (x86's possible map is dense: a skip here).
step mutants-7.3 7.3 "linux-source-7.3 (fetched), QEMU, mutant relinks" "30 s" \
	"harness/mutants.sh --tree 7.3 on the wide kernel: min-above-max caught, num-possible a skip (arm64's)" \
	harness/mutants.sh --tree 7.3 --fewest-kernels --cpus 1,33 --online 2 --out @OUT@/mutants-7.3
step sweep-debian - "QEMU, Debian's kernel (fetched)" "1 min" \
	"--kernel debian: hotplug 1,33,255, online 1,8,32,64, possible 4097" \
	harness/sweep-smp.sh --kernel debian --out @OUT@/debian \
	--only "hotplug:1,33,255" --only "online:1,8,32,64" --only possible:4097
# Debian's own 7.3 kernel: 33 online crosses the online regime (it
# oopsed on a stale int3 under TCG with a host thread a vCPU; since
# 6f221d2 it runs on one: docs/testing.md, "TCG's threads"); the
# series' pid_namespace selftests, which hold without the series, on
# the scenarios' selftests boot alone (9 s; the other five scenarios
# boot 40 to 64 CPUs of Debian's kernel, about a minute more).
step sweep-debian-7.3 - "QEMU, Debian's 7.3 kernel (fetched)" "35 s" \
	"--kernel debian --tree 7.3: hotplug (vmware) 1,32,33,255, online 1,33, the series' selftests" \
	harness/sweep-smp.sh --kernel debian --tree 7.3 --out @OUT@/debian-7.3 \
	--only "hotplug:1,32,33,255" --only "online:1,33" --only selftests
# arm64 (QEMU's virt with GICv3, TCG): 7.3 with the series and, with
# --baseline, without it, on reduced lists (docs/testing.md), every tier
# on one kernel (--fewest-kernels: NR_CPUS 4096, the suite as a module;
# one cross build and one stock relink instead of two each): the hotplug
# tier (-smp N, maxcpus=1) crossing 32/33 up to 256, online crossing
# 32/33 up to 64, and the holes machine at 64 CPU ids (48 possible) with
# its control, where the series and stock differ; and 4096 CPUs in the
# device tree (the possible tier), the top of arm64's NR_CPUS and of
# the scaling.
step sweep-7.3-arm64 7.3 "linux-source-7.3 (fetched), the arm64 cross gcc, QEMU for arm, dtc, 1 build and its stock relink" "7 min" \
	"7.3 with mainline/'s series cross-built for arm64 (NR_CPUS 4096), and without it: hotplug (maxcpus=1) 1,32,33,256, online 1,32,33,64, the holes machine at 64 with its control and the selftests, 4096 CPUs in the device tree, compare.csv" \
	harness/sweep-smp.sh --arch arm64 --tree 7.3 --baseline --fewest-kernels --out @OUT@/7.3-arm64 \
	--cpus "1,32,33,256" --online "1,32,33,64" --holes 64 --possible 4096
# 7.3's mutants on the arm64 kernel sweep-7.3-arm64 built (a cross
# relink each): min-above-max at one boot, num-possible on the holes
# machine at 64 CPU ids, which its header asks for (and its control).
step mutants-7.3-arm64 7.3 "linux-source-7.3 (fetched), the arm64 cross gcc, QEMU for arm, dtc, mutant relinks" "1.5 min" \
	"harness/mutants.sh --tree 7.3 --arch arm64: min-above-max and num-possible (the holes machine at 64) caught" \
	harness/mutants.sh --tree 7.3 --arch arm64 --fewest-kernels --cpus 1 --online "" \
	--out @OUT@/mutants-7.3-arm64
# Debian's own arm64 kernels on the same machines, by the stock model,
# the holes machine with the series' selftests (7.3's took 48 s); one
# CPU online of 256 took them 88 s (6.1) and 183 s (7.3), left to the
# full lists.
step sweep-debian-arm64 - "QEMU for arm, dtc, Debian's arm64 6.1 kernel (fetched)" "1 min" \
	"--kernel debian --arch arm64 (bookworm's): hotplug 1,33, online 1,33, the holes machine at 64 with the series' selftests, by the stock model" \
	harness/sweep-smp.sh --kernel debian --arch arm64 --out @OUT@/debian-arm64 \
	--only "hotplug:1,33" --only "online:1,33" --only holes:64
step sweep-debian-7.3-arm64 - "QEMU for arm, dtc, Debian's arm64 7.3 kernel (fetched)" "1.5 min" \
	"the same with trixie-backports' 7.3, and the series' selftests on the holes machine" \
	harness/sweep-smp.sh --kernel debian --arch arm64 --tree 7.3 --out @OUT@/debian-7.3-arm64 \
	--only "hotplug:1,33" --only "online:1,33" --only holes:64
step kunit-parse - "python3, kunit.py" "5 s" "the kernel's own KTAP consumer on the sweeps' results.ktap" \
	@kunit_parse
step boot-6.1 6.1 "QEMU, 1 build" "5 s" "one real boot of 6.1 (hotplug 255)" \
	harness/sweep-smp.sh --tree 6.1 --out @OUT@/boot-6.1 --only hotplug:255
step boot-6.12 6.12 "QEMU, 1 build" "15 s" "one real boot of 6.12 (online 64)" \
	harness/sweep-smp.sh --tree 6.12 --out @OUT@/boot-6.12 --only online:64
step boot-7.3 7.3 "linux-source-7.3 (fetched), QEMU, 1 build" "15 s" \
	"one real boot of 7.3 (hotplug 255 on the machine vmware)" \
	harness/sweep-smp.sh --tree 7.3 --out @OUT@/boot-7.3 --only hotplug:255

# Named lists of steps. all: what CI runs. quick: a contributor's check,
# under 5 minutes once the kernels are built. kunit: the suite through
# the kernel's own kunit.py, run under UML and exec'd.
declare -A STEP_GROUPS=(
	[all]="shellcheck self-tests series-6.1 series-6.12 series-7.3 send-7.3 prefixes-6.1 prefixes-7.3 sweep-6.1 kunit-exec-6.1 baseline-6.1 wide-6.1 mutants-6.1 sweep-6.12 sweep-7.3 kunit-exec-7.3 mutants-7.3 sweep-7.3-arm64 mutants-7.3-arm64 sweep-debian sweep-debian-7.3 sweep-debian-arm64 sweep-debian-7.3-arm64 kunit-parse"
	[kunit]="kunit-uml kunit-uml-7.3 kunit-run-7.3-arm64 kunit-exec-6.1 kunit-exec-7.3"
	[quick]="shellcheck self-tests series-6.1 series-6.12 series-7.3 send-7.3 boot-6.1 boot-6.12 boot-7.3"
)

USAGE="Usage: ci/test.sh [--list] [STEP|GROUP]...
Run the named steps (default: the group all, what CI runs) and print a
table of each step's wall seconds and counts, also written to
\$RESULTS_DIR/steps.csv (default results/ci).
Groups: all, quick (shellcheck, self-tests, series checks, one real
boot per tree: under 5 minutes once the kernels are built), kunit
(kunit.py run under UML on 6.1 and 7.3, and kunit.py exec).
A run of the group all removes each kernel tree it unpacked under
build/ once no later step needs it; what build/ held before is kept.
  --keep-builds  keep them (to run single steps on those kernels later)
  --list  print every step, what it needs and about how long it takes"

# step_command NAME OUT: set CMD to the step's command line (its row's,
# with @OUT@ made OUT), or SKIP to the reason it cannot run.
step_command() {
	CMD=() SKIP=""
	[[ -n ${STEP_CMD[$1]:-} ]] || return 1
	eval "CMD=(${STEP_CMD[$1]})"
	CMD=("${CMD[@]//@OUT@/$2}")
	[[ ${CMD[0]} != @* ]] || "step_${CMD[0]#@}" "$2"
}

# step_shellcheck: every shell script of the checkout.
step_shellcheck() {
	local -a scripts
	mapfile -t scripts < <(git -C "$REPO" ls-files '*.sh' .ci/run 2>/dev/null ||
		find . -name '*.sh' -not -path './build/*' -not -path './results/*')
	CMD=(shellcheck -S warning "${scripts[@]}")
}

# step_kunit_parse OUT: kunit.py parse on every sweep's results.ktap.
step_kunit_parse() {
	local -a ktap=()
	local d
	for d in 6.1 6.12 7.3 debian debian-7.3 wide-6.1 7.3-arm64 debian-arm64 debian-7.3-arm64; do
		[[ ! -r $1/$d/results.ktap ]] || ktap+=("$1/$d/results.ktap")
	done
	((${#ktap[@]})) || SKIP="no sweep's results.ktap in $1: run a sweep step first"
	CMD=(ci/kunit-parse.sh "${ktap[@]}")
}

# run_step NAME OUT: run one step with its output shown; append its row
# (name, seconds, passed, failed, skipped, exit) to ROWS.
run_step() {
	local name=$1 out=$2 rc=0 last p=0 f=0 s=0 t0 secs
	local log="$out/$name.log"
	step_command "$name" "$out"
	t0=$(date +%s.%N)
	if [[ -n $SKIP ]]; then
		echo "=== $name: SKIP: $SKIP"
		ROWS+=("$name,0,0,0,1,skip")
		return 0
	fi
	echo "=== $name: ${CMD[*]}"
	"${CMD[@]}" 2>&1 | tee "$log" || rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
	last=$(tail -n 1 "$log")
	if [[ $last =~ $SUMMARY_RE ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
		# A step that fails with no failed test is one failure more.
		((rc == 0 || f > 0)) || f=$((f + 1))
	elif ((rc == 0)); then
		p=1
	else
		f=1
	fi
	echo "=== $name: exit $rc, $secs s"
	ROWS+=("$name,$secs,$p,$f,$s,$rc")
}

# prune_builds BUILD STEP REST...: remove the build folders of STEP's
# tree (its unpacked source, objects and images) when none of the steps
# REST still to run uses that tree, and this run made them: a folder
# named in KEPT (one "path" a line, what BUILD held when the run began)
# is left as it is. The run of the group all does this, so that the
# test command needs the disk of one tree at a time (about 2 GB) and
# not of every tree (docs/testing.md).
prune_builds() {
	local build=$1 tree=${STEP_TREE[$2]} later path
	shift 2
	[[ $tree != - ]] || return 0
	for later; do
		[[ ${STEP_TREE[$later]} != "$tree" ]] || return 0
	done
	local -a gone=()
	for path in "$build/src/linux-source-$tree" "$build/obj-$tree-"* "$build/kernel-$tree-"*; do
		[[ -e $path ]] || continue
		grep -qxF "$path" <<<"$KEPT" || gone+=("$path")
	done
	((${#gone[@]})) || return 0
	echo "=== removing what this run built of $tree, which no later step uses: ${gone[*]#"$build/"}"
	(build_lock "$build" && rm -rf "${gone[@]}")
}

# list_steps: every step, its needs, its time, what it does.
list_steps() {
	local name needs about what g
	printf '%-16s %-7s %-37s %s\n' STEP ABOUT NEEDS WHAT
	for name in "${STEP_NAMES[@]}"; do
		IFS='|' read -r needs about what <<<"${STEP_ROW[$name]}"
		printf '%-16s %-7s %-37s %s\n' "$name" "$about" "$needs" "$what"
	done
	for g in all quick kunit; do
		printf 'group %s: %s\n' "$g" "${STEP_GROUPS[$g]}"
	done
}

# print_table CSV: the steps' table and the sum.
print_table() {
	awk -F, 'NR == 1 { printf "%-13s %8s %7s %7s %8s %5s\n", "step", "seconds", "passed", "failed", "skipped", "exit"; next }
		{ printf "%-13s %8s %7s %7s %8s %5s\n", $1, $2, $3, $4, $5, $6
		  t += $2; p += $3; f += $4; s += $5 }
		END { printf "%-13s %8d %7d %7d %8d\n", "total", t, p, f, s }' "$1"
}

main() {
	local list=0 prune=0 keep=0 a name i
	parse_options "$USAGE" "list,keep-builds" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--list) list=1 ;;
		--keep-builds) keep=1 ;;
		esac
		shift
	done
	shift
	if ((list)); then
		(($# == 0)) || usage_error "--list takes no operands"
		list_steps
		return 0
	fi
	(($#)) || set -- all
	local -a names=()
	for a; do
		[[ $a != all ]] || prune=$((1 - keep))
		if [[ -n ${STEP_GROUPS[$a]:-} ]]; then
			# shellcheck disable=SC2206 # a group is a list of words
			names+=(${STEP_GROUPS[$a]})
			continue
		fi
		[[ -n ${STEP_ROW[$a]:-} ]] || usage_error "no step or group '$a' (ci/test.sh --list)"
		names+=("$a")
	done

	cd "$REPO"
	local out=${RESULTS_DIR:-$REPO/results/ci}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	# The lint and the self-tests need no kernel tree, QEMU or gnuplot.
	# A step of another architecture needs its packages (harness/arches).
	local deps=self
	local -a arches=()
	for name in "${names[@]}"; do
		[[ $name == @(shellcheck|self-tests) ]] || deps="test"
		[[ $name != *-arm64 ]] || arches=(arm64)
	done
	"$REPO/harness/deps.sh" "$deps" "${arches[@]}"
	local build=$REPO/build
	KEPT=$(printf '%s\n' "$build/"* "$build/src/"*)
	# Said before anything is built, so that a full disk is plain from the
	# log: the group all needs about 4 GB (docs/testing.md, "Disk"). A df
	# that cannot tell stops nothing.
	df -Pk "$REPO" | awk 'NR == 2 { printf "=== disk: %.1f GB free for build/ and results/\n", $4 / 1048576 }' ||
		true
	ROWS=()
	for ((i = 0; i < ${#names[@]}; i++)); do
		run_step "${names[i]}" "$out"
		((prune == 0)) || prune_builds "$build" "${names[@]:i}"
	done
	printf '%s\n' "step,seconds,passed,failed,skipped,exit" "${ROWS[@]}" >"$out/steps.csv"
	print_table "$out/steps.csv"
	echo "(steps and seconds also in $out/steps.csv)"
	local p f s
	read -r p f s < <(awk -F, 'NR > 1 { p += $3; f += $4; s += $5 } END { print p + 0, f + 0, s + 0 }' "$out/steps.csv")
	summary_line "$p" "$f" "$s"
	((f == 0))
}

# Sourced (by the self-tests), it only defines the table and functions.
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
