"""The PID budget, a reader of results folders: what each online-tier
boot's kernel spent before init forked, a least-squares line through it
per kernel, and what that line projects for machines QEMU cannot boot.

  pid_budget.csv  boot,kernel,online,possible,last_pid_at_init,tasks,
                  kthreads: a row per online-tier boot that reported
  pid_budget.txt  per kernel: PIDs per online CPU and the fixed part,
                  the fit's residual, and for 1664, 4096 and 8192 CPUs
                  the projected PIDs at init beside a fixed 32768 and the
                  formula's pid_max; the CPU count at which a fixed 32768
                  runs out before init
  pid_budget.fits the fits (kernel, fixed part, per CPU) that budget.sh
                  draws into pid_budget.svg, then removes

last_pid_at_init is the highest PID allocated when init started (the
guest reads ns_last_pid first thing).
"""
import math
import os

from . import boot, formula
from .joblist import read, write_lines

HEAD = "boot,kernel,online,possible,last_pid_at_init,tasks,kthreads"
PROJECTED = (1664, 4096, 8192)
DEFAULT = 32768


def boots(dirs):
    """(rows, jobs): a CSV row per online-tier boot of DIRS with a PID
    budget, and the jobs of every online-tier boot that ran."""
    rows, jobs = [], []
    for d in dirs:
        for j in read(os.path.join(d, "jobs")):
            log = os.path.join(d, "boots", (j.name or "") + ".log")
            if j.tier not in ("online", "wide-online") or j.skip or \
                    not os.path.exists(log):
                continue
            jobs.append(j)
            r, _ = boot.record(log)
            if r.last_pid_at_init is not None and r.online is not None \
                    and r.online >= 0:
                text = r.fields()
                rows.append(",".join((j.name, j.label or "", *(
                    text[k] for k in ("online", "possible",
                                      "last_pid_at_init", "tasks",
                                      "kthreads")))))
    return rows, jobs


def limits(jobs):
    """Each kernel's formula pid_max at the projected CPU counts: its jobs
    say the variant (BASE_SMALL) and the limit (4194304: 64-bit)."""
    out = {}
    for j in jobs:
        if j.pid_max_max and j.label not in out:
            small = j.variant == "small"
            is64 = j.pid_max_max == 4194304
            out[j.label] = {n: formula.expected(n, small, is64).pid_max
                               for n in PROJECTED}
    return out


def fit(points):
    """(fixed part, per CPU) of the least-squares line through POINTS,
    (online, last PID) pairs; None when every point has one CPU count."""
    n = len(points)
    sx = sy = sxx = sxy = 0.0
    for x, y in points:
        sx, sy = sx + x, sy + y
    mx, my = sx / n, sy / n
    # (Summed in order, one term at a time, as awk did: the same bits.)
    for x, y in points:
        sxx += (x - mx) * (x - mx)
        sxy += (x - mx) * (y - my)
    if sxx == 0:
        return None
    b = sxy / sxx
    return my - b * mx, b


def kernel_text(label, points, pid_max):
    """The lines of pid_budget.txt for one kernel, and its fit."""
    n, xs = len(points), [x for x, _ in points]
    line = fit(points)
    if line is None:
        return ["", f"{label}: {n} boots, all with {xs[0]} CPUs online: "
                "no fit"], None
    a, b = line
    errors = [y - (a + b * x) for x, y in points]
    ss = 0.0
    for e in errors:
        ss += e * e
    out = ["", f"{label}: {n} boots, {min(xs)} to {max(xs)} CPUs online",
           "  per online CPU   %8.2f PIDs" % b,
           "  fixed part       %8.1f PIDs" % a,
           "  residual         %8.1f PIDs RMS, %.1f at most"
           % (math.sqrt(ss / n), max(abs(e) for e in errors)),
           "  a fixed 32768 runs out before init at %.0f CPUs"
           % ((DEFAULT - a) / b),
           "  %6s %14s %12s %14s %12s" % ("CPUs", "PIDs at init",
                                          "fixed 32768", "formula pid_max",
                                          "headroom")]
    for m in PROJECTED:
        u = a + b * m
        used = "runs out" if u >= DEFAULT else "%.0f%% used" % (100 * u / DEFAULT)
        out.append("  %6d %14.0f %12s %14s %11.1fx"
                   % (m, u, used, pid_max.get(m, ""), pid_max.get(m, 0) / u))
    return out, (a, b)


def text(rows, pid_max):
    """(pid_budget.txt's lines, the fits: kernel, fixed part, per CPU)."""
    out = ["PID budget at init, from the online-tier boots: a least-squares "
           "line", "last_pid_at_init = fixed + per_cpu * online CPUs, per "
           "kernel."]
    fits = []
    split = [row.split(",") for row in rows]
    for label in sorted({r[1] for r in split}):
        points = [(int(r[2]), int(r[4])) for r in split if r[1] == label]
        lines, line = kernel_text(label, points, pid_max.get(label, {}))
        out += lines
        if line:
            fits.append("%s %.6f %.6f" % (label, *line))
    return out, fits


def write(out, dirs):
    """Write OUT's pid_budget.csv, .txt and .fits from DIRS; False when
    fewer than two boots reported a budget (nothing written)."""
    for d in dirs:
        if not os.access(os.path.join(d, "jobs"), os.R_OK):
            raise ValueError(f"{d}/jobs is missing: not a results folder")
    os.makedirs(out, exist_ok=True)
    for ext in ("csv", "txt", "svg", "png", "fits"):
        path = os.path.join(out, "pid_budget." + ext)
        if os.path.exists(path):
            os.remove(path)
    rows, jobs = boots(dirs)
    if len(rows) < 2:
        return False
    txt, fits = text(rows, limits(jobs))
    for ext, lines in (("csv", [HEAD] + rows), ("txt", txt), ("fits", fits)):
        write_lines(os.path.join(out, "pid_budget." + ext), lines)
    return True
