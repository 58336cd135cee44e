"""A transform of the job list: the same boots on the stock kernels (the
same configurations built without the series, build-kernel.sh --stock).

Every job keeps its QEMU command; its expected values come from the
formula's stock model: the possible count for nr_cpu_ids, and a minimum
not cut to pid_max. They differ from the series' where the possible map
has holes (a job's cpu_ids field) and with BASE_SMALL past 4096 CPUs; a
stock kernel that differs from its model fails, and the judge's reason
says where. A pid_max the job sets on the command line stays. The boot
is renamed LABEL-stock-CASE, the kernel is the stock one, its KUnit flag
comes from the stock .config (the pristine tree has no pid_max suite),
and series=auto. Every selftest is judged on the stock kernel
(selftests_judged=yes): the tree's own, unchanged, which the patched
kernel of the holes machine may fail by design and records, and the
series' version, which must pass with and without the series.
"""
import os

from . import formula
from .joblist import Job, Kunit
from .kconfig import Config


def stock_kernels(pairs):
    """LABEL=KERNEL pairs: each label's stock kernel and its .config's
    (BASE_SMALL, 64-bit, KUnit) facts."""
    out = {}
    for pair in pairs:
        label, sep, kernel = pair.partition("=")
        if not (label and sep and kernel):
            raise ValueError(f"'{pair}' is not LABEL=KERNEL")
        config = os.path.join(os.path.dirname(kernel), ".config")
        if not (os.access(kernel, os.R_OK) and os.access(config, os.R_OK)):
            raise ValueError(f"stock kernel {kernel} or its .config is missing")
        out[label] = (kernel, config, Config(config).pid_params())
    return out


def stock_job(job_line, stock):
    """The line of the job JOB_LINE on its label's stock kernel."""
    j = Job.parse(job_line)
    label = j.label or ""
    if label not in stock:
        raise ValueError(f"job {j.name or '?'} is of kernel '{label}', "
                         "which has no stock kernel")
    case = j.need("name").removeprefix(label + "-")
    if j.skip:
        return Job(name=f"{label}-stock-{case}", tier=j.tier,
                   variant=j.variant, label=f"{label}-stock",
                   skip=j.skip).line()
    kernel, config, (small, is64, kunit) = stock[label]
    e = formula.expected(j.need("possible"), small, is64, "stock")
    new = {"name": f"{label}-stock-{case}", "label": f"{label}-stock",
           "kernel": kernel, "config": config, "kunit": Kunit(str(kunit)),
           "series": "auto", "line_default": e.pid_max,
           "line_min": e.minimum, "pid_max_min": e.minimum, "model": "stock"}
    if j.pid_max == j.line_default:
        new["pid_max"] = e.pid_max
    if j.selftests is not None:
        new["selftests_judged"] = "yes"
    # A stock kernel without the suite wants none of its cases.
    if new["kunit"] == Kunit.NONE:
        new["kunit_cases"] = None
    return j.replace(**new).line()
