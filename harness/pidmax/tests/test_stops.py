"""Stopping on a signal (stops.py) with real signals and real children:
INT, TERM and HUP raise Stop with 128 + the signal while stopping() runs
and wait while ignoring() runs, the handlers from before come back after
either, and a child's whole process group is ended, by TERM, or by KILL
past the grace when it ignores TERM."""
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest
from unittest import mock

from pidmax import stops


def signal_soon(signum, delay=0.3):
    """A timer that sends SIGNUM to this process after DELAY seconds."""
    t = threading.Timer(delay, os.kill, (os.getpid(), signum))
    t.start()
    return t


def gone(pid):
    """Whether no process PID exists (none, not even a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "Z"


def gone_soon(pid, wait=2.5):
    """Whether the process PID is gone (gone) within WAIT seconds."""
    end = time.monotonic() + wait
    while not gone(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return gone(pid)


class StopsTest(unittest.TestCase):
    def setUp(self):
        # A signal that came late finds a handler that does nothing: it
        # never ends the test run.
        guard = stops.handlers(lambda *_: None)
        guard.__enter__()
        self.addCleanup(guard.__exit__, None, None, None)
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name

    def test_status_is_128_plus_the_signal(self):
        for signum, status, name in ((signal.SIGINT, 130, "SIGINT"),
                                     (signal.SIGTERM, 143, "SIGTERM"),
                                     (signal.SIGHUP, 129, "SIGHUP")):
            stop = stops.Stop(signum)
            self.assertEqual((stop.status, str(stop)), (status, name))
        self.assertEqual(stops.Stop().status, 130)

    def test_each_signal_raises_stop_and_the_handlers_come_back(self):
        before = signal.getsignal(signal.SIGTERM)
        for signum in stops.SIGNALS:
            with self.assertRaises(stops.Stop) as caught:
                with stops.stopping():
                    os.kill(os.getpid(), signum)
                    # (Delivered before the next bytecode; never reached.)
                    time.sleep(5)
            self.assertEqual(caught.exception.status, 128 + signum)
            for sig in stops.SIGNALS:
                self.assertIs(signal.getsignal(sig), before)

    def test_ignoring_lets_the_signals_wait(self):
        with stops.ignoring():
            for signum in stops.SIGNALS:
                os.kill(os.getpid(), signum)
                self.assertIs(signal.getsignal(signum), signal.SIG_IGN)
        self.assertIsNot(signal.getsignal(signal.SIGINT), signal.SIG_IGN)

    def group(self, script):
        """A shell running SCRIPT as the leader of a process group of
        its own, which starts a background sleep whose pid it writes to
        DIR/pid, then waits; (Popen, the sleep's pid)."""
        pidfile = os.path.join(self.dir, "pid")
        p = subprocess.Popen(["sh", "-c", f"{script}; sleep 30 & echo $! > "
                              f"{pidfile}.tmp; mv {pidfile}.tmp {pidfile}; "
                              "wait"], process_group=0)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        for _ in range(100):
            if os.path.exists(pidfile):
                break
            time.sleep(0.05)
        with open(pidfile) as f:
            return p, int(f.read())

    def test_end_group_by_term(self):
        p, child = self.group(":")
        start = time.monotonic()
        stops.end_group(p)
        self.assertEqual(p.returncode, -signal.SIGTERM)
        self.assertLess(time.monotonic() - start, stops.GRACE)
        # The sleep, the leader's child, is ended with its group.
        self.assertTrue(gone_soon(child))

    def test_end_group_by_kill_past_the_grace(self):
        p, child = self.group("trap '' TERM")
        with mock.patch.object(stops, "GRACE", 0.3):
            stops.end_group(p)
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertTrue(gone_soon(child))

    def test_end_group_of_a_group_already_gone(self):
        p = subprocess.Popen(["true"], process_group=0)
        p.wait()
        stops.end_group(p)
        self.assertEqual(p.returncode, 0)

    def test_run_group(self):
        self.assertEqual(stops.run_group(["sh", "-c", "echo hi; exit 3"],
                                         capture=True), (3, "hi\n"))
        self.assertEqual(stops.run_group(["true"]), (0, ""))

    def test_run_group_ends_its_group_on_a_stop(self):
        pidfile = os.path.join(self.dir, "pid")
        start = time.monotonic()
        with self.assertRaises(stops.Stop) as caught:
            with stops.stopping():
                timer = signal_soon(signal.SIGHUP)
                try:
                    stops.run_group(["sh", "-c", f"echo $$ > {pidfile}; "
                                     "exec sleep 30"])
                finally:
                    timer.join()
        self.assertEqual(caught.exception.status, 129)
        self.assertLess(time.monotonic() - start, stops.GRACE)
        with open(pidfile) as f:
            self.assertTrue(gone(int(f.read())))


if __name__ == "__main__":
    unittest.main()
