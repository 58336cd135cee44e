"""The job record: lossless lines, the count each model takes, and the
fields a job list holds that the formula disagrees with."""
import os
import tempfile
import unittest

from pidmax import joblist
from pidmax.kconfig import Config
from pidmax.__main__ import main

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures")
CONFIG = os.path.join(FIX, "config-6.12-full")
HOLES = ("name=a-holes-064-h1-16\ttier=holes\tvariant=full\tconfig=" + CONFIG +
         "\tappend=maxcpus=1\tholes=1-16\tcpu_ids=64\tpossible=48\tonline=1"
         "\tpid_max=65536\tpid_max_min=512\tpid_max_max=4194304"
         "\tline_default=65536\tline_min=512\tmachine=virt")


class JobTest(unittest.TestCase):
    def test_round_trip(self):
        job = joblist.Job.parse(HOLES + "\n")
        self.assertEqual(job.line(), HOLES)
        self.assertEqual(job.get("append"), "maxcpus=1")
        self.assertRaises(ValueError, joblist.Job.parse, "name=a\tnovalue")

    def test_models_count(self):
        job = joblist.Job.parse(HOLES)
        self.assertEqual(job.count(), 64)
        job.fields["model"] = "stock"
        self.assertEqual(job.count(), 48)

    def test_mismatches(self):
        small, is64, _ = Config(CONFIG).pid_params()
        self.assertEqual((small, is64), (False, True))
        job = joblist.Job.parse(HOLES)
        self.assertEqual(joblist.mismatches(job, small, is64), [])
        # The stock model's values on a job still saying the series'.
        job.fields["model"] = "stock"
        self.assertEqual([m.split("=")[0] for m in joblist.mismatches(job, small, is64)],
                         ["line_default", "line_min", "pid_max_min", "pid_max"])
        # A pid_max set on the command line is left alone.
        job = joblist.Job.parse(HOLES.replace("pid_max=65536", "pid_max=30000"))
        self.assertEqual(joblist.mismatches(job, small, is64), [])

    def test_check_jobs_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            good, bad = os.path.join(d, "good"), os.path.join(d, "bad")
            with open(good, "w") as f:
                f.write(HOLES + "\nname=a-x\ttier=holes\tskip=why\n")
            with open(bad, "w") as f:
                f.write(HOLES.replace("line_min=512", "line_min=384") + "\n")
            self.assertEqual(main(["check-jobs", good]), 0)
            self.assertEqual(main(["check-jobs", bad]), 1)
            self.assertEqual(main(["check-jobs", os.path.join(d, "none")]), 1)

    def test_weight(self):
        # 100 + 4 online + online^2/40 + ids/8 + ids^2/61000, worked out
        # by hand; the wide machine: 1900 + 4 online + ... + 3 ids/8.
        self.assertEqual(joblist.weight({"online": "64", "possible": "64"}),
                         100 + 256 + 102 + 8)
        self.assertEqual(joblist.weight({"online": "1", "possible": "8192"}),
                         100 + 4 + 1024 + 1100)
        self.assertEqual(joblist.weight({"online": "1", "possible": "512",
                                         "machine": "wide"}), 1900 + 4 + 192)
        self.assertEqual(joblist.weight({"online": "x"}), 100 + 4 + 0)


if __name__ == "__main__":
    unittest.main()
