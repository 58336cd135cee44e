"""The boot-time pid_max formula, written down from the heuristic.

default = BASE_SMALL ? 4096 : 32768                (PID_MAX_DEFAULT)
limit   = BASE_SMALL ? 4096 * 8 : 64-bit ? 4194304 : default
pid_max = min(limit, max(default, 1024 * cpus))
minimum = max(301, 8 * cpus), cut to pid_max by the series only

The series counts nr_cpu_ids (the highest possible CPU id + 1); stock
Linux counts num_possible_cpus(). It is never fed values read back from
a guest.
"""
from dataclasses import dataclass

RESERVED_MIN = 301
PIDS_PER_CPU = 1024
PIDS_PER_CPU_MIN = 8
MODELS = ("series", "stock")


@dataclass(frozen=True)
class Expected:
    """What a kernel must compute: pid_max, its minimum and PID_MAX_LIMIT."""
    pid_max: int
    minimum: int
    limit: int
    clamped: bool


def expected(cpus: int, small: bool, is64: bool = True,
             model: str = "series") -> Expected:
    """The formula for CPUS counted CPUs of a kernel of that kind."""
    if model not in MODELS:
        raise ValueError(f"model is series or stock, not {model!r}")
    if cpus < 1:
        raise ValueError(f"bad CPU count {cpus}")
    default = 4096 if small else 32768
    if small:
        limit = 4096 * 8
    else:
        limit = 4 * 1024 * 1024 if is64 else default
    want = max(default, PIDS_PER_CPU * cpus)
    pid_max = min(limit, want)
    minimum = max(RESERVED_MIN, PIDS_PER_CPU_MIN * cpus)
    clamped = pid_max < want
    if model == "series" and minimum > pid_max:
        minimum, clamped = pid_max, True
    return Expected(pid_max, minimum, limit, clamped)
