"""The PID budget's fit and text, on points worked out by hand and on
two folders of recorded boots side by side."""
import os
import shutil
import tempfile
import unittest

from pidmax import budget
from pidmax.tests.test_judge import FIX, job


class BudgetTest(unittest.TestCase):
    def test_fit_of_a_line(self):
        # y = 10 + 6 x exactly.
        a, b = budget.fit([(1, 16), (2, 22), (4, 34)])
        self.assertAlmostEqual(a, 10.0)
        self.assertAlmostEqual(b, 6.0)
        self.assertIsNone(budget.fit([(8, 50), (8, 60)]))

    def test_text_projects_the_fit(self):
        rows = ["a-online-001,k,1,1,16,1,1", "a-online-002,k,2,2,22,1,1"]
        txt, fits = budget.text(rows, {"k": {1664: 1703936, 4096: 4194304,
                                             8192: 4194304}})
        self.assertEqual(fits, ["k 10.000000 6.000000"])
        self.assertIn("  per online CPU       6.00 PIDs", txt)
        # 32768 runs out at (32768 - 10) / 6 = 5459.67 CPUs.
        self.assertIn("  a fixed 32768 runs out before init at 5460 CPUs", txt)
        # 1664 CPUs: 10 + 6 * 1664 = 9994 PIDs, 30.4993 % of 32768, and
        # 1703936 / 9994 = 170.49 times that.
        self.assertEqual(txt[-3].split(), ["1664", "9994", "30%", "used",
                                           "1703936", "170.5x"])
        self.assertEqual(txt[-1].split()[2:4], ["runs", "out"])

    def test_two_folders_side_by_side(self):
        d = tempfile.mkdtemp()
        try:
            for label in ("k1", "k2"):
                os.makedirs(f"{d}/{label}/boots")
                with open(f"{d}/{label}/jobs", "w") as f:
                    for n in (1, 2):
                        name = f"{label}-online-00{n}"
                        j = job(8, 8, name=name, label=label, tier="online")
                        f.write("\t".join(f"{k}={v}" for k, v in j.items())
                                + "\n")
                        shutil.copy(f"{FIX}/budget-online-008.log",
                                    f"{d}/{label}/boots/{name}.log")
            self.assertTrue(budget.write(d, [f"{d}/k1", f"{d}/k2"]))
            with open(f"{d}/pid_budget.csv") as f:
                self.assertEqual(len(f.read().splitlines()), 5)
            with open(f"{d}/pid_budget.txt") as f:
                self.assertIn("k2: 2 boots, all with 8 CPUs online: no fit",
                              f.read())
            os.remove(f"{d}/k2/boots/k2-online-002.log")
            os.remove(f"{d}/k1/boots/k1-online-002.log")
            self.assertFalse(budget.write(d, [f"{d}/k1"]))
            self.assertFalse(os.path.exists(f"{d}/pid_budget.txt"))
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
