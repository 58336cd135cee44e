"""The baseline transform: jobs of the series' kernels again on stock
kernels, held to the formula's stock model."""
import os
import shutil
import tempfile
import unittest

from pidmax import baseline
from pidmax.formula import expected
from pidmax.jobs import Maker
from pidmax.joblist import fields
from pidmax.tests.test_plan import CONFIG_61


class BaselineTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.kernel = os.path.join(self.dir, "vmlinux")
        open(self.kernel, "w").close()
        shutil.copy(CONFIG_61, os.path.join(self.dir, ".config"))
        self.stock = baseline.stock_kernels([f"a={self.kernel}"])
        self.m = Maker("/k", CONFIG_61, "/i", "a", "tcg")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_holes_by_the_stock_model(self):
        job = self.m.job("holes-064-h1-16", "holes", 48, 1, "64",
                         holes="1-16", cpu_ids=64)
        j = fields(baseline.stock_job(job, self.stock))
        e = expected(48, False, True, "stock")
        self.assertEqual((j["name"], j["label"], j["kernel"], j["series"]),
                         ("a-stock-holes-064-h1-16", "a-stock", self.kernel,
                          "auto"))
        self.assertEqual((j["pid_max"], j["line_min"], j["pid_max_min"]),
                         (str(e.pid_max), str(e.minimum), str(e.minimum)))
        self.assertEqual(j["model"], "stock")
        self.assertNotIn("selftests_judged", j)
        self.assertEqual(j["smp"], "64")

    def test_every_selftest_judged_on_stock(self):
        """The series' selftests, judged on the patched kernel, and the
        tree's own, recorded there: both judged on the stock twin."""
        low = dict(holes="1-16", cpu_ids=64, initrd_extra="/s.cpio",
                   selftests=3)
        series = self.m.job("holes-064-h1-16-selftests", "holes", 48, 1,
                            "64", **low)
        unchanged = self.m.job("holes-064-h1-16-selftests-unchanged",
                               "holes", 48, 1, "64", **low,
                               selftests_judged="no")
        self.assertNotIn("selftests_judged", fields(series))
        self.assertEqual(fields(unchanged)["selftests_judged"], "no")
        for job in (series, unchanged):
            j = fields(baseline.stock_job(job, self.stock))
            self.assertEqual((j["selftests"], j["selftests_judged"],
                              j["model"]), ("3", "yes", "stock"))

    def test_set_pid_max_stays_and_skips_renamed(self):
        job = self.m.job("sysctl-override", "scenario", 64, 1, "1,maxcpus=64",
                         pid_max=30000)
        self.assertEqual(fields(baseline.stock_job(job, self.stock))
                         ["pid_max"], "30000")
        skip = baseline.stock_job(self.m.skip("wide", "wide-online", "why"),
                                  self.stock)
        self.assertEqual(skip, "name=a-stock-wide\ttier=wide-online\t"
                         "variant=full\tlabel=a-stock\tskip=why")

    def test_refusals(self):
        other = Maker("/k", CONFIG_61, "/i", "b", "tcg").job("x", "t", 1, 1,
                                                              "1")
        with self.assertRaisesRegex(ValueError, "has no stock kernel"):
            baseline.stock_job(other, self.stock)
        with self.assertRaisesRegex(ValueError, "is not LABEL=KERNEL"):
            baseline.stock_kernels(["a"])
        with self.assertRaisesRegex(ValueError, "or its .config is missing"):
            baseline.stock_kernels(["a=/nonexistent/vmlinux"])


if __name__ == "__main__":
    unittest.main()
