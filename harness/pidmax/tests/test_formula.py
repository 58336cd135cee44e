"""The formula against the README's table, its two models, its bounds."""
import unittest

from pidmax.formula import expected


class FormulaTest(unittest.TestCase):
    TABLE = [  # cpus, small, is64 -> pid_max, minimum, limit, clamped
        (1, False, True, 32768, 301, 4194304, False),
        (32, False, True, 32768, 301, 4194304, False),
        (33, False, True, 33792, 301, 4194304, False),
        (38, False, True, 38912, 304, 4194304, False),
        (4096, False, True, 4194304, 32768, 4194304, False),
        (4097, False, True, 4194304, 32776, 4194304, True),
        (4, True, True, 4096, 301, 32768, False),
        (33, True, True, 32768, 301, 32768, True),
        (8192, True, True, 32768, 32768, 32768, True),
        (33, False, False, 32768, 301, 32768, True),
    ]

    def test_table(self):
        for cpus, small, is64, *want in self.TABLE:
            with self.subTest(cpus=cpus, small=small, is64=is64):
                e = expected(cpus, small, is64)
                self.assertEqual([e.pid_max, e.minimum, e.limit, e.clamped], want)

    def test_stock_model(self):
        self.assertEqual(expected(48, False, model="stock").pid_max, 49152)
        self.assertEqual(expected(48, False, model="stock").minimum, 384)
        self.assertEqual(expected(4097, True, model="stock").minimum, 32776)
        self.assertEqual(expected(4097, True).minimum, 32768)

    def test_series_minimum_never_above_pid_max(self):
        for small in (False, True):
            prev = 0
            for cpus in range(1, 8193):
                e = expected(cpus, small)
                self.assertLessEqual(e.minimum, e.pid_max)
                self.assertGreaterEqual(e.pid_max, prev)
                prev = e.pid_max

    def test_refuses(self):
        self.assertRaises(ValueError, expected, 0, False)
        self.assertRaises(ValueError, expected, 8, False, True, "patched")


if __name__ == "__main__":
    unittest.main()
