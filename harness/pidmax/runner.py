"""The runner: boot every job of a results folder's job list into
DIR/boots/NAME.log (guest.py: a thread waits on each QEMU), and parse and
judge each boot once, in this process, as it ends (boot.py keeps how it
ended, the record, the nested KTAP and the verdict in one judged record,
NAME.log.json, beside the log for the reporter).

A guest with HEAVY_ONLINE or more CPUs online keeps every host core busy
on its own, so it boots alone (two at once starved their RCU kthreads
into stall warnings); the others boot up to --jobs at a time. The next
guest starts before the ended ones are judged, so a free slot never
waits for the judge. The progress line's time left weighs the boots
left by joblist.weight. Every guest started is stopped when the runner
ends, however it ends; a signal (stops.py) ends it with Stop. The
settings (settings.py, from the door) give each guest its tables and
emulator, and the lines of a failed boot's console printed.
"""
import os
import queue
import sys
import threading
import time

from . import boot, guest, joblist
from .judge import Result, Status
from .settings import Settings
from .stops import Stop, ignoring, stopping

HEAVY_ONLINE = 16
__all__ = ["Stop", "run", "read_jobs"]


def read_jobs(out):
    """The Job of every job of OUT/jobs that boots, every line
    checked before any boots; an error names the file, the line and the
    job."""
    path = os.path.join(out, "jobs")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{path} is missing: plan first (harness/plan.sh)")
    todo, seen = [], {}
    with open(path, encoding=boot.ENCODING) as f:
        for n, line in enumerate(f.read().splitlines(), 1):
            try:
                j = joblist.Job.parse(line)
                check_job(j, seen.get(j.name))
            except ValueError as err:
                raise ValueError(f"{path}:{n}: {err}") from None
            seen[j.name] = n
            if not j.skip:
                todo.append(j)
    return todo


def check_job(j, twin):
    """Refuse the Job J unless it can boot: a plain name no earlier line
    (TWIN, its number) has, and every field a guest needs."""
    joblist.check_job(j)
    name = j.name
    if twin:
        raise ValueError(f"job {name}: the name of line {twin} again")
    if j.skip:
        return
    if j.online is None:
        raise ValueError(f"job {name}: no online field")
    try:
        guest.check(j)
    except ValueError as err:
        raise ValueError(f"job {name}: {err}") from None


def tail_of(path, n):
    """The last N lines of the file PATH (none when it is missing)."""
    try:
        with open(path, encoding=boot.ENCODING, newline="") as f:
            lines = f.read().split("\n")
    except OSError:
        return []
    if lines[-1] == "":
        lines.pop()
    return lines[-n:]


def console_tail(log, n):
    """The end of a failed boot's console, so that a CI log shows how
    the guest ended (the whole log stays in DIR/boots), and what QEMU
    itself said on its standard error (LOG.qemu), when it said anything:
    why a QEMU that refused to start did."""
    if n <= 0:
        return []
    out = [f"    last {n} lines of {log}:"] + \
        [f"    | {line}" for line in tail_of(log, n) or [""]]
    said = tail_of(log + ".qemu", n)
    if said:
        out += [f"    QEMU's own messages ({log}.qemu):"] + \
            [f"    | {line}" for line in said]
    return out


class Runner:
    """Boots the jobs TODO of the results folder OUT, PARALLEL at a time,
    on SETTINGS: the last SETTINGS.fail_tail lines of a failed boot's
    console are printed."""

    def __init__(self, out, todo, parallel, settings=Settings()):
        self.out, self.todo, self.parallel = out, todo, parallel
        self.settings = settings
        self.weights = [joblist.weight(j) for j in todo]
        self.left, self.done_weight = sum(self.weights), 0
        self.done = self.failed = 0
        self.running, self.ended = {}, queue.Queue()
        self.start = time.time()
        self.progress = sys.stderr.isatty()
        self.tail = settings.fail_tail

    def log(self, i):
        return os.path.join(self.out, "boots", self.todo[i].name + ".log")

    def run(self):
        heavy = False
        for i, j in enumerate(self.todo):
            limit = 1 if heavy or j.online >= HEAVY_ONLINE \
                else self.parallel
            ended = []
            while len(self.running) >= limit:
                ended.append(self.reap())
            heavy = j.online >= HEAVY_ONLINE
            self.start_guest(i, j)
            for e in ended:
                self.finish(e)
        while self.running:
            self.finish(self.reap())
        if self.progress:
            sys.stderr.write("\r\033[K")

    def start_guest(self, i, j):
        """Start the guest of job I; a thread waits for it and says when
        it ended."""
        g = guest.Guest(j, self.log(i), settings=self.settings)
        # Once the job is accepted, as the boot verb does: what an
        # earlier boot into the log left would stand for this one.
        boot.forget(self.log(i))
        self.running[i] = g
        g.start()
        threading.Thread(target=self.wait_guest, args=(i, g),
                         daemon=True).start()

    def wait_guest(self, i, g):
        try:
            boot.keep_meta(g.log, g.wait())
            self.ended.put((i, None))
        except Exception as err:  # the main thread says it
            self.ended.put((i, err))

    def reap(self):
        """Wait for a guest to end; the index of its job."""
        i, err = self.ended.get()
        del self.running[i]
        if err:
            raise err
        return i

    def finish(self, i):
        """Judge the ended boot I (once: boot.py keeps the verdict) and
        print its line."""
        j = self.todo[i]
        v, r, _ = boot.verdict(self.log(i), j)
        failed = ",".join(c.name for c in v.checks if c.result == Result.FAIL)
        self.done += 1
        self.done_weight += self.weights[i]
        self.left -= self.weights[i]
        self.failed += v.verdict != Status.PASS
        if self.progress:
            sys.stderr.write("\r\033[K")
        print(f"[{self.done}/{len(self.todo)}] {j.name:<28} "
              f"{v.verdict:<7} pid_max={r.fields()['pid_max']}"
              + (f" (failed: {failed})" if failed else ""), flush=True)
        if v.verdict != Status.PASS and self.tail > 0:
            print("\n".join(console_tail(self.log(i), self.tail)), flush=True)
        if self.progress:
            spent = int(time.time()) - int(self.start)
            sys.stderr.write(f"{self.done}/{len(self.todo)} done, "
                             f"{self.failed} failed, about "
                             f"{spent * self.left // self.done_weight}s left")
            sys.stderr.flush()

    def stop(self):
        """Stop every guest still running."""
        with ignoring():
            for g in list(self.running.values()):
                g.kill()
            self.running.clear()


def run(out, parallel, settings=Settings()):
    """Boot the jobs of the results folder OUT on SETTINGS (Runner). A
    signal raises Stop once every guest is stopped; the signal handlers
    from before are back when it returns."""
    todo = read_jobs(out)
    os.makedirs(os.path.join(out, "boots"), exist_ok=True)
    runner = Runner(out, todo, parallel, settings)
    with stopping():
        try:
            runner.run()
        finally:
            runner.stop()
