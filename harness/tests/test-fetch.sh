# shellcheck shell=bash
# test-fetch.sh - the fetchers: QEMU 10 from an unreachable archive.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# An unreachable bookworm-backports: exit 3 and one message, nothing left
# behind (the sweep then plans the wide tiers as skips).
test_fetch_qemu_unreachable() {
	local rc=0 err status=0
	unreachable_apt
	err=$(PIDMAX_BACKPORTS="http://127.0.0.1:9/debian bookworm-backports main" \
		"$HARNESS/fetch-qemu.sh" "$TMP/fq" 2>&1 >/dev/null) || status=$?
	expect_eq "status" "$status" 3 || rc=1
	[[ $err == *"bookworm-backports is unreachable: the wide tiers are skipped"* ]] || {
		echo "message: $err"
		rc=1
	}
	[[ -z $(ls -A "$TMP/fq") ]] || {
		echo "left behind: $(ls -A "$TMP/fq")"
		rc=1
	}
	return $rc
}

# The archive comes from the host's apt sources, one-line or deb822,
# never from the code; none is one clear message.
test_debian_mirror_from_sources() {
	local rc=0 etc="$TMP/apt"
	mkdir -p "$etc/sources.list.d"
	printf 'deb [arch=amd64 signed-by=/k.gpg] http://one.example/debian bookworm main\n' >"$etc/sources.list"
	expect_eq "one-line" "$(PIDMAX_APT_ETC=$etc debian_mirror)" "http://one.example/debian" || rc=1
	: >"$etc/sources.list"
	printf 'Types: deb\nURIs: http://sec.example/debian-security\nSuites: bookworm-security\n\nTypes: deb\nURIs: http://two.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n' \
		>"$etc/sources.list.d/debian.sources"
	expect_eq "deb822" "$(PIDMAX_APT_ETC=$etc debian_mirror)" "http://two.example/debian" || rc=1
	rm "$etc/sources.list.d/debian.sources"
	local err
	err=$(PIDMAX_APT_ETC=$etc debian_mirror 2>&1) && { echo "no archive, yet: $err"; rc=1; }
	[[ $err == *"no Debian archive serving bookworm in the host's apt sources"* ]] || { echo "message: $err"; rc=1; }
	return $rc
}

# An unreachable suite: exit 3, one message, nothing left behind.
test_fetch_deb_unreachable() {
	unreachable_apt
	local err status=0
	err=$(PIDMAX_MIRROR=http://127.0.0.1:9/debian "$HARNESS/fetch-deb.sh" "$TMP/d/src" \
		trixie-backports linux-source-7.3 2>&1 >/dev/null) || status=$?
	expect_eq "status" "$status" 3 || return 1
	[[ $err == *"trixie-backports is unreachable"* ]] || { echo "message: $err"; return 1; }
	[[ -z $(ls -A "$TMP/d") ]] || { echo "left behind: $(ls -AR "$TMP/d")"; return 1; }
}

# A tree whose suite is unreachable (harness/trees: 7.3 from
# trixie-backports): the sweep ends, every tier asked of it a SKIP with
# the reason, nothing a failure.
test_sweep_unreachable_tree_skips() {
	unreachable_apt
	local out
	fake_build "$TMP/build"
	out=$(PIDMAX_MIRROR=http://127.0.0.1:9/debian "$HARNESS/sweep-smp.sh" --tree 7.3 \
		--build-dir "$TMP/build" --out "$TMP/sweep" --only online:1,64 --only scenarios 2>&1) || {
		echo "the sweep failed: $out"
		return 1
	}
	expect_eq "last line" "$(tail -n 1 <<<"$out")" "0 passed, 0 failed, 2 skipped" || return 1
	expect_eq "skips" "$(grep -c '# SKIP trixie-backports is unreachable: no kernel of tree 7.3 to boot' "$TMP/sweep/results.ktap")" 2
}

# The checks that need a tree's source say so when its suite is
# unreachable: one KTAP SKIP with the reason, exit 0, nothing built.
test_tree_checks_unreachable_skip() {
	unreachable_apt
	local out cmd rc=0
	for cmd in "ci/build-prefixes.sh --build-dir $TMP/b 7.3" "ci/kunit-uml.sh --build-dir $TMP/b --tree 7.3"; do
		# shellcheck disable=SC2086 # the command's words
		out=$(PIDMAX_MIRROR=http://127.0.0.1:9/debian "$HARNESS/../"$cmd 2>/dev/null) || {
			echo "$cmd failed: $out"
			rc=1
			continue
		}
		[[ $out == *"# SKIP the source of tree 7.3 is unreachable (harness/trees)"*"0 passed, 0 failed, 1 skipped" ]] || {
			echo "$cmd: $out"
			rc=1
		}
	done
	return $rc
}
