"""The accelerator's choice (accel.choose) on a host where /dev/kvm is
made usable or not here, the probe boot on the fake QEMU: no KVM, a
verdict kept for this host boot, a --list that probes nothing, a probe
that passes or fails and is kept, a probe that cannot boot."""
import os
import tempfile
import unittest
from unittest import mock

from pidmax import accel
from pidmax.tests.test_guest import ON_FAKE
from pidmax.tests.test_judge import FIX
from pidmax.tests.test_plan import CONFIG_61


class ChooseTest(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.build = os.path.join(d.name, "build")
        self.cache = os.path.join(self.build, "kvm-probe")
        self.kvm = True
        real = os.access

        def access(path, mode, **kw):
            if path == "/dev/kvm":
                return self.kvm
            return real(path, mode, **kw)
        env = {"FAKE_QEMU_MODE": "replay",
               "FAKE_QEMU_LOG": os.path.join(FIX, "hotplug-255.log")}
        for patch in (mock.patch.object(accel.os, "access", access),
                      mock.patch.object(accel, "host_boot",
                                        return_value="boot-1"),
                      mock.patch.dict(os.environ, env)):
            patch.start()
            self.addCleanup(patch.stop)

    def choose(self, may_probe=True, kernel=CONFIG_61):
        return accel.choose(self.build, kernel, CONFIG_61, CONFIG_61,
                            may_probe, ON_FAKE)

    def cached(self):
        with open(self.cache) as f:
            return f.read()

    def test_no_usable_kvm(self):
        self.kvm = False
        self.assertEqual(self.choose(False), ("tcg", "no usable /dev/kvm"))
        self.assertFalse(os.path.exists(self.build))
        self.assertEqual(self.choose(), ("tcg", "no usable /dev/kvm"))
        self.assertEqual(os.listdir(self.build), [])

    def test_a_list_probes_nothing(self):
        self.assertEqual(self.choose(False), (
            "tcg", "KVM not probed yet; a sweep that boots will probe it"))
        self.assertFalse(os.path.exists(self.build))

    def test_a_probe_that_passes_is_kept(self):
        log = os.path.join(self.build, "kvm-probe.log")
        self.assertEqual(self.choose(), ("kvm", "KVM probe boot: passed, "
                                                f"log: {log}"))
        self.assertEqual(self.cached(), "boot-1 kvm\n")
        # The next sweep of this host boot, a --list too, takes it.
        os.environ["FAKE_QEMU_MODE"] = "crash"
        for may_probe in (True, False):
            self.assertEqual(self.choose(may_probe), (
                "kvm", f"KVM probe verdict cached for this host boot in "
                f"{self.cache}"))

    def test_a_probe_that_fails_is_kept(self):
        os.environ["FAKE_QEMU_MODE"] = "crash"
        self.assertEqual(self.choose()[0], "tcg")
        self.assertEqual(self.cached(), "boot-1 tcg\n")
        self.assertTrue(self.choose()[1].startswith("KVM probe verdict cached"))

    def test_a_probe_that_cannot_boot(self):
        self.assertEqual(self.choose(kernel="/nonexistent/vmlinux"),
                         ("tcg", "KVM probe boot: failed, log: " +
                          os.path.join(self.build, "kvm-probe.log")))


class HostBootTest(unittest.TestCase):
    def test_host_boot(self):
        with mock.patch("builtins.open", side_effect=OSError):
            self.assertEqual(accel.host_boot(), "unknown")
        with mock.patch("builtins.open", mock.mock_open(
                read_data="0a1b-2c\n")):
            self.assertEqual(accel.host_boot(), "0a1b-2c")


if __name__ == "__main__":
    unittest.main()
