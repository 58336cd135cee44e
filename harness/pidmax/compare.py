"""A reader of a results folder and its baseline (sweep-smp.sh
--baseline): the stock kernels' values beside the patched ones, boot for
boot, into DIR/compare.csv:

  boot,variant,cpus,stock_pid_max,stock_pid_max_min,patched_pid_max,
  patched_pid_max_min,same

boot is the boot's name without its kernel label ("possible-4097"),
pid_max the value /proc showed, pid_max_min the minimum the kernel's boot
line states (where it lies above pid_max no value is writable, so the
guest's probe has none to find). same is yes when both values agree.
"""
import csv
import os
import sys

from .joblist import read, write_lines

HEAD = ("boot,variant,cpus,stock_pid_max,stock_pid_max_min,patched_pid_max,"
        "patched_pid_max_min,same")


def cases(path):
    """Each job's name to its case: the name without "LABEL-"."""
    return {j.name or "": (j.name or "")[len(j.label or "") + 1:]
            for j in read(path)}


def values(folder, kase):
    """(order, values): the (variant, case) of each boot of the folder
    that was not skipped, in the order of its results.csv, and each
    one's last (cpus, "pid_max,line_min")."""
    order, out = [], {}
    with open(os.path.join(folder, "results.csv"), encoding="latin-1",
              newline="") as f:
        for row in csv.DictReader(f):
            if row["verdict"] != "skip":
                key = (row["variant"], kase.get(row["boot"], ""))
                order.append(key)
                out[key] = (row["cpus"], f"{row['pid_max']},{row['line_min']}")
    return order, out


def compare(out):
    """The rows of OUT/compare.csv, the header first."""
    base = os.path.join(out, "baseline")
    for d in (out, base):
        if not all(os.access(os.path.join(d, f), os.R_OK)
                   for f in ("jobs", "results.csv")):
            raise ValueError(f"{d} has no jobs or results.csv: run the sweep "
                             f"with --baseline, or harness/report.sh {d}")
    kase = cases(os.path.join(out, "jobs"))
    kase.update(cases(os.path.join(base, "jobs")))
    (order, patched), (_, stock) = values(out, kase), values(base, kase)
    rows = [HEAD]
    for key in order:
        cpus, p = patched[key]
        if key in stock:
            s = stock[key][1]
            same = "yes" if s == p and "none" not in p else "no"
            rows.append(f"{key[1]},{key[0]},{cpus},{s},{p},{same}")
    return rows


def write(out):
    """Write OUT/compare.csv; (rows, rows where stock and patched
    differ), without the header."""
    rows = compare(out)
    write_lines(os.path.join(out, "compare.csv"), rows)
    if len(rows) == 1:
        raise ValueError(f"no boot of {out} has a counterpart in {out}/baseline")
    return rows[1:], [r for r in rows[1:] if r.endswith(",no")]


def tell(prog, out):
    """Write OUT/compare.csv; say on standard error how many boots it
    holds and how many differ, and print those rows."""
    rows, differ = write(out)
    print(f"{prog}: compare.csv: {len(rows)} boots, {len(differ)} where "
          "stock and patched differ", file=sys.stderr, flush=True)
    sys.stdout.write("".join(row + "\n" for row in differ))
    sys.stdout.flush()
