"""The merge (pidmax/merge.py) in-process, on shard folders made here
from a recorded log (test_merge.shard): every refusal of the shards and
of their baselines, with nothing written; two shards with their
baselines joined, compare.csv written and a failed stock boot outside
the exit status; the stages' warnings; an OUT in use."""
import contextlib
import io
import os
import shutil
import stat
import tempfile
import unittest
from unittest import mock

from pidmax import merge, results_dir, tables
from pidmax.tests.test_judge import FIX, job
from pidmax.tests.test_merge import held, line, shard, snapshot, write

BASE = {"tier": "hotplug", "variant": "full", "kernel": "/runner/k"}


def plan(label, cpus=255):
    """The two boots of kernel LABEL, which expect CPUS possible CPUs."""
    return [job(cpus, **BASE, label=label, name=f"{label}-hotplug-255"),
            job(cpus, **BASE, label=label, name=f"{label}-hotplug-255-again")]


class MergeInProcessTest(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name
        self.plan = plan("a")
        self.shards = [self.path("s1"), self.path("s2")]
        for i, s in enumerate(self.shards):
            shard(s, i + 1, self.plan, self.plan[i:i + 1])
        self.stages = []
        patch = mock.patch.object(merge, "stage", lambda prog, name, out, w:
                                  self.stages.append(name))
        patch.start()
        self.addCleanup(patch.stop)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def merge(self, out="m"):
        """(exit status, standard output, standard error) of a merge of
        the shards into OUT."""
        o, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            rc = merge.merge(self.path(out), self.shards, "t")
        return rc, o.getvalue(), e.getvalue()

    def refused(self, kind, want, out="m"):
        before = snapshot(self.dir)
        with self.assertRaises(kind) as caught:
            self.merge(out)
        self.assertIn(want, str(caught.exception))
        self.assertTrue(str(caught.exception).endswith(
            " (nothing was written)"))
        self.assertEqual(snapshot(self.dir), before)
        self.assertEqual(self.stages, [])

    def test_out_refusals(self):
        s1 = self.shards[0]
        self.refused(merge.Usage, f"OUT {s1} is the shard {s1}", "s1")
        self.refused(merge.Usage, f"OUT {self.path('s1', 'x')} lies inside "
                     f"the shard {s1}", os.path.join("s1", "x"))
        self.refused(merge.Usage, f"OUT {self.dir}/ holds the shard {s1}", "")
        write(self.path("notes", "mine.txt"), "mine\n")
        self.refused(merge.Usage, "holds files and is not a results folder",
                     "notes")

    def test_shards_of_other_kernels(self):
        write(self.path("s2", "kernels"), "a build ffff\n")
        self.refused(merge.Refused, f"{self.shards[1]} and {self.shards[0]} "
                     "booted different kernels or series: a build ffff vs a "
                     "build 0123abcd")

    def test_a_boot_in_two_shards_in_none_or_not_in_the_plan(self):
        jobs = self.path("s2", "jobs")
        write(jobs, "".join(line(j) + "\n" for j in self.plan))
        self.refused(merge.Refused, "boot a-hotplug-255 is in two shards: "
                     f"{self.shards[0]} and {self.shards[1]}")
        write(jobs, "")
        self.refused(merge.Refused, "boot a-hotplug-255-again of the plan is "
                     "in no shard")
        write(jobs, line(self.plan[1]) + "\n" + line({**self.plan[1],
                                                      "name": "x"}) + "\n")
        self.refused(merge.Refused, "shards hold boots the plan lacks: x")
        write(jobs, "name=a/b\n")
        self.refused(merge.Refused, f"{self.shards[1]}/jobs line 1: the job "
                     "name 'a/b' is not a plain file name")

    def test_a_bad_plan_line_refused(self):
        for s in self.shards:
            write(os.path.join(s, "plan"), line({**self.plan[0],
                                                 "online": "x"}) + "\n")
        self.refused(merge.Refused, f"{self.shards[0]}/plan line 1: job "
                     "a-hotplug-255: online is 'x', not a number")

    def baselines(self, cpus=255):
        """A baseline/ in each shard: the plan again on "a-stock", each
        boot expecting CPUS possible CPUs."""
        stock = plan("a-stock", cpus)
        for i, s in enumerate(self.shards):
            shard(os.path.join(s, "baseline"), i + 1, stock, stock[i:i + 1])
        return stock

    def test_baselines_one_of_each_or_none(self):
        self.baselines()
        shutil.rmtree(self.path("s2", "baseline"))
        self.refused(merge.Refused, "only 1 of the 2 shards have a baseline")
        shutil.rmtree(self.path("s1", "baseline"))
        self.baselines()
        write(self.path("s2", "baseline", "jobs"), "")
        self.refused(merge.Refused, "the baselines do not merge: boot "
                     "a-stock-hotplug-255-again of the plan is in no shard")

    def test_two_shards_with_their_baselines(self):
        # The stock boots expect 254 CPUs of the log's 255: they fail, and
        # count in the baseline's line only.
        self.baselines(254)
        rc, out, err = self.merge()
        self.assertEqual((rc, out), (0, "2 passed, 0 failed, 0 skipped\n"))
        self.assertIn("t: baseline (stock kernels, not in the exit status): "
                      "0 passed, 2 failed, 0 skipped\n", err)
        self.assertIn("t: compare.csv: 2 boots, 0 where stock and patched "
                      "differ\n", err)
        self.assertIn(f"t: merged 2 shards into {self.path('m')}\n", err)
        with open(self.path("m", "compare.csv")) as f:
            self.assertEqual(f.read().splitlines()[1:], [
                f"{case},full,255,261120,2040,261120,2040,yes"
                for case in ("hotplug-255", "hotplug-255-again")])
        self.assertTrue(os.path.isfile(self.path("m", "baseline",
                                                 results_dir.MARKER)))
        self.assertEqual(self.stages, ["plot.sh", "budget.sh"] * 2)

    def test_a_failed_boot_fails_the_merge(self):
        # The plan's second boot, of 255 CPUs, booted 33.
        shutil.copy(os.path.join(FIX, "hotplug-033.log"),
                    self.path("s2", "boots", "a-hotplug-255-again.log"))
        self.assertEqual(self.merge()[:2], (1, "1 passed, 1 failed, 0 "
                                               "skipped\n"))

    def test_folders_in_boots_are_copied(self):
        write(self.path("s1", "boots", "extra", "file"), "x\n")
        os.symlink("file", self.path("s1", "boots", "extra", "link"))
        self.assertEqual(self.merge()[0], 0)
        self.assertEqual(os.readlink(self.path("m", "boots", "extra", "link")),
                         "file")

    def test_a_baseline_the_report_refuses(self):
        self.baselines()
        for s in self.shards:
            for name in ("plan", "jobs"):
                path = os.path.join(s, "baseline", name)
                with open(path) as f:
                    text = f.read()
                write(path, text.replace("\ttier=hotplug", ""))
        with self.assertRaisesRegex(merge.Refused, "the baselines do not "
                                    "merge: .*(plan|jobs) line 1: .* is not "
                                    "a job"):
            self.merge()
        # Refused before anything was written: no OUT at all.
        self.assertFalse(os.path.exists(self.path("m")))

    def test_out_in_use(self):
        out = results_dir.claim(self.path("m"))
        with held(out):
            with self.assertRaisesRegex(merge.Refused,
                                        "in use by process 4242"):
                self.merge()
        self.assertEqual(self.stages, [])


class StageTest(unittest.TestCase):
    def test_a_failed_stage_is_a_warning(self):
        with tempfile.TemporaryDirectory() as d:
            for name, status in (("plot.sh", 3), ("budget.sh", 0)):
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    f.write(f"#!/bin/sh\necho \"$1\" > \"$1/{name}.ran\"\n"
                            f"exit {status}\n")
                os.chmod(path, stat.S_IRWXU)
            err = io.StringIO()
            with mock.patch.object(tables, "HARNESS", d), \
                    contextlib.redirect_stderr(err):
                merge.stage("t", "plot.sh", d, "no plot")
                merge.stage("t", "budget.sh", d, "no PID budget")
            self.assertEqual(err.getvalue(), "t: warning: no plot (see "
                             "above)\n")
            for name in ("plot.sh", "budget.sh"):
                with open(os.path.join(d, name + ".ran")) as f:
                    self.assertEqual(f.read(), d + "\n")


if __name__ == "__main__":
    unittest.main()
