"""One boot's edges (guest.py): files a job names that cannot be read, a
machine of an unknown architecture, kunit.py's style, a device tree with
holes from the fake QEMU's (holes-dtb.sh), a QEMU that cannot be run,
and files made for a boot removed once, whoever gets there first."""
import contextlib
import dataclasses
import os
import shutil
import stat
import subprocess
import unittest

from pidmax import tables
from pidmax.tests.test_guest import FAKE, ON_FAKE, GuestCase
from pidmax.tests.test_runner import boot_job


@contextlib.contextmanager
def quiet_fd2():
    """The standard error of this process and its children (a script's
    messages) into nothing while the block runs."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class GuestEdgesTest(GuestCase):
    def test_unreadable_files(self):
        for more, why in (({"initrd": "/nonexistent/i"},
                           "initramfs /nonexistent/i is not readable"),
                          ({"initrd_extra": "/nonexistent/e"},
                           "initrd_extra /nonexistent/e is not readable"),
                          ({"timeout": "0"}, "timeout must be seconds, not "
                           "'0'"),
                          ({"mem": "512"}, "mem must be like 512M, not "
                           "'512'")):
            with self.subTest(more=more):
                with self.assertRaisesRegex(ValueError, f"^{why}$"):
                    self.command(boot_job("a", 1, **more))

    def test_a_machine_of_an_unknown_architecture(self):
        machines = self.file("machines", b"odd sparc -M odd\n")
        odd = dataclasses.replace(ON_FAKE, tables=dataclasses.replace(
            tables.HOME, machines=machines))
        with self.assertRaisesRegex(ValueError, "the machine odd's "
                                    "architecture sparc is not a row of "
                                    f"{tables.HOME.arches}$"):
            self.command(boot_job("a", 1, machine="odd"), settings=odd)

    def test_kunit_style(self):
        cmd, _ = self.command(boot_job("a", 2, append="x=1"), "kunit")
        self.assertEqual(cmd[:3], [FAKE, "-m", "1024"])
        self.assertNotIn("-accel", cmd)
        self.assertEqual(cmd[cmd.index("-append") + 1], "console=ttyS0 x=1")
        self.assertEqual(cmd[cmd.index("-smp") + 1], "1,maxcpus=2")

    @unittest.skipUnless(shutil.which("fdtput") and shutil.which("dtc"),
                         "dtc and fdtput not found (device-tree-compiler)")
    def test_device_tree_with_holes(self):
        job = boot_job("a", 8, machine="virt", smp="8", holes="1-2")
        cmd, made = self.command(job)
        dtb = self.log + ".dtb"
        self.assertEqual(made, [dtb])
        self.assertEqual(cmd[cmd.index("-dtb") + 1], dtb)
        # cpu@1 and cpu@2 lost their enable method; cpu@0 and cpu@3 not.
        for cpu, has in ((0, True), (1, False), (2, False), (3, True)):
            props = subprocess.run(["fdtget", "-p", dtb, f"/cpus/cpu@{cpu}"],
                                   capture_output=True, text=True,
                                   check=True).stdout.split()
            self.assertEqual("enable-method" in props, has, cpu)
        job["holes"] = "9"
        with quiet_fd2(), self.assertRaisesRegex(
                ValueError, "no device tree with holes '9' and dt_cpus ''"):
            self.command(job)

    def test_a_qemu_that_cannot_be_run(self):
        # Executable, but no program: the exec fails, the boot ends 127.
        qemu = self.file("qemu", b"\x00\x01junk", stat.S_IRWXU)
        g = self.guest(boot_job("a", 1, qemu=qemu))
        g.start()
        self.assertEqual(g.wait().split()[:2], ["qemu_exit=127",
                                                "timed_out=0"])
        with open(self.log + ".qemu") as f:
            self.assertTrue(f.read().startswith(f"{qemu}: [Errno 8]"))
        self.assertEqual(os.path.getsize(self.log), 0)

    def test_made_files_removed_once(self):
        extra = self.file("e", b"extra")
        g = self.guest(boot_job("a", 1, initrd=self.file("i", b"i"),
                                 initrd_extra=extra))
        self.assertEqual(g.made, [self.log + ".initrd"])
        os.remove(self.log + ".initrd")
        g.kill()
        self.assertEqual(g.made, [])
        g.kill()


if __name__ == "__main__":
    unittest.main()
