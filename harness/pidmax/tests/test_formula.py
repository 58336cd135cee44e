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
        (37, False, True, 37888, 301, 4194304, False),
        (255, False, True, 261120, 2040, 4194304, False),
        (4095, False, True, 4193280, 32760, 4194304, False),
        (8192, False, True, 4194304, 65536, 4194304, True),
        (5, True, True, 5120, 301, 32768, False),
        (31, True, True, 31744, 301, 32768, False),
        (32, True, True, 32768, 301, 32768, False),
        (255, True, True, 32768, 2040, 32768, True),
        (1, False, False, 32768, 301, 32768, False),
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

    def test_scaled_between_the_floor_and_the_limit(self):
        # Over every CPU count up to NR_CPUS's largest x86 value, for the
        # three kernels: 1024 a CPU between the floor and the limit, the
        # limit past it, the floor below.
        for small, is64 in ((False, True), (True, True), (False, False)):
            floor = 4096 if small else 32768
            for cpus in range(1, 8193):
                e = expected(cpus, small, is64)
                want = min(max(floor, 1024 * cpus), e.limit)
                self.assertEqual(e.pid_max, want, (small, is64, cpus))
                self.assertEqual(e.clamped, 1024 * cpus > e.limit or
                                 max(301, 8 * cpus) > e.pid_max)

    def test_refuses(self):
        self.assertRaises(ValueError, expected, 0, False)
        self.assertRaises(ValueError, expected, 8, False, True, "patched")
        for bad in (-1, 0):
            self.assertRaises(ValueError, expected, bad, False)


if __name__ == "__main__":
    unittest.main()
