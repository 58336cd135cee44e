"""The sweep's whole run in-process (sweep.main): the stages' scripts
(build-initramfs.sh, build-kernel.sh, plot.sh, budget.sh,
run-baseline.sh) stand-ins that record their calls, the boots on the
fake QEMU replaying a recorded console; the results folder it writes,
a shard's, a baseline's call, the lines it prints and its exit status."""
import contextlib
import dataclasses
import io
import os
import shutil
import signal
import unittest
from unittest import mock

from pidmax import accel, stops, sweep
from pidmax.sweep_options import Request
from pidmax import sweep_kernels as sk
from pidmax.formula import expected
from pidmax.joblist import fields
from pidmax.settings import Settings
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_guest import FAKE
from pidmax.tests.test_judge import FIX
from pidmax.tests.test_plan import CONFIG_61
from pidmax.tests.test_tables import TABLE

EMPTY_SHA256 = ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
                "7852b855")


class SweepRunTest(FolderCase):
    def setUp(self):
        super().setUp()
        self.build = self.folder("build")
        self.initrd = self.touch("build", "initramfs.cpio")
        self.kernel = self.touch("k", "vmlinux")
        self.calls, self.status = [], {"plot.sh": 1}
        # The settings the door would read of PIDMAX_DEPS=true and QEMU
        # at the fake.
        self.settings = Settings(deps="true", qemu=FAKE)
        env = {"FAKE_QEMU_MODE": "replay",
               "FAKE_QEMU_LOG": os.path.join(FIX, "online-008.log")}
        self.patched(mock.patch.dict(os.environ, env),
                     mock.patch.object(sweep, "script", self.script),
                     mock.patch.object(sk, "script", self.script),
                     mock.patch.object(sweep, "REPO", self.dir))

    def touch(self, *names):
        os.makedirs(self.path(*names[:-1]), exist_ok=True)
        open(self.path(*names), "w").close()
        return self.path(*names)

    def script(self, name, *args, ok=(0,), capture=True):
        """The stand-in of the harness's scripts: each call recorded, a
        kernel "built" from the recorded .config."""
        self.calls.append((name, *args))
        if name == "build-initramfs.sh":
            return 0, self.initrd
        if name == "build-kernel.sh":
            folder = self.path("build", "-".join(args[-2:]) +
                               ("-stock" if "--stock" in args else ""))
            os.makedirs(folder, exist_ok=True)
            shutil.copy(CONFIG_61, os.path.join(folder, ".config"))
            open(os.path.join(folder, "vmlinux"), "w").close()
            return 0, folder
        return self.status.get(name, 0), ""

    def sweep(self, *argv, **changed):
        """The sweep of ARGV on the test's settings with CHANGED fields:
        (exit status, output, messages)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = sweep.main(list(argv), "sweep-smp.sh", dataclasses.replace(
                self.settings, **changed))
        return rc, out.getvalue(), err.getvalue()

    def test_one_boot_into_the_default_folder(self):
        rc, out, err = self.sweep("--kernel", self.kernel, "--config",
                                  CONFIG_61, "--build-dir", self.build,
                                  "--only", "online:8", "--accel", "tcg")
        self.assertEqual(rc, 0, err)
        results = self.path("results")
        self.assertEqual(out.splitlines(), [
            f"[1/1] {'vmlinux-online-008':<28} pass    pid_max=32768",
            "1 passed, 0 failed, 0 skipped"])
        self.assertIn(f"sweep-smp.sh: booting 1 guests (vmlinux, tcg, 2 at a "
                      f"time); results in {results}\n", err)
        self.assertIn("sweep-smp.sh: warning: no plot (see above)\n", err)
        self.assertNotIn("no PID budget", err)
        self.assertIn("sweep-smp.sh: done in 0 min ", err)
        self.assertEqual(self.calls, [
            ("build-initramfs.sh", "--arch", "x86_64", "--debian-arch",
             "amd64", self.build),
            ("plot.sh", results), ("budget.sh", results)])
        self.assertEqual(self.read("results", "kernels"),
                         f"vmlinux sha256 {EMPTY_SHA256}\n")
        self.assertEqual(self.read("results", "plan"),
                         self.read("results", "jobs"))
        job = fields(self.read("results", "jobs"))
        self.assertEqual((job["name"], job["initrd"], job["pid_max"]),
                         ("vmlinux-online-008", self.initrd, "32768"))
        for name in ("results.ktap", "results.csv", "results.xml",
                     "checks.csv", os.path.join("boots",
                                                "vmlinux-online-008.log")):
            self.assertTrue(os.path.isfile(self.path("results", name)), name)

    def test_a_shard_and_a_failed_boot(self):
        # online-008 (weight 100 + 4 * 8 + 64 // 40 = 133) is shard 1's,
        # online-004 (116) shard 2's; the recorded boot of 8 CPUs fails
        # the job of 4.
        out = self.path("r")
        argv = ["--kernel", self.kernel, "--config", CONFIG_61,
                "--build-dir", self.build, "--accel", "tcg", "--out", out,
                "--jobs", "1"]
        rc, stdout, err = self.sweep(*argv, "--only", "online:4,8",
                                     "--shard", "2/2")
        self.assertEqual(rc, 1, err)
        self.assertEqual(stdout.splitlines()[-1], "0 passed, 1 failed, 0 "
                         "skipped")
        self.assertIn("sweep-smp.sh: failed vmlinux-online-004", err)
        self.assertEqual(self.read("r", "shard"), "2/2\n")
        self.assertEqual([fields(x)["name"] for x in
                          self.read("r", "plan").splitlines()],
                         ["vmlinux-online-004", "vmlinux-online-008"])
        self.assertEqual([fields(x)["name"] for x in
                          self.read("r", "jobs").splitlines()],
                         ["vmlinux-online-004"])
        # A new run leaves nothing of the last: no shard file, no boot.
        self.assertEqual(self.sweep(*argv, "--only", "online:8")[0], 0)
        self.assertFalse(os.path.exists(self.path("r", "shard")))
        self.assertEqual({x.split(".")[0] for x in
                          os.listdir(self.path("r", "boots"))},
                         {"vmlinux-online-008"})

    def table(self):
        """The kernel table TABLE (test_tables) and a trees file of its
        tree 9.9, from the host."""
        for name, text in (("kernels", TABLE), ("trees",
                                                "9.9 host mainline -\n")):
            with open(self.path(name), "w") as f:
                f.write(text)
        self.settings = dataclasses.replace(
            self.settings, tables=dataclasses.replace(
                self.settings.tables, kernels=self.path("kernels"),
                trees=self.path("trees")))

    def test_the_tables_builds_and_their_baseline(self):
        self.table()
        out = self.path("r")
        with mock.patch.object(accel.os, "access", lambda p, m: p != "/dev/kvm"
                               and os.path.exists(p)):
            rc, stdout, err = self.sweep(
                "--tree", "9.9", "--baseline", "--build-dir", self.build,
                "--only", "online:8", "--out", out)
        self.assertEqual(rc, 0, err)
        self.assertIn("accel.sh: accelerator: tcg (no usable /dev/kvm)\n",
                      err)
        built = self.path("build", "9.9-full")
        # build-kernel.sh told every fact of the tables (9.9's full).
        facts = ("--name", "9.9-full", "--initrd", "external", "--suite",
                 "host", "--series", os.path.join(
                     os.path.dirname(sk.tables.HARNESS), "mainline"),
                 "--make", "x86", "--cross", "", "--image", "vmlinux")
        self.assertEqual(self.calls[1:], [
            ("build-kernel.sh", "--arch", "x86_64", *facts, self.build,
             "9.9", "full"),
            ("build-kernel.sh", "--stock", "--arch", "x86_64", *facts,
             self.build, "9.9", "full"),
            ("plot.sh", out), ("budget.sh", out),
            ("plot.sh", os.path.join(out, "baseline"))])
        job = fields(self.read("r", "jobs"))
        self.assertEqual((job["name"], job["kernel"], job["series"]),
                         ("9.9-full-online-008", built + "/vmlinux", "yes"))
        # The baseline, in-process: the job on the stock twin, booted,
        # reported, and compared with the patched boot.
        job = fields(self.read("r", "baseline", "jobs"))
        self.assertEqual((job["name"], job["kernel"], job["model"]),
                         ("9.9-full-stock-online-008",
                          built + "-stock/vmlinux", "stock"))
        self.assertIn("run-baseline.sh: booting the baseline: 1 guests on "
                      "the stock kernels; results in "
                      f"{out}/baseline\n", err)
        self.assertIn("run-baseline.sh: baseline (stock kernels, not in the "
                      "exit status): 1 passed, 0 failed, 0 skipped\n", err)
        e = expected(8, False, True)
        self.assertEqual(self.read("r", "compare.csv").splitlines()[1],
                         f"online-008,full,8,{e.pid_max},{e.minimum},"
                         f"{e.pid_max},{e.minimum},yes")
        self.assertEqual(stdout.splitlines()[-1],
                         "1 passed, 0 failed, 0 skipped")

    def test_stages_that_fail(self):
        argv = ["--kernel", self.kernel, "--config", CONFIG_61,
                "--build-dir", self.build, "--only", "online:8",
                "--out", self.path("r")]
        self.assertEqual(self.sweep(*argv, deps="false"), (
            1, "", "sweep-smp.sh: error: false build x86_64 failed (see "
            "above)\n"))
        rc, _, err = self.sweep(*argv, qemu=self.path("nosuch"))
        self.assertEqual(rc, 1)
        self.assertIn(f"{self.path('nosuch')} not found: apt-get install "
                      "qemu-system-x86 (harness/deps.sh build x86_64)", err)

    def test_a_signal_stops_the_sweep(self):
        def stopped(*args, **kw):
            raise stops.Stop(signal.SIGTERM)
        with mock.patch.object(sweep.runner, "run", stopped):
            rc, out, err = self.sweep("--kernel", self.kernel, "--config",
                                      CONFIG_61, "--build-dir", self.build,
                                      "--only", "online:8", "--out",
                                      self.path("r"))
        self.assertEqual((rc, out), (143, ""))
        self.assertTrue(err.endswith("sweep-smp.sh: stopped by SIGTERM\n"),
                        err)


class BrokenPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError


class SweepHelpTest(unittest.TestCase):
    def test_a_reader_that_stopped_early(self):
        err = io.StringIO()
        with mock.patch("sys.stdout", BrokenPipe()), \
                mock.patch("sys.stderr", err):
            self.assertEqual(sweep.main(["--help"], "sweep-smp.sh"), 141)
        self.assertTrue(err.closed)

    def test_another_architecture_is_tcg(self):
        # KVM runs the host's own architecture alone: arm64's guests on
        # an aarch64 host (uname's name for it), x86-64's on x86_64.
        o = Request(arch="x86_64", accel="kvm")
        with mock.patch("os.uname", return_value=mock.Mock(machine="aarch64")):
            self.assertEqual(sweep.choose_accel(o, ["k"], "/i"), "tcg")
            o = dataclasses.replace(o, arch="arm64")
            self.assertEqual(sweep.choose_accel(o, [], "/i"), "tcg")
            self.assertEqual(sweep.choose_accel(o, ["k"], "/i"), "kvm")


if __name__ == "__main__":
    unittest.main()
