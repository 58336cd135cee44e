# shellcheck shell=bash
# lib.sh - helpers shared by the harness scripts; sourced, never run.
#
# Holds what the builders and fetchers need: option parsing, the build
# folder's lock, Debian's mirror, the tables' questions and a job's field
# (both answered by harness/pidmax), and make_job. The formula, the CPU
# list parser, the .config reader and the line format live in the
# package alone.

# The folder of lib.sh, absolute: every script sources it, each boot
# too, so it is found without running dirname.
HARNESS_LIB_DIR=${BASH_SOURCE[0]%/*}
[[ $HARNESS_LIB_DIR != "${BASH_SOURCE[0]}" ]] || HARNESS_LIB_DIR=.
HARNESS_LIB_DIR=$(cd "$HARNESS_LIB_DIR" && pwd)


# die MESSAGE: a runtime error; exit 1.
die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

info() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# summary_line PASSED FAILED SKIPPED: the closing line of everything
# that counts tests (report.sh, the self-tests, ci/test.sh's steps).
# Skips are counted apart from passes.
summary_line() {
	printf '%d passed, %d failed, %d skipped\n' "$1" "$2" "$3"
}
# That line as a regular expression: BASH_REMATCH 1 passed, 2 failed,
# 4 skipped (empty from a producer that prints no skips).
# shellcheck disable=SC2034 # read by the scripts that source lib.sh
SUMMARY_RE='^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'

# build_lock DIR: hold the build folder DIR until this script and every
# process it started have ended, so that two builds in one folder never
# interleave. It is flock(1)'s lock on DIR/.pidmax-lock, the file that
# pidmax/results_dir.py locks in a results folder, holding the process
# id of its holder: a second build waits for the first, and says once
# which process it waits for. A folder named in PIDMAX_LOCKED is held by
# the script that started this one (build-kernel.sh's
# build-initramfs.sh --modules) and is not locked again.
build_lock() {
	local dir file holder
	dir=$(cd "$1" && pwd -P) || die "no build folder $1"
	[[ ":${PIDMAX_LOCKED:-}:" != *":$dir:"* ]] || return 0
	command -v flock >/dev/null || die "flock not found: apt-get install util-linux"
	file="$dir/.pidmax-lock"
	exec {BUILD_LOCK_FD}<>"$file" || die "cannot open $file"
	if ! flock -n "$BUILD_LOCK_FD"; then
		holder=$(tr -dc 0-9 <"$file") || true
		info "waiting for process ${holder:-?}, which builds in $dir"
		flock "$BUILD_LOCK_FD" || die "could not lock $file"
	fi
	echo "$$" >"$file"
	export PIDMAX_LOCKED=${PIDMAX_LOCKED:+$PIDMAX_LOCKED:}$dir
}

# --- options ---------------------------------------------------------
# Every script keeps its --help text in USAGE and parses its options the
# same way: util-linux getopt normalizes them (--opt=value and --opt
# value both work), an option is taken by its whole name only (getopt
# would take --cpu for --cpus), --help prints USAGE, and any usage error
# exits 2.

# usage_error MESSAGE: say what is wrong with the command line; exit 2.
usage_error() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	printf "Try '%s --help'.\n" "${0##*/}" >&2
	exit 2
}

# exact_options LONGOPTS ARG...: refuse (exit 2) a long option of ARGs
# that is not one of LONGOPTS by its whole name, before getopt, which
# takes any unambiguous prefix; an option's value is skipped.
exact_options() {
	local -A takes=()
	local -a names
	local o a name skip=0
	IFS=, read -r -a names <<<"$1"
	shift
	for o in "${names[@]}"; do
		takes[${o%:}]=$([[ $o == *: ]] && echo 1 || echo 0)
	done
	for a; do
		if ((skip)); then
			skip=0
			continue
		fi
		[[ $a != -- ]] || break
		[[ $a == --?* ]] || continue
		name=${a#--}
		name=${name%%=*}
		[[ -n ${takes[$name]:-} ]] || usage_error "unrecognized option '--$name'"
		[[ $a == *=* || ${takes[$name]} == 0 ]] || skip=1
	done
}

# parse_options USAGE LONGOPTS ARG...: normalize ARGs into the array
# OPTS: "--opt value" pairs, then "--", then the operands. LONGOPTS is
# getopt's -l list ("cpus:,out:"; --help is added). --help or -h
# anywhere before "--" prints USAGE, the script's usage text, and exits 0.
parse_options() {
	local usage=$1 longopts=$2 normal a plain=1
	shift 2
	# No argument that looks like an option: getopt would only put "--"
	# in front, so it is not run (boot-guest.sh parses once a boot).
	for a; do
		[[ $a != -* ]] || plain=0
	done
	if ((plain)); then
		OPTS=(-- "$@")
		return 0
	fi
	exact_options "help${longopts:+,$longopts}" "$@"
	if ! normal=$(getopt -n "${0##*/}" -o h -l "help${longopts:+,$longopts}" -- "$@"); then
		printf "Try '%s --help'.\n" "${0##*/}" >&2
		exit 2
	fi
	eval "OPTS=($normal)"
	for a in "${OPTS[@]}"; do
		[[ $a == -- ]] && break
		if [[ $a == --help || $a == -h ]]; then
			printf '%s\n' "$usage"
			exit 0
		fi
	done
}

# --- the line format -------------------------------------------------
# Jobs (DIR/jobs, one boot a line) and records (parse-console.sh's
# output) are lines of TAB-separated KEY=VALUE fields, read and written
# by harness/pidmax/joblist.py alone; the shell asks it for a field
# (job_field).

# job_field LINE KEY: the value of KEY in the job or record LINE, or
# "none" when it has none.
job_field() {
	"$HARNESS_LIB_DIR/pidmax.sh" field "$2" <<<"$1"
}

# debian_mirror: the Debian archive the host's apt is configured with
# (the first URI of its sources that serves the suite bookworm, in
# one-line or deb822 form), for fetch-deb.sh's private lists of other
# suites; $PIDMAX_MIRROR overrides it ($PIDMAX_APT_ETC the /etc/apt
# read, for the self-tests). Fails with a message when none.
debian_mirror() {
	if [[ -n ${PIDMAX_MIRROR:-} ]]; then
		echo "$PIDMAX_MIRROR"
		return 0
	fi
	local f etc=${PIDMAX_APT_ETC:-/etc/apt}
	local -a files=()
	for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
		[[ -r $f ]] && files+=("$f")
	done
	((${#files[@]})) && awk '
		FILENAME ~ /\.sources$/ {
			if ($0 ~ /^[[:space:]]*$/) { uris = ""; suites = ""; next }
			if ($1 == "URIs:") uris = $2
			if ($1 == "Suites:") suites = " " substr($0, index($0, ":") + 1) " "
			if (uris != "" && suites ~ / bookworm /) { print uris; found = 1; exit }
			next
		}
		$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) == "bookworm") { print $i; found = 1; exit }
		}
		END { exit !found }' "${files[@]}" && return 0
	echo "${0##*/}: no Debian archive serving bookworm in the host's apt sources (set PIDMAX_MIRROR)" >&2
	return 1
}

# --- the tables ------------------------------------------------------
# harness/trees (where each tree's source comes from, its series),
# kernels (each tree's kernels and the tiers each boots), machines and
# arches are read by harness/pidmax/tables.py alone; the functions below
# ask it (table_answer). $PIDMAX_TREES, $PIDMAX_KERNELS, $PIDMAX_MACHINES
# and $PIDMAX_ARCHES point at other tables (the self-tests'). The paths
# of two, for messages and build ids:
# shellcheck disable=SC2034 # read by the scripts that source lib.sh
KERNEL_TABLE=${PIDMAX_KERNELS:-$HARNESS_LIB_DIR/kernels}
# shellcheck disable=SC2034 # read by the scripts that source lib.sh
ARCH_TABLE=${PIDMAX_ARCHES:-$HARNESS_LIB_DIR/arches}

# table_answer QUESTION ARG...: what harness/pidmax/tables.py answers
# (python3 -m pidmax table --help lists the questions); a bad table or
# an unknown name fails with a message.
table_answer() {
	PIDMAX_PROG=${0##*/} "$HARNESS_LIB_DIR/pidmax.sh" table "$@"
}

# told_facts QUESTION ARG...: for a builder told the tables' facts as
# options (the caller's FACTS, their names, and fact, an associative
# array of those given), all or none: with none, fact is filled from the
# tables' answer to QUESTION (options, shell-quoted), asked once; fails,
# with their message, when they refuse. Some facts only is a usage error
# that names the missing ones.
told_facts() {
	local _tf_answer _tf_f
	local -a _tf_words _tf_missing=()
	if ((${#fact[@]} == 0)); then
		_tf_answer=$(table_answer "$@") || return 1
		eval "_tf_words=($_tf_answer)"
		while ((${#_tf_words[@]} >= 2)); do
			fact[${_tf_words[0]#--}]=${_tf_words[1]}
			_tf_words=("${_tf_words[@]:2}")
		done
	fi
	for _tf_f in "${FACTS[@]}"; do
		[[ -v fact[$_tf_f] ]] || _tf_missing+=("--$_tf_f")
	done
	((${#_tf_missing[@]} == 0)) || usage_error "give the facts all or none (none: the tables" \
		"are asked): ${_tf_missing[*]} missing"
}

# tree_row TREE: "SUITE SERIES MUTANTS" of TREE in harness/trees; fails
# with a message for a tree it lacks or a malformed row.
tree_row() {
	table_answer tree "$1"
}

# tree_series_dir TREE: the folder of TREE's quilt series (SERIES of
# its row: relative to the repository, or absolute).
tree_series_dir() {
	table_answer series "$1"
}

# tree_mutants_dir TREE: the folder of the mutants of TREE's series
# (MUTANTS of its row, as SERIES); empty when it has none.
tree_mutants_dir() {
	table_answer mutants "$1"
}

# tree_tarball BUILD_DIR TREE: the path of TREE's source tarball, fetched
# into BUILD_DIR first when its suite is not the host's. Returns 3, with
# fetch-deb.sh's message, when the suite is unreachable.
tree_tarball() {
	local row
	row=$(tree_row "$2") || return 1
	suite_tarball "$1" "$2" "${row%% *}"
}

# suite_tarball BUILD_DIR TREE SUITE: the same for a caller that knows
# TREE's suite (build-kernel.sh is told it).
suite_tarball() {
	local root rc=0
	if [[ $3 == host ]]; then
		echo "/usr/src/linux-source-$2.tar.xz"
		return 0
	fi
	root=$("$HARNESS_LIB_DIR/fetch-deb.sh" "$1/deb-linux-source-$2" \
		"$3" "linux-source-$2") || rc=$?
	((rc == 0)) || return "$rc"
	echo "$root/usr/src/linux-source-$2.tar.xz"
}

# tree_tarball_ktap BUILD TREE TEST VAR: for a script that reports in
# KTAP, the tree's tarball (tree_tarball) into VAR. When the tree's suite
# is unreachable, prints a KTAP run of one TEST skipped with that reason
# and returns 3; dies when the tarball cannot be had otherwise.
tree_tarball_ktap() {
	local -n _ttk_into=$4
	local _ttk_rc=0
	_ttk_into=$(tree_tarball "$1" "$2") || _ttk_rc=$?
	if ((_ttk_rc == 3)); then
		printf 'KTAP version 1\n1..1\nok 1 %s # SKIP the source of tree %s is unreachable (harness/trees)\n' \
			"$3" "$2"
		summary_line 0 0 1
		return 3
	fi
	((_ttk_rc == 0)) || die "no source for tree $2 (see above)"
	[[ -r $_ttk_into ]] || die "$_ttk_into is missing: apt-get install linux-source-$2"
}

# arch_row ARCH: set ARCH_KCONFIG, ARCH_MAKE, ARCH_CROSS, ARCH_IMAGE,
# ARCH_QEMU, ARCH_CONSOLE, ARCH_MACHINE, ARCH_FIRMWARE, ARCH_DEBIAN,
# ARCH_MAXCPUS, ARCH_PACKAGES (comma-separated) and ARCH_APPEND from
# ARCH's row of harness/arches, "-" read as empty; fails with a message
# naming the known architectures.
arch_row() {
	local _ar
	_ar=$(table_answer arch "$1") || return 1
	eval "$_ar"
}

# arch_names: the table's architectures, a word each.
arch_names() {
	table_answer arches
}

# kernel_trees [ARCH]: the table's trees of ARCH ("6.1 6.12");
# kernel_variants TREE [ARCH]: that tree's variants ("full small").
kernel_trees() {
	table_answer trees "$@"
}
kernel_variants() {
	table_answer variants "$@"
}

# kernel_initrd_mode TREE BUILD [ARCH]: the row's INITRD (builtin: the
# initramfs goes inside the kernel), or fail when the table has no such
# build.
kernel_initrd_mode() {
	table_answer initrd "$@"
}

# kernel_plan TREE ARCH VARIANT MODE TIER...: which of the variant's
# builds boot which TIERs, a line "BUILD TIER..." per build needed, in
# the table's order. A tier boots on the first row of the variant that
# lists it (MODE each, the default sweep) or the last (MODE fewest: on
# 6.1 one kernel a variant then boots every tier). Fails, naming the
# tier, when no row lists it.
kernel_plan() {
	table_answer plan "$@"
}

# kernel_pick TREE ARCH VARIANT TIER MODE: the one build that boots TIER.
kernel_pick() {
	local line
	line=$(kernel_plan "$1" "$2" "$3" "$5" "$4") || return 1
	echo "${line%% *}"
}

# in_words WORD LIST: true when WORD is one of LIST's words.
in_words() {
	[[ " $2 " == *" $1 "* ]]
}

# --- jobs ------------------------------------------------------------
# A job is one boot: what to boot and how (kernel, initrd, accel, QEMU's
# -smp, memory, timeout, extra kernel parameters) and what the judge
# must find (possible and online CPUs, pid_max, pid_max_min, pid_max_max,
# the boot line, whether a sysctl.kernel.pid_max= setting is refused,
# whether the KUnit suite runs). The expectations travel with the job,
# so the judge never recomputes them. A job with a "skip" field is a
# boot that does not apply, and the field says why.

# job_kernel KERNEL CONFIG INITRD LABEL ACCEL [SERIES]: the kernel that
# the jobs of make_job boot, and its .config (BASE_SMALL, 64BIT, the
# suite, the architecture). SERIES is yes (the default: built here with
# the series), auto (any --kernel: the judge tells from its boot line) or
# no (the stock model).
job_kernel() {
	[[ -r $2 ]] || {
		echo "kernel config '$2' is not readable" >&2
		return 1
	}
	JK_ARGS=(--kernel "$1" --config "$2" --initrd "$3" --label "$4" --accel "$5"
		--series "${6:-yes}")
}

# job_kernel_is KERNEL CONFIG INITRD LABEL ACCEL BASE_SMALL IS_64BIT
#               KUNIT [SERIES]: the same with the .config's facts given
# (an x86-64 kernel).
job_kernel_is() {
	JK_ARGS=(--kernel "$1" --config "$2" --initrd "$3" --label "$4" --accel "$5"
		--facts "$6,$7,$8" --series "${9:-yes}")
}

# make_job CASE TIER POSSIBLE ONLINE SMP [KEY=VALUE...]: print the job
# line of boot LABEL-CASE of the kernel of job_kernel, with QEMU's -smp
# SMP, where the guest must show POSSIBLE possible and ONLINE online
# CPUs; the optional fields and the expected values are
# harness/pidmax/jobs.py's (python3 -m pidmax job), the one job writer.
make_job() {
	"$HARNESS_LIB_DIR/pidmax.sh" job "${JK_ARGS[@]}" "$@"
}

# kernel_id KERNEL: what identifies a booted kernel across machines
# (harness/pidmax/sweep_kernels.py): its build ID, else its sha256.
kernel_id() {
	"$HARNESS_LIB_DIR/pidmax.sh" kernel-id "$1"
}

# draw BASE: run the gnuplot script on stdin (without terminal and
# output lines) twice, into BASE.svg and BASE.png, each written under a
# temporary name and renamed.
draw() {
	local script term ext
	command -v gnuplot >/dev/null || die "gnuplot not found: apt-get install gnuplot-nox"
	script=$(cat)
	for term in "svg size 900,600 dynamic" "pngcairo size 900,600"; do
		ext=svg
		[[ $term == png* ]] && ext=png
		printf 'set terminal %s\nset output "%s"\n%s\n' "$term" "$1.$ext.tmp" "$script" |
			gnuplot || die "gnuplot failed to draw $1.$ext"
		mv "$1.$ext.tmp" "$1.$ext"
	done
}
