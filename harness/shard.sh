#!/bin/bash
# shard.sh - a transform of the job list: the jobs of shard I of N.
#
# Every job lands in exactly one shard, and the split is deterministic:
# the same list and N give the same shards on every machine. A boot's
# weight is its cost under TCG from its job's online CPUs, CPU ids and
# machine (lib.sh's job_weight), so the heavy boots are dealt out first,
# each to the shard with the least weight so far (the lowest-numbered on
# a tie), and the shards take similar time. A shard keeps the list's
# order.
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"
USAGE="Usage: harness/shard.sh I/N [JOBS]
Print the jobs of shard I of N (1 <= I <= N) of the job list JOBS (or
standard input)."

main() {
	parse_options "$USAGE" "" "$@"
	set -- "${OPTS[@]:1}"
	(($# == 1 || $# == 2)) || usage_error "expects I/N and an optional JOBS file"
	local i n
	parse_shard "$1" i n || usage_error "shard '$1': want I/N with 1 <= I <= N"
	local line
	while IFS= read -r line; do
		printf '%s\t%s\n' "$(job_weight "$line")" "$line"
	done <"${2:-/dev/stdin}" | awk -F'\t' -v want="$i" -v n="$n" '
		{
			weight[NR] = $1
			line[NR] = substr($0, length($1) + 2)
		}
		END {
			# Heaviest first; equal weights in list order.
			for (k = 1; k <= NR; k++) order[k] = k
			for (a = 2; a <= NR; a++) {
				v = order[a]
				for (b = a - 1; b >= 1 && (weight[order[b]] < weight[v] ||
					(weight[order[b]] == weight[v] && order[b] > v)); b--)
					order[b + 1] = order[b]
				order[b + 1] = v
			}
			for (j = 1; j <= n; j++) load[j] = 0
			for (k = 1; k <= NR; k++) {
				best = 1
				for (j = 2; j <= n; j++) if (load[j] < load[best]) best = j
				shard[order[k]] = best
				load[best] += weight[order[k]]
			}
			for (k = 1; k <= NR; k++) if (shard[k] == want) print line[k]
		}'
}

main "$@"
