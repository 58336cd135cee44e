# shellcheck shell=bash
# test-shards.sh - transforms and readers of results folders: the baseline, compare.csv, shards and their merge.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# baseline.sh: the same boots and expectations, on the stock kernel.
test_baseline_transform() {
	local rc=0 k="$TMP/stock-k" jobs="$TMP/bjobs" out
	mkdir -p "$k"
	: >"$k/vmlinux"
	cp "$FIX/config-6.1-full" "$k/.config"
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full-kunit" --initrd /i \
		--label a --cpus 255 --online "" --scenarios no >"$jobs"
	printf 'name=a-possible-9000\ttier=possible\tvariant=full\tlabel=a\tskip=why\n' >>"$jobs"
	out=$("$HARNESS/baseline.sh" "$jobs" "a=$k/vmlinux") || rc=1
	expect_eq "count" "$(wc -l <<<"$out")" 2 || rc=1
	expect_eq "renamed" "$(sed -n 1p <<<"$out" | cut -f1,4,5,6)" \
		"name=a-stock-hotplug-255	label=a-stock	kernel=$k/vmlinux	config=$k/.config" || rc=1
	# The stock model's field (the job's line order: after append) aside.
	expect_eq "same expectations" "$(sed -n 1p <<<"$out" | sed 's/\tmodel=stock\t/\t/' |
		cut -f7-21 | sed 's/\tkunit=0/\tkunit=1/')" "$(sed -n 1p "$jobs" | cut -f7-21)" || rc=1
	expect_eq "model" "$(sed -n 1p <<<"$out" | grep -o $'\tmodel=[a-z]*\t')" $'\tmodel=stock\t' || rc=1
	expect_eq "kunit, series" "$(sed -n 1p <<<"$out" | grep -o $'kunit=[01]\tseries=[a-z]*')" \
		"kunit=0	series=auto" || rc=1
	expect_eq "skip" "$(sed -n 2p <<<"$out")" \
		"name=a-stock-possible-9000	tier=possible	variant=full	label=a-stock	skip=why" || rc=1
	"$HARNESS/baseline.sh" "$jobs" "b=$k/vmlinux" >/dev/null 2>&1 && {
		echo "a job of an unmapped kernel passed"
		rc=1
	}
	return $rc
}

# compare.sh: a row per boot of both runs; same only where both values
# agree (the BASE_SMALL 4097 row differs in its minimum).
test_compare_csv() {
	local rc=0 d="$TMP/cmp" h
	mkdir -p "$d/baseline"
	h="cpus,online,pid_max,expected,pid_max_min,expected_min,seconds,verdict,boot,tier,variant,line_min"
	printf 'name=p-hotplug-001\tlabel=p\nname=p-possible-4097\tlabel=p\nname=p-online-009\tlabel=p\nname=p-x\tlabel=p\n' >"$d/jobs"
	printf 'name=p-stock-hotplug-001\tlabel=p-stock\nname=p-stock-possible-4097\tlabel=p-stock\nname=p-stock-x\tlabel=p-stock\n' >"$d/baseline/jobs"
	printf '%s\n' "$h" "1,1,4096,4096,301,301,1,pass,p-hotplug-001,hotplug,small,301" \
		"4097,1,32768,32768,32768,32768,9,pass,p-possible-4097,possible,small,32768" \
		"9,9,4096,4096,301,301,1,pass,p-online-009,online,small,301" \
		"none,none,none,none,none,none,none,skip,p-x,possible,small,none" >"$d/results.csv"
	printf '%s\n' "$h" "1,1,4096,4096,301,301,1,pass,p-stock-hotplug-001,hotplug,small,301" \
		"4097,1,32768,32768,none,32768,9,fail,p-stock-possible-4097,possible,small,32776" \
		"none,none,none,none,none,none,none,skip,p-stock-x,possible,small,none" >"$d/baseline/results.csv"
	expect_eq "differs" "$("$HARNESS/compare.sh" "$d" 2>/dev/null)" \
		"possible-4097,small,4097,32768,32776,32768,32768,no" || rc=1
	expect_eq "csv" "$(cat "$d/compare.csv")" \
		"boot,variant,cpus,stock_pid_max,stock_pid_max_min,patched_pid_max,patched_pid_max_min,same
hotplug-001,small,1,4096,301,4096,301,yes
possible-4097,small,4097,32768,32776,32768,32768,no" || rc=1
	rm "$d/baseline/results.csv"
	"$HARNESS/compare.sh" "$d" >/dev/null 2>&1 && {
		echo "compare.sh passed without a baseline"
		rc=1
	}
	return $rc
}

# shard.sh I/N [JOBS]: the jobs of shard I of N, from the file JOBS or
# standard input, in the list's order, the heaviest boot alone in shard
# 1 of 2; an I past N is a usage error. The split itself (every job in
# one shard for N = 1..8, the heavy boots spread) is
# harness/pidmax/tests/test_shard.py's.
test_shard_split() {
	local rc=0 jobs="$TMP/shard-jobs" out status=0
	"$HARNESS/plan.sh" --kernel /k --config "$FIX/config-6.1-full" --initrd /i --label s \
		--cpus 1,255 --online 64,255 --scenarios no >"$jobs"
	expect_eq "1/2" "$("$HARNESS/shard.sh" 1/2 "$jobs" | cut -f1)" "name=s-online-255" || rc=1
	expect_eq "2/2" "$("$HARNESS/shard.sh" 2/2 <"$jobs" | cut -f1 | paste -sd' ')" \
		"name=s-hotplug-001 name=s-hotplug-255 name=s-online-064" || rc=1
	out=$("$HARNESS/shard.sh" 5/4 "$jobs" 2>&1) || status=$?
	expect_eq "5/4 exit status" "$status" 2 || rc=1
	[[ $out == *"shard '5/4': want I/N with 1 <= I <= N"* ]] || {
		echo "5/4: $out"
		rc=1
	}
	return $rc
}

# Two shards run one after the other in separate folders, merged, equal
# one unsharded run; then the same by splitting that run's folder into
# N = 1, 3 and 8 shards (one, uneven, more shards than heavy boots) and
# merging them back.
test_shard_merge_equals_one_run() {
	local rc=0 n i d
	sweep 1,255 "" "$FIX/hotplug-255.log" --scenarios yes --wide-online "" --wide-hotplug "" --out "$TMP/one" >/dev/null 2>&1 || true
	for i in 1 2; do
		sweep 1,255 "" "$FIX/hotplug-255.log" --scenarios yes --wide-online "" --wide-hotplug "" --shard "$i/2" \
			--out "$TMP/sh$i" >/dev/null 2>&1 || true
		[[ $(cat "$TMP/sh$i/shard") == "$i/2" ]] || rc=1
	done
	"$HARNESS/merge-results.sh" "$TMP/merged" "$TMP/sh1" "$TMP/sh2" >/dev/null 2>&1 && rc=1
	same_results "$TMP/one" "$TMP/merged" || rc=1
	for n in 1 3 8; do
		split_run "$TMP/one" "$n" "$TMP/split-$n-"
		"$HARNESS/merge-results.sh" "$TMP/merged-$n" "$TMP/split-$n-"* >/dev/null 2>&1 && rc=1
		same_results "$TMP/one" "$TMP/merged-$n" || {
			echo "N=$n"
			rc=1
		}
	done
	return $rc
}

test_merge_refuses_bad_shards() {
	local rc=0 d="$TMP/bad"
	sweep 1-4 "" "$FIX/hotplug-255.log" --wide-online "" --wide-hotplug "" \
		--out "$d/one" >/dev/null 2>&1 || true
	split_run "$d/one" 2 "$d/"
	mv "$d/1" "$d/a"
	mv "$d/2" "$d/b"
	must_fail "of the plan is in no shard" "$HARNESS/merge-results.sh" "$d/m" "$d/a" || rc=1
	must_fail "is in two shards" "$HARNESS/merge-results.sh" "$d/m" "$d/a" "$d/b" "$d/a" || rc=1
	cp -r "$d/b" "$d/c"
	echo "config-6.1-full sha256 0000" >"$d/c/kernels"
	must_fail "booted different kernels or series" "$HARNESS/merge-results.sh" "$d/m" "$d/a" "$d/c" || rc=1
	cp -r "$d/b" "$d/e"
	sed -i 's/hotplug-004/hotplug-005/' "$d/e/plan"
	must_fail "come from different plans" "$HARNESS/merge-results.sh" "$d/m" "$d/a" "$d/e" || rc=1
	return $rc
}

# Two shards run with a baseline merge into one compare.csv, a row per
# boot of both.
test_merge_baselines() {
	local rc=0 d="$TMP/mb" k="$TMP/mb-stock" s out
	mkdir -p "$k"
	: >"$k/vmlinux"
	cp "$FIX/config-6.1-full" "$k/.config"
	for s in 1/2 2/2; do
		out="$d/${s%%/*}"
		sweep 1,2 "" "$FIX/hotplug-255.log" --out "$out" --wide-online "" --wide-hotplug "" \
			--shard "$s" >/dev/null 2>&1 || true
		QEMU="$TESTS/fake-qemu.sh" FAKE_QEMU_MODE=replay FAKE_QEMU_LOG="$FIX/hotplug-255.log" \
			"$HARNESS/run-baseline.sh" "$out" "config-6.1-full=$k/vmlinux" >/dev/null 2>&1 || {
			echo "run-baseline.sh failed on $out"
			rc=1
		}
	done
	"$HARNESS/merge-results.sh" "$d/m" "$d/1" "$d/2" >/dev/null 2>&1 || true
	# Both sides replay the same 255-CPU log: the same values, whatever
	# the count asked for.
	expect_eq "compare.csv" "$(cat "$d/m/compare.csv")" \
		"boot,variant,cpus,stock_pid_max,stock_pid_max_min,patched_pid_max,patched_pid_max_min,same
hotplug-001,full,1,261120,2040,261120,2040,yes
hotplug-002,full,2,261120,2040,261120,2040,yes" || rc=1
	expect_eq "stock boots" "$(grep -c '^ok\|^not ok' "$d/m/baseline/results.ktap")" 2 || rc=1
	return $rc
}
