"""The judge: recorded boots against jobs whose values the formula gives."""
import os
import re
import shutil
import tempfile
import unittest

from pidmax import boot, console, judge, tables
from pidmax.formula import expected
from pidmax.console import Record
from pidmax.joblist import Job

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures")


def job(cpus, online=1, **more):
    """A job for CPUS possible CPUs of a 64-bit kernel without BASE_SMALL."""
    e = expected(cpus, False, True)
    j = {"name": f"case-{cpus}", "possible": str(cpus), "online": str(online),
         "pid_max": str(e.pid_max), "pid_max_min": str(e.minimum),
         "pid_max_max": str(e.limit), "line_default": str(e.pid_max),
         "line_min": str(e.minimum), "sysctl_refused": "0", "kunit": "0",
         "accel": "tcg"}
    j.update(more)
    return j


def record(name):
    """The record of the fixture NAME, as text (Record.fields)."""
    return console.parse(os.path.join(FIX, name))[0].fields()


def verdict(j, r):
    """The judge's Verdict of the job J and the record R, both text."""
    return judge.judge(Job.read(j), Record.read(r))


def check(name, j, r):
    """The judge's check NAME of the job J and the record R, both text."""
    return getattr(judge, "check_" + name)(Job.read(j), Record.read(r))


def failed(v):
    return [c.name for c in v.checks if c.result == "fail"]


class JudgeTest(unittest.TestCase):
    def test_recorded_passes(self):
        v = verdict(job(255), record("hotplug-255.log"))
        self.assertEqual((v.verdict, v.reason), ("pass", ""))
        self.assertEqual([c.name for c in v.checks][:6],
                         ["timeout", "panic", "final_marker", "guest_checks",
                          "kunit", "log_scan"])
        self.assertEqual(v.checks[4].result, "skip")

    def test_wrong_expectation_fails(self):
        j = job(255, pid_max="32768")
        v = verdict(j, record("hotplug-255.log"))
        self.assertEqual(v.verdict, "fail")
        self.assertEqual(v.reason, f"pid_max {255 * 1024}, expected 32768")

    def test_every_failed_check_named(self):
        v = verdict(job(254, online=2), record("hotplug-255.log"))
        self.assertEqual(failed(v), ["possible_cpus", "online_cpus", "pid_max",
                                     "pid_max_min", "boot_line"])
        self.assertEqual(v.reason.count("; "), 4)

    def test_panic_and_timeout_verdicts(self):
        self.assertEqual(verdict(job(1), record("panic.log")).verdict,
                         "panic")
        r = record("hotplug-255.log")
        r["timed_out"] = "1"
        v = verdict(job(255), r)
        self.assertEqual(v.verdict, "timeout")
        self.assertTrue(v.reason.startswith("TIMEOUT: guest killed after"))

    def test_missing_guest_fails(self):
        v = verdict(job(1), {})
        self.assertEqual(v.verdict, "fail")
        self.assertIn("final_marker", failed(v))

    def test_minimum_above_max_wants_none(self):
        j = job(8192, pid_max_min="32776", pid_max="32768")
        c = check("pid_max_min", j, {"pid_max_min": "none"})
        self.assertEqual(c.result, "ok")

    def test_values_the_old_strings_showed(self):
        """What the judge said when it compared strings it still says: a
        garbled CPU list's negative count, an empty panic message or
        insmod failure (as none), and a job's selftests=0 (a check)."""
        r = dict(record("hotplug-255.log"), online="-9")
        self.assertEqual(check("online", job(255), r).reason,
                         "online CPUs -9, expected 1")
        r = dict(record("panic.log"), panic_msg="")
        self.assertEqual(verdict(job(1), r).reason.split(";")[0],
                         "PANIC: the kernel panicked: none")
        r = dict(record(MODULE_LOG), insmod_failed="")
        self.assertEqual(verdict(module_job(), r).verdict, "pass")
        c = check("selftests", job(1, selftests="0"), {"selftests_ok": "0"})
        self.assertEqual((c.name, c.result), ("selftests", "ok"))
        # Lists with empty names and a cut meta, as the strings read them.
        r = {"failed": ",", "notoks": "1", "oks": "0", "plan": "1"}
        self.assertEqual(check("guest", job(1), r).reason,
                         "guest checks failed: ,")
        r = dict(record("kunit-hotplug-040.log"), kunit_skipped=",")
        self.assertEqual(check("kunit", job(40, kunit="1"), r).reason,
                         "KUnit suite pid_max: skipped cases: ,")
        r = dict(record("hotplug-255.log"), timed_out="")
        self.assertEqual(verdict(job(255), r).verdict, "pass")

    def test_records_refused_as_written_by_no_parser(self):
        """A number with a leading zero is shown by the parser as none (a
        garbled line); a record line whose count is none is refused."""
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "x.log")
            with open(os.path.join(FIX, "hotplug-255.log"), encoding="latin-1",
                      newline="") as f:
                text = f.read().replace("# pid_max: 261120", "# pid_max: 0261120")
            with open(log, "w", encoding="latin-1", newline="") as f:
                f.write(text)
            r, _ = console.parse(log, console.DEFAULT_META)
        self.assertIsNone(r.pid_max)
        with self.assertRaisesRegex(ValueError, "^record: oks is 'none', not "
                                    "a number$"):
            Record.read({"oks": "none"})

    def test_sysctl_refusal(self):
        j = job(255, sysctl_refused="1")
        self.assertEqual(check("sysctl", j, {"sysctl_err": "0"}).reason,
                         "the kernel did not refuse the sysctl.kernel."
                         "pid_max= setting")

    def test_recorded_selftests_are_a_skip(self):
        j = job(48, selftests="3", selftests_judged="no")
        r = {"failed": "selftest_pid_max,other", "notoks": "2", "oks": "4",
             "selftests_ok": "2"}
        self.assertEqual(check("selftests", j, r).reason,
                         "recorded, not judged: 2 of 3 passed, failed: pid_max")
        self.assertEqual(check("guest", j, r).reason,
                         "guest checks failed: other")

    def test_refuses_skip_and_incomplete_jobs(self):
        with self.assertRaisesRegex(ValueError, "is a skip"):
            verdict({"skip": "why", "name": "x"}, {})
        j = job(1)
        del j["kunit"]
        with self.assertRaisesRegex(ValueError, "lacks its kunit field"):
            verdict(j, {})

    def test_lines_read_back(self):
        v = verdict(job(254), record("hotplug-255.log"))
        self.assertEqual(judge.read_verdict(v.lines()), v)
        self.assertIs(judge.read_verdict(v.lines()).verdict,
                      judge.Status.FAIL)
        self.assertIs(judge.read_verdict(v.lines()).checks[0].result,
                      judge.Result.OK)

    def test_unknown_status_or_result_refused(self):
        with self.assertRaisesRegex(ValueError, "'won' is not a valid"):
            judge.read_verdict(["verdict=won\treason="])
        with self.assertRaisesRegex(ValueError, "'fine' is not a valid"):
            judge.read_verdict(["verdict=pass\treason=",
                                "check=panic\tresult=fine\treason="])

    def test_a_damaged_verdict_is_judged_again(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "hotplug-255.log")
            for name in ("hotplug-255.log", "hotplug-255.log.meta"):
                shutil.copy(os.path.join(FIX, name), d)
            line = Job.read(job(255))
            self.assertEqual(boot.verdict(log, line)[0].verdict, "pass")
            kept = boot.load(log)
            self.assertEqual(kept["verdict"][0], "verdict=pass\treason=")
            for damage in ("verdict=won\treason=", None):
                kept["verdict"][0] = damage
                boot.save(log, kept)
                self.assertIs(boot.verdict(log, line)[0].verdict,
                              judge.Status.PASS)
            kept["record"]["pid_max"] = 1
            boot.save(log, kept)
            self.assertIs(boot.verdict(log, line)[0].verdict,
                          judge.Status.PASS)
            # A value no record holds: parsed again, as a damaged one.
            kept["record"]["pid_max"] = "x"
            boot.save(log, kept)
            self.assertIs(boot.verdict(log, line)[0].verdict,
                          judge.Status.PASS)
            self.assertEqual(boot.load(log)["record"]["pid_max"], "261120")
            with open(log + boot.JUDGED, "w", encoding="ascii") as f:
                f.write("{half a record")
            self.assertIs(boot.verdict(log, line)[0].verdict,
                          judge.Status.PASS)
            # Without LOG.meta too, how the boot ended is lost: the boot
            # is judged on the default meta, and the damaged record is
            # left for a reader to see, not replaced by that default.
            os.remove(log + ".meta")
            with open(log + boot.JUDGED, "w", encoding="ascii") as f:
                f.write("{half a record")
            v, r, _ = boot.verdict(log, line)
            self.assertEqual((v.verdict, r.qemu_exit), ("pass", None))
            with open(log + boot.JUDGED, encoding="ascii") as f:
                self.assertEqual(f.read(), "{half a record")


# A boot of 6.1's small-maxsmp-wide-kmod (BASE_SMALL, 33 possible CPUs,
# one online) whose guest loaded the suite as a module, pid_max_kunit.ko.
MODULE_LOG = "kunit-module-hotplug-033-6.1.log"
LOAD_FAILED = ("insmod exit 1: insmod: can't insert "
               "'/lib/modules/pid_max_kunit.ko': unknown symbol in module, or "
               "unknown parameter")


def module_job(kunit="m", **more):
    """The module boot's job, with the cases of config/kunit-pid_max.cases
    as the planner writes them (the tests' setUp points at it)."""
    e = expected(33, True, True)
    more.setdefault("kunit_cases", ",".join(tables.kunit_cases()))
    return job(33, kunit=kunit, pid_max=str(e.pid_max),
               pid_max_min=str(e.minimum), pid_max_max=str(e.limit),
               line_default=str(e.pid_max), line_min=str(e.minimum), **more)


class KunitModuleTest(unittest.TestCase):
    """A kernel with the suite as a module (kunit=m): the module's load
    and the suite's seven cases, the cases of config/kunit-pid_max.cases
    as a built-in suite's."""

    def setUp(self):
        with open(os.path.join(FIX, MODULE_LOG), encoding="latin-1",
                  newline="") as f:
            self.text = f.read()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def edited(self, *edits):
        """The record of the module boot's log with each (PATTERN,
        REPLACEMENT) of EDITS made on it, line by line; each must match."""
        text = self.text
        for pattern, replacement in edits:
            text, n = re.subn(pattern, replacement, text, flags=re.M)
            self.assertGreater(n, 0, pattern)
        log = os.path.join(self.dir, "x.log")
        with open(log, "w", encoding="latin-1", newline="") as f:
            f.write(text)
        return console.parse(log)[0].fields()

    def kunit_check(self, v):
        return [c for c in v.checks if c.name == "kunit"][0]

    def test_module_loaded_and_passing(self):
        r = record(MODULE_LOG)
        self.assertEqual((r["modules"], r["insmod_failed"], r["kunit_plan"],
                          r["kunit_oks"]), ("pid_max_kunit", "none", "7", "7"))
        v = verdict(module_job(), r)
        self.assertEqual((v.verdict, v.reason), ("pass", ""))
        self.assertEqual(self.kunit_check(v).result, "ok")
        # The same cases pass the same way for a built-in suite.
        self.assertEqual(verdict(module_job("1"), r).verdict, "pass")
        self.assertEqual(self.kunit_check(verdict(module_job("0"), r))
                         .result, "skip")

    def test_module_load_failing(self):
        # What the guest shows when insmod fails: no suite, its not ok.
        r = self.edited((r"^    # Subtest: pid_max\r?\n(.*\n)*?ok 1 pid_max\r?\n",
                         ""),
                        (r"^# insmod: pid_max_kunit.ko loaded",
                         "# insmod: pid_max_kunit.ko did not load: "
                         + LOAD_FAILED),
                        (r"^ok 6 insmod_pid_max_kunit",
                         "not ok 6 insmod_pid_max_kunit # " + LOAD_FAILED))
        v = verdict(module_job(), r)
        self.assertEqual(v.verdict, "fail")
        self.assertEqual(failed(v), ["guest_checks", "kunit"])
        self.assertEqual(self.kunit_check(v).reason, "KUnit suite pid_max: a "
                         "module did not load: pid_max_kunit: " + LOAD_FAILED)

    def test_module_load_failing_recorded(self):
        # A real failed load: 7.3's stock arm64 kernel given the patched
        # kernel's pid_max_kunit.ko (its .config edited to say =m), which
        # needs the export of pid_max_scale() that the stock kernel lacks.
        r = record("kunit-module-unknown-symbol-7.3-arm64.log")
        self.assertEqual((r["modules"], r["kunit"]), ("none", "none"))
        v = verdict(job(1, kunit="m"), r)
        self.assertEqual(failed(v), ["guest_checks", "kunit"])
        self.assertEqual(self.kunit_check(v).reason, "KUnit suite pid_max: a "
                         "module did not load: pid_max_kunit: insmod exit 2: "
                         "insmod: can't insert '/lib/modules/pid_max_kunit.ko'"
                         ": unknown symbol in module, or unknown parameter")

    def test_no_module_loaded(self):
        # A module kernel whose guest loaded nothing: its suite never ran.
        r = self.edited((r"^# insmod(.*\n)*?(?=PIDMAX-HARNESS-BEGIN)", ""),
                        (r"^1\.\.7\r$", "1..6\r"),
                        (r"^ok 6 insmod_pid_max_kunit\r\n", ""),
                        (r"^ok 7 kernel_log_clean", "ok 6 kernel_log_clean"))
        v = verdict(module_job(), r)
        self.assertEqual(failed(v), ["kunit"])
        self.assertTrue(self.kunit_check(v).reason.startswith(
            "KUnit suite pid_max: none, no module loaded"))
        self.assertEqual(verdict(module_job("0"), r).verdict, "pass")

    def test_a_case_missing(self):
        r = self.edited((r"^    ok 5 pid_max_32bit\r\n", ""),
                        (r"^    1\.\.7\r$", "    1..6\r"))
        v = verdict(module_job(), r)
        self.assertEqual(failed(v), ["kunit"])
        self.assertEqual(self.kunit_check(v).reason,
                         "KUnit suite pid_max: case pid_max_32bit is missing")

    def test_an_old_job_is_judged_by_the_suites_own_ktap(self):
        # A folder made before the suite's cases were renamed: its jobs
        # carry no kunit_cases, and its kernel's suite passed cases of
        # other names. The suite's own plan and results judge it, not
        # today's list; a job that lists its cases holds the boot to them.
        r = self.edited((r"^    ok 5 pid_max_32bit", "    ok 5 pid_max_old"))
        old = module_job()
        del old["kunit_cases"]
        self.assertEqual(verdict(old, r).verdict, "pass")
        v = verdict(module_job(), r)
        self.assertEqual(self.kunit_check(v).reason,
                         "KUnit suite pid_max: case pid_max_32bit is missing")
        v = verdict(module_job(kunit_cases="pid_max_old"), r)
        self.assertEqual(v.verdict, "pass")

    def test_a_case_skipped(self):
        # "ok 3 NAME # SKIP WHY" counts towards the plan but checked
        # nothing: the boot fails, with today's list or the suite's own.
        r = self.edited((r"^(    ok 3 pid_max_limit\S*)", r"\1 # SKIP no"))
        v = verdict(module_job(), r)
        self.assertEqual(self.kunit_check(v).reason, "KUnit suite pid_max: "
                         "skipped cases: pid_max_limit_at_4096_cpu_ids")
        old = module_job()
        del old["kunit_cases"]
        self.assertEqual(failed(verdict(old, r)), ["kunit"])

    def test_a_case_failing(self):
        r = self.edited((r"^    ok 3 pid_max_limit", "    not ok 3 pid_max_limit"),
                        (r"^ok 1 pid_max\r$", "not ok 1 pid_max\r"))
        v = verdict(module_job(), r)
        self.assertEqual(self.kunit_check(v).reason, "KUnit suite pid_max: "
                         "notok, failed cases: pid_max_limit_at_4096_cpu_ids")

    def test_unknown_kunit_refused(self):
        with self.assertRaisesRegex(ValueError, "kunit is 'y', not one of"):
            verdict(module_job("y"), record(MODULE_LOG))


if __name__ == "__main__":
    unittest.main()
