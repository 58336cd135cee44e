"""The console parser: one guest's console log read once into one record.

A record is what the guest and its kernel showed: the markers, the KTAP
counts and the names of failed guest checks, the CPU counts and pid_max
values the guest reported, its PID budget, the CPUs the kernel says it
brought up, the kernel's boot line, any panic, oops or RCU stall, and
the KUnit suite "pid_max", run at boot or when the guest loaded it as
a module (the modules it loaded, and the first that did not load, with
the reason). Beside it, the nested KTAP that the report puts under the
boot's checks, by section: console (the kernel's noteworthy lines, as
comments), guest_checks (the guest's own KTAP) and kunit (the suite's
cases). It is kept as lines (SECTION, a TAB, the KTAP line without its
indentation) and read back as a tree (tree(): each section's Nodes),
which the report renders. The parser only reads; judge.py judges.

Logs are read as Latin-1, so any byte of a console survives unchanged.
"""
import dataclasses
import functools
import hashlib
import os
import re
from dataclasses import dataclass
from enum import StrEnum

from .joblist import ENCODING, NUMBER, Line, fields

DEFAULT_META = "qemu_exit=none timed_out=0 seconds=0"

# What fails a boot when the console shows it. arm64 dumps a stack as
# "Call trace:", x86 as "Call Trace:".
BAD = re.compile(r"(^|[\] ])(Oops|BUG|WARNING)[: ]|Call [Tt]race:")
# An RCU CPU stall warning (kernel/rcu/tree_stall.h): under TCG the pace
# of the emulator on a busy host, which fails a boot all the same.
STALL = re.compile(r"rcu: INFO: [a-z_]+ (self-detected stall|detected stalls)")
# What is quoted under a failed boot: the first 12 of these lines.
NOTEWORTHY = re.compile(r"smp: Brought up|Kernel panic|Oops|BUG|WARNING|"
                        r"invalid opcode|Error|failed|stall on|stalls on")
QUOTED_LINES = 12
STAMP = re.compile(r"^\[ *[0-9]+\.[0-9]+\] ")
BROUGHT_UP = re.compile(r"smp: Brought up [0-9]+ nodes?, ([0-9]+) CPUs?")
SYSCTL_ERR = re.compile(r"Failed to set sysctl parameter .kernel\.pid_max=")
SUITE = re.compile(r"^[ \t]+# Subtest: pid_max$")
SUITE_PLAN = re.compile(r"^[ \t]+1\.\.([0-9]+)$")
SUITE_CASE = re.compile(r"^[ \t]+(1\.\.[0-9]+|ok [0-9]+ |not ok [0-9]+ )")
SUITE_END = re.compile(r"^(not )?ok [0-9]+ pid_max$")
GUEST_KTAP = re.compile(r"^(1\.\.[0-9]+|ok [0-9]+ |not ok [0-9]+ |# )")
# A KTAP result line: its word, number, name and the rest.
KTAP_RESULT = re.compile(r"^(not ok|ok) ([0-9]+) ([^ ]*)(.*)$")
BEGIN, END = "PIDMAX-HARNESS-BEGIN", "PIDMAX-HARNESS-END"
# The guest's result of loading a module (guest-init.sh's module_checks).
INSMOD_OK = re.compile(r"^ok [0-9]+ insmod_([^ ]+)$")
INSMOD_NOTOK = re.compile(r"^not ok [0-9]+ insmod_([^ ]+) # (.*)$")
DIGITS = re.compile(r"^[0-9]+$")

# The fields of a record that say how the boot ended (its meta, and the
# last line QEMU wrote), before the parser's.
META = ("qemu_exit", "timed_out", "seconds", "qemu_said")
# "# name: K=V ..." lines of the guest and the record fields they fill.
KV_LINES = {
    "# pid_budget: ": (("last_pid_at_init", "last_pid_at_init"),
                       ("tasks", "tasks"), ("kthreads", "kthreads")),
    "# pidns: ": (("child", "pidns_child"), ("written", "pidns_written"),
                  ("top", "pidns_top"), ("next", "pidns_next"),
                  ("parent", "pidns_parent")),
}
VALUE_LINES = {"# pid_max: ": "pid_max", "# pid_max_min: ": "pid_max_min",
               "# pid_max_max: ": "pid_max_max"}


def count_cpus(text):
    """The size of a kernel CPU list: count_cpus("0-3,8") == 5."""
    n = 0
    for part in text.split(","):
        ends = part.split("-")
        if len(ends) == 2:
            n += _leading_int(ends[1]) - _leading_int(ends[0]) + 1
        elif DIGITS.match(part):
            n += 1
    return n


def _leading_int(text):
    """The number TEXT starts with (blanks aside), at most 18 digits of
    it: 0 when there is none."""
    m = re.match(r"\s*([0-9]*)", text)
    return int(m.group(1)[:18] or 0)


def num(value):
    """VALUE when it is a number as the harness writes one (no leading
    zero: a record reads it back), else "none"."""
    return value if NUMBER.fullmatch(value) else "none"


def words(line):
    """The words of LINE as awk splits its fields: on blanks and tabs."""
    return [w for w in re.split(r"[ \t]+", line) if w]


def nth(ws, i):
    """The word I of the words WS, or "" when a line was cut short."""
    return ws[i] if len(ws) > i else ""


def kv_words(line):
    """The KEY=VALUE words of a "# name: K=V K=V" line (one "=" each)."""
    out = {}
    for word in words(line)[2:]:
        parts = word.split("=")
        if len(parts) == 2:
            out[parts[0]] = parts[1]
    return out


def clean(line):
    """A console line without its CR and the printk time stamp."""
    return STAMP.sub("", line.replace("\r", "").rstrip("\n"), count=1)


class Parser:
    """Reads console lines in order; record() and nested give the result."""

    def __init__(self):
        self.f = start()
        self.failed, self.kfailed, self.kpassed = [], [], []
        # A case that reports "ok N NAME # SKIP WHY" ran none of its
        # expectations: it counts towards the plan, but has not passed.
        self.kskipped = []
        self.modules = []
        self.nested = []
        self.quoted = 0
        self.n_suite = self.n_guest = self.in_kunit = False

    def feed(self, raw):
        line = clean(raw)
        self._nest(line)
        self._scan(line)
        if not self._kunit(line):
            self._guest(line)

    def _nest(self, line):
        """The KTAP nested under the boot: noteworthy kernel lines, the
        suite's cases, the guest's own results."""
        if NOTEWORTHY.search(line) and not line.startswith("# "):
            self.quoted += 1
            if self.quoted <= QUOTED_LINES:
                self.nested.append(("console", "# console: " + line))
        if SUITE.match(line):
            self.n_suite = True
        elif self.n_suite and SUITE_CASE.match(line):
            self.nested.append(("kunit", line.lstrip(" \t")))
        elif self.n_suite and SUITE_END.match(line):
            self.n_suite = False
        elif line == BEGIN:
            self.n_guest, self.n_suite = True, False
        elif line == END:
            self.n_guest = False
        elif self.n_guest and GUEST_KTAP.match(line):
            self.nested.append(("guest_checks", line))

    def _scan(self, line):
        """What the kernel says anywhere on the console."""
        f = self.f
        at = line.find("Kernel panic - not syncing")
        if at >= 0:
            f["panic"] = 1
            if f["panic_msg"] == "none":
                msg = line[line.find("not syncing") + 11:]
                f["panic_msg"] = re.sub(r"^:? *", "", msg).replace("\t", " ")
        m = BROUGHT_UP.search(line)
        if m:
            f["brought_up"] = num(m.group(1))
        if SYSCTL_ERR.search(line):
            f["sysctl_err"] = 1
        if BAD.search(line):
            f["oops"] = 1
        if STALL.search(line):
            f["stall"] = 1

    def _kunit(self, line):
        """The KUnit suite of the series, run before init: True when the
        line was the suite's."""
        f = self.f
        if SUITE.match(line):
            self.in_kunit, f["kunit"] = True, "running"
            return True
        if not self.in_kunit:
            return False
        fields = words(line)
        if SUITE_PLAN.match(line):
            f["kunit_plan"] = num(SUITE_PLAN.match(line).group(1))
        elif re.match(r"^[ \t]+ok [0-9]+ ", line):
            f["kunit_oks"] += 1
            skipped = re.search(r" # SKIP\b", line)
            (self.kskipped if skipped else self.kpassed).append(nth(fields, 2))
        elif re.match(r"^[ \t]+not ok [0-9]+ ", line):
            f["kunit_notoks"] += 1
            self.kfailed.append(nth(fields, 3))
        elif re.match(r"^ok [0-9]+ pid_max$", line):
            f["kunit"], self.in_kunit = "ok", False
        elif re.match(r"^not ok [0-9]+ pid_max$", line):
            f["kunit"], self.in_kunit = "notok", False
        else:
            return False
        return True

    def _guest(self, line):
        """The guest's own report, between its markers."""
        f = self.f
        if line == BEGIN:
            f["begin"], self.in_kunit = 1, False
            return
        if not f["begin"]:
            return
        if line == END:
            f["end"] = 1
        elif re.match(r"^1\.\.[0-9]+$", line):
            f["plan"] = num(line[3:])
        elif line.startswith("ok ") and re.match(r"^ok [0-9]+ ", line):
            if re.match(r"^ok [0-9]+ selftest_[^ ]+$", line):
                f["selftests_ok"] += 1
            m = INSMOD_OK.match(line)
            if m:
                self.modules.append(m.group(1))
            f["oks"] += 1
        elif re.match(r"^not ok [0-9]+ ", line):
            f["notoks"] += 1
            self.failed.append(nth(words(line), 3))
            m = INSMOD_NOTOK.match(line)
            if m and f["insmod_failed"] == "none":
                f["insmod_failed"] = f"{m.group(1)}: {m.group(2)}" \
                    .replace("\t", " ")
        else:
            self._guest_values(line)

    def _guest_values(self, line):
        f = self.f
        if line.startswith("# cpus: "):
            for word in words(line)[2:]:
                key, _, value = word.partition("=")
                if key in ("possible", "online"):
                    f[key] = count_cpus(value.split("=")[0])
            return
        for prefix, pairs in KV_LINES.items():
            if line.startswith(prefix):
                values = kv_words(line)
                for word, field in pairs:
                    f[field] = num(values.get(word, ""))
                return
        for prefix, field in VALUE_LINES.items():
            if line.startswith(prefix):
                w = words(line)
                f[field] = num(w[2] if len(w) > 2 else "")
                return
        if line.startswith("# boot_line: "):
            for word, field in (("default", "line_default"),
                                ("minimum", "line_min")):
                m = re.search(word + r": ([0-9]+)", line)
                if m:
                    f[field] = num(m.group(1))

    def fields(self):
        """The record's fields after the meta ones, in order."""
        f = dict(self.f)
        for key, values in (("failed", self.failed),
                            ("kunit_failed", self.kfailed),
                            ("kunit_passed", self.kpassed),
                            ("kunit_skipped", self.kskipped),
                            ("modules", self.modules)):
            f[key] = ",".join(values) if values else "none"
        # No value holds a TAB (a module's name could): a line's
        # fields are TAB-separated.
        return {k: str(v).replace("\t", " ") for k, v in f.items()}


class Suite(StrEnum):
    """Where the KUnit suite got: its header seen, then its last line
    (ok or not ok)."""
    RUNNING = "running"
    OK = "ok"
    NOTOK = "notok"


@dataclass(frozen=True)
class Record(Line):
    """What one boot showed: how it ended (its meta: QEMU's exit status,
    whether it timed out, its seconds; the last line QEMU wrote) and the
    parser's fields, in the order the parser starts them (start()). A
    value the guest or the
    kernel never showed is None, written "none"."""
    NONE, OMIT, WHAT, LENIENT = "none", False, "record", True
    qemu_exit: str | None = None
    timed_out: bool = False
    seconds: str | None = None
    qemu_said: str | None = None
    begin: bool = False
    end: bool = False
    plan: int | None = None
    oks: int = 0
    notoks: int = 0
    failed: tuple = ()
    possible: int | None = None
    online: int | None = None
    pid_max: int | None = None
    pid_max_min: int | None = None
    pid_max_max: int | None = None
    line_default: int | None = None
    line_min: int | None = None
    panic: bool = False
    oops: bool = False
    stall: bool = False
    sysctl_err: bool = False
    panic_msg: str | None = None
    brought_up: int | None = None
    last_pid_at_init: int | None = None
    tasks: int | None = None
    kthreads: int | None = None
    pidns_child: int | None = None
    pidns_written: int | None = None
    pidns_top: int | None = None
    pidns_next: int | None = None
    pidns_parent: int | None = None
    selftests_ok: int = 0
    kunit: Suite | None = None
    kunit_plan: int | None = None
    kunit_oks: int = 0
    kunit_notoks: int = 0
    kunit_failed: tuple = ()
    kunit_passed: tuple = ()
    kunit_skipped: tuple = ()
    modules: tuple = ()
    insmod_failed: str | None = None
    extra: tuple = ()


def start():
    """The parser's fields before any line is read, in the Record's
    order: its defaults as the parser keeps them, counts and flags as
    numbers, the rest as text ("none")."""
    return {f.name: "none" if f.default in (None, ()) else int(f.default)
            for f in dataclasses.fields(Record)
            if f.name not in (*META, "extra")}


def read_meta(log):
    """The first line of LOG.meta (boot-guest.sh's, and a results folder's
    from before boot.py's LOG.json), else DEFAULT_META."""
    meta = DEFAULT_META
    try:
        with open(log + ".meta", encoding=ENCODING) as f:
            meta = f.readline().strip(" \t\n")
    except FileNotFoundError:
        pass
    return meta


def qemu_said(log, most=200):
    """The last line QEMU itself wrote (LOG.qemu, its stderr), as a field
    value: "none" when it wrote nothing."""
    try:
        with open(log + ".qemu", encoding=ENCODING) as f:
            lines = [x.strip() for x in f.read().split("\n") if x.strip()]
    except FileNotFoundError:
        lines = []
    last = lines[-1].replace("\t", " ")[:most] if lines else "none"
    return last


@dataclass(frozen=True)
class Node:
    """One line of the KTAP nested under a boot. A result has ok (True
    or False), its number, its name and the rest of its line (" # " and
    a directive or a reason, or nothing); a plan or a comment has ok
    None and its text alone."""
    text: str
    ok: bool | None = None
    n: str = ""
    name: str = ""
    rest: str = ""

    def line(self):
        """The KTAP line of the node, without indentation."""
        if self.ok is None:
            return self.text
        word = "ok" if self.ok else "not ok"
        return f"{word} {self.n} {self.name}{self.rest}"


def node(text):
    """The Node of one KTAP line TEXT."""
    m = KTAP_RESULT.match(text)
    if not m:
        return Node(text)
    return Node(text, m.group(1) == "ok", m.group(2), m.group(3), m.group(4))


def tree(nested):
    """The nested lines NESTED (parse's, a judged record's) as a tree: each
    section's Nodes, in order; console, guest_checks and kunit always."""
    sections = {"console": [], "guest_checks": [], "kunit": []}
    for entry in nested:
        name, _, text = entry.partition("\t")
        sections.setdefault(name, []).append(node(text))
    return sections


def parse(log, meta=None):
    """(Record, nested lines) of the console LOG, whose boot ended
    as META says ("qemu_exit=N timed_out=0|1 seconds=S"; by default
    LOG.meta's, read_meta)."""
    if not os.access(log, os.R_OK):
        raise ValueError(f"{log} is not readable")
    p = Parser()
    with open(log, encoding=ENCODING, newline="\n") as f:
        for raw in f:
            p.feed(raw)
    meta = read_meta(log) if meta is None else meta
    said = {"qemu_said": qemu_said(log)}
    record = Record.read({**fields(meta.replace(" ", "\t")), **said,
                          **p.fields()})
    return record, [f"{s}\t{t}" for s, t in p.nested]


@functools.lru_cache(maxsize=None)
def parser_id():
    """What identifies the parser's code: a record kept by other code is
    parsed again. (Hashed once a process: the runner asks it a boot.)"""
    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]
