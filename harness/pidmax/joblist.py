"""The line format of the harness, one module's: a job (one boot, what to
boot and what it must show: jobs.py makes them) or a boot's record
(console.py) is one line of TAB-separated KEY=VALUE fields. A Job is a
typed record (Line): Job.parse and Job.read read one, its fields() and
line() write one, in the order of its fields, so a line the harness
wrote reads and writes again to the same line. fields() reads any line
leniently (a word without "=" is left out, the last of a key wins);
line() writes one and refuses a value with a TAB or a newline;
write_lines() writes a file of lines (a job list, a result file)."""
import dataclasses
import functools
import os
import re
import typing
from dataclasses import dataclass
from enum import Enum, StrEnum

from .formula import expected

# Every file of the harness is read and written as latin-1: any byte
# of a console log stays one character.
ENCODING = "latin-1"
# A number as the harness writes one (no sign, no leading zero, at most
# 18 digits), and a count that may be negative (a record's count of a
# garbled CPU list).
NUMBER = re.compile(r"0|[1-9][0-9]{0,17}")
SIGNED = re.compile(r"-?(0|[1-9][0-9]{0,17})")


def write_lines(path, lines):
    """LINES into PATH, a line each, through PATH.tmp and a rename: a
    reader never sees half a file, and a stop (a signal's Stop) or an
    error leaves no PATH.tmp behind."""
    try:
        with open(path + ".tmp", "w", encoding=ENCODING) as f:
            f.write("".join(line + "\n" for line in lines))
        os.replace(path + ".tmp", path)
    except BaseException:
        if os.path.lexists(path + ".tmp"):
            os.remove(path + ".tmp")
        raise


def fields(text):
    """The KEY=VALUE fields of a job or record line, as a dict."""
    out = {}
    for word in text.rstrip("\n").split("\t"):
        key, sep, value = word.partition("=")
        if sep:
            out[key] = value
    return out


def check_job(job):
    """Refuse a Job of a job list that is not a job a results folder can
    hold: a plain name (check_name), a tier and a variant. The report,
    the merge and the runner ask it of every line before they write."""
    check_name(job.name or "")
    if not (job.tier and job.variant):
        raise ValueError(f"job {job.name} is not a job (no tier or "
                         "variant)")


def check_name(name):
    """Refuse a job name that is not one file name of DIR/boots: empty,
    with a "/" or "..", or with a control character."""
    if not name:
        raise ValueError("the job has no name")
    if "/" in name or ".." in name or \
            any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ValueError(f"the job name {name!r} is not a plain file name "
                         "(no '/', '..' or control characters)")


def line(pairs):
    """KEY=VALUE pairs (or a dict) as one line."""
    pairs = list(pairs.items()) if isinstance(pairs, dict) else pairs
    for key, value in pairs:
        if "\t" in str(value) or "\n" in str(value):
            raise ValueError(f"bad field '{key}': a TAB or newline")
    return "\t".join(f"{k}={v}" for k, v in pairs)


class Kunit(StrEnum):
    """How a job's kernel has the KUnit suite (Config.kunit): not built,
    built in, or a module the guest loads."""
    NONE = "0"
    BUILTIN = "1"
    MODULE = "m"


@functools.cache
def _kind(f):
    """The type of the dataclass field F's values, None aside."""
    kinds = [k for k in typing.get_args(f.type) if k is not type(None)]
    return kinds[0] if kinds else f.type


def read_value(kind, key, text, lenient=False):
    """The value of field KEY of type KIND written as TEXT; a ValueError
    that names the field when TEXT is not one. LENIENT (a record's) reads
    a number that may be negative, any flag but 1 as false, and a list
    as it is, empty items and all."""
    if kind is bool and lenient:
        return text == "1"
    if kind is tuple and lenient:
        return tuple(text.split(","))
    if kind is bool:
        if text not in ("0", "1"):
            raise ValueError(f"{key} is '{text}', not 0 or 1")
        return text == "1"
    if kind is int:
        if not (SIGNED if lenient else NUMBER).fullmatch(text):
            raise ValueError(f"{key} is '{text}', not a number")
        return int(text)
    if kind is tuple:
        return tuple(x for x in text.split(",") if x)
    if isinstance(kind, type) and issubclass(kind, Enum):
        if text not in {str(k) for k in kind}:
            raise ValueError(f"{key} is '{text}', not one of "
                             f"{', '.join(str(k) for k in kind)}")
        return kind(text)
    return text


def write_value(value):
    """The text of a field's VALUE (read_value's inverse)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


class Line:
    """A dataclass written as one line of KEY=VALUE fields, in the order
    of its fields, the fields it does not know (EXTRA) last. A field
    whose value is None is left out of the line (OMIT) or written as
    NONE, and so is an empty list. Reading, NONE is None (an empty list)
    where the field may be None, and so is an empty value, but for a
    str field, where it stays "". WHAT names the record in an error,
    LENIENT is read_value's (a record's, whose values a console wrote)."""
    NONE, OMIT, WHAT, LENIENT = "", True, "job", False

    @classmethod
    def read(cls, pairs):
        """The record of PAIRS (a dict, or KEY, VALUE pairs; a value a
        string, or a number as written): the one reader of its lines."""
        pairs = list(pairs.items()) if isinstance(pairs, dict) else pairs
        kinds = cls._fields()
        known, extra = {}, {}
        for key, text in pairs:
            if key not in kinds:
                extra[key] = str(text)
                continue
            try:
                known[key] = cls._value(kinds[key], key, str(text))
            except ValueError as err:
                name = dict(pairs).get("name")
                raise ValueError(f"{cls.WHAT} {name}: {err}"
                                 if name else f"{cls.WHAT}: {err}") from None
        return cls(**known, extra=tuple(extra.items()))

    @classmethod
    @functools.cache
    def _fields(cls):
        """The dataclass fields of the class by name, EXTRA aside: read
        once a class."""
        return {f.name: f for f in dataclasses.fields(cls)
                if f.name != "extra"}

    @classmethod
    def _value(cls, f, key, text):
        """The value of the field F (KEY) written as TEXT."""
        kind = _kind(f)
        if text == "" and kind is str:
            return ""
        if text in (cls.NONE, "") and (f.default is None or kind is tuple):
            return () if kind is tuple else None
        return read_value(kind, key, text, cls.LENIENT)

    @classmethod
    def parse(cls, line):
        """The record of one LINE; a word without "=" is refused."""
        pairs = []
        for word in line.rstrip("\n").split("\t"):
            key, sep, value = word.partition("=")
            if not sep or not key:
                raise ValueError(f"not KEY=VALUE: {word!r}")
            pairs.append((key, value))
        return cls.read(pairs)

    def fields(self):
        """The record's fields as text, in order: the one writer."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "extra":
                out.update(value)
            elif value is None or value == ():
                if not self.OMIT or value == ():
                    out[f.name] = self.NONE
            else:
                out[f.name] = write_value(value)
        return out

    def line(self):
        return line(self.fields())

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Job(Line):
    """One boot: what to boot and how, and what it must show (jobs.py
    writes them, where each field is told). A field the line lacks is
    None; a skip names why the boot does not apply."""
    name: str | None = None
    tier: str | None = None
    variant: str | None = None
    label: str | None = None
    skip: str | None = None
    kernel: str | None = None
    config: str | None = None
    initrd: str | None = None
    accel: str | None = None
    smp: str | None = None
    mem: str | None = None
    timeout: int | None = None
    append: str | None = None
    model: str | None = None
    pidns: int | None = None
    pidns_child: int | None = None
    pidns_parent: int | None = None
    pidns_scope: str | None = None
    initrd_extra: str | None = None
    selftests: int | None = None
    selftests_judged: str | None = None
    holes: str | None = None
    cpu_ids: int | None = None
    dt_cpus: int | None = None
    possible: int | None = None
    online: int | None = None
    pid_max: int | None = None
    pid_max_min: int | None = None
    pid_max_max: int | None = None
    line_default: int | None = None
    line_min: int | None = None
    sysctl_refused: bool | None = None
    kunit: Kunit | None = None
    kunit_cases: tuple | None = None
    series: str | None = None
    machine: str | None = None
    qemu: str | None = None
    extra: tuple = ()

    def need(self, key):
        """The value of the field KEY; a ValueError naming the job when
        its line lacks it."""
        value = getattr(self, key)
        if value is None:
            raise ValueError(f"job {self.name}: no {key} field")
        return value

    def count(self):
        """The CPUs the formula counts for this job's kernel: the possible
        CPUs by the stock model, nr_cpu_ids (cpu_ids, else possible) by
        the series'."""
        if self.model == "stock" or self.cpu_ids is None:
            return self.need("possible")
        return self.cpu_ids


def read(path):
    """The Jobs of the job list PATH, in order, a blank line skipped; a
    bad line is an error that names PATH and the line."""
    jobs = []
    with open(path, encoding=ENCODING) as f:
        for n, line in enumerate(f, 1):
            try:
                jobs += [Job.parse(line)] if line.strip() else []
            except ValueError as err:
                raise ValueError(f"{path}:{n}: {err}") from None
    return jobs


def mismatches(job, small, is64):
    """The fields of the Job JOB that differ from the formula,
    "KEY=GOT want W"."""
    e = expected(job.count(), small, is64, job.model or "series")
    want = {"line_default": e.pid_max, "line_min": e.minimum,
            "pid_max_min": e.minimum, "pid_max_max": e.limit}
    # A pid_max set on the command line is the job's own (sysctl-override).
    if job.pid_max == job.line_default:
        want["pid_max"] = e.pid_max
    got = job.fields()
    return [f"{k}={got.get(k, '')} want {v}" for k, v in want.items()
            if getattr(job, k) != v]


def weight(job):
    """What a boot of the Job JOB costs under TCG, in hundredths of a
    one-CPU boot, from its online CPUs, possible CPUs (ids) and machine.
    Fitted to bench.sh's run of 2026-12-05 (one CPU 1.16 s; 64, 128 and
    255 online 5.4, 9.8 and 29 s: 100 + 4 online + online^2/40; 4096 and
    8192 ids 13.8 and 33 to 47 s with SLUB: + ids/8 + ids^2/61000) and
    the q35 machine of the wide tiers (512 and 4096 firmware-described
    CPUs 24 and 40 s: a base of 1900, + 3 ids/8). The runner's and the
    shards' measure."""
    on, ids = job.online or 1, job.possible or 1
    base, id_cost = 100, ids // 8 + ids * ids // 61000
    if (job.machine or "").startswith("wide"):
        base, id_cost = 1900, 3 * ids // 8
    return base + 4 * on + on * on // 40 + id_cost
