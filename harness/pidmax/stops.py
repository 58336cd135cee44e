"""Stopping on a signal: INT, TERM and HUP raise Stop wherever a door is
(building, booting, reporting, drawing, the baseline), every child it
started is ended, and the door exits as a shell says a death by that
signal (130, 143, 129).

A child runs in a process group of its own (run_group), so that a build's
make or a script's guests end with it: a terminal's Ctrl-C reaches this
process, which ends the group.
"""
import contextlib
import os
import signal
import subprocess

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Seconds a group has to end after TERM before it is killed.
GRACE = 5


class Stop(Exception):
    """A signal asked the door to stop."""

    def __init__(self, signum=signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def status(self):
        """The exit status: 128 + the signal."""
        return 128 + self.signum


def on_signal(signum, frame):
    raise Stop(signum)


@contextlib.contextmanager
def handlers(handler):
    """HANDLER for INT, TERM and HUP while the block runs; the handlers
    from before it after."""
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    for sig in SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)


def stopping():
    """While the block runs, INT, TERM and HUP raise Stop."""
    return handlers(on_signal)


def ignoring():
    """While the block runs (ending children), INT, TERM and HUP wait."""
    return handlers(signal.SIG_IGN)


def end_group(p):
    """End the process group of P (run_group's): TERM, then, past GRACE
    seconds or for what outlived the leader, KILL."""
    with ignoring():
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                p.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
        p.wait()


def run_group(cmd, capture=False, **kwargs):
    """(exit status, standard output when CAPTURE) of CMD, run in a
    process group of its own, which a Stop (or any error) here ends."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if capture else None,
                         text=True, process_group=0, **kwargs)
    try:
        out = p.communicate()[0] or ""
    except BaseException:
        end_group(p)
        raise
    return p.returncode, out
