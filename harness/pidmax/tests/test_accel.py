"""The accelerator's probe and its cache, against the fake QEMU."""
import os
import tempfile
import unittest
from unittest import mock

from pidmax import accel
from pidmax.tests.test_guest import ON_FAKE
from pidmax.tests.test_judge import FIX
from pidmax.tests.test_plan import CONFIG_61


class AccelTest(unittest.TestCase):
    def probe(self, mode):
        env = {"FAKE_QEMU_MODE": mode,
               "FAKE_QEMU_LOG": os.path.join(FIX, "hotplug-255.log")}
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.dict(os.environ, env):
            return accel.probe(d, CONFIG_61, CONFIG_61, CONFIG_61, ON_FAKE)

    def test_probe_passes_only_with_the_final_marker(self):
        self.assertEqual(self.probe("replay"), "kvm")
        self.assertEqual(self.probe("crash"), "tcg")

    def test_cache_for_this_host_boot_only(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "kvm-probe")
            self.assertIsNone(accel.cached(path, "b1"))
            with open(path, "w") as f:
                f.write("b1 kvm\n")
            self.assertEqual(accel.cached(path, "b1"), "kvm")
            self.assertIsNone(accel.cached(path, "b2"))
            with open(path, "w") as f:
                f.write("b1 hvf\n")
            self.assertIsNone(accel.cached(path, "b1"))


if __name__ == "__main__":
    unittest.main()
