# shellcheck shell=bash
# test-boot.sh - the runner: boot-guest.sh and whole sweeps against a fake QEMU (hangs, crashes, interrupts, stale outputs).
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

test_boot_fake_hang_is_killed() {
	local log="$TMP/hang.log" pids="$TMP/hang.pids" pid
	: >"$pids"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/boot-guest.sh" "$(fake_job 1,maxcpus=4 2)" "$log"
	grep -q 'timed_out=1' "$log.meta" || {
		echo "meta: $(cat "$log.meta")"
		return 1
	}
	pid=$(head -n 1 "$pids")
	if kill -0 "$pid" 2>/dev/null; then
		echo "the hung fake QEMU ($pid) is still running"
		return 1
	fi
	[[ $(judge "$log" 4 1 0 1) == timeout:* ]]
}

test_boot_fake_crash_fails() {
	local log="$TMP/crash.log"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=crash \
		"$HARNESS/boot-guest.sh" "$(fake_job 1,maxcpus=4 5)" "$log"
	expect_eq "crash" "$(reason_of final_marker "$log" 4 1 0 1)" \
		"the guest's init never reported (qemu exit 1: fake-qemu: cannot start)"
}

# A wide job: its own QEMU (not $QEMU), q35 without SMM, with x2APIC
# and interrupt remapping, -smp 256,maxcpus=N, and no -initrd for
# initrd=builtin; the machine vmware's arguments; an unknown machine
# refused.
test_boot_wide_job() {
	local rc=0 log="$TMP/wide.log" args="$TMP/wide.args" f=$FIX/config-6.1-full job
	job_kernel "$f" "$f" builtin fake tcg
	job=$(make_job hotplug-1024 wide-hotplug 1024 1 256,maxcpus=1024 machine=wide \
		"qemu=$TESTS/fake-qemu.sh" append=maxcpus=1)
	QEMU=/nonexistent FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$FIX/hotplug-255.log" \
		"$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	expect_eq "machine" "$(grep -A1 -x -e -machine -e -cpu -e -device -e -smp "$args" | grep -v -x -e -- | paste -sd' ')" \
		"-machine q35,smm=off -cpu qemu64,+x2apic -device intel-iommu,intremap=on,eim=on -smp 256,maxcpus=1024" || rc=1
	! grep -q -x -e -initrd "$args" || {
		echo "a builtin initramfs was passed with -initrd"
		rc=1
	}
	job=$(sed 's/\tmachine=wide/\tmachine=vmware/' <<<"$job")
	QEMU=/nonexistent FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$FIX/hotplug-255.log" \
		"$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	expect_eq "vmware" "$(grep -A1 -x -e -machine -e -cpu -e -smbios "$args" | grep -v -x -e -- | paste -sd' ')" \
		"-machine pc,vmport=on -cpu qemu64,-hypervisor -smbios type=1,serial=VMware-56-4d-00" || rc=1
	job=$(sed 's/\tmachine=vmware/\tmachine=huge/' <<<"$job")
	must_fail 'unknown machine "huge"' "$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	return $rc
}

# accel_of JOB: the -accel that boot-guest.sh gives QEMU for JOB.
accel_of() {
	rm -f "$TMP/accel.args"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_ARGS="$TMP/accel.args" \
		FAKE_QEMU_LOG="$FIX/hotplug-255.log" "$HARNESS/boot-guest.sh" "$1" "$TMP/accel.log" || return 1
	grep -A1 -x -e -accel "$TMP/accel.args" | tail -n 1
}

# TCG's threads: one for a guest of up to 64 vCPUs started (one-CPU
# hotplug guests among them), one a vCPU past that; KVM as it is.
test_boot_tcg_threads() {
	local rc=0
	expect_eq "-smp 1,maxcpus=255" "$(accel_of "$(fake_job 1,maxcpus=255 5)")" tcg,thread=single || rc=1
	expect_eq "-smp 64" "$(accel_of "$(fake_job 64 5)")" tcg,thread=single || rc=1
	expect_eq "-smp 65" "$(accel_of "$(fake_job 65 5)")" tcg || rc=1
	expect_eq "-smp 256,maxcpus=1024" "$(accel_of "$(fake_job 256,maxcpus=1024 5)")" tcg || rc=1
	expect_eq "kvm" "$(accel_of "$(fake_job 8 5 | sed 's/\taccel=tcg/\taccel=kvm/')")" kvm || rc=1
	return $rc
}

test_boot_bad_job_refused() {
	must_fail "the job lacks its initrd field" \
		"$HARNESS/boot-guest.sh" "name=x"$'\t'"kernel=/k" "$TMP/bad.log"
}

# The runner reads every job before it boots any: a job list with a bad
# online field is refused whole, and no guest starts.
test_runner_bad_job_refused() {
	local d="$TMP/badjobs" job
	mkdir -p "$d"
	job=$(fake_job 1,maxcpus=4 5)
	{
		printf '%s\n' "$job"
		sed 's/\tonline=[^\t]*/\tonline=x/; s/\(^\|\t\)name=[^\t]*/\1name=other/' <<<"$job"
	} >"$d/jobs"
	QEMU="$TESTS/fake-qemu.sh" must_fail "jobs:2: job other: online is 'x', not a number" \
		"$HARNESS/run-jobs.sh" "$d" || return 1
	expect_eq "boots started" "$(find "$d/boots" -type f 2>/dev/null | wc -l)" 0
}

test_sweep_fake_pass() {
	local out rc=0
	out=$(sweep 255 "" "$FIX/hotplug-255.log" 2>&1) || {
		echo "$out"
		return 1
	}
	# The eight default wide counts (256,288,384,512 online, 512,1024,
	# 2048,4096 hotplug) are skips: the recorded kernel has no x2APIC.
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 0 failed, 8 skipped" || rc=1
	return $rc
}

# A --kernel run gets its picture, whatever the kernel's label.
test_sweep_fake_picture() {
	needs gnuplot gnuplot-nox
	sweep 255 "" "$FIX/hotplug-255.log" >"$TMP/out" 2>&1
	[[ -s $TMP/sweep/pid_max.svg && -s $TMP/sweep/pid_max.png ]] || {
		echo "no picture: $(cat "$TMP/out")"
		return 1
	}
}

test_sweep_fake_wrong_count_fails() {
	local out rc=0
	out=$(sweep 254,255 "" "$FIX/hotplug-255.log" 2>&1) && rc=1
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 1 failed, 8 skipped" || return 1
	grep -q '^254,1,261120,260096,2040,2032,[0-9.]*,fail,config-6.1-full-hotplug-254,hotplug,full,2040$' \
		"$TMP/sweep/results.csv" || {
		echo "csv: $(cat "$TMP/sweep/results.csv")"
		return 1
	}
	grep -q 'config-6.1-full-hotplug-254 *fail .*(failed: possible_cpus,pid_max,pid_max_min,boot_line)' <<<"$out" || {
		echo "the boot's line does not name its failed checks: $out"
		rc=1
	}
	# The sweep's end names the failed boot and its checks.
	grep -q '^sweep-smp.sh: failed config-6.1-full-hotplug-254 (possible_cpus, pid_max, pid_max_min, boot_line): ' <<<"$out" || {
		echo "the sweep's end does not name the failed boot: $out"
		rc=1
	}
	# The failed boot's console ends the same as its fixture, shown.
	[[ $out == *"last 15 lines of $TMP/sweep/boots/config-6.1-full-hotplug-254.log:"*"    | $(tail -n 1 "$FIX/hotplug-255.log")"* ]] || {
		echo "the failed boot's console tail is not shown: $out"
		rc=1
	}
	return $rc
}

test_sweep_interrupted_leaves_nothing() {
	local pids="$TMP/int.pids" pid spid i f
	: >"$pids"
	fake_build "$TMP/build"
	plant_stale "$TMP/int"
	QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/int" --cpus 1-4 --online "" --scenarios no --jobs 2 >/dev/null 2>&1 &
	spid=$!
	for ((i = 0; i < 300; i++)); do
		(($(wc -l <"$pids") >= 2)) && break
		sleep 0.1
	done
	(($(wc -l <"$pids") >= 2)) || {
		echo "the sweep started no two guests in 30 s"
		kill -TERM "$spid"
		return 1
	}
	kill -TERM "$spid"
	local rc=0
	wait "$spid" || rc=$?
	# A shell's status for a death by TERM.
	expect_eq "exit status" "$rc" 143 || return 1
	sleep 0.5
	while read -r pid; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "fake QEMU $pid survived the interrupted sweep"
			kill -KILL "$pid"
			return 1
		fi
	done <"$pids"
	for f in results.ktap results.csv results.xml checks.csv variants.csv \
		pid_max.svg pid_max.png boots/old.log; do
		[[ ! -e $TMP/int/$f ]] || {
			echo "an interrupted sweep left $f behind"
			return 1
		}
	done
}

# A finished run keeps nothing of an earlier one: a one-variant sweep
# leaves no variants.csv of an earlier --variant all run.
test_sweep_leaves_nothing_stale() {
	local rc=0
	plant_stale "$TMP/sweep"
	sweep 255 "" "$FIX/hotplug-255.log" >/dev/null 2>&1 || rc=1
	[[ ! -e $TMP/sweep/variants.csv && ! -e $TMP/sweep/boots/old.log ]] || {
		echo "stale files survived a new run"
		rc=1
	}
	grep -qx stale "$TMP/sweep/results.xml" "$TMP/sweep/pid_max.svg" "$TMP/sweep/checks.csv" && {
		echo "a stale output was not rewritten"
		rc=1
	}
	return $rc
}

# A first run on a fresh machine says nothing that looks like an error
# while it picks the accelerator (it once printed "No such file").
test_accel_fresh_build_dir_quiet() {
	local err rc=0 v
	v=$(QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=crash "$HARNESS/accel.sh" \
		"$TMP/fresh-build" "$FIX/config-6.1-full" "$FIX/config-6.1-full" \
		"$FIX/config-6.1-full" 2>"$TMP/accel.err") || rc=1
	expect_eq "verdict" "$v" tcg || rc=1
	err=$(cat "$TMP/accel.err")
	[[ $err == "accel.sh: accelerator: tcg ("* && $(wc -l <<<"$err") == 1 ]] || {
		echo "stderr: $err"
		rc=1
	}
	return $rc
}

test_missing_qemu_named() {
	QEMU=/nonexistent/qemu-system-x86_64 must_fail \
		"not found: apt-get install qemu-system-x86" \
		"$HARNESS/sweep-smp.sh" --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --cpus 1 --build-dir "$TMP/build" \
		--online "" --scenarios no --out "$TMP/noqemu"
}

# initrd_extra (the selftests' cpio): appended to a copy of the
# initramfs for QEMU's -initrd, removed after; alone beside a builtin one.
test_boot_initrd_extra() {
	local rc=0 log="$TMP/extra.log" args="$TMP/extra.args" f=$FIX/config-6.1-full job
	printf 'MAIN' >"$TMP/main.cpio"
	printf 'EXTRA' >"$TMP/extra.cpio"
	job_kernel "$f" "$f" "$TMP/main.cpio" fake tcg
	job=$(make_job selftests scenario 1 1 1 "initrd_extra=$TMP/extra.cpio" selftests=3)
	FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$FIX/hotplug-255.log" QEMU="$TESTS/fake-qemu.sh" \
		FAKE_QEMU_COPY_INITRD="$TMP/seen.cpio" "$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	expect_eq "-initrd" "$(grep -A1 -x -e -initrd "$args" | tail -n 1)" "$log.initrd" || rc=1
	expect_eq "guest's initrd" "$(cat "$TMP/seen.cpio" 2>/dev/null)" "MAINEXTRA" || rc=1
	[[ ! -e $log.initrd ]] || { echo "$log.initrd left behind"; rc=1; }
	job_kernel "$f" "$f" builtin fake tcg
	job=$(make_job selftests scenario 1 1 1 "initrd_extra=$TMP/extra.cpio" selftests=3)
	FAKE_QEMU_ARGS="$args" FAKE_QEMU_LOG="$FIX/hotplug-255.log" QEMU="$TESTS/fake-qemu.sh" \
		"$HARNESS/boot-guest.sh" "$job" "$log" || rc=1
	expect_eq "builtin" "$(grep -A1 -x -e -initrd "$args" | tail -n 1)" "$TMP/extra.cpio" || rc=1
	return $rc
}

# profile-boot.sh --every 0: one boot with printk.time=1 added to the
# job's own parameters, and its steps longest first (2.5 s after the
# second line of this console, worked out by hand).
test_profile_boot_gaps() {
	local rc=0 log="$TMP/prof.log" args="$TMP/prof.args" f=$FIX/config-6.1-full job out
	printf '%s\n' '[    0.000000] Linux version 6.1.0 (fake)' \
		'[    0.100000] setup_percpu: a slow step follows' \
		'[    2.600000] Inode-cache hash table entries' '[    2.700000] Run /init as init process' \
		>"$TMP/prof-console"
	job_kernel "$f" "$f" builtin fake tcg
	job=$(make_job possible-8 possible 8 1 1 append=possible_cpus=8)
	out=$(QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_LOG="$TMP/prof-console" FAKE_QEMU_ARGS="$args" \
		"$HARNESS/profile-boot.sh" --every 0 "$job" "$log") || rc=1
	expect_eq "append" "$(grep -A1 -x -e -append "$args" | tail -n 1)" \
		"console=ttyS0 lpj=10000000 tsc=reliable rcupdate.rcu_expedited=1 rcupdate.rcu_cpu_stall_timeout=120 panic=-1 possible_cpus=8 printk.time=1" || rc=1
	expect_eq "longest step" "$(sed -n 3p <<<"$out")" \
		"   2.500  [    0.100000] setup_percpu: a slow step follows" || rc=1
	must_fail "takes seconds" "$HARNESS/profile-boot.sh" --every x "$job" "$log" || rc=1
	return $rc
}
