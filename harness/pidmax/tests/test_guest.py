"""One boot: its QEMU command from the job and the tables, and how it
ends against the fake QEMU (tests/fake-qemu.sh)."""
import os
import shutil
import tempfile
import unittest
from unittest import mock

from pidmax import guest
from pidmax.tables import HARNESS
from pidmax.tests.test_runner import boot_job

FAKE = os.path.join(HARNESS, "tests", "fake-qemu.sh")


class GuestTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.log = os.path.join(self.dir, "x.log")
        # (No QEMU needed: the self-tests run where none is installed.)
        patch = mock.patch.dict(os.environ, {"QEMU": FAKE})
        patch.start()
        self.addCleanup(patch.stop)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def file(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_command_of_a_pc_job(self):
        cmd, made = guest.command(boot_job("a", 255, append="x=1"), self.log)
        self.assertEqual(cmd[:7], [FAKE, "-machine", "pc",
                                   "-accel", "tcg,thread=single", "-m", "256M"])
        self.assertEqual(cmd[cmd.index("-smp") + 1], "1,maxcpus=255")
        self.assertEqual(cmd[cmd.index("-serial") + 1], "file:" + self.log)
        append = cmd[cmd.index("-append") + 1]
        self.assertTrue(append.startswith("console=ttyS0 lpj=10000000 "))
        self.assertTrue(append.endswith(" panic=-1 x=1"))
        self.assertNotIn("pid_max", append)
        self.assertEqual(made, [])

    def test_accel_threads(self):
        self.assertEqual(guest.accel_arg("tcg", 64), "tcg,thread=single")
        self.assertEqual(guest.accel_arg("tcg", 65), "tcg")
        self.assertEqual(guest.accel_arg("kvm", 1), "kvm")

    def test_initrd_extra_on_top(self):
        base, extra = self.file("i", b"base"), self.file("e", b"extra")
        job = boot_job("a", 1, initrd=base, initrd_extra=extra)
        cmd, made = guest.command(job, self.log)
        self.assertEqual(made, [self.log + ".initrd"])
        with open(made[0], "rb") as f:
            self.assertEqual(f.read(), b"baseextra")
        job["initrd"] = "builtin"
        self.assertEqual(guest.command(job, self.log)[0][-3], extra)

    def test_kernel_modules_on_an_external_initramfs(self):
        # The kernel's own modules.cpio, beside it, goes between the
        # initramfs and initrd_extra; a built-in initramfs carries them.
        os.mkdir(os.path.join(self.dir, "k"))
        kernel = self.file(os.path.join("k", "vmlinux"), b"kernel")
        base, extra = self.file("i", b"base"), self.file("e", b"extra")
        job = boot_job("a", 1, initrd=base, kernel=kernel)
        self.assertEqual(guest.command(job, self.log)[1], [])
        self.file(os.path.join("k", guest.MODULES), b"modules")
        cmd, made = guest.command(job, self.log)
        with open(cmd[cmd.index("-initrd") + 1], "rb") as f:
            self.assertEqual(f.read(), b"basemodules")
        job["initrd_extra"] = extra
        with open(guest.command(job, self.log)[1][0], "rb") as f:
            self.assertEqual(f.read(), b"basemodulesextra")
        del job["initrd_extra"]
        job["initrd"] = "builtin"
        self.assertNotIn("-initrd", guest.command(job, self.log)[0])

    def test_bad_jobs_refused(self):
        for more, why in (({"smp": "x"}, "smp must be"),
                          ({"accel": "hvf"}, "accel must be"),
                          ({"kernel": "/nonexistent"}, "is not readable"),
                          ({"machine": "nosuch"}, "unknown machine"),
                          ({"qemu": "/nonexistent/qemu"}, "not found")):
            with self.subTest(more=more):
                with self.assertRaisesRegex(ValueError, why):
                    guest.command(boot_job("a", 1, **more), self.log)

    def boot(self, mode, **more):
        env = {"FAKE_QEMU_MODE": mode,
               "FAKE_QEMU_LOG": self.file("rec", b"recorded\n")}
        with mock.patch.dict(os.environ, env):
            g = guest.Guest(boot_job("a", 1, **more), self.log)
            g.start()
            g.wait()
        with open(self.log + ".meta") as f:
            return f.read().split()

    def test_ends(self):
        self.assertEqual(self.boot("replay")[:2], ["qemu_exit=0",
                                                   "timed_out=0"])
        self.assertEqual(self.boot("crash")[:2], ["qemu_exit=1",
                                                  "timed_out=0"])
        self.assertEqual(os.path.getsize(self.log), 0)
        meta = self.boot("hang", timeout="1")
        self.assertEqual(meta[:2], ["qemu_exit=137", "timed_out=1"])
        self.assertGreaterEqual(float(meta[2].split("=")[1]), 1.0)


if __name__ == "__main__":
    unittest.main()
