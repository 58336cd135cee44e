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
from .joblist import line
from .joblist import fields
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
    j = fields(job_line)
    label = j.get("label", "")
    if label not in stock:
        raise ValueError(f"job {j.get('name', '?')} is of kernel '{label}', "
                         "which has no stock kernel")
    case = j["name"].removeprefix(label + "-")
    if j.get("skip"):
        return line([("name", f"{label}-stock-{case}"), ("tier", j["tier"]),
                     ("variant", j["variant"]), ("label", f"{label}-stock"),
                     ("skip", j["skip"])])
    kernel, config, (small, is64, kunit) = stock[label]
    e = formula.expected(int(j["possible"]), small, is64, "stock")
    new = {"name": f"{label}-stock-{case}", "label": f"{label}-stock",
           "kernel": kernel, "config": config, "kunit": kunit,
           "series": "auto", "line_default": e.pid_max,
           "line_min": e.minimum, "pid_max_min": e.minimum}
    if j.get("pid_max") == j.get("line_default"):
        new["pid_max"] = e.pid_max
    new["model"] = "stock"
    if j.get("selftests"):
        new["selftests_judged"] = "yes"
    # The job's own fields in its own order, some replaced; the rest
    # (model, selftests_judged) after them.
    pairs = []
    for word in job_line.split("\t"):
        key, _, value = word.partition("=")
        # A stock kernel without the suite wants none of its cases.
        if key != "kunit_cases" or str(kunit) != "0":
            pairs.append((key, new.pop(key, value)))
    return line(pairs + list(new.items()))
