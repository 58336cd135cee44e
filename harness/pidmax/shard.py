"""A transform of the job list: the jobs of shard I of N.

Every job lands in exactly one shard, and the split is deterministic:
the same list and N give the same shards on every machine. A boot's
weight is its cost under TCG (joblist.weight), so the heavy boots are
dealt out first, each to the shard with the least weight so far (the
lowest-numbered on a tie), and the shards take similar time. A shard
keeps the list's order.
"""
from . import joblist


def spec(text):
    """(I, N) of the shard spec "I/N", 1 <= I <= N."""
    i, sep, n = text.partition("/")
    if sep and i.isdigit() and n.isdigit() and 1 <= int(i) <= int(n):
        return int(i), int(n)
    raise ValueError(f"shard '{text}': want I/N with 1 <= I <= N")


def split(lines, i, n):
    """The LINES of shard I of N."""
    weights = []
    for k, line in enumerate(lines, 1):
        try:
            weights.append(joblist.weight(joblist.Job.parse(line)))
        except ValueError as err:
            raise ValueError(f"line {k}: {err}") from None
    # Heaviest first; equal weights in list order.
    order = sorted(range(len(lines)), key=lambda k: (-weights[k], k))
    load, shard = [0] * n, {}
    for k in order:
        best = load.index(min(load))
        shard[k] = best + 1
        load[best] += weights[k]
    return [line for k, line in enumerate(lines) if shard[k] == i]
