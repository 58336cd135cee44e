"""The runner against the fake QEMU (tests/fake-qemu.sh), which replays
a recorded console log instead of booting."""
import contextlib
import dataclasses
import io
import signal
import os
import shutil
import tempfile
import unittest
from unittest import mock

from pidmax import boot, runner, stops
from pidmax.settings import Settings
from pidmax.tables import HARNESS
from pidmax.tests.test_judge import FIX, job


def boot_job(name, cpus, **more):
    """A job that boot-guest.sh accepts, expecting CPUS possible CPUs."""
    fields = {"name": name, "tier": "hotplug", "variant": "full",
              "kernel": "/dev/null", "initrd": "/dev/null",
              "smp": f"1,maxcpus={cpus}", "mem": "256M", "timeout": "30"}
    return job(cpus, **{**fields, **more})


def line(fields):
    return "\t".join(f"{k}={v}" for k, v in fields.items())


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.env = {"FAKE_QEMU_MODE": "replay",
                    "FAKE_QEMU_LOG": os.path.join(FIX, "hotplug-255.log")}
        self.settings = Settings(qemu=os.path.join(HARNESS, "tests",
                                                   "fake-qemu.sh"),
                                 fail_tail=2)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, *jobs):
        with open(os.path.join(self.dir, "jobs"), "w") as f:
            f.write("".join(line(j) + "\n" for j in jobs))

    def run_quietly(self):
        out = io.StringIO()
        with mock.patch.dict(os.environ, self.env), \
                contextlib.redirect_stdout(out):
            runner.run(self.dir, 2, self.settings)
        return out.getvalue().splitlines()

    def test_boots_judges_and_keeps(self):
        skip = {"name": "s", "tier": "hotplug", "variant": "full",
                "skip": "why"}
        self.write(boot_job("a", 255), skip, boot_job("b", 254))
        # An older run's six files of boot a, which this run replaces.
        os.makedirs(os.path.join(self.dir, "boots"))
        for ext in ("", ".meta", ".record", ".nested", ".verdict", ".qemu"):
            with open(os.path.join(self.dir, "boots", "a.log" + ext),
                      "w") as f:
                f.write("qemu_exit=0 timed_out=1 seconds=9\n")
        out = self.run_quietly()
        self.assertEqual(len([x for x in out if x.startswith("[")]), 2)
        # (The two boot at once: either may end first.)
        self.assertEqual(len([x for x in out if x[:6] in ("[1/2] ", "[2/2] ")
                              and x[6:] == f"{'a':<28} pass    pid_max="
                              f"{255 * 1024}"]), 1)
        failed = [x for x in out if " b " in x][0]
        self.assertTrue(failed.endswith("(failed: possible_cpus,pid_max,"
                                        "pid_max_min,boot_line)"), failed)
        tail = [k for k, x in enumerate(out) if x.startswith("    last 2 lines "
                                                             "of ")]
        self.assertEqual([out[k].split(" of ")[1] for k in tail],
                         [os.path.join(self.dir, "boots", "b.log:")])
        self.assertEqual([x[:6] for x in out[tail[0] + 1:tail[0] + 3]],
                         ["    | "] * 2)
        for name in ("a", "b"):
            self.assertEqual(sorted(n for n in os.listdir(
                os.path.join(self.dir, "boots")) if n.startswith(name + ".")),
                [f"{name}.log{ext}" for ext in ("", ".json", ".qemu")])
            kept = boot.load(os.path.join(self.dir, "boots", f"{name}.log"))
            self.assertEqual(kept["meta"].split()[:2],
                             ["qemu_exit=0", "timed_out=0"])
            self.assertEqual(sorted(kept), ["judge", "meta", "nested",
                                            "parser", "record", "verdict"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "boots",
                                                     "s.log")))

    def test_bad_job_refused_before_any_boot(self):
        self.write(boot_job("a", 255), boot_job("b", 2, online="x"))
        with self.assertRaisesRegex(ValueError, "jobs:2: job b: online is "
                                    "'x', not a number"):
            runner.run(self.dir, 2)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "boots")))

    def test_a_job_list_is_checked_whole_before_any_boot(self):
        # A name that would write outside DIR/boots, a line without its
        # kernel, a name twice: each refused with the file, the line and
        # the job before the first line boots. (The folder sits two below
        # this test's own, where ../../evil would land.)
        top = self.dir
        self.dir = os.path.join(top, "x", "y")
        os.makedirs(self.dir)
        self.addCleanup(setattr, self, "dir", top)
        path = os.path.join(self.dir, "jobs")
        for second, why in (
                (boot_job("../../evil", 2), "'../../evil' is not a plain"),
                (boot_job("x\x1b[2J", 2), "is not a plain file name"),
                ({**boot_job("b", 2), "kernel": ""}, "job b: the job lacks "
                 "its kernel field"),
                (boot_job("b", 2, kernel="/no/such"), "job b: kernel /no/such "
                 "is not readable"),
                (boot_job("a", 2), "job a: the name of line 1 again"),
                ({"name": "..", "skip": "why"}, "'..' is not a plain")):
            self.write(boot_job("a", 255), second)
            with self.assertRaises(ValueError) as caught:
                runner.run(self.dir, 2)
            self.assertIn(f"{path}:2: ", str(caught.exception))
            self.assertIn(why, str(caught.exception))
            self.assertFalse(os.path.exists(os.path.join(self.dir, "boots")))
        self.assertEqual(os.listdir(top), ["x"])

    def test_a_qemu_that_refused_to_start_says_why(self):
        # Its own message, in the terminal's tail and the verdict's
        # reason; the console log is empty.
        self.write(boot_job("a", 4))
        self.env["FAKE_QEMU_MODE"] = "crash"
        out = self.run_quietly()
        log = os.path.join(self.dir, "boots", "a.log")
        self.assertEqual(out[1:], [f"    last 2 lines of {log}:", "    | ",
                                   f"    QEMU's own messages ({log}.qemu):",
                                   "    | fake-qemu: cannot start"])
        self.assertIn("the guest's init never reported (qemu exit 1: "
                      "fake-qemu: cannot start)", boot.load(log)["verdict"][0])

    def test_the_tail_the_settings_give(self):
        """A failed boot's console tail is as long as the settings say
        (the door's $PIDMAX_FAIL_TAIL), none at 0; the variable in the
        environment is the door's to read."""
        # The recorded boot of 255 CPUs fails a job of 254.
        self.write(boot_job("b", 254))
        self.env["PIDMAX_FAIL_TAIL"] = "2"
        log = os.path.join(self.dir, "boots", "b.log")
        for tail in (3, 0):
            self.settings = dataclasses.replace(self.settings,
                                                fail_tail=tail)
            out = self.run_quietly()
            self.assertEqual(out[1:2], [f"    last 3 lines of {log}:"]
                             if tail else [])
            self.assertEqual(len([x for x in out if x.startswith("    | ")]),
                             tail)
            self.assertEqual(len(out), 1 + tail + bool(tail))

    def test_signal_handlers_are_given_back(self):
        # The stages after the boots (report, plot, baseline) stop on a
        # signal again: the runner leaves the handlers as it found them.
        self.write(boot_job("a", 255))
        with mock.patch.dict(os.environ, self.env), \
                contextlib.redirect_stdout(io.StringIO()):
            for before in (signal.SIG_DFL, signal.default_int_handler):
                with stops.handlers(before):
                    runner.run(self.dir, 2, self.settings)
                    for sig in stops.SIGNALS:
                        self.assertIs(signal.getsignal(sig), before)

    def test_no_job_list(self):
        with self.assertRaisesRegex(ValueError, "plan first"):
            runner.run(self.dir, 2)


if __name__ == "__main__":
    unittest.main()
