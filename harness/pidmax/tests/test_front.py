"""The front, python3 -m pidmax VERB, run in-process (main([...]), its
standard streams caught): each verb on the recorded logs and .configs of
tests/fixtures and on folders made here, its output held to values
written here from the formula (formula.py's docstring) or the recorded
log, and its exit status: 0, 1 for an error, 2 for a usage error."""
import contextlib
import io
import os
import shutil
import unittest
from unittest import mock

from pidmax import __main__ as front, boot, joblist
from pidmax.jobs import Maker
from pidmax.joblist import fields
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_guest import FAKE
from pidmax.tests.test_judge import FIX, job
from pidmax.tests.test_plan import CONFIG_61
from pidmax.tests.test_runner import boot_job

PROG = "pidmax"
HOTPLUG_255 = os.path.join(FIX, "hotplug-255.log")


def line(pairs):
    return "\t".join(f"{k}={v}" for k, v in pairs.items())


def run(*argv, stdin=""):
    """(exit status, standard output, standard error) of main(ARGV), as
    the front named PROG with no shim."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            mock.patch.object(front, "PROG", PROG), \
            mock.patch.object(front, "SHIM", None), \
            mock.patch("sys.stdin", io.StringIO(stdin)):
        rc = front.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


class FormulaVerbsTest(FolderCase):
    def test_expected(self):
        # pid_max = min(limit, max(default, 1024 N)); minimum = max(301,
        # 8 N), cut to pid_max by the series only.
        for argv, want in ((["100"], "102400 800 4194304 0"),
                           (["1", "--small"], "4096 301 32768 0"),
                           (["64", "--32bit"], "32768 512 32768 1"),
                           (["5000", "--small"], "32768 32768 32768 1"),
                           (["5000", "--small", "--model", "stock"],
                            "32768 40000 32768 1")):
            with self.subTest(argv=argv):
                self.assertEqual(run("expected", *argv)[:2], (0, want + "\n"))
        self.assertEqual(run("expected", "0"),
                         (1, "", "pidmax: error: bad CPU count 0\n"))

    def test_curve(self):
        # Every N up to 32, then steps of N/16 up to 8192.
        ns, n = list(range(1, 33)), 32
        while n + n // 16 <= 8192:
            n += n // 16
            ns.append(n)
        rc, out, _ = run("curve")
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines(), [
            f"{n} {min(4194304, max(32768, 1024 * n))}" for n in ns])
        self.assertEqual(out.splitlines()[31:33], ["32 32768", "34 34816"])
        self.assertEqual(out.splitlines()[-1], "8016 4194304")
        # BASE_SMALL: 4096 a floor, 32768 the limit from 32 CPUs on.
        small = run("curve", "--small")[1].splitlines()
        self.assertEqual((small[0], small[7], small[31], small[-1]),
                         ("1 4096", "8 8192", "32 32768", "8016 32768"))
        bits32 = run("curve", "--32bit")[1].splitlines()
        self.assertEqual({x.split()[1] for x in bits32}, {"32768"})

    def test_field_and_cpu_list(self):
        rc, out, _ = run("field", "pid_max", "name",
                         stdin="name=a\tpid_max=5\nskip=why\n")
        self.assertEqual((rc, out), (0, "5\ta\nnone\tnone\n"))
        self.assertEqual(run("cpu-list", "5,1-3")[:2], (0, "1\n2\n3\n5\n"))
        self.assertEqual(run("cpu-list", "all", "6", "4")[1], "4\n5\n6\n")
        rc, _, err = run("cpu-list", "0")
        self.assertEqual(rc, 1)
        self.assertIn("is outside 1-255", err)

    def test_initrd_of(self):
        # 6.1's .config has INITRAMFS_SOURCE="": the job's initrd.
        self.assertEqual(run("initrd-of", CONFIG_61, "/i")[:2], (0, "/i\n"))
        with open(CONFIG_61) as f:
            text = f.read().replace('CONFIG_INITRAMFS_SOURCE=""',
                                    'CONFIG_INITRAMFS_SOURCE="x.cpio"')
        self.assertEqual(run("initrd-of", self.write("c", text), "/i")[1],
                         "builtin\n")

    def test_check_jobs(self):
        m = Maker("/k", CONFIG_61, "/i", "t", "tcg")
        jobs = [m.job("online-008", "online", 8, 8, "8"),
                m.skip("wide", "wide-online", "why"),
                m.job("hotplug-100", "hotplug", 100, 1, "1,maxcpus=100")]
        path = self.write("jobs", "".join(x + "\n" for x in jobs))
        self.assertEqual(run("check-jobs", path)[:2], (
            0, "2 jobs checked, 0 fields differ from the formula\n"))
        # 8 CPUs: line_min is max(301, 64) = 301.
        self.write("jobs", self.read("jobs").replace("\tline_min=301\t",
                                                     "\tline_min=300\t"))
        self.assertEqual(run("check-jobs", path)[:2], (
            1, f"{path}: t-online-008: line_min=300 want 301\n"
            "2 jobs checked, 1 fields differ from the formula\n"))

    def test_default(self):
        self.assertEqual(run("default", "wide-online")[:2],
                         (0, "256,288,384,512\n"))
        self.assertEqual(run("default", "holes", "arm64")[1],
                         "8,64,256,512\n")
        self.assertEqual(run("default", "scenarios", "arm64")[1], "no\n")
        rc, _, err = run("default", "nosuch")
        self.assertEqual(rc, 1)
        self.assertIn("no default nosuch list for x86_64", err)

    def test_kernel_id(self):
        kernel = self.write("vmlinux", "")
        # The sha256 of nothing.
        self.assertEqual(run("kernel-id", kernel)[:2], (
            0, "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495"
            "991b7852b855\n"))
        self.write(".harness-build", "abc 123\n")
        self.assertEqual(run("kernel-id", kernel)[1], "build abc 123\n")
        os.mkdir(self.path("empty"))
        rc, _, err = run("kernel-id", self.path("empty", "nosuch"))
        self.assertEqual(rc, 1)
        self.assertIn("No such file", err)


class BootVerbsTest(FolderCase):
    def test_parse(self):
        rc, out, _ = run("parse", HOTPLUG_255)
        self.assertEqual(rc, 0)
        r = fields(out)
        # The recorded boot: 255 possible CPUs, one online, 255 * 1024.
        self.assertEqual([r[k] for k in ("possible", "online", "pid_max",
                                         "pid_max_min", "end", "panic")],
                         ["255", "1", "261120", "2040", "1", "0"])
        log = self.path("b.log")
        shutil.copy(HOTPLUG_255, log)
        shutil.copy(HOTPLUG_255 + ".meta", log + ".meta")
        rc, written, _ = run("parse", "--write", log)
        self.assertEqual((rc, written), (0, out))
        # Kept behind the parser's ID, with the meta of LOG.meta.
        kept = boot.load(log)
        self.assertEqual(kept["parser"][:7], "parser=")
        self.assertEqual(joblist.line(kept["record"]), out.strip())
        self.assertEqual(kept["meta"], self.read("b.log.meta").strip())

    def test_judge(self):
        record = run("parse", HOTPLUG_255)[1].strip()
        rc, out, _ = run("judge", line(job(255)), record)
        self.assertEqual((rc, out.splitlines()[0]), (0, "verdict=pass\treason="))
        self.assertIn("check=pid_max\tresult=ok\treason=", out.splitlines())
        out = run("judge", line(job(255, pid_max="32768")), record)[1]
        self.assertEqual(out.splitlines()[0], "verdict=fail\treason=pid_max "
                         "261120, expected 32768")

    def report_folder(self, cpus):
        """A folder of one boot of the recorded log, whose job expects
        CPUS possible CPUs."""
        os.makedirs(self.path("r", "boots"))
        self.write("r/jobs", line(job(cpus, name="a-hotplug", tier="hotplug",
                                      variant="full", label="a")) + "\n")
        for end in ("", ".meta"):
            shutil.copy(HOTPLUG_255 + end, self.path("r", "boots",
                                                     "a-hotplug.log" + end))
        return self.path("r")

    def test_report(self):
        d = self.report_folder(255)
        rc, out, _ = run("report", d)
        self.assertEqual((rc, out), (0, "1 passed, 0 failed, 0 skipped\n"))
        for name in ("results.ktap", "results.csv", "results.xml",
                     "checks.csv"):
            self.assertTrue(os.path.isfile(os.path.join(d, name)), name)
        self.write("r/jobs", self.read("r/jobs").replace(
            "\tpossible=255\t", "\tpossible=254\t"))
        rc, out, err = run("report", d)
        self.assertEqual((rc, out), (1, "0 passed, 1 failed, 0 skipped\n"))
        self.assertIn("pidmax: failed a-hotplug", err)

    def test_report_usage(self):
        rc, out, err = run("report")
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "Usage: pidmax report [-h] DIR\npidmax report: "
                         "expects one DIR, not none\nTry 'pidmax report "
                         "--help'.\n")
        self.assertIn("expects one DIR, not 2: a b", run("report", "a", "b")[2])
        rc, _, err = run("report", self.path("nosuch"))
        self.assertEqual(rc, 1)
        self.assertIn("nosuch is not a results folder (no such folder)", err)

    def test_compare(self):
        from pidmax.tests.test_compare import folder
        p = self.path("p")
        folder(p, "k", [("hotplug-033", "full", "33", "33792", "301", "pass"),
                        ("possible-4097", "small", "4097", "32768", "32768",
                         "pass")])
        folder(os.path.join(p, "baseline"), "k-stock", [
            ("possible-4097", "small", "4097", "32768", "32776", "fail"),
            ("hotplug-033", "full", "33", "33792", "301", "pass")])
        rc, out, err = run("compare", p)
        self.assertEqual((rc, out), (0, "possible-4097,small,4097,32768,32776,"
                                        "32768,32768,no\n"))
        self.assertEqual(err, "pidmax: compare.csv: 2 boots, 1 where stock "
                         "and patched differ\n")

    def budget_folder(self, boots):
        os.makedirs(self.path("k", "boots"))
        jobs = []
        for n in range(1, boots + 1):
            name = f"k-online-00{n}"
            jobs.append(line(job(8, 8, name=name, label="k", tier="online")))
            shutil.copy(os.path.join(FIX, "budget-online-008.log"),
                        self.path("k", "boots", name + ".log"))
        self.write("k/jobs", "".join(x + "\n" for x in jobs))
        return self.path("k")

    def test_budget(self):
        d = self.budget_folder(1)
        rc, out, err = run("budget", d)
        self.assertEqual((rc, out), (0, ""))
        self.assertEqual(err, f"pidmax: fewer than two online-tier boots with "
                         f"a PID budget in {d}: no fit\n")
        shutil.rmtree(d)
        d = self.budget_folder(2)
        out_dir = self.path("o")
        os.mkdir(out_dir)
        self.assertEqual(run("budget", "--out", out_dir, d), (0, "", ""))
        # A head line and a row a boot.
        with open(os.path.join(out_dir, "pid_budget.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 3)
        self.assertFalse(os.path.exists(os.path.join(d, "pid_budget.csv")))

    def test_boot_replays_the_recorded_console(self):
        log = self.path("b.log")
        env = {"QEMU": FAKE, "FAKE_QEMU_MODE": "replay",
               "FAKE_QEMU_LOG": HOTPLUG_255}
        with mock.patch.dict(os.environ, env):
            os.environ.pop("BOOT_STYLE", None)
            rc = run("boot", line(boot_job("a", 255)), log)[0]
        self.assertEqual(rc, 0)
        with open(HOTPLUG_255) as f:
            self.assertEqual(self.read("b.log"), f.read())
        self.assertEqual(self.read("b.log.meta").split()[:2],
                         ["qemu_exit=0", "timed_out=0"])
        self.assertEqual(run("parse", "--write", log)[0], 0)
        kept = self.read("b.log.json")
        # A job refused before its boot leaves the earlier boot's files.
        rc, _, err = run("boot", line(boot_job("a", 1, smp="x")), log)
        self.assertEqual((rc, err), (1, "pidmax: error: smp must be N or "
                                        "N,maxcpus=M, not 'x'\n"))
        self.assertEqual(self.read("b.log.json"), kept)
        # A boot again: the earlier judged record is gone with its log,
        # and a parse reads this boot's LOG.meta.
        with mock.patch.dict(os.environ, dict(env, FAKE_QEMU_MODE="crash")):
            self.assertEqual(run("boot", line(boot_job("a", 255)), log)[0], 0)
        self.assertFalse(os.path.exists(log + ".json"))
        self.assertEqual(fields(run("parse", "--write", log)[1])["qemu_exit"],
                         "1")


if __name__ == "__main__":
    unittest.main()
