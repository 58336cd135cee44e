"""The tables: every kernel's architecture is a row of arches, every
machine's too, and a bad row names its line."""
import os
import tempfile
import unittest

from pidmax import tables


class TablesTest(unittest.TestCase):
    def test_arches(self):
        a = tables.arches()
        self.assertEqual(a["arm64"].machine, "virt")
        self.assertEqual(a["arm64"].firmware, "dt")
        self.assertEqual(a["x86_64"].append, "lpj=10000000 tsc=reliable")
        self.assertEqual(a["arm64"].packages[0], "qemu-system-arm")

    def test_kernels_and_machines_name_known_arches(self):
        a = tables.arches()
        ks = tables.kernels()
        self.assertTrue(ks)
        for k in ks:
            self.assertIn(k.arch, a)
        m = tables.machines()
        self.assertEqual(m["virt"][0], "arm64")
        for arch, _ in m.values():
            self.assertIn(arch, a)
        for k in ks:
            self.assertIn(k.tree, tables.trees())

    def test_bad_row_names_its_line(self):
        with tempfile.NamedTemporaryFile("w", suffix="kernels", delete=False) as f:
            f.write("# a comment\n6.1 sparc full full external hotplug\n")
        try:
            with self.assertRaisesRegex(ValueError, r":2: want TREE ARCH"):
                tables.kernels(f.name)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
