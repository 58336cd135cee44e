"""The reporter on a results folder made here: a boot from a recorded log,
a skip, a boot never run, and a second variant; the failed boots named
before the closing line, report.sh's own usage for a wrong count of
operands, and a job whose name leads out of boots/ refused."""
import os
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from pidmax import boot, joblist, report, tables
from pidmax.results_dir import LOCKED_ENV
from pidmax.tests.test_judge import FIX, job


def line(fields):
    return "\t".join(f"{k}={v}" for k, v in fields.items())


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.mkdir(os.path.join(self.dir, "boots"))
        shutil.copy(os.path.join(FIX, "hotplug-255.log"),
                    os.path.join(self.dir, "boots", "a-hotplug-255.log"))
        base = {"tier": "hotplug", "variant": "full", "label": "a"}
        self.jobs = [
            job(255, **base, name="a-hotplug-255"),
            {**base, "name": "a-wide-512", "skip": "no q35, \"wide\" <off>"},
            job(33, **base, name="a-hotplug-033"),
            job(255, **{**base, "variant": "small", "label": "b"},
                name="b-hotplug-255", pid_max="32768"),
        ]
        shutil.copy(os.path.join(FIX, "hotplug-255.log"),
                    os.path.join(self.dir, "boots", "b-hotplug-255.log"))
        self.write_jobs()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_jobs(self):
        with open(os.path.join(self.dir, "jobs"), "w") as f:
            f.write("".join(line(j) + "\n" for j in self.jobs))

    def run_report(self):
        boots = report.load(self.dir, None)
        report.write(self.dir, boots)
        return boots

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read().splitlines()

    def test_verdicts_and_totals(self):
        boots = self.run_report()
        self.assertEqual([b.verdict for b in boots],
                         ["pass", "skip", "fail", "fail"])
        self.assertEqual(report.totals(boots), (1, 2, 1))
        ktap = self.read("results.ktap")
        self.assertEqual(ktap[:2], ["KTAP version 1", "1..4"])
        self.assertIn('ok 2 a-wide-512 # SKIP no q35, "wide" <off>', ktap)
        self.assertIn("not ok 3 a-hotplug-033 # " + report.NOT_RUN, ktap)
        self.assertEqual(ktap[-1], "# totals: pass:1 fail:2 skip:1")

    def test_csv_and_junit(self):
        self.run_report()
        rows = self.read("results.csv")
        self.assertEqual(rows[0], report.RESULTS_HEAD)
        self.assertTrue(rows[1].startswith(f"255,1,{255 * 1024},{255 * 1024},"))
        self.assertTrue(rows[3].startswith("33,none,none,"))
        checks = self.read("checks.csv")
        self.assertIn(f"b-hotplug-255,hotplug,small,pid_max,fail,"
                      f"\"pid_max {255 * 1024}, expected 32768\"", checks)
        suite = ET.parse(os.path.join(self.dir, "results.xml")).getroot()
        self.assertEqual(suite.get("failures"), "2")
        skipped = suite.find(".//skipped")
        self.assertEqual(skipped.get("message"), 'no q35, "wide" <off>')

    def test_variants_side_by_side(self):
        self.run_report()
        rows = self.read("variants.csv")
        self.assertEqual(rows[1], f"255,1,{255 * 1024},{255 * 1024},pass,"
                         f"{255 * 1024},32768,fail,hotplug-255,hotplug")
        self.assertEqual(rows[2], "none,none,none,none,skip,none,none,none,"
                         "wide-512,hotplug")
        self.assertEqual(rows[3], "33,1,none,33792,fail,none,none,none,"
                         "hotplug-033,hotplug")

    def test_judged_once_and_again_for_another_job(self):
        kept = os.path.join(self.dir, "boots", "a-hotplug-255.log.json")
        shutil.copy(os.path.join(FIX, "hotplug-255.log.meta"),
                    kept.replace(".json", ".meta"))
        self.run_report()
        before = os.stat(kept).st_mtime_ns
        self.run_report()
        self.assertEqual(os.stat(kept).st_mtime_ns, before)
        self.jobs[0]["pid_max"] = "1"
        self.write_jobs()
        self.assertEqual(self.run_report()[0].verdict, "fail")

    def test_a_replaced_log_is_judged_again_whatever_its_mtime(self):
        # cp -p, tar and rsync -t keep the old mtime of what they copy: a
        # log replaced by a panic, older than the kept record and verdict,
        # is still parsed and judged again. In a folder from before the
        # judged record, LOG.meta stays how the boot ended, however old
        # its LOG.json.
        log = os.path.join(self.dir, "boots", "a-hotplug-255.log")
        shutil.copy(os.path.join(FIX, "hotplug-255.log.meta"), log + ".meta")
        self.assertEqual(self.run_report()[0].verdict, "pass")
        self.assertTrue(os.path.isfile(log + boot.JUDGED))
        for suffix in ("", ".meta"):
            shutil.copy(os.path.join(FIX, "panic.log" + suffix), log + suffix)
            os.utime(log + suffix, ns=(1, 1))
        b = self.run_report()[0]
        self.assertEqual((b.verdict, b.record.seconds), ("panic", "0.95"))

    def test_failed_boots_named_with_their_checks(self):
        self.assertEqual(report.failures(self.run_report()), [
            "a-hotplug-033: " + report.NOT_RUN,
            f"b-hotplug-255 (pid_max): pid_max {255 * 1024}, expected 32768"])

    def door(self, *args):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop(LOCKED_ENV, None)
        return subprocess.run([os.path.join(tables.HARNESS, "report.sh"),
                               *args], capture_output=True, text=True,
                              env=env, check=False)

    def test_report_sh_lists_the_failed_boots_before_its_last_line(self):
        r = self.door(self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "1 passed, 2 failed, 1 skipped\n")
        said = r.stderr.splitlines()
        self.assertIn("report.sh: failed a-hotplug-033: " + report.NOT_RUN,
                      said)
        self.assertIn(f"report.sh: failed b-hotplug-255 (pid_max): pid_max "
                      f"{255 * 1024}, expected 32768", said)
        self.assertEqual(said[-1], f"report.sh: 2 failed (not ok in "
                         f"{self.dir}/results.ktap, each check a subtest; "
                         f"the console logs in {self.dir}/boots)")

    def test_report_sh_with_two_folders_gives_its_own_usage(self):
        r = self.door(self.dir, self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr, "Usage: report.sh [-h] DIR\n"
                         f"report.sh: expects one DIR, not 2: {self.dir} "
                         f"{self.dir}\nTry 'report.sh --help'.\n")
        self.assertFalse(os.path.exists(os.path.join(self.dir,
                                                     "results.ktap")))
        r = self.door()
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.splitlines()[::2], [
            "Usage: report.sh [-h] DIR", "Try 'report.sh --help'."])

    def test_a_job_name_outside_boots_is_refused(self):
        # DIR/boots/../../evil.log would be a file beside DIR.
        outside = os.path.join(os.path.dirname(self.dir), "evil.log")
        self.addCleanup(lambda: [os.remove(outside + end) for end in
                                 ("", ".json")
                                 if os.path.exists(outside + end)])
        shutil.copy(os.path.join(FIX, "hotplug-255.log"), outside)
        self.jobs[1:] = [{**self.jobs[0], "name": "../../evil"}]
        self.write_jobs()
        with self.assertRaisesRegex(ValueError, "jobs line 2: the job name "
                                    "'../../evil' is not a plain file name"):
            report.load(self.dir, None)
        self.assertFalse(os.path.exists(outside + ".json"))

    def test_not_a_results_folder(self):
        os.remove(os.path.join(self.dir, "jobs"))
        with self.assertRaisesRegex(ValueError, "not a results folder"):
            report.load(self.dir, None)

    def test_record_kept_beside_the_log(self):
        log = os.path.join(self.dir, "boots", "a-hotplug-255.log")
        shutil.copy(os.path.join(FIX, "hotplug-255.log.meta"), log + ".meta")
        r, nested = boot.record(log)
        kept = boot.load(log)
        # The meta of this older folder's LOG.meta, copied; its six
        # files a boot are left as they were.
        with open(log + ".meta") as f:
            self.assertEqual(kept["meta"], f.read().strip())
        self.assertEqual((kept["record"], kept["nested"]), (r.fields(), nested))
        before = os.stat(log + boot.JUDGED).st_mtime_ns
        self.assertEqual(boot.record(log), (r, nested))
        self.assertEqual(os.stat(log + boot.JUDGED).st_mtime_ns, before)

    def test_a_boot_whose_end_is_not_known_keeps_nothing(self):
        # No LOG.json and no LOG.meta: parsed with the default meta,
        # which is not written down as if it were the boot's.
        log = os.path.join(self.dir, "boots", "a-hotplug-255.log")
        r, _ = boot.record(log)
        self.assertEqual((r.qemu_exit, r.timed_out), (None, False))
        self.assertFalse(os.path.exists(log + boot.JUDGED))
        job = joblist.Job.read(self.jobs[0])
        self.assertEqual(boot.verdict(log, job)[0].verdict, "pass")
        self.assertFalse(os.path.exists(log + boot.JUDGED))


if __name__ == "__main__":
    unittest.main()
