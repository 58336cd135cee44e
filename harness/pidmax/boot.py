"""One boot's result, kept beside its console log: parsed once, judged once.

LOG.record holds the record (console.py) after a parser=ID field, and
LOG.nested the KTAP to nest under the boot's checks, each line behind
its section's name and a TAB. LOG.verdict holds the judge's lines after
a judge=ID field, where ID names the judge's code and the job and the
record it judged. The record's ID names the parser's code and the
bytes of LOG, LOG.meta and LOG.qemu it was made from (a hash, never a
time: cp -p, tar and rsync -t keep a replaced log's old mtime). A kept
record made by other code or from other bytes is made again, and so is
a verdict of anything else.
"""
import functools
import hashlib
import os

from . import console, joblist, judge

ENCODING = console.ENCODING


def log_id(log):
    """What identifies the bytes of LOG, LOG.meta and LOG.qemu."""
    h = hashlib.sha256()
    for path in (log, log + ".meta", log + ".qemu"):
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except FileNotFoundError:
            h.update(b"(none)")
        h.update(b"\0")
    return h.hexdigest()[:16]


def _kept(path, tag):
    """The lines of PATH after its first field TAG, when it has that tag."""
    if not os.path.isfile(path):
        return None
    with open(path, encoding=ENCODING) as f:
        lines = f.read().split("\n")
    first, _, rest = lines[0].partition("\t")
    if first != tag:
        return None
    return [rest] + lines[1:-1]


def _keep(path, tag, lines):
    """Write LINES into PATH, the first behind TAG, through a rename."""
    joblist.write_lines(path, [tag + "\t" + lines[0]] + lines[1:])


def record(log, parser=None):
    """(record fields, nested lines) of the boot LOG, parsed at most once."""
    tag = f"parser={parser or console.parser_id()}.{log_id(log)}"
    kept = _kept(log + ".record", tag)
    if kept is not None and os.path.isfile(log + ".nested"):
        with open(log + ".nested", encoding=ENCODING) as f:
            return joblist.fields(kept[0]), f.read().split("\n")[:-1]
    line, nested = console.parse(log)
    joblist.write_lines(log + ".nested", nested)
    _keep(log + ".record", tag, [line])
    return joblist.fields(line), nested


def judge_id(job_line, record_line):
    """What a verdict depends on: the judge's code, the job (the KUnit
    cases with it) and the record."""
    h = hashlib.sha256(record_line.encode(ENCODING))
    h.update(_judge_code())
    h.update(job_line.encode(ENCODING))
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def _judge_code():
    """The judge's code, read once a process."""
    with open(judge.__file__, "rb") as f:
        return f.read()


def verdict(log, job_line, parser=None):
    """(Verdict, record fields, nested lines) of the boot LOG of the job
    JOB_LINE, judged at most once."""
    parser = parser or console.parser_id()
    r, nested = record(log, parser)
    tag = "judge=" + judge_id(job_line, joblist.line(r))
    kept = _kept(log + ".verdict", tag)
    if kept:
        try:
            return judge.read_verdict(kept), r, nested
        except (KeyError, ValueError):
            pass  # A verdict file damaged since: judged again.
    v = judge.judge(joblist.fields(job_line), r)
    _keep(log + ".verdict", tag, v.lines())
    return v, r, nested
