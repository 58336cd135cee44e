"""The door's settings (__main__.settings_of): each variable of the
environment that users and the self-tests set, read once by the front
and handed to the verbs and the sweep; none read below it."""
import os
import unittest
from unittest import mock

from pidmax import __main__ as front
from pidmax import sweep, tables
from pidmax.settings import Settings
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_front import HOTPLUG_255, line, run
from pidmax.tests.test_guest import FAKE
from pidmax.tests.test_runner import boot_job

# Every variable the door reads for a setting, and a value of each.
ENV = {"QEMU": "/q/qemu", "PIDMAX_FAIL_TAIL": "3", "PIDMAX_DEPS": "/d/deps",
       "PIDMAX_TREES": "/t/trees", "PIDMAX_KERNELS": "/t/kernels",
       "PIDMAX_MACHINES": "/t/machines", "PIDMAX_ARCHES": "/t/arches",
       "PIDMAX_KUNIT_CASES": "/t/cases"}


class SettingsOfTest(unittest.TestCase):
    def test_an_empty_environment_gives_the_defaults(self):
        self.assertEqual(front.settings_of({}), Settings())
        self.assertEqual(front.settings_of(dict.fromkeys(ENV, "")),
                         Settings())
        self.assertEqual(Settings(), Settings(
            qemu="", fail_tail=15, tables=tables.HOME,
            deps=os.path.join(tables.HARNESS, "deps.sh")))

    def test_each_variable(self):
        self.assertEqual(front.settings_of(ENV), Settings(
            qemu="/q/qemu", fail_tail=3, deps="/d/deps",
            tables=tables.Tables("/t/trees", "/t/kernels", "/t/machines",
                                 "/t/arches", "/t/cases")))

    def test_a_tail_that_is_no_number(self):
        with self.assertRaisesRegex(ValueError, r"^\$PIDMAX_FAIL_TAIL wants a "
                                    "number of lines, not 'x'$"):
            front.settings_of({"PIDMAX_FAIL_TAIL": "x"})
        with mock.patch.dict(os.environ, {"PIDMAX_FAIL_TAIL": "x"}):
            self.assertEqual(run("curve"), (1, "", "pidmax: error: "
                                            "$PIDMAX_FAIL_TAIL wants a number "
                                            "of lines, not 'x'\n"))


class HandedDownTest(FolderCase):
    def test_the_sweep_gets_the_doors_settings(self):
        got = []
        with mock.patch.dict(os.environ, ENV), \
                mock.patch.object(sweep, "main",
                                  lambda *a: got.append(a) or 0):
            self.assertEqual(run("sweep", "--list")[0], 0)
        self.assertEqual(got, [(["--list"], "pidmax sweep",
                                front.settings_of(ENV))])

    def test_the_runs_tail_and_emulator(self):
        """PIDMAX_FAIL_TAIL and QEMU as the door reads them: a failed
        boot's last line, on the fake QEMU."""
        d = self.folder("r")
        # The recorded boot of 255 CPUs fails a job of 254.
        self.write("r/jobs", line(boot_job("b", 254)) + "\n")
        env = {"QEMU": FAKE, "FAKE_QEMU_MODE": "replay",
               "FAKE_QEMU_LOG": HOTPLUG_255, "PIDMAX_FAIL_TAIL": "1"}
        with mock.patch.dict(os.environ, env):
            rc, out, _ = run("run", d)
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines()[1:2], [
            f"    last 1 lines of {os.path.join(d, 'boots', 'b.log')}:"])
        self.assertEqual(len(out.splitlines()), 3)


if __name__ == "__main__":
    unittest.main()
