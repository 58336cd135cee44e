#!/bin/bash
# send-series.sh - one command from a tree's series (mainline/: git
# format-patch output with a cover letter) to a folder that
# "git send-email DIR/*.patch" sends, under the sender's own name.
#
# The series in the repository carries a placeholder author (its cover
# letter's From:), which the DCO does not accept; it stays there, and
# this rewrites a copy: the tree's pristine source (lib.sh's
# tree_tarball) committed whole into a scratch git repository under the
# build folder (removed at exit), streamed from the tarball by
# harness/tar-commit.py into git fast-import rather than unpacked and
# added (96000 files written, hashed and deleted cost minutes on a busy
# disk), and checked out sparsely: the top-level files,
# scripts/get_maintainer.pl and every path the series touches, all that
# git am and get_maintainer.pl read. The series is applied with
# "git am" (no 3-way: it must apply exactly); every commit's author and
# committer made the sender, the placeholder's Signed-off-by the
# sender's (other trailers kept); then "git format-patch --cover-letter"
# with the subject prefix, subject and body of the series' cover letter.
# Each patch gets its own To: (the maintainers) and Cc: (reviewers and
# lists) from the tree's scripts/get_maintainer.pl, plus the rows of
# harness/send-rules (what get_maintainer cannot know, and the
# addresses never to write); the cover letter goes to all of them.
# Nothing is sent and nothing needs the network once the tarball is in
# the build folder.
#
# Not b4 (0.12): "b4 prep --auto-to-cc" writes every address it finds
# into the cover letter and "b4 send" mails every patch to that union;
# a patch can only add Cc: trailers of its own commit message, never a
# To: of its own, so it cannot give each patch its own recipients.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HARNESS/.." && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
SEND_RULES=${PIDMAX_SEND_RULES:-$HARNESS/send-rules}
USAGE="Usage: harness/send-series.sh --name NAME --email ADDR --out DIR [--tree TREE] [--build-dir DIR]
Make TREE's series (harness/trees; 7.3: mainline/) the sender's and write
it into DIR, ready for git send-email: the cover letter and every patch,
each with its own To: and Cc: (scripts/get_maintainer.pl and
harness/send-rules). Prints what it wrote and the git send-email line.
  --name NAME      the sender's name (\"Ada Lovelace\")
  --email ADDR     the sender's address, bare (ada@example.org)
  --out DIR        where the patches go: a new or empty folder
  --tree TREE      the tree whose series is sent (default: 7.3)
  --build-dir DIR  where the tree's tarball is fetched and the scratch
                   repository made (default: build/ of the repository)
Exits 2 on a bad command line, 3 when the tree's source is unreachable."

main() {
	local name="" email="" out="" tree=7.3 build="$REPO/build" n_name=0
	parse_options "$USAGE" "name:,email:,out:,tree:,build-dir:" "$@"
	set -- "${OPTS[@]}"
	while [[ $1 != -- ]]; do
		case $1 in
		--name) name=$2 n_name=1 ;;
		--email) email=$2 ;;
		--out) out=$2 ;;
		--tree) tree=$2 ;;
		--build-dir) build=$2 ;;
		esac
		shift 2
	done
	shift
	(($# == 0)) || usage_error "takes no operands"
	((n_name)) || usage_error "--name is required"
	check_identity "$name" "$email"
	check_out "$out"
	check_tree "$tree"
	SENDER="$name <$email>" NAME=$name EMAIL=$email
	prepare "$build" "$tree"
	apply_series
	address_patches
	publish "$out"
	report "$out"
}

# check_identity NAME EMAIL: a name git and a mail header can carry, and
# one bare address; else a usage error.
check_identity() {
	local name=$1 email=$2 bad='[][:space:][:cntrl:]<>,;:"()\\[]'
	[[ $name =~ [^[:space:]] ]] || usage_error "--name is empty"
	[[ $name != *[$'\n\r']* ]] || usage_error "--name holds a line break"
	[[ $name =~ ^[^[:cntrl:]]+$ ]] || usage_error "--name holds a control character"
	[[ $name != *[\<\>]* ]] || usage_error "--name holds < or >: give the address with --email"
	[[ -n $email ]] || usage_error "--email is required"
	[[ $email =~ ^[^@]+@[^@]+$ && ! $email =~ $bad ]] ||
		usage_error "--email '$email' is not one bare address (no spaces, one @, no <>)"
}

# check_out DIR: DIR is given, and new or an empty folder.
check_out() {
	[[ -n $1 ]] || usage_error "--out is required"
	[[ -e $1 || -L $1 ]] || return 0
	[[ -d $1 ]] || usage_error "--out $1 exists and is not a folder"
	[[ -z $(ls -A "$1") ]] || usage_error "--out $1 is not empty: give a new or empty folder"
}

# check_tree TREE: set SERIES_DIR to TREE's series folder, one with a
# cover letter; else a usage error.
check_tree() {
	tree_row "$1" >/dev/null 2>&1 || usage_error "--tree '$1' is not a tree of harness/trees"
	SERIES_DIR=$(tree_series_dir "$1") || die "no series folder for tree $1"
	[[ -r $SERIES_DIR/0000-cover-letter.patch && -r $SERIES_DIR/series ]] ||
		usage_error "tree $1's series ($SERIES_DIR) has no 0000-cover-letter.patch and series file"
	TREE=$1
}

# --- the scratch repository -------------------------------------------

# prepare BUILD TREE: the tarball, the scratch folder (WORK, removed at
# exit), the cover letter read, the pristine tree committed.
prepare() {
	local tarball rc=0 cmd
	for cmd in git perl python3 xz; do
		command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install $cmd"
	done
	mkdir -p "$1" || die "cannot make the build folder $1"
	tarball=$(tree_tarball "$1" "$2") || rc=$?
	((rc != 3)) || { info "the source of tree $2 is unreachable (harness/trees)"; exit 3; }
	((rc == 0)) || die "no source for tree $2 (see above)"
	[[ -r $tarball ]] || die "$tarball is missing: apt-get install linux-source-$2"
	WORK=$(mktemp -d "$1/send-series.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	TREE_DIR=$WORK/linux
	git_env
	read_cover "$SERIES_DIR/0000-cover-letter.patch"
	commit_pristine "$tarball"
	checkout_sparse
}

# git_env: every git command here sees the sender as author and
# committer and none of the host's or user's git configuration (no
# format.to, hooks path or signing key of theirs).
git_env() {
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL
	export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

# read_cover FILE: from the series' cover letter, COVER_PREFIX ("RFC
# PATCH"), COVER_SUBJECT, COVER_COUNT, the body without its shortlog
# and diffstat ($WORK/cover.body), and the placeholder identity
# PH_NAME, PH_EMAIL (its From:).
read_cover() {
	local info re='^Subject: \[(.+) 0+/([0-9]+)\] (.+)$'
	info=$(git mailinfo -k -u "$WORK/cover.msg" "$WORK/cover.diff" <"$1") ||
		die "git mailinfo cannot read $1"
	[[ $(grep '^Subject: ' <<<"$info") =~ $re ]] || die "$1: no subject '[PREFIX 0/N] ...'"
	COVER_PREFIX=${BASH_REMATCH[1]} COVER_COUNT=${BASH_REMATCH[2]} COVER_SUBJECT=${BASH_REMATCH[3]}
	PH_NAME=$(sed -n 's/^Author: //p' <<<"$info")
	PH_EMAIL=$(sed -n 's/^Email: //p' <<<"$info")
	[[ -n $PH_NAME && -n $PH_EMAIL ]] || die "$1: no From:"
	# The body ends before the shortlog: "Author (N):", then "  subject".
	awk 'held != "" { if ($0 ~ /^  [^ ]/) exit; print held; held = "" }
		/^[^ \t].* \([0-9]+\):$/ { held = $0; next }
		{ print }' "$WORK/cover.msg" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$WORK/cover.body"
	[[ -s $WORK/cover.body ]] || die "$1: no body before the shortlog"
	! grep -q -F -e "$PH_EMAIL" -e "$PH_NAME" "$WORK/cover.body" ||
		die "$1: its body names the placeholder $PH_NAME <$PH_EMAIL>"
}

# commit_pristine TARBALL: the tarball's tree, every file of it, as the
# first commit (BASE) through git fast-import; its message names the
# version its Makefile gives.
commit_pristine() {
	local version tree
	info "committing the pristine tree of $1"
	git init -q -b send "$TREE_DIR"
	xz -T0 -dc "$1" | python3 "$HARNESS/tar-commit.py" refs/heads/send "$1" |
		git -C "$TREE_DIR" -c pack.compression=0 fast-import --quiet --depth=0 ||
		die "could not commit the pristine tree of $1"
	version=$(git -C "$TREE_DIR" show HEAD:Makefile | awk -F' *= *' '
		$1 == "VERSION" && !v { v = $2 } $1 == "PATCHLEVEL" && !p { p = $2 }
		$1 == "SUBLEVEL" && s == "" { s = $2 } $1 == "EXTRAVERSION" && !e++ { x = $2 }
		END { if (v != "") print v "." p "." s x }')
	[[ -n $version ]] || die "$1: no version in its Makefile"
	tree=$(git -C "$TREE_DIR" rev-parse 'HEAD^{tree}')
	BASE=$(git -C "$TREE_DIR" commit-tree "$tree" \
		-m "Linux $version (Debian linux-source-$TREE, no git history)")
	git -C "$TREE_DIR" update-ref refs/heads/send "$BASE"
}

# checkout_sparse: of BASE, the top-level files, get_maintainer.pl and
# every path a patch of the series names (git am needs no other).
checkout_sparse() {
	local -a patches paths
	mapfile -t patches < <(series_patches)
	mapfile -t paths < <(sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|/\1\n/\2|p' \
		"${patches[@]/#/$SERIES_DIR/}" | sort -u)
	((${#paths[@]})) || die "no paths in the series of $SERIES_DIR"
	git -C "$TREE_DIR" sparse-checkout set --no-cone '/*' '!/*/' /scripts/get_maintainer.pl "${paths[@]}" &&
		git -C "$TREE_DIR" reset -q --hard || die "could not check out the pristine tree"
}

# --- the series, the sender's ------------------------------------------

# series_patches: the patches of the series file, in order.
series_patches() {
	grep -v -E '^[[:space:]]*(#|$)' "$SERIES_DIR/series"
}

# apply_series: every patch of the series with git am, in order, each
# made the sender's (sign_commit).
apply_series() {
	local p n=0
	local -a patches
	mapfile -t patches < <(series_patches)
	((${#patches[@]} == 10#$COVER_COUNT)) ||
		die "the cover letter announces $COVER_COUNT patches, the series file lists ${#patches[@]}"
	for p in "${patches[@]}"; do
		n=$((n + 1))
		git -C "$TREE_DIR" am -q --no-3way "$SERIES_DIR/$p" >"$WORK/am.log" 2>&1 || {
			cat "$WORK/am.log" >&2
			die "$p does not apply to the pristine tree (git am --no-3way)"
		}
		sign_commit "$p"
	done
	info "applied ${#patches[@]} patches with git am, each the sender's"
}

# sign_commit PATCH: HEAD's author and committer the sender, its
# placeholder Signed-off-by the sender's; no line may still name the
# placeholder.
sign_commit() {
	local msg=$WORK/msg
	git -C "$TREE_DIR" log -1 --format=%B >"$msg.old"
	awk -v old="<$PH_EMAIL>" -v new="Signed-off-by: $SENDER" '
		/^Signed-off-by:/ && (index($0, old) || $0 == new) { if (!done) print new; done = 1; next }
		{ print }' "$msg.old" >"$msg"
	git -C "$TREE_DIR" interpret-trailers --in-place --if-exists addIfDifferent \
		--trailer "Signed-off-by: $SENDER" "$msg"
	if grep -n -F -e "$PH_EMAIL" -e "$PH_NAME" "$msg" >&2; then
		die "$1: the lines above still name the placeholder; make them the sender's by hand"
	fi
	git -C "$TREE_DIR" commit -q --amend --no-verify --reset-author -F "$msg" ||
		die "$1: could not make the commit the sender's"
}

# --- the recipients -------------------------------------------------------

# read_rules: harness/send-rules into RULE_GLOB, RULE_KIND, RULE_ADDR.
read_rules() {
	local line glob kind addr why n=0
	RULE_GLOB=() RULE_KIND=() RULE_ADDR=()
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		why=${line#*[[:space:]]#}
		[[ $why != "$line" && $why =~ [^[:space:]] ]] || die "$SEND_RULES:$n: a rule needs a '# why'"
		line=${line%%[[:space:]]#*}
		read -r glob kind addr <<<"$line"
		[[ $kind == @(To|Cc|Drop) && -n $addr ]] || die "$SEND_RULES:$n: want GLOB To|Cc|Drop ADDRESS # why"
		RULE_GLOB+=("$glob") RULE_KIND+=("$kind") RULE_ADDR+=("$addr")
	done <"$SEND_RULES"
}

# rule_applies I PATH...: true when rule I's glob matches a PATH.
rule_applies() {
	local glob=${RULE_GLOB[$1]} p
	shift
	for p; do
		# shellcheck disable=SC2254 # the glob is a pattern
		case $p in $glob) return 0 ;; esac
	done
	return 1
}

# addr_key ADDR: the bare address of "Name <addr>" or "addr", lowercase.
addr_key() {
	local a=$1
	if [[ $a == *'<'*'>'* ]]; then
		a=${a##*<}
		a=${a%%>*}
	fi
	printf '%s\n' "${a,,}"
}

# get_maintainer ARG... PATCH: the tree's get_maintainer.pl, plain
# addresses a line; nothing from git (the scratch repository has no
# history: no signers of a Fixes: commit either), no chief penguins,
# and --no-tree: the sparse checkout lacks the folders it looks for to
# tell a kernel tree (it reads MAINTAINERS and .mailmap alone).
get_maintainer() {
	(cd "$TREE_DIR" && perl scripts/get_maintainer.pl --no-tree --no-git --no-git-fallback --no-fixes \
		--no-git-chief-penguins --no-rolestats --no-roles "$@") 2>"$WORK/gm.err" || {
		cat "$WORK/gm.err" >&2
		die "scripts/get_maintainer.pl $* failed"
	}
}

# add_addr KIND ADDR I...: ADDR into TO or CC unless already there or
# dropped by a Drop rule among rule indices I (those applying).
add_addr() {
	local kind=$1 addr key i
	addr=$(sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<<"$2")
	shift 2
	[[ -n $addr ]] || return 0
	key=$(addr_key "$addr")
	[[ -z ${SEEN[$key]:-} ]] || return 0
	for i; do
		# shellcheck disable=SC2254 # a Drop rule's address is a pattern
		[[ ${RULE_KIND[i]} != Drop ]] || case $key in ${RULE_ADDR[i],,})
			info "dropped $addr (harness/send-rules)"
			return 0
			;;
		esac
	done
	SEEN[$key]=$kind
	if [[ $kind == To ]]; then TO+=("$addr"); else CC+=("$addr"); fi
}

# recipients PATCH COMMIT: TO and CC of one patch: get_maintainer's
# maintainers and the rules' To, then its reviewers and lists and the
# rules' Cc; no To at all makes the Cc the To.
recipients() {
	local patch=$1 i a out
	local -a paths applying=() gm_to gm_cc
	out=$(git -C "$TREE_DIR" diff-tree --no-commit-id --name-only -r --no-renames "$2")
	mapfile -t paths <<<"$out"
	for i in "${!RULE_GLOB[@]}"; do
		! rule_applies "$i" "${paths[@]}" || applying+=("$i")
	done
	out=$(get_maintainer --m --no-r --no-l "$patch")
	mapfile -t gm_to <<<"$out"
	out=$(get_maintainer --no-m --r --l "$patch")
	mapfile -t gm_cc <<<"$out"
	TO=() CC=()
	SEEN=()
	for a in "${gm_to[@]}"; do add_addr To "$a" "${applying[@]}"; done
	for i in "${applying[@]}"; do
		[[ ${RULE_KIND[i]} != To ]] || add_addr To "${RULE_ADDR[i]}" "${applying[@]}"
	done
	for a in "${gm_cc[@]}"; do add_addr Cc "$a" "${applying[@]}"; done
	for i in "${applying[@]}"; do
		[[ ${RULE_KIND[i]} != Cc ]] || add_addr Cc "${RULE_ADDR[i]}" "${applying[@]}"
	done
	if ((${#TO[@]} == 0)); then
		TO=("${CC[@]}") CC=()
	fi
}

# address_patches: each patch formatted with its own To and Cc, the
# cover letter with all of them ($WORK/final); COUNTS a "To Cc" line
# per message.
address_patches() {
	local i file
	local -a plain commits
	declare -gA SEEN=()
	read_rules
	format_with "$WORK/plain" /dev/null /dev/null
	mapfile -t plain < <(find "$WORK/plain" -name '*.patch' | sort)
	mapfile -t commits < <(git -C "$TREE_DIR" rev-list --reverse "$BASE..HEAD")
	((${#plain[@]} == ${#commits[@]} + 1)) || die "git format-patch wrote ${#plain[@]} files for ${#commits[@]} commits"
	mkdir "$WORK/final" "$WORK/rcpt"
	: >"$WORK/rcpt/all.to"
	: >"$WORK/rcpt/all.cc"
	COUNTS=()
	for ((i = 1; i < ${#plain[@]}; i++)); do
		recipients "${plain[i]}" "${commits[i - 1]}"
		printf '%s\n' "${TO[@]}" | tee -a "$WORK/rcpt/all.to" >"$WORK/rcpt/$i.to"
		printf '%s\n' "${CC[@]}" | tee -a "$WORK/rcpt/all.cc" >"$WORK/rcpt/$i.cc"
		take_message "$i" "$WORK/rcpt/$i.to" "$WORK/rcpt/$i.cc"
		COUNTS[i]="${#TO[@]} ${#CC[@]}"
	done
	cover_recipients
	take_message 0 "$WORK/rcpt/0.to" "$WORK/rcpt/0.cc"
	COUNTS[0]="${#TO[@]} ${#CC[@]}"
	for file in "$WORK/final"/*.patch; do
		! grep -q -i -F -e "$PH_EMAIL" -e "$PH_NAME" "$file" || die "$file names the placeholder"
	done
}

# cover_recipients: the union of every patch's To, then of their Cc
# less the To, into $WORK/rcpt/0.to and 0.cc (and TO, CC).
cover_recipients() {
	local a
	TO=() CC=()
	SEEN=()
	while IFS= read -r a; do add_addr To "$a"; done <"$WORK/rcpt/all.to"
	while IFS= read -r a; do add_addr Cc "$a"; done <"$WORK/rcpt/all.cc"
	printf '%s\n' "${TO[@]}" >"$WORK/rcpt/0.to"
	printf '%s\n' "${CC[@]}" >"$WORK/rcpt/0.cc"
}

# format_with DIR TOFILE CCFILE: the whole series formatted into DIR, every
# message to the addresses of TOFILE and CCFILE (a line each); git
# writes and folds the headers.
format_with() {
	local -a args=()
	local a
	while IFS= read -r a; do [[ -z $a ]] || args+=(--to "$a"); done <"$2"
	while IFS= read -r a; do [[ -z $a ]] || args+=(--cc "$a"); done <"$3"
	git -C "$TREE_DIR" config branch.send.description \
		"$(printf '%s\n\n' "$COVER_SUBJECT"; cat "$WORK/cover.body")"
	git -C "$TREE_DIR" format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="$COVER_PREFIX" "${args[@]}" -o "$1" "$BASE..HEAD" ||
		die "git format-patch failed"
}

# take_message I TOFILE CCFILE: message I (0 the cover letter) of the
# series formatted with those recipients, into $WORK/final.
take_message() {
	local dir=$WORK/fmt.$1 file
	format_with "$dir" "$2" "$3"
	file=$(find "$dir" -name "$(printf '%04d' "$1")-*.patch")
	[[ -n $file ]] || die "git format-patch wrote no message $1"
	mv "$file" "$WORK/final/"
	rm -rf "$dir"
}

# --- the result -----------------------------------------------------------

# publish DIR: the messages into DIR, made if need be; nothing in it is
# overwritten.
publish() {
	local f
	check_out "$1"
	mkdir -p "$1" || die "cannot make $1"
	for f in "$WORK/final"/*.patch; do
		[[ ! -e $1/${f##*/} ]] || die "$1/${f##*/} appeared meanwhile; not overwritten"
		cp "$f" "$1/" || die "cannot write $1/${f##*/}"
	done
}

# report DIR: what was written, and the line that sends it.
report() {
	local dir f i=0 to cc
	dir=$(cd "$1" && pwd)
	printf '%s: wrote %s: the cover letter and %d patches, from %s\n' \
		"${0##*/}" "$dir" $((${#COUNTS[@]} - 1)) "$SENDER"
	for f in "$WORK/final"/*.patch; do
		read -r to cc <<<"${COUNTS[i]}"
		printf '  %-64s To %2d  Cc %2d\n' "${f##*/}" "$to" "$cc"
		i=$((i + 1))
	done
	echo "Send it (Debian's git-email, with sendemail.smtpServer configured; --dry-run first):"
	printf '  git send-email --from %s %s/*.patch\n' "$(sh_quote "$(mail_name "$NAME") <$EMAIL>")" "$(sh_quote "$dir")"
}

# mail_name NAME: NAME as a mail header's display name: in double
# quotes when it holds a character RFC 5322 reserves ("Paul E. McKenney").
mail_name() {
	local n=${1//\\/\\\\}
	if [[ $1 == *[][\(\),.:\;@\"\\]* ]]; then
		printf '"%s"\n' "${n//\"/\\\"}"
	else
		printf '%s\n' "$1"
	fi
}

# sh_quote WORD: WORD quoted for a shell command line.
sh_quote() {
	if [[ $1 != *"'"* ]]; then
		printf "'%s'" "$1"
	else
		printf '%q' "$1"
	fi
}

main "$@"
