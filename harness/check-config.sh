#!/bin/bash
# check-config.sh - fail unless every option of the fragments stuck in a
# kernel .config after olddefconfig.
#
# Usage: harness/check-config.sh DOT_CONFIG FRAGMENT...
# "CONFIG_X=v" must appear as is; "# CONFIG_X is not set" must leave X
# unset. Prints each option that did not stick and exits 1.
set -euo pipefail

# shellcheck source=harness/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
USAGE="Usage: harness/check-config.sh DOT_CONFIG FRAGMENT...
Fail unless every option of the FRAGMENTs stuck in DOT_CONFIG."
parse_options "$USAGE" "" "$@"
set -- "${OPTS[@]:1}"
(($# >= 2)) || usage_error "expects DOT_CONFIG FRAGMENT..."
config=$1
shift
[[ -r $config ]] || die "$config is not readable"

# As merge_config.sh merges them, a later fragment's line for a symbol
# overrides an earlier one's: only the last word on each symbol counts.
declare -A want=() from=()
declare -a order=()
for frag in "$@"; do
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ || $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]}
			[[ -n ${want[$sym]+set} ]] || order+=("$sym")
			want[$sym]=$line from[$sym]=$frag
		fi
	done <"$frag"
done
bad=0
for sym in "${order[@]}"; do
	line=${want[$sym]} frag=${from[$sym]}
	got=$(grep -E "^$sym=" "$config" | tail -n 1 || true)
	if [[ $line == CONFIG_* && $got != "$line" ]]; then
		echo "${0##*/}: $frag asks for '$line', .config has '${got:-$sym unset}'" >&2
		bad=1
	elif [[ $line == \#* && -n $got ]]; then
		echo "${0##*/}: $frag asks for '$sym' unset, .config has '$got'" >&2
		bad=1
	fi
done
if ((bad)); then
	echo "${0##*/}: error: config fragment options did not stick in $config; fix the fragment's dependencies" >&2
	exit 1
fi
