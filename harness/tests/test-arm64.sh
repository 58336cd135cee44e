# shellcheck shell=bash
# test-arm64.sh - the second architecture: its tables, the formula's two
# models, the holes tier's plan, device tree and boot, and the report of
# a recorded arm64 boot (how each model judges the recorded arm64 boots
# is harness/pidmax/tests/test_recorded.py's).
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# arm64_config: an arm64 .config of 7.3 (a recorded x86 one with the
# architecture's symbol and version changed) in $TMP/config-arm64.
arm64_config() {
	sed -e 's/^CONFIG_X86=y/CONFIG_ARM64=y/' -e 's|^# Linux/x86 6.12.[0-9]* Kernel Configuration|# Linux/arm64 7.3.4 Kernel Configuration|' \
		"$FIX/config-6.12-full" >"$TMP/config-arm64"
	grep -q '^# Linux/arm64 7.3.4 ' "$TMP/config-arm64" || {
		echo "the recorded .config's header changed"
		return 1
	}
}

# The tables: an arm64 .config is arm64's, its machine virt, and a
# machine's row names its architecture.
test_arch_tables() {
	local rc=0
	arm64_config || return 1
	arch_row arm64 || return 1
	expect_eq "arm64 row" "$ARCH_MACHINE $ARCH_FIRMWARE $ARCH_QEMU $ARCH_CONSOLE $ARCH_MAXCPUS ${ARCH_PACKAGES%%,*}" \
		"virt dt qemu-system-aarch64 ttyAMA0 512 qemu-system-arm" || rc=1
	must_fail 'unknown architecture "sparc"' arch_row sparc || rc=1
	return $rc
}

# fields JOB KEY...: "KEY=VALUE ..." of JOB for those keys, in order (as
# job_field reads them, all in one start of the package's reader).
fields() {
	local i out=""
	local -a keys=("${@:2}") values
	mapfile -t values < <("$HARNESS/pidmax.sh" field "${keys[@]}" <<<"$1" | tr '\t' '\n')
	((${#values[@]} == ${#keys[@]})) || return 1
	for i in "${!keys[@]}"; do
		out+="${keys[i]}=${values[i]} "
	done
	echo "${out% }"
}

# The plan of an arm64 kernel: the hotplug tier as -smp N with
# maxcpus=1, the holes tier and its control, the selftests on the holes
# machine, and the x86 tiers as skips; on x86 the holes tier is a skip.
test_plan_arm64_tiers() {
	local rc=0 out line
	arm64_config || return 1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$TMP/config-arm64" --initrd /i --label a \
		--accel kvm --cpus 33 --online "" --holes 8,64 --possible 300,200 --wide-online 300 --scenarios no \
		--selftests "/s.cpio 3" --selftests-unchanged "/u.cpio 3")
	line=$(grep -- '-hotplug-033' <<<"$out")
	expect_eq "hotplug" "$(fields "$line" smp append possible online pid_max machine accel)" \
		"smp=33 append=maxcpus=1 possible=33 online=1 pid_max=33792 machine=virt accel=tcg" || rc=1
	line=$(grep -P 'name=a-holes-064-h1-16\t' <<<"$out")
	expect_eq "holes" "$(fields "$line" smp holes possible cpu_ids pid_max pid_max_min line_min)" \
		"smp=64 holes=1-16 possible=48 cpu_ids=64 pid_max=65536 pid_max_min=512 line_min=512" || rc=1
	line=$(grep -P 'name=a-holes-064-h48-63\t' <<<"$out")
	expect_eq "control" "$(fields "$line" holes possible cpu_ids pid_max pid_max_min)" \
		"holes=48-63 possible=48 cpu_ids=48 pid_max=49152 pid_max_min=384" || rc=1
	expect_eq "selftests" "$(grep -o 'name=a-holes-[^[:space:]]*selftests[^[:space:]]*' <<<"$out" | paste -sd' ')" \
		"name=a-holes-064-h1-16-selftests name=a-holes-064-h1-16-selftests-unchanged" || rc=1
	# The series' selftests judged, the tree's own recorded.
	line=$(grep -P 'name=a-holes-064-h1-16-selftests\t' <<<"$out")
	expect_eq "series'" "$(fields "$line" initrd_extra selftests selftests_judged)" \
		"initrd_extra=/s.cpio selftests=3 selftests_judged=none" || rc=1
	line=$(grep -- '-selftests-unchanged' <<<"$out")
	expect_eq "unchanged" "$(fields "$line" initrd_extra selftests_judged)" \
		"initrd_extra=/u.cpio selftests_judged=no" || rc=1
	expect_eq "skips" "$(grep -c $'\tskip=arm64 boots a device tree' <<<"$out")" 1 || rc=1
	# The possible tier: a device tree of N CPUs, one run; past the
	# kernel's NR_CPUS (256 in this .config) a skip.
	line=$(grep -- '-possible-0200' <<<"$out")
	expect_eq "possible" "$(fields "$line" smp append dt_cpus possible online pid_max pid_max_min)" \
		"smp=1 append=maxcpus=1 dt_cpus=200 possible=200 online=1 pid_max=204800 pid_max_min=1600" || rc=1
	[[ $out == *"-possible-0300"$'\t'*"skip=NR_CPUS is 256: 300 CPUs need"* ]] || { echo "300 > NR_CPUS planned"; rc=1; }
	# Without the series: the stock model, on the holes and the control.
	out=$("$HARNESS/plan.sh" --kernel /k --config "$TMP/config-arm64" --initrd /i --label a \
		--series no --cpus "" --online "" --holes 64 --scenarios no)
	expect_eq "stock" "$(grep -o $'\tpid_max=[0-9]*\tpid_max_min=[0-9]*' <<<"$out" | tr -d '\t' | paste -sd' ')" \
		"pid_max=49152pid_max_min=384 pid_max=49152pid_max_min=384" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i --label x \
		--cpus "" --online "" --holes 64 --scenarios no)
	[[ $out == *$'\tskip='*"needs a device tree"* ]] || { echo "x86 planned holes: $out"; rc=1; }
	must_fail "outside 4-512" "$HARNESS/plan.sh" --kernel /k --config "$TMP/config-arm64" \
		--initrd /i --cpus "" --online "" --holes 3 || rc=1
	return $rc
}

# holes-dtb.sh: QEMU's device tree (the fake QEMU's, of -smp cpu nodes)
# less the enable method of the holes, the rest kept; a hole past the
# last CPU is an error that writes nothing.
test_holes_dtb() {
	needs dtc device-tree-compiler
	needs fdtget device-tree-compiler
	local rc=0 out="$TMP/h.dtb" id got=""
	"$HARNESS/holes-dtb.sh" "$out" 1-2 "$TESTS/fake-qemu.sh" -machine virt -smp 4 || return 1
	for id in 0 1 2 3; do
		got+="$(fdtget -d none "$out" "/cpus/cpu@$id" enable-method) "
	done
	expect_eq "enable methods" "$got" "psci none none psci " || rc=1
	must_fail "no /cpus/cpu@4" "$HARNESS/holes-dtb.sh" "$TMP/past.dtb" 4 "$TESTS/fake-qemu.sh" -smp 4 || rc=1
	[[ ! -e $TMP/past.dtb ]] || { echo "a failed device tree was left"; rc=1; }
	return $rc
}

# boot-guest.sh on the machine virt: arm64's emulator (the job's), its
# console, the machine's arguments, and with holes the device tree,
# removed after the boot.
test_boot_holes_job() {
	needs dtc device-tree-compiler
	needs fdtput device-tree-compiler
	local rc=0 args="$TMP/holes.args" job
	arm64_config || return 1
	job_kernel /k "$TMP/config-arm64" /dev/null a tcg || return 1
	: >"$TMP/k"
	job=$(make_job holes-008-h1-2 holes 6 1 8 append=maxcpus=1 holes=1-2 cpu_ids=8 \
		"qemu=$TESTS/fake-qemu.sh")
	job=${job//$'\t'kernel=\/k$'\t'/$'\t'kernel=$TMP\/k$'\t'}
	FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$FIX/arm64-holes-064-h1-16-7.3.log" \
		"$HARNESS/boot-guest.sh" "$job" "$TMP/holes.log" || return 1
	expect_eq "qemu" "$(grep -A1 -x -e -machine -e -cpu -e -smp -e -dtb "$args" | grep -v -x -e -- | paste -sd' ')" \
		"-machine virt,gic-version=3 -cpu cortex-a57 -dtb $TMP/holes.log.dtb -smp 8" || rc=1
	grep -q '^console=ttyAMA0 .* maxcpus=1$' "$args" || { echo "not arm64's console: $(cat "$args")"; rc=1; }
	[[ ! -e $TMP/holes.log.dtb ]] || { echo "the device tree was left"; rc=1; }
	return $rc
}

# The baseline of a holes job: the stock model's values, and every
# selftest judged there (the tree's own, recorded on the patched
# kernel, and the series', which must pass without the series too).
test_baseline_holes() {
	local rc=0 k="$TMP/stock" out
	arm64_config || return 1
	mkdir -p "$k"
	: >"$k/Image"
	cp "$TMP/config-arm64" "$k/.config"
	"$HARNESS/plan.sh" --kernel /k --config "$TMP/config-arm64" --initrd /i --label a \
		--cpus "" --online "" --holes 64 --scenarios no --selftests "/s.cpio 3" \
		--selftests-unchanged "/u.cpio 3" >"$TMP/jobs"
	out=$("$HARNESS/baseline.sh" "$TMP/jobs" "a=$k/Image") || return 1
	expect_eq "holes" "$(fields "$(grep -P 'h1-16\t' <<<"$out")" possible pid_max pid_max_min line_default line_min model)" \
		"possible=48 pid_max=49152 pid_max_min=384 line_default=49152 line_min=384 model=stock" || rc=1
	expect_eq "selftests" "$(grep -o -e 'name=[^[:space:]]*selftests[^[:space:]]*' -e 'selftests_judged=[a-z]*' <<<"$out" | paste -sd' ')" \
		"name=a-stock-holes-064-h1-16-selftests selftests_judged=yes name=a-stock-holes-064-h1-16-selftests-unchanged selftests_judged=yes" || rc=1
	return $rc
}

# report.sh on the recorded unchanged selftests: the boot passes and the
# guest's failed selftest is nested as a SKIP that keeps what the guest
# said, so kunit.py parse counts no failure.
test_report_recorded_selftests() {
	local rc=0 d="$TMP/rep" job name
	export PIDMAX_KUNIT_CASES=$HARNESS/config/kunit-pid_max.cases
	arm64_config || return 1
	mkdir -p "$d/boots"
	job=$("$HARNESS/plan.sh" --kernel /k --config "$TMP/config-arm64" --initrd /i --label a \
		--cpus "" --online "" --holes 64 --scenarios no --selftests-unchanged "/u.cpio 3" |
		grep -- '-selftests-unchanged' | sed 's/\tkunit=0/\tkunit=1/')
	name=$(job_field "$job" name)
	printf '%s\n' "$job" >"$d/jobs"
	cp "$FIX/arm64-holes-064-selftests-unchanged-7.3.log" "$d/boots/$name.log"
	cp "$FIX/arm64-holes-064-selftests-unchanged-7.3.log.meta" "$d/boots/$name.log.meta"
	expect_eq "summary" "$("$HARNESS/report.sh" "$d" | tail -n 1)" "1 passed, 0 failed, 0 skipped" || rc=1
	grep -q '^ *ok 6 selftest_pid_max # SKIP recorded, not judged: the guest said "not ok # exit 1"' "$d/results.ktap" ||
		{ echo "the recorded failure is not a SKIP: $(grep selftest_pid_max "$d/results.ktap")"; rc=1; }
	! grep -q '^ *not ok' "$d/results.ktap" || { echo "a not ok is left: $(grep '^ *not ok' "$d/results.ktap")"; rc=1; }
	return $rc
}

# holes-dtb.sh --cpus: cpu nodes past QEMU's, with virt's MPIDR (16 to a
# cluster) and PSCI; QEMU's own nodes kept.
test_holes_dtb_more_cpus() {
	needs dtc device-tree-compiler
	needs fdtget device-tree-compiler
	local rc=0 out="$TMP/m.dtb"
	"$HARNESS/holes-dtb.sh" --cpus 40 "$out" "" "$TESTS/fake-qemu.sh" -smp 2 || return 1
	expect_eq "nodes" "$(fdtget -l "$out" /cpus | grep -c '^cpu@')" 40 || rc=1
	expect_eq "cpu@1, cpu@39" "$(fdtget "$out" /cpus/cpu@1 reg) $(fdtget -t x "$out" /cpus/cpu@39 reg) $(fdtget "$out" /cpus/cpu@39 enable-method)" \
		"1 207 psci" || rc=1
	must_fail "up to 4096" "$HARNESS/holes-dtb.sh" --cpus 5000 "$out" "" "$TESTS/fake-qemu.sh" || rc=1
	return $rc
}
