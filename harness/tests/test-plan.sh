# shellcheck shell=bash
# test-plan.sh - the planner (plan.sh and sweep-smp.sh --list): tiers, skips with reasons, refused input, every script's usage.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

test_tree_6_12_hotplug_tier_refused() {
	fake_build "$TMP/build"
	QEMU="$TESTS/fake-qemu.sh" must_fail "use --cpus '' and --online LIST for this kernel" \
		"$HARNESS/sweep-smp.sh" --accel tcg --kernel "$FIX/config-6.12-full" \
		--config "$FIX/config-6.12-full" --build-dir "$TMP/build" \
		--cpus 1-4 --online "" --out "$TMP/612"
}

# The possible tier: possible_cpus=N with -smp 1, memory and timeout
# growing with N (512 MiB + 5/8 MiB an id; past 3.5 GiB swiotlb=noforce), expectations from the formula (the clamp from 4097 on),
# and a skip with the reason where the kernel cannot have N CPU ids.
test_plan_possible_tier() {
	local rc=0 cfg="$TMP/config-maxsmp" out
	sed 's/^CONFIG_NR_CPUS=.*/CONFIG_NR_CPUS=8192/' "$FIX/config-6.1-full-kunit" >"$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label m \
		--cpus "" --online "" --scenarios no --possible 4096,4097,8192)
	expect_eq "4096" "$(sed -n 1p <<<"$out" | cut -f1,2,9,10,11,12,13,14,15,16)" \
		"$(printf '%s\t' name=m-possible-4096 tier=possible smp=1 mem=3072M timeout=316 \
			append=possible_cpus=4096 possible=4096 online=1 pid_max=4194304 pid_max_min=32768 | sed 's/\t$//')" || rc=1
	expect_eq "4097" "$(sed -n 2p <<<"$out" | cut -f15,16)" \
		"pid_max=4194304	pid_max_min=32776" || rc=1
	expect_eq "8192" "$(sed -n 3p <<<"$out" | cut -f10,11,12,16)" \
		"mem=5632M	timeout=572	append=possible_cpus=8192 swiotlb=noforce	pid_max_min=65536" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i --label n \
		--cpus "" --online "" --scenarios no --possible 256,257)
	expect_eq "NR_CPUS 256" "$(cut -f1,5 <<<"$out")" "name=n-possible-0256	kernel=/k
name=n-possible-0257	skip=NR_CPUS is 256: possible_cpus=257 needs a kernel built with more (the 6.1 kernels of harness/kernels)" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.12-full" --initrd /i --label t \
		--cpus "" --online "" --scenarios no --possible 300)
	expect_eq "6.12" "$(cut -f5 <<<"$out")" \
		"skip=possible_cpus= only lowers the CPU count of this kernel under TCG" || rc=1
	return $rc
}

# The wide tiers: q35 jobs for QEMU 10, expectations from the formula;
# skips for a kernel without x2APIC and interrupt remapping, for a count
# above NR_CPUS, and when no QEMU 10 could be fetched.
test_plan_wide_tiers() {
	local rc=0 cfg="$TMP/config-wide" out
	wide_config "$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-online 288 --wide-hotplug 1024 --wide-qemu /q10)
	expect_eq "288" "$(sed -n 1p <<<"$out" | pick_fields name tier smp mem timeout append possible online pid_max machine qemu)" \
		"$(printf '%s\t' name=w-online-0288 tier=wide-online smp=288 mem=800M timeout=267 \
			append= possible=288 online=288 pid_max=294912 machine=wide | sed 's/\t$//')	qemu=/q10" || rc=1
	expect_eq "1024" "$(sed -n 2p <<<"$out" | pick_fields name smp append possible online pid_max pid_max_min machine)" \
		"$(printf '%s\t' name=w-hotplug-1024 smp=256,maxcpus=1024 append=maxcpus=1 \
			possible=1024 online=1 pid_max=1048576 pid_max_min=8192 | sed 's/\t$//')	machine=wide" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-online 288)
	expect_eq "no QEMU 10" "$(cut -f5 <<<"$out")" \
		"skip=no QEMU for more than 255 CPUs: QEMU 10 from bookworm-backports is unavailable (harness/fetch-qemu.sh)" || rc=1
	sed -i 's/^CONFIG_NR_CPUS=.*/CONFIG_NR_CPUS=256/' "$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-online 256,288 --wide-qemu /q10)
	expect_eq "NR_CPUS" "$(cut -f1,5 <<<"$out" | tail -n 1)" \
		"name=w-online-0288	skip=NR_CPUS is 256: 288 CPUs need a kernel built with more" || rc=1
	"$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --wide-hotplug 256 \
		>/dev/null 2>&1 && {
		echo "--wide-hotplug 256 was accepted"
		rc=1
	}
	return $rc
}

# --list prints the named job list and boots nothing, writes nothing.
test_sweep_list_boots_nothing() {
	local out pids="$TMP/list.pids" rc=0
	: >"$pids"
	fake_build "$TMP/build"
	out=$(QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_PIDFILE="$pids" \
		"$HARNESS/sweep-smp.sh" --list --accel tcg --kernel "$FIX/config-6.1-full" \
		--config "$FIX/config-6.1-full" --build-dir "$TMP/build" \
		--out "$TMP/listed" --cpus 1-3 --online 255 --possible "" 2>/dev/null) || {
		echo "--list failed"
		return 1
	}
	expect_eq "jobs" "$(cut -f1,2,9 <<<"$out" | sed -n 1,4p | tr '\t\n' ' ,')" \
		"name=config-6.1-full-hotplug-001 tier=hotplug smp=1,maxcpus=1,name=config-6.1-full-hotplug-002 tier=hotplug smp=1,maxcpus=2,name=config-6.1-full-hotplug-003 tier=hotplug smp=1,maxcpus=3,name=config-6.1-full-online-255 tier=online smp=255," || rc=1
	# 4 + 6 boots, and each default wide count a skip: no x2APIC here.
	# The default wide lists (sweep_options.DEFAULTS): 256,288,384,512
	# online and 512,1024,2048,4096 hotplug, eight counts.
	expect_eq "count" "$(wc -l <<<"$out")" 18 || rc=1
	expect_eq "wide" "$(grep 'skip=the kernel lacks X86_X2APIC or IRQ_REMAP' <<<"$out" | cut -f1 | paste -sd' ')" \
		"name=config-6.1-full-online-0256 name=config-6.1-full-online-0288 name=config-6.1-full-online-0384 name=config-6.1-full-online-0512 name=config-6.1-full-hotplug-0512 name=config-6.1-full-hotplug-1024 name=config-6.1-full-hotplug-2048 name=config-6.1-full-hotplug-4096" || rc=1
	expect_eq "scenario" "$(grep 'maxcpus-2' <<<"$out" | cut -f1,12,14,15)" \
		"name=config-6.1-full-maxcpus-2	append=maxcpus=2	online=2	pid_max=40960" || rc=1
	[[ ! -s $pids && ! -e $TMP/listed ]] || {
		echo "--list booted or wrote something"
		rc=1
	}
	return $rc
}

test_sweep_bad_input_is_refused() {
	local out rc=0 opt status said=""
	for opt in "--cpus 1-300" "--jobs 0" "--variant huge" "--bogus" "--cpus" "--list extra" "--wide-hotplug 256"; do
		status=0
		# shellcheck disable=SC2086 # the words of opt are separate options
		out=$("$HARNESS/sweep-smp.sh" $opt 2>&1) || status=$?
		((status == 2)) || {
			echo "'$opt' did not exit 2 (exit $status): $out"
			rc=1
		}
		[[ $out == *"Try 'sweep-smp.sh --help'."* ]] || {
			echo "'$opt': $out"
			rc=1
		}
		[[ $opt != "--cpus 1-300" ]] || said=$out
	done
	[[ $said == *"bad CPU list '1-300'"* ]] || {
		echo "message: $said"
		rc=1
	}
	if out=$("$HARNESS/sweep-smp.sh" --kernel "$TMP/none" 2>&1); then
		echo "accepted a missing kernel"
		rc=1
	fi
	[[ $out == *"--kernel $TMP/none is not readable"* ]] || {
		echo "message: $out"
		rc=1
	}
	return $rc
}

# Every script parses options one way: --help prints its usage text and
# exits 0, a usage error exits 2.
test_every_script_usage() {
	local s rc=0 out
	for s in "$HARNESS"/*.sh "$HARNESS/../ci/"*.sh; do
		# (a file without #! is sourced; guest-init.sh is the guest's /init)
		[[ $(head -c 2 "$s") == '#!' && $s != */guest-init.sh ]] || continue
		out=$("$s" --help 2>&1) || {
			echo "${s##*/} --help exits $?"
			rc=1
		}
		[[ $out == Usage:* ]] || {
			echo "${s##*/} --help: $(head -n 1 <<<"$out")"
			rc=1
		}
		"$s" --no-such-option >/dev/null 2>&1 || [[ $? == 2 ]] || {
			echo "${s##*/}: a bad option does not exit 2"
			rc=1
		}
	done
	return $rc
}

# parse_options spares getopt when no argument looks like an option;
# OPTS is then what getopt would have made, and an option still goes
# through getopt.
test_options_without_getopt() {
	local rc=0 normal got want c
	local -a set=()
	for c in "name=a	b=c d|x*" "|a" "only" "a|-|b"; do
		IFS='|' read -r -a set <<<"$c"
		normal=$(getopt -n t -o h -l help,write -- "${set[@]}")
		want=$(eval "printf '[%s]' $normal")
		got=$(parse_options usage write "${set[@]}" && printf '[%s]' "${OPTS[@]}")
		expect_eq "options '$c'" "$got" "$want" || rc=1
	done
	expect_eq "an option" "$(parse_options usage write a --write && printf '[%s]' "${OPTS[@]}")" \
		"[--write][--][a]" || rc=1
	expect_eq "help" "$(parse_options usage write a -h)" usage || rc=1
	return $rc
}

# What a kernel can boot comes from its .config alone: a kernel that
# carries its initramfs (the wide kernels) gets initrd=builtin in every
# job, built by the sweep or not; x2APIC without interrupt remapping
# boots no wide tier.
test_plan_from_config_alone() {
	local rc=0 cfg="$TMP/config-wide" out
	wide_config "$cfg" 'CONFIG_INITRAMFS_SOURCE="/b/initramfs.cpio"'
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus 3 --online "" --scenarios no --wide-hotplug 1024 --wide-qemu /q10)
	expect_eq "builtin" "$(grep -o $'\tinitrd=[^\t]*' <<<"$out" | paste -sd' ')" \
		"$(printf '\tinitrd=builtin \tinitrd=builtin')" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i \
		--cpus 3 --online "" --scenarios no)
	expect_eq "-initrd" "$(grep -o $'\tinitrd=[^\t]*' <<<"$out")" "$(printf '\tinitrd=/i')" || rc=1
	sed -i '/^CONFIG_IRQ_REMAP=/d' "$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w \
		--cpus "" --online "" --scenarios no --wide-hotplug 1024 --wide-qemu /q10)
	expect_eq "no IRQ_REMAP" "$(cut -f5 <<<"$out")" \
		"skip=the kernel lacks X86_X2APIC or IRQ_REMAP: it ignores APIC IDs of 255 and up (the 6.1 kernels of harness/kernels have them)" || rc=1
	return $rc
}

# --only: one short command for one boot; every tier not named is off.
test_sweep_only_tiers() {
	local rc=0 out
	fake_build "$TMP/build"
	only() {
		"$HARNESS/sweep-smp.sh" --list --accel tcg --kernel "$FIX/config-6.1-full" \
			--config "$FIX/config-6.1-full" --build-dir "$TMP/build" "$@" 2>/dev/null | cut -f1
	}
	expect_eq "one boot" "$(only --only online:8)" "name=config-6.1-full-online-008" || rc=1
	expect_eq "two tiers" "$(only --only hotplug:1,255 --only possible:256 | paste -sd' ')" \
		"name=config-6.1-full-hotplug-001 name=config-6.1-full-hotplug-255 name=config-6.1-full-possible-0256" || rc=1
	expect_eq "scenarios" "$(only --only scenarios | wc -l)" 6 || rc=1
	must_fail "--only and --cpus: name every tier with --only" \
		"$HARNESS/sweep-smp.sh" --only online:8 --cpus 3 || rc=1
	must_fail "--only wants TIER:LIST" "$HARNESS/sweep-smp.sh" --only bogus:1 || rc=1
	must_fail "bad CPU list '300'" "$HARNESS/sweep-smp.sh" --only online:300 || rc=1
	return $rc
}

# A tree is one row of the kernel table (and one of harness/trees, its
# series; its tarball given by PIDMAX_TARBALL): a fake tree 9.9 (a one-file
# tarball, a one-patch series, a make that writes the recorded 6.12
# .config as 9.9's) is built, planned and judged with no other change.
test_fake_tree_is_one_row() {
	needs quilt quilt
	local src="$TMP/t/linux-source-9.9" bin="$TMP/bin" series="$TMP/series" out
	mkdir -p "$src/kernel" "$src/scripts/kconfig" "$bin" "$series"
	printf 'int pid_max = 32768;\n' >"$src/kernel/pid.c"
	# merge_config.sh -m -O OBJ BASE FRAGMENT...: the fragments after the
	# base (a later line wins, as in pidmax/kconfig.py).
	printf '#!/bin/sh\nshift 3\nbase=$1\nshift\ncat "$@" >>"$base"\n' \
		>"$src/scripts/kconfig/merge_config.sh"
	chmod +x "$src/scripts/kconfig/merge_config.sh"
	tar -C "$TMP/t" -cJf "$TMP/linux-source-9.9.tar.xz" linux-source-9.9
	printf -- '--- a/kernel/pid.c\n+++ b/kernel/pid.c\n@@ -1 +1 @@\n-int pid_max = 32768;\n+int pid_max = 65536;\n' \
		>"$series/0001-fake.patch"
	echo 0001-fake.patch >"$series/series"
	cat >"$bin/make" <<'MAKE'
#!/bin/bash
for a; do [[ $a != O=* ]] || o=${a#O=}; done
case " $* " in
*" tinyconfig "*) sed 's|^# Linux/x86 .* Kernel Configuration$|# Linux/x86 9.9.0 Kernel Configuration|' \
	"$FAKE_CONFIG" >"$o/.config" ;;
*" vmlinux "*) echo "fake vmlinux" >"$o/vmlinux" ;;
esac
MAKE
	chmod +x "$bin/make"
	{
		cat "$HARNESS/kernels"
		echo "9.9 x86_64 full full external hotplug,online,scenario,possible,wide-online,wide-hotplug"
	} >"$TMP/kernels"
	{
		cat "$HARNESS/trees"
		echo "9.9 host $series -"
	} >"$TMP/trees"
	fake_build "$TMP/build"
	out=$(PATH="$bin:$PATH" PIDMAX_KERNELS="$TMP/kernels" PIDMAX_TREES="$TMP/trees" \
		PIDMAX_TARBALL="$TMP/linux-source-9.9.tar.xz" FAKE_CONFIG="$FIX/config-6.12-full" \
		QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=replay FAKE_QEMU_LOG="$FIX/online-064-6.12.log" \
		"$HARNESS/sweep-smp.sh" --tree 9.9 --accel tcg --build-dir "$TMP/build" \
		--out "$TMP/sweep" --only online:64 --only possible:300 2>&1) || {
		echo "the fake tree's sweep failed: $out"
		return 1
	}
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "1 passed, 0 failed, 1 skipped" || return 1
	local got
	got=$("$HARNESS/pidmax.sh" field name online pid_max skip <"$TMP/sweep/jobs" | tr '\t' ' ' | sed 's/$/;/' | tr -d '\n')
	expect_eq "jobs" "$got" "9.9-full-online-064 64 65536 none;9.9-full-possible-0300 none none possible_cpus= only lowers the CPU count of this kernel under TCG;" || return 1
	grep -q "^ok 2 9.9-full-possible-0300 # SKIP possible_cpus= only lowers" "$TMP/sweep/results.ktap" || {
		echo "9.9 (since 6.3) under TCG: the possible tier is not a skip: $(cat "$TMP/sweep/results.ktap")"
		return 1
	}
}

# The kernel table's reader: each tier on the first row of its variant
# that lists it, or the last with --fewest-kernels; a bad row refused.
test_kernel_table_picks() {
	local rc=0 t got=""
	for t in hotplug possible wide-online; do
		got+="$t $(kernel_pick 6.1 x86_64 small "$t" each) $(kernel_pick 6.1 x86_64 small "$t" fewest);"
	done
	expect_eq "6.1 small" "$got" "hotplug small small-maxsmp-wide-kmod;possible small-maxsmp-wide-kmod small-maxsmp-wide-kmod;wide-online small-maxsmp-wide-kmod small-maxsmp-wide-kmod;" || rc=1
	expect_eq "trees" "$(kernel_trees)" "6.1 6.12 7.3" || rc=1
	expect_eq "initrd" "$(kernel_initrd_mode 6.1 full-maxsmp-wide) $(kernel_initrd_mode 6.12 full)" "builtin external" || rc=1
	! kernel_pick 6.1 x86_64 huge hotplug each >/dev/null || { echo "a variant not in the table was picked"; rc=1; }
	printf '6.1 x86_64 full full external hotplug,sideways\n' >"$TMP/bad"
	local err
	err=$(PIDMAX_KERNELS="$TMP/bad" bash -c '. "$1"; kernel_trees' _ "$HARNESS/lib.sh" 2>&1) &&
		{ echo "a row with an unknown tier was read: $err"; rc=1; }
	[[ $err == *"$TMP/bad:1: want TREE ARCH VARIANT BUILD"* ]] || { echo "no line number: $err"; rc=1; }
	return $rc
}

# Since 6.3 under TCG: the hotplug tier on the machine vmware for a
# kernel that can detect it (DMI and HYPERVISOR_GUEST), named so; the
# child pid namespace check of the extended boot by the tree's
# semantics: one global pid_max on 6.12, a pid_max per namespace on 7.3.
test_plan_vmware_and_pidns() {
	local rc=0 cfg="$TMP/config-6.12-dmi" out
	{ cat "$FIX/config-6.12-full"; echo CONFIG_DMI=y; } >"$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label t \
		--cpus 33 --online "" --scenarios yes)
	expect_eq "vmware" "$(head -n 1 <<<"$out" | tr '\t' '\n' | grep -E '^(name|smp|possible|pid_max|machine)=' | paste -sd' ')" \
		"name=t-hotplug-033-vmware smp=1,maxcpus=33 possible=33 pid_max=33792 machine=vmware" || rc=1
	expect_eq "6.12 pidns" "$(grep extended-064 <<<"$out" | tr '\t' '\n' | grep -E '^(append|pidns.*)=' | paste -sd' ')" \
		"append=pidmax_harness=extended pidmax_pidns=1512 pidns=1512 pidns_child=65536 pidns_parent=1512 pidns_scope=global" || rc=1
	sed -i 's|^# Linux/x86 .* Kernel Configuration$|# Linux/x86 7.3.4 Kernel Configuration|' "$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label s \
		--cpus "" --online "" --scenarios yes)
	expect_eq "7.3 pidns" "$(grep extended-064 <<<"$out" | tr '\t' '\n' | grep -E '^pidns.*=' | paste -sd' ')" \
		"pidns=1512 pidns_child=4194304 pidns_parent=65536 pidns_scope=namespace" || rc=1
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.12-full" --initrd /i --label u \
		--online "" --scenarios no)
	expect_eq "no DMI" "$(cut -f5 <<<"$out")" \
		"skip=Linux 6.12.118 under TCG ignores QEMU's hotpluggable CPUs (-smp 1,maxcpus=N gives 1 possible CPU) unless it detects a hypervisor: this kernel lacks DMI or HYPERVISOR_GUEST for the machine vmware" || rc=1
	return $rc
}

# --selftests "CPIO N": one scenario boot with one CPU, the archive as
# initrd_extra and N selftests to pass; a bad value refused.
test_plan_selftests() {
	local rc=0 out
	out=$("$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i --label t \
		--cpus "" --online "" --selftests "/b/selftests-7.3.cpio 3")
	expect_eq "job" "$(grep -- -selftests <<<"$out" | tr '\t' '\n' | grep -E '^(name|smp|possible|online|initrd|initrd_extra|selftests)=' | paste -sd' ')" \
		"name=t-selftests initrd=/i smp=1 initrd_extra=/b/selftests-7.3.cpio selftests=3 possible=1 online=1" || rc=1
	must_fail "--selftests wants" "$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" \
		--initrd /i --selftests "3" || rc=1
	return $rc
}

# Since 6.3 under TCG the wide-hotplug tier boots on wide-vmware (q35
# that Linux takes for VMware) for a kernel that can detect it, else it
# is a skip; wide-online stays on wide.
test_plan_wide_vmware() {
	local rc=0 cfg="$TMP/config-wide-7.3" out
	wide_config "$cfg"
	sed -i 's|^# Linux/x86 .* Kernel Configuration$|# Linux/x86 7.3.4 Kernel Configuration|' "$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w --cpus "" --online "" \
		--scenarios no --wide-online 288 --wide-hotplug 512 --wide-qemu /q10)
	expect_eq "no DMI" "$(cut -f1,2,5 <<<"$out" | tail -n 1)" \
		"name=w-hotplug-0512	tier=wide-hotplug	skip=this kernel counts firmware-described hotplug CPUs only on a detected hypervisor and lacks DMI or HYPERVISOR_GUEST for the machine wide-vmware" || rc=1
	echo CONFIG_DMI=y >>"$cfg"
	out=$("$HARNESS/plan.sh" --kernel /k --config "$cfg" --initrd /i --label w --cpus "" --online "" \
		--scenarios no --wide-online 288 --wide-hotplug 512 --wide-qemu /q10)
	expect_eq "machines" "$(tr '\t' '\n' <<<"$out" | grep -E '^(name|machine)=' | paste -sd' ')" \
		"name=w-online-0288 machine=wide name=w-hotplug-0512-vmware machine=wide-vmware" || rc=1
	return $rc
}

# Options are taken by their whole names only: getopt's prefixes (--cpu
# for --cpus, --lis for --list) are refused with exit 2, in the Bash
# scripts and the package's doors alike; the whole names still work.
test_options_by_whole_name() {
	local rc=0 out s
	for s in "mutants.sh --tree 6.1 --fewest --list" \
		"plan.sh --kernel k --config c --initrd i --cpu 1" \
		"run-baseline.sh --job 2 d k=k" "sweep-smp.sh --base" \
		"report.sh --dir d" "merge-results.sh --out a b"; do
		local -a args
		read -r -a args <<<"$s"
		out=$("$HARNESS/${args[0]}" "${args[@]:1}" 2>&1) && rc=1
		[[ $out == *"unrecognized"*"Try '${args[0]} --help'."* ]] || {
			echo "$s: $out"
			rc=1
		}
	done
	out=$("$HARNESS/../ci/test.sh" --lis 2>&1) && rc=1
	[[ $out == *"unrecognized option '--lis'"* ]] || rc=1
	"$HARNESS/../ci/test.sh" --list >/dev/null || rc=1
	return $rc
}
