"""A results folder: what makes a folder one, and who may write it.

A door that writes a results folder (the sweep's --out, merge-results.sh's
OUT, the baseline's DIR/baseline) first writes the marker MARKER into it,
so that a folder says it is one. A folder from before the marker counts
when it holds what the harness left in every such folder: jobs, plan and
boots/. A door refuses an OUT that exists and is neither empty nor a
results folder, before it writes or builds anything: it never takes over
someone's folder.

lock() holds DIR/LOCK_NAME with flock(2) for a door's whole run; a second
door on the same folder is refused with the first one's process id. The
stages a door starts itself (report, plot, budget, the baseline) find the
folder in LOCKED_ENV and do not lock it again.
"""
import contextlib
import errno
import fcntl
import os
import shutil
import tempfile

MARKER = ".pidmax-results"
LOCK_NAME = ".pidmax-lock"
LOCKED_ENV = "PIDMAX_LOCKED"
# What every results folder the harness wrote before the marker holds.
OLD_FOLDER = ("jobs", "plan", "boots")
# Every file a sweep writes into its results folder: a new run removes
# all of them (and any half-written NAME.tmp) before it boots anything.
RESULT_FILES = ("jobs", "plan", "kernels", "shard", "boots", "results.ktap",
                "results.csv", "results.xml", "checks.csv", "variants.csv",
                "pid_max.svg", "pid_max.png", "pid_budget.csv",
                "pid_budget.txt", "pid_budget.svg", "pid_budget.png",
                "baseline", "compare.csv")


class NotResults(ValueError):
    """A folder a door must not write into."""


def is_results(path):
    """Whether PATH is a results folder: it holds the marker, or jobs,
    plan and boots/ as the harness left them before the marker."""
    if os.path.isfile(os.path.join(path, MARKER)):
        return True
    jobs, plan, boots = (os.path.join(path, n) for n in OLD_FOLDER)
    return os.path.isfile(jobs) and os.path.isfile(plan) and \
        os.path.isdir(boots)


def check_out(path, what="--out"):
    """Refuse PATH as a folder to write results into unless it is missing
    (and could be made), empty, or a results folder. Writes nothing."""
    if not path:
        raise NotResults(f"{what} is empty")
    name_max = os.pathconf("/", "PC_NAME_MAX")
    for part in path.split(os.sep):
        if len(part.encode()) > name_max:
            raise NotResults(f"{what} {path}: a name in it is longer than "
                             f"{name_max} bytes")
    if os.path.lexists(path) and not os.path.isdir(path):
        raise NotResults(f"{what} {path} exists and is not a folder")
    if os.path.isdir(path):
        if os.listdir(path) and not is_results(path):
            raise NotResults(f"{what} {path} holds files and is not a results "
                             "folder: give an empty or new folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise NotResults(f"{what} {path} is not writable")
        return
    parent = nearest_existing(os.path.dirname(os.path.abspath(path)))
    try:
        # Root may write anywhere os.access() says; a folder made and
        # removed at once is the only sure test.
        os.rmdir(tempfile.mkdtemp(prefix=".pidmax-probe-", dir=parent))
    except OSError:
        raise NotResults(f"{what} {path} cannot be made: {parent} is not a "
                         "folder this user can write in") from None


def nearest_existing(path):
    """PATH, or the nearest folder above it that exists."""
    while not os.path.lexists(path) and path != os.path.dirname(path):
        path = os.path.dirname(path)
    return path


def claim(path, what="--out", mine=False):
    """Make PATH a results folder (checked as check_out does, unless MINE:
    a folder of the harness's own) and write its marker; its real path."""
    if not mine:
        check_out(path, what)
    os.makedirs(path, exist_ok=True)
    path = os.path.realpath(path)
    marker = os.path.join(path, MARKER)
    if not os.path.isfile(marker):
        with open(marker, "w", encoding="utf-8") as f:
            f.write("a results folder of harness/sweep-smp.sh "
                    "(docs/results.md)\n")
    return path


def inside(path, folder):
    """Whether PATH is FOLDER or lies inside it (real paths)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class Busy(OSError):
    """Another door holds the folder."""


@contextlib.contextmanager
def lock(path):
    """Hold PATH's lock while the block runs, or raise Busy naming the
    process that holds it. A no-op when a door that started this one
    holds it already (LOCKED_ENV)."""
    real = os.path.realpath(path)
    held = os.environ.get(LOCKED_ENV, "").split(os.pathsep)
    if real in held:
        yield
        return
    fd = os.open(os.path.join(real, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            other = os.pread(fd, 32, 0).decode(errors="replace").strip()
            raise Busy(f"{real} is in use by process {other or '?'} (another "
                       "sweep, report or merge): wait for it to end") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        before = os.environ.get(LOCKED_ENV)
        os.environ[LOCKED_ENV] = os.pathsep.join(filter(None, (before, real)))
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(LOCKED_ENV, None)
            else:
                os.environ[LOCKED_ENV] = before
    finally:
        os.close(fd)


def clean(out):
    """Remove every file a sweep writes into the results folder OUT, and
    nothing else."""
    for name in RESULT_FILES:
        for path in (os.path.join(out, name), os.path.join(out, name + ".tmp")):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.remove(path)
