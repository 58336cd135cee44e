"""The reporter: judge every boot of a results folder from its job and its
console log (boot.py keeps both beside the log), and write what the
folder reports. Boots nothing, so it re-judges a finished (or copied)
folder at any time:

  results.ktap  a boot a test; each host-side check of a boot a subtest,
                the guest's own KTAP and the KUnit suite nested under
                theirs (kunit.py parse reads it)
  results.csv   cpus,online,pid_max,expected,pid_max_min,expected_min,
                seconds,verdict,boot,tier,variant,line_min: a row per boot
  results.xml   the boots as JUnit test cases
  checks.csv    boot,tier,variant,check,result,reason: a row per check
  variants.csv  with both variants in the folder: their rows side by
                side, joined on the boot's name without its kernel label

A job with no console log failed ("not run"); a job with a skip field is
a KTAP SKIP and a JUnit <skipped/>. The closing line counts the boots
("N passed, N failed, N skipped"); tell() names, on standard error before
it, each failed boot and the checks it failed. Each file is written under a
temporary name and renamed at the end, so a killed report never leaves a
complete-looking file.
"""
import csv
import dataclasses
import io
import os
import re
import sys
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from . import boot, console, joblist
from .judge import Result, Status

RESULTS_HEAD = ("cpus,online,pid_max,expected,pid_max_min,expected_min,"
                "seconds,verdict,boot,tier,variant,line_min")
CHECKS_HEAD = "boot,tier,variant,check,result,reason"
VARIANTS_HEAD = ("cpus,online,full_pid_max,full_expected,full_verdict,"
                 "small_pid_max,small_expected,small_verdict,boot,tier")
NOT_RUN = "not run: the sweep was interrupted"
# The indentation of each section's lines: the console's under the
# boot, the others under their check.
INDENT = {"console": "    ", "guest_checks": "        ", "kunit": "        "}


@dataclass
class Boot:
    """One job of the folder and what became of it."""
    n: int
    job: joblist.Job
    verdict: Status
    reason: str = ""
    checks: list = field(default_factory=list)
    record: console.Record | None = None
    nested: list = field(default_factory=list)

    @property
    def name(self):
        return self.job.name

    def shown(self):
        """(job, record) as text, as their lines write them: a boot not
        made has no record fields."""
        return self.job.fields(), self.record.fields() if self.record else {}

    def seconds(self):
        s = self.record.seconds if self.record else None
        return s if s and re.fullmatch(r"[0-9.]+", s) else "0"


def load(out, parser):
    """The Boots of the results folder OUT, each judged."""
    path = os.path.join(out, "jobs")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{path} is missing: not a results folder")
    with open(path, encoding=console.ENCODING) as f:
        lines = f.read().splitlines()
    return [load_one(out, n, line, parser) for n, line in enumerate(lines, 1)]


def load_one(out, n, line, parser):
    try:
        j = joblist.Job.parse(line)
        # Its files are DIR/boots/NAME.log and those beside it.
        joblist.check_job(j)
    except ValueError as err:
        raise ValueError(f"{out}/jobs line {n}: {err}") from None
    if j.skip:
        return Boot(n, j, Status.SKIP, j.skip)
    log = os.path.join(out, "boots", j.name + ".log")
    if not os.path.exists(log):
        return Boot(n, j, Status.FAIL, NOT_RUN)
    v, r, nested = boot.verdict(log, j, parser)
    return Boot(n, j, v.verdict, v.reason, v.checks, r, nested)


def sections(b):
    """The boot's nested KTAP by section (console.tree: console,
    guest_checks, kunit), rendered: the console's lines under the boot,
    the others under their check. Selftests recorded, not judged
    (selftests_judged=no), are nested as a SKIP that keeps what the
    guest said, so that no KTAP reader counts them as a failure of the
    boot."""
    nodes = console.tree(b.nested)
    if b.job.selftests_judged == "no":
        nodes["guest_checks"] = [recorded(x) for x in nodes["guest_checks"]]
    return {name: [INDENT.get(name, INDENT["kunit"]) + x.line() for x in xs]
            for name, xs in nodes.items()}


def recorded(x):
    """The Node X, a SKIP that says what the guest said when it is the
    result of a selftest."""
    if x.ok is None or not x.name.startswith("selftest_"):
        return x
    said = ("ok" if x.ok else "not ok") + x.rest
    return dataclasses.replace(
        x, ok=True, rest=f' # SKIP recorded, not judged: the guest said "{said}"')


def boot_ktap(b):
    """The KTAP lines of boot B: its subtest with a subtest per check."""
    sec = sections(b)
    out = ["    KTAP version 1", f"    # Subtest: {b.name}"]
    if b.verdict != Status.PASS:
        out += sec["console"]
    out.append(f"    1..{len(b.checks)}")
    for n, c in enumerate(b.checks, 1):
        if c.name in ("guest_checks", "kunit") and c.result != Result.SKIP \
                and sec[c.name]:
            out += ["        KTAP version 1", f"        # Subtest: {c.name}"]
            out += sec[c.name]
        out.append({Result.OK: f"    ok {n} {c.name}",
                    Result.SKIP: f"    ok {n} {c.name} # SKIP {c.reason}"}.get(
            c.result, f"    not ok {n} {c.name} # {c.reason}"))
    return out + [result_line(b)]


def result_line(b):
    if b.verdict in (Status.PASS, Status.SKIP):
        skip = f" # SKIP {b.reason}" if b.verdict == Status.SKIP else ""
        return f"ok {b.n} {b.name}{skip}"
    reason = b.reason
    if b.verdict == Status.TIMEOUT:
        reason = "TIMEOUT " + reason.removeprefix("TIMEOUT: ")
    return f"not ok {b.n} {b.name} # {reason}"


def ktap(boots):
    p, f, s = totals(boots)
    out = ["KTAP version 1", f"1..{len(boots)}"]
    for b in boots:
        out += boot_ktap(b) if b.checks else [result_line(b)]
    return out + [f"# totals: pass:{p} fail:{f} skip:{s}"]


def totals(boots):
    """(passed, failed, skipped) of BOOTS."""
    verdicts = [b.verdict for b in boots]
    passed, skipped = verdicts.count(Status.PASS), verdicts.count(Status.SKIP)
    return passed, len(boots) - passed - skipped, skipped


def summary(boots):
    """The closing line of a report: "N passed, N failed, N skipped"."""
    return "{} passed, {} failed, {} skipped".format(*totals(boots))


def failures(boots):
    """A line per failed boot of BOOTS: its name, the checks it failed
    (none for a boot never run) and the reason."""
    out = []
    for b in boots:
        if b.verdict in (Status.PASS, Status.SKIP):
            continue
        failed = ", ".join(c.name for c in b.checks if c.result == Result.FAIL)
        out.append(f"{b.name}{f' ({failed})' if failed else ''}: "
                   f"{b.reason or b.verdict}")
    return out


def tell(prog, out, boots):
    """Say on standard error what the closing line only counts: the
    skipped boots' number, and each failed boot by name with the checks
    it failed."""
    def say(text):
        print(f"{prog}: {text}", file=sys.stderr, flush=True)
    _, failed, skipped = totals(boots)
    if skipped:
        say(f"{skipped} skipped (# SKIP in {out}/results.ktap, with the "
            "reason)")
    for line in failures(boots):
        say(f"failed {line}")
    if failed:
        say(f"{failed} failed (not ok in {out}/results.ktap, each check a "
            f"subtest; the console logs in {out}/boots)")


def csv_field(text):
    """TEXT as one CSV field, quoted only when it must be (RFC 4180); an
    empty TEXT stays empty."""
    if not text:
        return text
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([text])
    return buf.getvalue()


def results_csv(boots):
    rows = [RESULTS_HEAD]
    for b in boots:
        j, r = b.shown()
        rows.append(",".join((
            j.get("possible") or "none", r.get("online", "none"),
            r.get("pid_max", "none"), j.get("pid_max") or "none",
            r.get("pid_max_min", "none"), j.get("pid_max_min") or "none",
            r.get("seconds", "none"), b.verdict, b.name, b.job.tier,
            b.job.variant, r.get("line_min", "none"))))
    return rows


def checks_csv(boots):
    rows = [CHECKS_HEAD]
    for b in boots:
        for c in b.checks:
            rows.append(",".join((b.name, b.job.tier, b.job.variant,
                                  c.name, c.result, csv_field(c.reason))))
    return rows


def attr(text):
    return escape(text, {'"': "&quot;", "'": "&apos;"})


def junit_case(b):
    """The JUnit test case of boot B: <skipped/>, or <failure> with every
    failed check."""
    why = attr(b.reason)
    out = [f'   <testcase classname="pid_max.{attr(b.job.tier)}" '
           f'name="{attr(b.name)}" time="{b.seconds()}">']
    if b.verdict == Status.SKIP:
        out.append(f'     <skipped message="{why}"/>')
    elif b.verdict != Status.PASS:
        out.append(f'     <failure type="{b.verdict}" message="{why}">'
                   f'console log: boots/{attr(b.name)}.log</failure>')
    return out + ["   </testcase>"]


def junit(boots, shard):
    _, f, s = totals(boots)
    counts = f'tests="{len(boots)}" failures="{f}" skipped="{s}"'
    name = "pid_max sweep" + (f", shard {shard}" if shard is not None else "")
    out = ['<?xml version="1.0" encoding="UTF-8"?>', f"<testsuites {counts}>",
           f' <testsuite name="{name}" {counts}>']
    for b in boots:
        out += junit_case(b)
    return out + [" </testsuite>", "</testsuites>"]


def variants_csv(boots):
    """Both variants side by side, joined on the boot's name without its
    kernel label ("hotplug-033"), in the full variant's order; None
    unless the folder holds both."""
    def key(b):
        return b.name.removeprefix((b.job.label or "") + "-")
    full = [b for b in boots if b.job.variant == "full"]
    small = {key(b): b for b in boots if b.job.variant == "small"}
    if not full or not small:
        return None
    last = {key(b): b for b in full}
    rows = [VARIANTS_HEAD]
    for k in (key(b) for b in full):
        b, s = last[k], small.get(k)
        theirs = (",".join(side(s)) if s else "none,none,none")
        j, _ = b.shown()
        rows.append(",".join((j.get("possible") or "none",
                              j.get("online") or "none", *side(b),
                              theirs, k, b.job.tier)))
    return rows


def side(b):
    """(pid_max, expected, verdict) of boot B in variants.csv."""
    j, r = b.shown()
    return (r.get("pid_max", "none"), j.get("pid_max") or "none",
            b.verdict)


def write(out, boots):
    """Write the folder's files, each through a temporary name."""
    shard = None
    if os.access(os.path.join(out, "shard"), os.R_OK):
        with open(os.path.join(out, "shard"), encoding="utf-8") as f:
            shard = f.read().rstrip("\n")
    variants = os.path.join(out, "variants.csv")
    if os.path.exists(variants):
        os.remove(variants)
    files = (("variants.csv", variants_csv(boots)),
             ("checks.csv", checks_csv(boots)),
             ("results.xml", junit(boots, shard)),
             ("results.csv", results_csv(boots)),
             ("results.ktap", ktap(boots)))
    # results.ktap last: its presence says the rest is written.
    for name, lines in files:
        if lines is not None:
            joblist.write_lines(os.path.join(out, name), lines)
