"""The front's verbs of job lists, folders and tables, in-process: plan,
job, baseline, shard, run, accel, merge, clean, table; and how the front
ends: a usage error's own usage line, a reader that stopped early, a
signal that stops a boot."""
import io
import os
import shutil
import signal
import threading
import time
import unittest
from unittest import mock

from pidmax import __main__ as front
from pidmax import merge, results_dir, stops, tables
from pidmax.jobs import Maker
from pidmax.joblist import fields
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_front import HOTPLUG_255, line, run
from pidmax.tests.test_guest import FAKE
from pidmax.tests.test_judge import job
from pidmax.tests.test_merge import two_shards
from pidmax.tests.test_plan import CONFIG_61
from pidmax.tests.test_runner import boot_job
from pidmax.tests.test_tables import kernel_table


class ListVerbsTest(FolderCase):
    def test_plan(self):
        rc, out, _ = run("plan", "--kernel", "/k/vmlinux", "--config",
                         CONFIG_61, "--initrd", "/i", "--label", "t",
                         "--cpus", "33", "--online", "8", "--scenarios", "no")
        self.assertEqual(rc, 0)
        jobs = [fields(x) for x in out.splitlines()]
        # 6.1 counts QEMU's hotplug CPUs under TCG: 33 * 1024; 8 online
        # CPUs keep the floor, 32768.
        self.assertEqual([(j["name"], j["smp"], j["pid_max"]) for j in jobs],
                         [("t-hotplug-033", "1,maxcpus=33", "33792"),
                          ("t-online-008", "8", "32768")])
        rc, out, err = run("plan", "--kernel", "/k", "--config", CONFIG_61,
                           "--initrd", "/i", "--holes", "2")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("pidmax: --holes: ", err)
        self.assertTrue(err.endswith("Try 'pidmax --help'.\n"), err)

    def test_job(self):
        base = ["job", "--kernel", "/k", "--config", "/c", "--initrd", "/i",
                "--label", "t"]
        rc, out, _ = run(*base, "--facts", "0,1,0", "hotplug-100", "hotplug",
                         "100", "1", "1,maxcpus=100", "append=x=1")
        j = fields(out)
        self.assertEqual(rc, 0)
        self.assertEqual([j[k] for k in ("name", "pid_max", "pid_max_min",
                                         "pid_max_max", "timeout", "append",
                                         "machine", "kunit")],
                         ["t-hotplug-100", "102400", "800", "4194304", "61",
                          "x=1", "pc", "0"])
        # BASE_SMALL on 32 bits: 102400 clamped to 32768; the suite a
        # module.
        j = fields(run(*base, "--facts", "1,0,m", "h", "hotplug", "100", "1",
                       "1")[1])
        self.assertEqual([j[k] for k in ("variant", "pid_max", "pid_max_max",
                                         "kunit")],
                         ["small", "32768", "32768", "m"])
        self.assertEqual(run(*base, "--facts", "0,1,0", "--skip", "why",
                             "wide", "wide-online"),
                         (0, "name=t-wide\ttier=wide-online\tvariant=full\t"
                          "label=t\tskip=why\n", ""))
        self.assertEqual(run(*base, "--facts", "0,1,0", "c", "t", "1", "1")[::2],
                         (1, "pidmax: error: a job wants CASE TIER POSSIBLE "
                          "ONLINE SMP\n"))
        rc, _, err = run(*base, "--facts", "0,1,0", "c", "t", "1", "1", "1",
                         "nokey")
        self.assertEqual(rc, 1)
        self.assertIn("a field wants KEY=VALUE, not ['nokey']", err)

    def test_baseline(self):
        kernel = self.write("k/vmlinux", "")
        shutil.copy(CONFIG_61, self.path("k", ".config"))
        m = Maker("/k", CONFIG_61, "/i", "a", "tcg")
        jobs = self.write("jobs", m.job("online-008", "online", 8, 8, "8")
                          + "\n")
        rc, out, _ = run("baseline", jobs, f"a={kernel}")
        j = fields(out)
        self.assertEqual(rc, 0)
        self.assertEqual([j[k] for k in ("name", "label", "kernel", "model",
                                         "pid_max", "line_min")],
                         ["a-stock-online-008", "a-stock", kernel, "stock",
                          "32768", "301"])
        rc, _, err = run("baseline", self.path("nosuch"), f"a={kernel}")
        self.assertEqual((rc, err), (1, f"pidmax: error: {self.path('nosuch')}"
                                        " is not readable\n"))

    def test_shard(self):
        # Equal weights: dealt in list order to the least loaded shard,
        # the lowest-numbered on a tie.
        jobs = [line(job(8, 8, name=f"j{n}")) for n in range(3)]
        path = self.write("jobs", "".join(x + "\n" for x in jobs))
        self.assertEqual(run("shard", "1/2", path)[:2],
                         (0, f"{jobs[0]}\n{jobs[2]}\n"))
        self.assertEqual(run("shard", "2/2", path)[1], jobs[1] + "\n")
        with self.assertRaises(SystemExit) as caught:
            run("shard", "3/2", path)
        self.assertEqual(caught.exception.code, 2)

    def test_run(self):
        d = self.path("r")
        os.mkdir(d)
        self.write("r/jobs", line(boot_job("a", 255)) + "\n")
        env = {"QEMU": FAKE, "FAKE_QEMU_MODE": "replay",
               "FAKE_QEMU_LOG": HOTPLUG_255}
        with mock.patch.dict(os.environ, env):
            rc, out, _ = run("run", "--jobs", "1", d)
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines(), [f"[1/1] {'a':<28} pass    "
                                            f"pid_max={255 * 1024}"])
        self.assertTrue(os.path.isfile(os.path.join(d, "boots",
                                                    "a.log.json")))
        rc, _, err = run("run", self.path("nosuch"))
        self.assertEqual(rc, 1)
        self.assertIn("is not a results folder (no such folder)", err)
        with self.assertRaises(SystemExit):
            run("run", "--jobs", "0", d)

    def test_accel_without_kvm(self):
        real = os.access

        def access(path, mode, **kw):
            return False if path == "/dev/kvm" else real(path, mode, **kw)
        with mock.patch("os.access", access):
            rc, out, err = run("accel", "--no-probe", self.path("b"), "/k",
                               "/c", "/i")
        self.assertEqual((rc, out, err), (0, "tcg\n", "pidmax: accelerator: "
                                          "tcg (no usable /dev/kvm)\n"))
        self.assertFalse(os.path.exists(self.path("b")))

    def test_clean(self):
        d = results_dir.claim(self.path("r"))
        for name in ("jobs", "results.csv.tmp", "notes.txt"):
            self.write(os.path.join("r", name), "x\n")
        os.makedirs(os.path.join(d, "boots", "x"))
        self.assertEqual(run("clean", d), (0, "", ""))
        self.assertEqual(sorted(os.listdir(d)), sorted([
            "notes.txt", results_dir.MARKER, results_dir.LOCK_NAME]))
        self.write("notes/mine.txt", "mine\n")
        rc, _, err = run("clean", self.path("notes"))
        self.assertEqual(rc, 1)
        self.assertIn("holds files and is not a results folder", err)
        self.assertEqual(os.listdir(self.path("notes")), ["mine.txt"])


class MergeVerbTest(FolderCase):
    def setUp(self):
        super().setUp()
        self.shards = two_shards(self.path)
        self.stages = []
        patch = mock.patch.object(merge, "stage", lambda prog, name, out, w:
                                  self.stages.append((prog, name, out)))
        patch.start()
        self.addCleanup(patch.stop)

    def test_two_shards(self):
        out = self.path("m")
        rc, stdout, err = run("merge", out, *self.shards)
        self.assertEqual((rc, stdout), (0, "2 passed, 0 failed, 0 skipped\n"))
        self.assertIn(f"pidmax: merged 2 shards into {out}\n", err)
        self.assertEqual(self.stages, [("pidmax", "plot.sh", out),
                                       ("pidmax", "budget.sh", out)])

    def test_refusals(self):
        rc, out, err = run("merge", self.path("m"))
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "Usage: pidmax merge [-h] OUT DIR...\npidmax "
                         "merge: expects OUT and at least one shard DIR\n"
                         "Try 'pidmax merge --help'.\n")
        rc, _, err = run("merge", self.shards[0], *self.shards)
        self.assertEqual(rc, 2)
        self.assertIn(f"pidmax merge: OUT {self.shards[0]} is the shard", err)
        rc, _, err = run("merge", self.path("m"), self.shards[0],
                         self.path("nosuch"))
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith(f"pidmax: error: {self.path('nosuch')}"
                                       " is not a sweep's results folder"))
        self.assertTrue(err.endswith("(nothing was written)\n"))
        self.assertFalse(os.path.exists(self.path("m")))
        self.assertEqual(self.stages, [])


# A trees table for TABLE (test_tables): 9.9 from the host with its
# series in mainline/ and mutants, 9.8 from sid with none.
TREES = "9.9 host mainline m/9.9\n9.8 sid /abs/series -\n"


class TableVerbTest(FolderCase):
    def setUp(self):
        super().setUp()
        # The door reads where the tables are from the environment.
        self.patched(mock.patch.dict(os.environ, {
            "PIDMAX_KERNELS": kernel_table(self)[1].kernels,
            "PIDMAX_TREES": self.write("trees", TREES)}))

    def test_answers(self):
        repo = os.path.dirname(tables.HARNESS)
        for argv, want in (
                (["tree", "9.9"], "host mainline m/9.9"),
                (["series", "9.9"], os.path.join(repo, "mainline")),
                (["mutants", "9.8"], ""),
                (["trees", "arm64"], "9.9"),
                (["trees"], "9.9"),
                (["variants", "9.9"], "full small"),
                (["initrd", "9.9", "full-wide"], "builtin"),
                (["initrd", "9.9", "full", "arm64"], "external"),
                (["name", "9.9", "full", "arm64"], "9.9-arm64-full"),
                (["plan", "9.9", "x86_64", "full", "each", "hotplug",
                  "possible"], "full hotplug\nfull-big possible"),
                (["plan", "9.9", "x86_64", "full", "fewest", "hotplug",
                  "possible"], "full-big hotplug\nfull-wide possible"),
                (["arches"], "x86_64 arm64")):
            with self.subTest(argv=argv):
                self.assertEqual(run("table", *argv), (0, want + "\n", ""))

    def test_arch_row_for_the_shells_eval(self):
        rc, out, _ = run("table", "arch", "x86_64")
        self.assertEqual(rc, 0)
        rows = out.splitlines()
        self.assertEqual(len(rows), 12)
        for want in ("ARCH_KCONFIG=X86", "ARCH_CROSS=''", "ARCH_MACHINE=pc",
                     "ARCH_APPEND='lpj=10000000 tsc=reliable'"):
            self.assertIn(want, rows)

    def test_errors(self):
        self.assertEqual(run("table", "tree"), (
            1, "", "pidmax: error: table tree: wrong number of arguments ()\n"))
        rc, _, err = run("table", "initrd", "9.9", "nosuch")
        self.assertEqual(rc, 1)
        self.assertIn("has no build nosuch of tree 9.9 for x86_64", err)
        rc, _, err = run("table", "tree", "1.0")
        self.assertEqual(rc, 1)
        self.assertIn("has no tree 1.0", err)


class BrokenPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError


class FrontEndsTest(FolderCase):
    def test_unrecognized_arguments_under_the_verbs_usage(self):
        rc, out, err = run("cpu-list", "1", "2", "3", "4")
        self.assertEqual((rc, out), (2, ""))
        self.assertTrue(err.startswith("Usage: pidmax cpu-list [-h]"), err)
        self.assertTrue(err.endswith("pidmax cpu-list: unrecognized arguments:"
                                     " 4\nTry 'pidmax cpu-list --help'.\n"))
        # A verb without a parser of its own: the package's.
        rc, _, err = run("expected", "1", "--bogus")
        self.assertEqual(rc, 2)
        self.assertIn("pidmax: unrecognized arguments: --bogus\n", err)

    def test_a_reader_that_stopped_early(self):
        err = io.StringIO()
        with mock.patch("sys.stdout", BrokenPipe()), \
                mock.patch("sys.stderr", err), \
                mock.patch.object(front, "PROG", "pidmax"):
            self.assertEqual(front.main(["curve"]), 141)
        self.assertTrue(err.closed)

    def test_the_sweep_reads_its_own_options(self):
        rc, _, err = run("sweep", "--jobs", "0")
        self.assertEqual(rc, 2)
        self.assertTrue(err.endswith("Try 'pidmax sweep --help'.\n"), err)

    def test_a_signal_stops_a_boot(self):
        """TERM while the guest runs: the guest is killed, no LOG.meta
        is written, and the exit status is 128 + 15."""
        log = self.path("b.log")
        pids = self.path("pids")
        env = {"QEMU": FAKE, "FAKE_QEMU_MODE": "hang",
               "FAKE_QEMU_PIDFILE": pids}
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
        start = time.monotonic()
        # (Should the signal come late, it does no harm here.)
        with mock.patch.dict(os.environ, env), \
                stops.handlers(lambda *_: None):
            timer.start()
            rc = run("boot", line(boot_job("a", 1, timeout="20")), log)[0]
            timer.join()
        self.assertEqual(rc, 128 + signal.SIGTERM)
        self.assertLess(time.monotonic() - start, 10)
        self.assertFalse(os.path.exists(log + ".meta"))
        with open(pids) as f:
            pid = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)


if __name__ == "__main__":
    unittest.main()
