"""The sweep's front: a fresh results folder, the job list of --list on
a recorded .config (no package, no kernel build), and a bad command
line's exit status."""
import contextlib
import io
import os
import stat
import subprocess
import sys
import unittest
from unittest import mock

from pidmax import results_dir, sweep
from pidmax.joblist import fields
from pidmax.settings import Settings
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_judge import FIX

CONFIG_61 = os.path.join(FIX, "config-6.1-full")


class SweepTest(FolderCase):
    def test_clean_results_removes_a_sweeps_files_only(self):
        for name in ("jobs", "results.csv.tmp", "notes.txt"):
            open(os.path.join(self.dir, name), "w").close()
        os.makedirs(os.path.join(self.dir, "boots", "x"))
        results_dir.clean(self.dir)
        self.assertEqual(os.listdir(self.dir), ["notes.txt"])

    def fake_build(self):
        """A build folder whose gen_init_cpio is a stand-in, and a fake
        busybox: build-initramfs.sh neither unpacks nor compiles."""
        build = os.path.join(self.dir, "build")
        os.makedirs(os.path.join(build, "bin"))
        cpio = os.path.join(build, "bin", "gen_init_cpio")
        with open(cpio, "w") as f:
            f.write("#!/bin/sh\necho fake initramfs\n")
        os.chmod(cpio, stat.S_IRWXU)
        tests = os.path.join(FIX, "..")
        return build, {"BUSYBOX": os.path.join(tests, "fake-busybox.sh")}

    def run_sweep(self, *argv, deps="false"):
        """The sweep of ARGV, its package check DEPS (the settings' deps,
        the door's $PIDMAX_DEPS): (exit status, output, messages)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = sweep.main(list(argv), "sweep-smp.sh", Settings(deps=deps))
        return rc, out.getvalue(), err.getvalue()

    def test_list_plans_and_boots_nothing(self):
        build, env = self.fake_build()
        with mock.patch.dict(os.environ, env):
            rc, out, _ = self.run_sweep(
                "--list", "--accel", "tcg", "--kernel", CONFIG_61,
                "--config", CONFIG_61, "--build-dir", build,
                "--out", os.path.join(self.dir, "r"), "--only", "online:40")
        self.assertEqual(rc, 0)
        jobs = [fields(line) for line in out.splitlines()]
        self.assertEqual([(j["name"], j["online"], j["pid_max"]) for j in jobs],
                         [("config-6.1-full-online-040", "40", "40960")])
        self.assertEqual(jobs[0]["initrd"],
                         os.path.join(build, "initramfs.cpio"))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r")))

    def test_someones_folder_is_refused_before_anything(self):
        # A folder of notes, with a file named as a sweep's: refused with
        # exit 2 before the packages (PIDMAX_DEPS), any build or write.
        notes = os.path.join(self.dir, "notes")
        os.makedirs(os.path.join(notes, "baseline"))
        for name in ("plan", os.path.join("baseline", "mine.txt")):
            with open(os.path.join(notes, name), "w") as f:
                f.write("mine\n")
        ran = os.path.join(self.dir, "deps-ran")
        deps = os.path.join(self.dir, "deps")
        with open(deps, "w") as f:
            f.write(f"#!/bin/sh\ntouch {ran}\n")
        os.chmod(deps, stat.S_IRWXU)
        for out in (notes, os.path.join(notes, "plan"), "/proc/forbidden"):
            rc, _, err = self.run_sweep("--out", out, "--only", "online:1",
                                        deps=deps)
            self.assertEqual(rc, 2, err)
            self.assertIn(f"--out {out} ", err)
            self.assertTrue(err.endswith("Try 'sweep-smp.sh --help'.\n"))
        self.assertFalse(os.path.exists(ran))
        self.assertEqual(sorted(os.listdir(notes)), ["baseline", "plan"])
        self.assertEqual(os.listdir(os.path.join(notes, "baseline")),
                         ["mine.txt"])

    def test_a_folder_in_use_is_refused(self):
        out = results_dir.claim(os.path.join(self.dir, "r"))
        holder = subprocess.Popen(
            [sys.executable, "-c", "import sys\n"
             "from pidmax import results_dir as rd\n"
             "with rd.lock(sys.argv[1]):\n"
             "    print('held', flush=True); sys.stdin.read()\n", out],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={k: v for k, v in os.environ.items()
                 if k != results_dir.LOCKED_ENV},
            cwd=os.path.dirname(os.path.dirname(sweep.__file__)))
        self.addCleanup(holder.wait)
        self.addCleanup(holder.stdout.close)
        self.addCleanup(holder.stdin.close)
        self.assertEqual(holder.stdout.readline(), "held\n")
        rc, _, err = self.run_sweep("--out", out, "--only", "online:1")
        self.assertEqual(rc, 1, err)
        self.assertIn(f"in use by process {holder.pid}", err)

    def test_list_builds_nothing_on_a_fresh_clone(self):
        # No package, no build folder: the kernels of the table planned
        # from their fragments, where their builds will put them, and
        # nothing written, installed or fetched.
        build = os.path.join(self.dir, "build")
        rc, out, err = self.run_sweep(
            "--list", "--tree", "6.1", "--variant", "all",
            "--fewest-kernels", "--build-dir", build, "--only",
            "hotplug:33", "--only", "possible:4097")
        self.assertEqual(rc, 0, err)
        jobs = [fields(line) for line in out.splitlines()]
        got = {j["name"]: (j["kernel"], j["config"], j["pid_max"],
                           j["initrd"]) for j in jobs}
        for name, small in (("full-maxsmp-wide", False),
                            ("small-maxsmp-wide-kmod", True)):
            folder = os.path.join(build, f"kernel-6.1-{name}")
            for case, want in (("hotplug-033", 33792),
                               ("possible-4097", 4194304)):
                # BASE_SMALL's PID_MAX_LIMIT, 32768, clamps both.
                want = 32768 if small else want
                self.assertEqual(got[f"6.1-{name}-{case}"], (
                    os.path.join(folder, "vmlinux"),
                    os.path.join(folder, ".config"), str(want), "builtin"))
            self.assertIn(f"--list: 6.1-{name} is not built", err)
        self.assertEqual(os.listdir(self.dir), [])

    def test_bad_command_line_exits_2(self):
        rc, _, err = self.run_sweep("--jobs", "0")
        self.assertEqual(rc, 2)
        self.assertTrue(err.endswith("Try 'sweep-smp.sh --help'.\n"), err)
        rc, _, err = self.run_sweep("--kernel", "/nonexistent/k")
        self.assertEqual(rc, 1)
        self.assertIn("--kernel /nonexistent/k is not readable", err)


if __name__ == "__main__":
    unittest.main()
