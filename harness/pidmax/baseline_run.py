"""The baseline of a finished sweep (sweep-smp.sh --baseline; its door
alone is run-baseline.sh): the sweep's jobs again on the stock kernels
(baseline.py's transform) in DIR/baseline, booted, reported and drawn as
any results folder is, then DIR/compare.csv (compare.py).

The stock boots' verdicts are told, but they are not the sweep's: its
exit status stays the patched kernels'. A DIR/baseline that holds other
files and is not a results folder is refused (results_dir).
"""
import os
import shutil
import sys

from . import baseline, compare, console, joblist, report, results_dir, runner
from . import sweep_kernels as sk
from .settings import Settings


def info(prog, text):
    print(f"{prog}: {text}", file=sys.stderr, flush=True)


def write_jobs(out, b, stock):
    """B's plan and jobs (OUT's on the stock kernels STOCK), its kernels
    and OUT's shard, if it has one; the number of guests to boot."""
    stock_lines = {}
    for name in ("plan", "jobs"):
        with open(os.path.join(out, name), encoding=joblist.ENCODING) as f:
            stock_lines[name] = [baseline.stock_job(x, stock)
                                 for x in f.read().splitlines()]
        joblist.write_lines(os.path.join(b, name), stock_lines[name])
    joblist.write_lines(os.path.join(b, "kernels"),
                        [f"{label}-stock {sk.kernel_id(kernel)}"
                         for label, (kernel, _, _) in stock.items()])
    if os.path.exists(os.path.join(out, "shard")):
        shutil.copyfile(os.path.join(out, "shard"), os.path.join(b, "shard"))
    return sum("\tskip=" not in x for x in stock_lines["jobs"])


def run(out, pairs, jobs=2, settings=Settings(), prog="run-baseline.sh"):
    """Boot the jobs of the sweep's results folder OUT again on the stock
    kernels PAIRS (LABEL=KERNEL: each job of kernel LABEL on KERNEL) into
    OUT/baseline, JOBS at a time; report and draw them, write
    OUT/compare.csv. The stock boots' Boots."""
    if not all(os.access(os.path.join(out, name), os.R_OK)
               for name in ("jobs", "plan")):
        raise ValueError(f"{out} is not a sweep's results folder")
    stock = baseline.stock_kernels(pairs)
    b = results_dir.claim(os.path.join(out, "baseline"), "DIR/baseline")
    with results_dir.lock(b):
        results_dir.clean(b)
        booted = write_jobs(out, b, stock)
        info(prog, f"booting the baseline: {booted} guests on the stock "
             f"kernels; results in {b}")
        runner.run(b, jobs, settings)
        boots = report.load(b, console.parser_id())
        report.write(b, boots)
        report.tell(prog, b, boots)
        if sk.script("plot.sh", b, ok=range(256))[0]:
            info(prog, "warning: no plot of the baseline (see above)")
    compare.tell(prog, out)
    info(prog, "baseline (stock kernels, not in the exit status): "
         f"{report.summary(boots)}")
    return boots
