"""One boot's result, kept beside its console log: parsed once, judged once.

A boot keeps three files: LOG (the guest's serial console), LOG.qemu
(QEMU's own output) and LOG.json, the judged record: one JSON object
with
  meta     how the boot ended ("qemu_exit=N timed_out=0|1 seconds=S"),
           which the runner writes as the guest ends;
  parser   the ID the record was made under, record its fields (the
           parser's, console.py) and nested the KTAP to nest under the
           boot's checks, each line behind its section's name and a TAB;
  judge    the ID the verdict was made under, verdict the judge's lines.
The parser's ID names the parser's code and the bytes of LOG, the meta
and LOG.qemu (a hash, never a time: cp -p, tar and rsync -t keep a
replaced log's old mtime); the judge's names the judge's code, the job
and the record. A record or verdict kept under another ID is made
again. A folder from before LOG.json kept the meta in LOG.meta (and the
rest in LOG.record, LOG.nested and LOG.verdict, no longer read): its
meta is read from there, always, and LOG.json written beside it. So is the meta
of a boot of boot-guest.sh, the door that boots one job alone.
"""
import functools
import hashlib
import json
import os

from . import console, joblist, judge

ENCODING = console.ENCODING
JUDGED = ".json"
# The files of one boot before LOG.json, which a new boot of the same
# name replaces.
OLDER = (".meta", ".record", ".nested", ".verdict")


def load(log):
    """The judged record of LOG as a dict; empty when there is none or
    it is damaged (it is then made again)."""
    try:
        with open(log + JUDGED, encoding="ascii") as f:
            kept = json.load(f)
    except (FileNotFoundError, UnicodeDecodeError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def save(log, kept):
    """Write KEPT as LOG's judged record, through a rename."""
    joblist.write_lines(log + JUDGED, [json.dumps(kept)])


def forget(log):
    """Remove what an earlier boot into LOG left: its judged record and
    the files of a boot from before it."""
    for end in (JUDGED, *OLDER):
        if os.path.lexists(log + end):
            os.remove(log + end)


def keep_meta(log, meta):
    """Start LOG's judged record with how its boot ended (META)."""
    save(log, {"meta": meta})


def meta_of(log, kept):
    """The boot's meta line: LOG.meta's where there is one (an older
    folder's, which may have had its LOG and LOG.meta replaced since it
    got its LOG.json, or boot-guest.sh's), else KEPT's, else None: how
    the boot ended is not known."""
    if os.path.isfile(log + ".meta"):
        return console.read_meta(log)
    meta = kept.get("meta")
    return meta if isinstance(meta, str) else None


def log_id(log, meta):
    """What identifies the bytes of LOG, its META (None: unknown) and
    LOG.qemu."""
    h = hashlib.sha256()
    for path in (log, log + ".qemu"):
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except FileNotFoundError:
            h.update(b"(none)")
        h.update(b"\0")
    h.update(b"(none)" if meta is None else meta.encode(ENCODING))
    return h.hexdigest()[:16]


def _kept(r, nested):
    """The Record of R, a dict of strings as Record.fields writes it, when
    NESTED is a list of strings (else None: a damaged record, parsed
    again)."""
    if not (isinstance(r, dict) and isinstance(nested, list) and all(
            isinstance(x, str) for x in (*r, *r.values(), *nested))):
        return None
    try:
        return console.Record.read(r)
    except (TypeError, ValueError):
        return None


def _record(log, parser):
    """(judged record, Record, nested lines) of LOG, the record parsed
    again unless kept under this parser and these bytes. A boot whose
    meta is not known (no LOG.json, or a damaged one, and no LOG.meta)
    is parsed with console.DEFAULT_META and nothing is kept: a default
    written down would stand for the real meta from then on."""
    kept = load(log)
    meta = meta_of(log, kept)
    tag = f"parser={parser or console.parser_id()}.{log_id(log, meta)}"
    r = _kept(kept.get("record"), kept.get("nested"))
    if kept.get("parser") == tag and r is not None:
        return kept, r, kept["nested"]
    r, nested = console.parse(log, meta or console.DEFAULT_META)
    kept = {"meta": meta, "parser": tag, "record": r.fields(),
            "nested": nested}
    if meta is not None:
        save(log, kept)
    return kept, r, nested


def record(log, parser=None):
    """(Record, nested lines) of the boot LOG, parsed at most once."""
    _, r, nested = _record(log, parser)
    return r, nested


def judge_id(job, r):
    """What a verdict depends on: the judge's code, the Job JOB (the
    KUnit cases with it) and the Record R."""
    h = hashlib.sha256(r.line().encode(ENCODING))
    h.update(_judge_code())
    h.update(job.line().encode(ENCODING))
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def _judge_code():
    """The judge's code, read once a process."""
    with open(judge.__file__, "rb") as f:
        return f.read()


def verdict(log, job, parser=None):
    """(Verdict, Record, nested lines) of the boot LOG of the Job JOB,
    judged at most once (every time when its meta is not known:
    _record)."""
    kept, r, nested = _record(log, parser)
    tag = "judge=" + judge_id(job, r)
    if kept.get("judge") == tag:
        try:
            return judge.read_verdict(kept["verdict"]), r, nested
        except (AttributeError, KeyError, IndexError, TypeError,
                ValueError):
            pass  # A verdict damaged since: judged again.
    v = judge.judge(job, r)
    if kept.get("meta") is not None:
        save(log, dict(kept, judge=tag, verdict=v.lines()))
    return v, r, nested
