"""compare.csv from a folder and its baseline made here."""
import os
import shutil
import tempfile
import unittest

from pidmax import compare
from pidmax.report import RESULTS_HEAD


def folder(path, label, rows):
    """A results folder at PATH: a job a row (case, variant, cpus,
    pid_max, line_min, verdict) of kernel LABEL, and its results.csv."""
    os.makedirs(path)
    with open(os.path.join(path, "jobs"), "w") as f:
        for case, *_ in rows:
            f.write(f"name={label}-{case}\tlabel={label}\n")
    with open(os.path.join(path, "results.csv"), "w") as f:
        f.write(RESULTS_HEAD + "\n")
        for case, variant, cpus, pid_max, line_min, verdict in rows:
            f.write(f"{cpus},1,{pid_max},x,y,z,1.0,{verdict},{label}-{case},"
                    f"t,{variant},{line_min}\n")


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_rows_joined_on_case_and_variant(self):
        folder(self.dir + "/p", "k", [
            ("hotplug-033", "full", "33", "33792", "301", "pass"),
            ("possible-4097", "small", "4097", "32768", "32768", "pass"),
            ("wide-0512", "full", "512", "none", "none", "skip"),
            ("online-008", "full", "8", "32768", "301", "pass")])
        folder(self.dir + "/p/baseline", "k-stock", [
            ("possible-4097", "small", "4097", "32768", "32776", "fail"),
            ("hotplug-033", "full", "33", "33792", "301", "pass")])
        rows, differ = compare.write(self.dir + "/p")
        self.assertEqual(rows, [
            "hotplug-033,full,33,33792,301,33792,301,yes",
            "possible-4097,small,4097,32768,32776,32768,32768,no"])
        self.assertEqual(differ, rows[1:])
        with open(self.dir + "/p/compare.csv") as f:
            self.assertEqual(f.readline().strip(), compare.HEAD)

    def test_no_counterpart_and_no_baseline(self):
        folder(self.dir + "/p", "k", [("a", "full", "1", "32768", "301",
                                        "pass")])
        with self.assertRaisesRegex(ValueError, "has no jobs or results.csv"):
            compare.write(self.dir + "/p")
        folder(self.dir + "/p/baseline", "s", [("b", "full", "1", "32768",
                                                 "301", "pass")])
        with self.assertRaisesRegex(ValueError, "no boot of"):
            compare.write(self.dir + "/p")


if __name__ == "__main__":
    unittest.main()
