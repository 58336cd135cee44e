"""One boot: its QEMU command from the job and the tables, and how it
ends against the fake QEMU (tests/fake-qemu.sh); the emulator and the
tables the settings give it."""
import dataclasses
import os
import unittest
from unittest import mock

from pidmax import guest, tables
from pidmax.joblist import Job
from pidmax.settings import Settings
from pidmax.tables import HARNESS
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_runner import boot_job

FAKE = os.path.join(HARNESS, "tests", "fake-qemu.sh")
# The settings of a boot on the fake QEMU: the self-tests run where no
# QEMU is installed.
ON_FAKE = Settings(qemu=FAKE)


class GuestCase(FolderCase):
    """A folder of the test's own, and the command and the guest of a
    job booted into x.log there (on the fake QEMU unless told)."""

    def setUp(self):
        super().setUp()
        self.log = self.path("x.log")

    def file(self, name, data=b"", mode=None):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(path, mode)
        return path

    def command(self, job, style=None, settings=ON_FAKE):
        return guest.command(Job.read(job), self.log, style, settings)

    def guest(self, job, settings=ON_FAKE):
        return guest.Guest(Job.read(job), self.log, settings=settings)


class GuestTest(GuestCase):
    def test_command_of_a_pc_job(self):
        cmd, made = self.command(boot_job("a", 255, append="x=1"))
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
        cmd, made = self.command(job)
        self.assertEqual(made, [self.log + ".initrd"])
        with open(made[0], "rb") as f:
            self.assertEqual(f.read(), b"baseextra")
        job["initrd"] = "builtin"
        self.assertEqual(self.command(job)[0][-3], extra)

    def test_kernel_modules_on_an_external_initramfs(self):
        # The kernel's own modules.cpio, beside it, goes between the
        # initramfs and initrd_extra; a built-in initramfs carries them.
        os.mkdir(os.path.join(self.dir, "k"))
        kernel = self.file(os.path.join("k", "vmlinux"), b"kernel")
        base, extra = self.file("i", b"base"), self.file("e", b"extra")
        job = boot_job("a", 1, initrd=base, kernel=kernel)
        self.assertEqual(self.command(job)[1], [])
        self.file(os.path.join("k", guest.MODULES), b"modules")
        cmd, made = self.command(job)
        with open(cmd[cmd.index("-initrd") + 1], "rb") as f:
            self.assertEqual(f.read(), b"basemodules")
        job["initrd_extra"] = extra
        with open(self.command(job)[1][0], "rb") as f:
            self.assertEqual(f.read(), b"basemodulesextra")
        del job["initrd_extra"]
        job["initrd"] = "builtin"
        self.assertNotIn("-initrd", self.command(job)[0])

    def test_bad_jobs_refused(self):
        for more, why in (({"smp": "x"}, "smp must be"),
                          ({"accel": "hvf"}, "accel must be"),
                          ({"kernel": "/nonexistent"}, "is not readable"),
                          ({"machine": "nosuch"}, "unknown machine"),
                          ({"qemu": "/nonexistent/qemu"}, "not found")):
            with self.subTest(more=more):
                with self.assertRaisesRegex(ValueError, why):
                    self.command(boot_job("a", 1, **more))

    def boot(self, mode, **more):
        env = {"FAKE_QEMU_MODE": mode,
               "FAKE_QEMU_LOG": self.file("rec", b"recorded\n")}
        with mock.patch.dict(os.environ, env):
            g = self.guest(boot_job("a", 1, **more))
            g.start()
            meta = g.wait()
        # The guest writes no meta file: its caller keeps the line.
        self.assertFalse(os.path.exists(self.log + ".meta"))
        return meta.split()

    def test_ends(self):
        self.assertEqual(self.boot("replay")[:2], ["qemu_exit=0",
                                                   "timed_out=0"])
        self.assertEqual(self.boot("crash")[:2], ["qemu_exit=1",
                                                  "timed_out=0"])
        self.assertEqual(os.path.getsize(self.log), 0)
        meta = self.boot("hang", timeout="1")
        self.assertEqual(meta[:2], ["qemu_exit=137", "timed_out=1"])
        self.assertGreaterEqual(float(meta[2].split("=")[1]), 1.0)

    def test_the_emulator_the_settings_give(self):
        """The job's qemu, else the settings' (the door's $QEMU), else the
        architecture's; QEMU in the environment is the door's to read."""
        other = self.file("other-qemu", mode=0o755)
        job = boot_job("a", 1)
        mine = Settings(qemu=other)
        with mock.patch.dict(os.environ, {"QEMU": FAKE}):
            self.assertEqual(self.command(job, settings=mine)[0][0], other)
            self.assertEqual(self.guest(job, mine).cmd[0], other)
            with mock.patch.object(guest.shutil, "which",
                                   return_value="/usr/bin/qemu"):
                self.assertEqual(self.command(job, settings=Settings())[0][0],
                                 "qemu-system-x86_64")
        job["qemu"] = FAKE
        self.assertEqual(self.command(job, settings=mine)[0][0], FAKE)

    def test_the_tables_the_settings_give(self):
        """The machines of the tables of a folder passed in."""
        os.mkdir(os.path.join(self.dir, "t"))
        self.file(os.path.join("t", "machines"), b"pc x86_64 -M odd\n")
        with open(tables.HOME.arches, "rb") as f:
            self.file(os.path.join("t", "arches"), f.read())
        there = dataclasses.replace(ON_FAKE, tables=tables.Tables.inside(
            os.path.join(self.dir, "t")))
        self.assertEqual(self.command(boot_job("a", 1), settings=there)[0][:3],
                         [FAKE, "-M", "odd"])
        with self.assertRaisesRegex(ValueError, 'unknown machine "virt" '
                                    f"\\({self.dir}/t/machines: pc\\)"):
            self.command(boot_job("a", 1, machine="virt"), settings=there)


if __name__ == "__main__":
    unittest.main()
