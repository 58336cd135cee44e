#!/bin/bash
# check-send.sh - the sending check: harness/send-series.sh run with a
# made-up sender ("Ada Example" <ada@example.org>) on tree 7.3's series
# (mainline/) into OUT/series, then what git send-email would send is
# checked: every message is Ada's and only hers (From:, one
# Signed-off-by, no trace of the placeholder identity), every message
# has a To:, the patches touching kernel/pid.c go to Christian Brauner
# and Andrew Morton, the patch adding the KUnit suite Cc's kunit-dev,
# Linus and hedi@sgi.com appear nowhere, the subject prefix is
# mainline/'s, the cover letter goes to everyone the patches go to, and
# the patches apply with git am to a fresh git repository of the
# pristine tree (committed here from the tarball, beside the run, and
# checked out sparsely: the paths the patches touch). Then two
# refusals: an empty name and an --out holding a file exit 2 and leave
# the file as it was.
#
# Usage: ci/check-send.sh OUT
# Prints KTAP and ends with "N passed, N failed, N skipped"; a SKIP
# when the tree's source (trixie-backports) is unreachable.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/lib.sh
. "$REPO/harness/lib.sh"
USAGE="Usage: ci/check-send.sh OUT
Run harness/send-series.sh with a made-up identity into OUT/series and
check the result (KTAP); OUT/series and OUT/refusal are made anew."
TREE=7.3
NAME="Ada Example" EMAIL=ada@example.org
SENDER="$NAME <$EMAIL>"

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 1)) || usage_error "expects OUT"
	mkdir -p "$1"
	OUT=$(cd "$1" && pwd)
	local rc=0 tarball=""
	tree_tarball_ktap "$REPO/build" "$TREE" "send_$TREE" tarball || rc=$?
	((rc != 3)) || exit 0
	SERIES_DIR=$(tree_series_dir "$TREE")
	# None of the host's or user's git configuration (am.threeWay, hooks).
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	read_placeholder "$SERIES_DIR/0000-cover-letter.patch"
	rm -rf "$OUT/series" "$OUT/refusal"
	WORK=$(mktemp -d "$REPO/build/check-send.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	# The pristine repository for git am is made while the run goes on.
	make_pristine "$tarball" "$WORK/linux" >"$WORK/pristine.log" 2>&1 &
	PRISTINE_PID=$!
	echo "KTAP version 1"
	echo "1..13"
	run_checks
	echo "# totals: pass:$PASSED fail:$FAILED"
	summary_line "$PASSED" "$FAILED" 0
	((FAILED == 0))
}

# read_placeholder COVER: PH_NAME and PH_EMAIL, the series' placeholder
# author (its cover letter's From:), and PREFIX, its subject prefix.
read_placeholder() {
	local info re='^Subject: \[(.+) 0+/[0-9]+\] '
	info=$(git mailinfo -k /dev/null /dev/null <"$1")
	PH_NAME=$(sed -n 's/^Author: //p' <<<"$info")
	PH_EMAIL=$(sed -n 's/^Email: //p' <<<"$info")
	[[ $(grep '^Subject: ' <<<"$info") =~ $re ]] || die "$1: no subject '[PREFIX 0/N] ...'"
	PREFIX=${BASH_REMATCH[1]}
}

# make_pristine TARBALL DIR: a fresh git repository whose one commit is
# the whole pristine tree (harness/tar-commit.py, as send-series.sh
# makes its own), for git am; checked out when the patches are known.
make_pristine() {
	git init -q -b pristine "$2"
	xz -T0 -dc "$1" | GIT_AUTHOR_NAME=pristine GIT_AUTHOR_EMAIL=pristine@invalid \
		GIT_COMMITTER_NAME=pristine GIT_COMMITTER_EMAIL=pristine@invalid \
		python3 "$REPO/harness/tar-commit.py" refs/heads/pristine "$1" |
		git -C "$2" -c pack.compression=0 fast-import --quiet --depth=0
}

n=0 PASSED=0 FAILED=0
# check NAME CMD...: one KTAP line for CMD, its output as diagnostics.
check() {
	local name=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		PASSED=$((PASSED + 1))
		echo "ok $n send_${TREE} $name"
	else
		FAILED=$((FAILED + 1))
		[[ -z $out ]] || sed 's/^/# /' <<<"$out"
		echo "not ok $n send_${TREE} $name"
	fi
}

run_checks() {
	local msgs=$OUT/series
	check send_series_runs send_series --out "$msgs"
	mapfile -t MESSAGES < <(find "$msgs" -name '*.patch' 2>/dev/null | sort)
	PATCHES=("${MESSAGES[@]:1}")
	check from_is_sender each_message from_is_sender
	check one_signed_off_by_sender each_patch one_signoff
	check no_placeholder_anywhere no_placeholder "$msgs"
	check every_message_has_to each_message has_to
	check pid_c_to_brauner_and_akpm pid_c_to
	check kunit_suite_cc_kunit_dev kunit_cc
	check no_torvalds_no_hedi no_banned "$msgs"
	check subject_prefix_of_mainline each_message has_prefix
	check cover_letter_to_everyone cover_to_everyone
	PRISTINE_RC=0
	wait "$PRISTINE_PID" || PRISTINE_RC=$?
	check git_am_on_pristine_tree git_am_applies
	check refuses_empty_name refusal "" "an empty --name"
	check refuses_nonempty_out refusal "$NAME" "an --out holding a file"
}

# send_series ARG...: the command under test, as the sender runs it.
send_series() {
	"$REPO/harness/send-series.sh" --name "$NAME" --email "$EMAIL" --tree "$TREE" "$@" >"$OUT/send-series.log" 2>&1 || {
		tail -n 20 "$OUT/send-series.log"
		return 1
	}
	cat "$OUT/send-series.log"
}

# header FILE NAME: the unfolded value of the mail header NAME of FILE.
header() {
	awk -v want="$2" 'BEGIN { want = tolower(want) ":" }
		/^$/ { exit }
		/^[ \t]/ { if (on) v = v " " substr($0, match($0, /[^ \t]/)); next }
		{ on = tolower(substr($0, 1, length(want))) == want; if (on) v = substr($0, length(want) + 2) }
		END { print v }' "$1"
}

# addrs VALUE: the bare addresses of a header value, lowercase, a line each.
addrs() {
	grep -o -E '[^<>[:space:],"]+@[^<>[:space:],"]+' <<<"$1" | tr '[:upper:]' '[:lower:]' || true
}

# each_message TEST / each_patch TEST: TEST FILE on every message (the
# cover letter too) / every patch; fails when there are none.
each_message() {
	each "$1" "${MESSAGES[@]}"
}
each_patch() {
	each "$1" "${PATCHES[@]}"
}
each() {
	local test=$1 f rc=0
	shift
	(($#)) || { echo "no messages"; return 1; }
	for f; do
		"$test" "$f" || rc=1
	done
	return $rc
}

from_is_sender() {
	[[ $(header "$1" From) == "$SENDER" ]] || { echo "${1##*/}: From: $(header "$1" From)"; return 1; }
}

one_signoff() {
	local sobs
	sobs=$(grep '^Signed-off-by:' "$1" || true)
	[[ $sobs == "Signed-off-by: $SENDER" ]] || { echo "${1##*/}: ${sobs:-no Signed-off-by}"; return 1; }
}

has_to() {
	[[ -n $(addrs "$(header "$1" To)") ]] || { echo "${1##*/}: no To:"; return 1; }
}

has_prefix() {
	[[ $(header "$1" Subject) == "[$PREFIX "[0-9]*/[0-9]*"] "* ]] ||
		{ echo "${1##*/}: Subject: $(header "$1" Subject), not [$PREFIX N/M]"; return 1; }
}

no_placeholder() {
	((${#MESSAGES[@]})) || { echo "no messages"; return 1; }
	! grep -r -n -i -F -e "$PH_EMAIL" -e "$PH_NAME" "$1"
}

no_banned() {
	((${#MESSAGES[@]})) || { echo "no messages"; return 1; }
	! grep -r -n -i -e 'torvalds@' -e 'hedi@sgi\.com' "$1"
}

# pid_c_to: every patch touching kernel/pid.c is To both; there is one.
pid_c_to() {
	local f to seen=0 rc=0
	for f in "${PATCHES[@]}"; do
		grep -q '^diff --git a/kernel/pid\.c ' "$f" || continue
		seen=1
		to=$(addrs "$(header "$f" To)")
		if ! grep -q -x -F brauner@kernel.org <<<"$to" || ! grep -q -x -F akpm@linux-foundation.org <<<"$to"; then
			echo "${f##*/}: To: $(header "$f" To)"
			rc=1
		fi
	done
	((seen)) || { echo "no patch touches kernel/pid.c"; return 1; }
	return $rc
}

# kunit_cc: the patch adding a suite (kunit_test_suite) Cc's kunit-dev.
kunit_cc() {
	local f seen=0 rc=0
	for f in "${PATCHES[@]}"; do
		grep -q '^+kunit_test_suites\?(' "$f" || continue
		seen=1
		addrs "$(header "$f" Cc)" | grep -q -x -F kunit-dev@googlegroups.com ||
			{ echo "${f##*/}: Cc: $(header "$f" Cc)"; rc=1; }
	done
	((seen)) || { echo "no patch adds a KUnit suite"; return 1; }
	return $rc
}

# cover_to_everyone: the cover letter's To and Cc hold the addresses of
# every patch's, and no others.
cover_to_everyone() {
	local f cover patches
	((${#MESSAGES[@]})) || { echo "no messages"; return 1; }
	cover=$(addrs "$(header "${MESSAGES[0]}" To), $(header "${MESSAGES[0]}" Cc)" | sort -u)
	patches=$(for f in "${PATCHES[@]}"; do addrs "$(header "$f" To), $(header "$f" Cc)"; done | sort -u)
	[[ -n $cover && $cover == "$patches" ]] || {
		diff <(echo "$cover") <(echo "$patches")
		return 1
	}
}

# git_am_applies: the patches, in order, onto the pristine repository,
# checked out sparsely: the paths the patches name, all git am reads.
git_am_applies() {
	local -a paths
	((PRISTINE_RC == 0)) || { cat "$WORK/pristine.log"; return 1; }
	((${#PATCHES[@]})) || { echo "no patches"; return 1; }
	mapfile -t paths < <(sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|/\1\n/\2|p' "${PATCHES[@]}" | sort -u)
	git -C "$WORK/linux" sparse-checkout set --no-cone "${paths[@]}" &&
		git -C "$WORK/linux" reset -q --hard &&
		git -C "$WORK/linux" -c user.name=check -c user.email=check@invalid am --no-3way "${PATCHES[@]}"
}

# refusal NAME WHAT: send-series.sh with --name NAME into a folder
# holding a file exits 2 and leaves the folder as it was.
refusal() {
	local dir=$OUT/refusal rc=0 before
	mkdir -p "$dir"
	[[ -e $dir/keep ]] || printf 'not send-series.sh'"'"'s\n' >"$dir/keep"
	before=$(cd "$dir" && ls -A && sha256sum keep)
	"$REPO/harness/send-series.sh" --name "$1" --email "$EMAIL" --out "$dir" --tree "$TREE" || rc=$?
	((rc == 2)) || { echo "$2: exit $rc, not 2"; return 1; }
	[[ $(cd "$dir" && ls -A && sha256sum keep) == "$before" ]] || { echo "$2: the folder changed"; return 1; }
}

main "$@"
