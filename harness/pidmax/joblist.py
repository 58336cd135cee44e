"""The line format of the harness, one module's: a job (one boot, what to
boot and what it must show: jobs.py writes them) or a boot's record
(console.py) is one line of TAB-separated KEY=VALUE fields. fields()
reads one leniently (a word without "=" is left out, the last of a key
wins), line() writes one and refuses a value with a TAB or a newline;
write_lines() writes a file of lines (a job list, a result file).
A Job keeps its fields in their order, so a line read and written again
is the same line."""
import os

from .formula import expected

# Every file of the harness is read and written as latin-1: any byte
# of a console log stays one character.
ENCODING = "latin-1"


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


def check_job(fields):
    """Refuse a line of a job list (its FIELDS) that is not a job a
    results folder can hold: a plain name (check_name), a tier and a
    variant. The report, the merge and the runner ask it of every line
    before they write."""
    check_name(fields.get("name", ""))
    if not (fields.get("tier") and fields.get("variant")):
        raise ValueError(f"job {fields['name']} is not a job (no tier or "
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


class Job:
    """One boot: what to boot and what it must show."""

    def __init__(self, fields):
        self.fields = dict(fields)

    @classmethod
    def parse(cls, line):
        fields = []
        for word in line.rstrip("\n").split("\t"):
            key, sep, value = word.partition("=")
            if not sep or not key:
                raise ValueError(f"not KEY=VALUE: {word!r}")
            fields.append((key, value))
        return cls(fields)

    def line(self):
        return "\t".join(f"{k}={v}" for k, v in self.fields.items())

    def get(self, key, default=""):
        return self.fields.get(key, default)

    @property
    def skip(self):
        return self.get("skip")

    def count(self):
        """The CPUs the formula counts for this job's kernel: the possible
        CPUs by the stock model, nr_cpu_ids (cpu_ids, else possible) by
        the series'."""
        if self.get("model") == "stock":
            return int(self.fields["possible"])
        return int(self.get("cpu_ids") or self.fields["possible"])


def read(path):
    """The jobs of a job list file, in order."""
    with open(path, encoding="utf-8") as f:
        return [Job.parse(line) for line in f if line.strip()]


def mismatches(job, small, is64):
    """The fields of JOB that differ from the formula, "KEY=GOT want W"."""
    model = job.get("model") or "series"
    e = expected(job.count(), small, is64, model)
    want = {"line_default": e.pid_max, "line_min": e.minimum,
            "pid_max_min": e.minimum, "pid_max_max": e.limit}
    # A pid_max set on the command line is the job's own (sysctl-override).
    if job.get("pid_max") == job.get("line_default"):
        want["pid_max"] = e.pid_max
    return [f"{k}={job.get(k)} want {v}" for k, v in want.items()
            if job.get(k) != str(v)]


def weight(fields):
    """What a boot of the job FIELDS costs under TCG, in hundredths of a
    one-CPU boot, from its online CPUs, possible CPUs (ids) and machine.
    Fitted to bench.sh's run of 2026-12-05 (one CPU 1.16 s; 64, 128 and
    255 online 5.4, 9.8 and 29 s: 100 + 4 online + online^2/40; 4096 and
    8192 ids 13.8 and 33 to 47 s with SLUB: + ids/8 + ids^2/61000) and
    the q35 machine of the wide tiers (512 and 4096 firmware-described
    CPUs 24 and 40 s: a base of 1900, + 3 ids/8). The runner's and the
    shards' measure."""
    def count(key):
        value = fields.get(key) or "1"
        return int(value) if value.isdigit() and value.isascii() else 1
    on, ids = count("online"), count("possible")
    base, id_cost = 100, ids // 8 + ids * ids // 61000
    if fields.get("machine", "").startswith("wide"):
        base, id_cost = 1900, 3 * ids // 8
    return base + 4 * on + on * on // 40 + id_cost
