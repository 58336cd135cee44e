# shellcheck shell=bash
# test-fetch.sh - the fetchers: QEMU 10 from an unreachable archive.
# Sourced by run-tests.sh (helpers.sh gives TMP, FIX, HARNESS, TESTS).

# An unreachable bookworm-backports: exit 3 and one message, nothing left
# behind (the sweep then plans the wide tiers as skips).
test_fetch_qemu_unreachable() {
	local rc=0 err status=0
	needs apt-get apt
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
