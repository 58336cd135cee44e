"""The judge: recorded boots against jobs whose values the formula gives."""
import os
import unittest

from pidmax import console, judge
from pidmax.formula import expected
from pidmax.joblist import fields

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
    return fields(console.parse(os.path.join(FIX, name))[0])


def failed(v):
    return [c.name for c in v.checks if c.result == "fail"]


class JudgeTest(unittest.TestCase):
    def test_recorded_passes(self):
        v = judge.judge(job(255), record("hotplug-255.log"))
        self.assertEqual((v.verdict, v.reason), ("pass", ""))
        self.assertEqual([c.name for c in v.checks][:6],
                         ["timeout", "panic", "final_marker", "guest_checks",
                          "kunit", "log_scan"])
        self.assertEqual(v.checks[4].result, "skip")

    def test_wrong_expectation_fails(self):
        j = job(255, pid_max="32768")
        v = judge.judge(j, record("hotplug-255.log"))
        self.assertEqual(v.verdict, "fail")
        self.assertEqual(v.reason, f"pid_max {255 * 1024}, expected 32768")

    def test_every_failed_check_named(self):
        v = judge.judge(job(254, online=2), record("hotplug-255.log"))
        self.assertEqual(failed(v), ["possible_cpus", "online_cpus", "pid_max",
                                     "pid_max_min", "boot_line"])
        self.assertEqual(v.reason.count("; "), 4)

    def test_panic_and_timeout_verdicts(self):
        self.assertEqual(judge.judge(job(1), record("panic.log")).verdict,
                         "panic")
        r = record("hotplug-255.log")
        r["timed_out"] = "1"
        v = judge.judge(job(255), r)
        self.assertEqual(v.verdict, "timeout")
        self.assertTrue(v.reason.startswith("TIMEOUT: guest killed after"))

    def test_missing_guest_fails(self):
        v = judge.judge(job(1), {})
        self.assertEqual(v.verdict, "fail")
        self.assertIn("final_marker", failed(v))

    def test_minimum_above_max_wants_none(self):
        j = job(8192, pid_max_min="32776", pid_max="32768")
        c = judge.check_pid_max_min(j, {"pid_max_min": "none"})
        self.assertEqual(c.result, "ok")

    def test_sysctl_refusal(self):
        j = job(255, sysctl_refused="1")
        self.assertEqual(judge.check_sysctl(j, {"sysctl_err": "0"}).reason,
                         "the kernel did not refuse the sysctl.kernel."
                         "pid_max= setting")

    def test_recorded_selftests_are_a_skip(self):
        j = job(48, selftests="3", selftests_judged="no")
        r = {"failed": "selftest_pid_max,other", "notoks": "2", "oks": "4",
             "selftests_ok": "2"}
        self.assertEqual(judge.check_selftests(j, r).reason,
                         "recorded, not judged: 2 of 3 passed, failed: pid_max")
        self.assertEqual(judge.check_guest(j, r).reason,
                         "guest checks failed: other")

    def test_refuses_skip_and_incomplete_jobs(self):
        with self.assertRaisesRegex(ValueError, "is a skip"):
            judge.judge({"skip": "why", "name": "x"}, {})
        j = job(1)
        del j["kunit"]
        with self.assertRaisesRegex(ValueError, "lacks its kunit field"):
            judge.judge(j, {})

    def test_lines_read_back(self):
        v = judge.judge(job(254), record("hotplug-255.log"))
        self.assertEqual(judge.read_verdict(v.lines()), v)


if __name__ == "__main__":
    unittest.main()
