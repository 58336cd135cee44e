"""The merge door (harness/merge-results.sh, pidmax/merge.py) on shard
folders made here from a recorded log: it joins two shards into one run,
and refuses, before it writes anything, an OUT that is a shard, lies
inside one or holds one, an OUT of someone's files and an OUT in use.
Every refusal leaves every input byte for byte as it was."""
import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from pidmax import merge, results_dir, tables
from pidmax.tests.test_judge import FIX, job

DOOR = os.path.join(tables.HARNESS, "merge-results.sh")


def line(fields):
    return "\t".join(f"{k}={v}" for k, v in fields.items())


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def snapshot(top):
    """Every file, link and folder under TOP, with its bytes."""
    seen = {}
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, top)
            if os.path.islink(path):
                seen[rel] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                seen[rel] = ("folder",)
            else:
                with open(path, "rb") as f:
                    seen[rel] = ("file", f.read(), os.stat(path).st_mode)
    return seen


def two_shards(path):
    """Two shards of a plan of two boots, one each, as PATH("s1") and
    PATH("s2"); their paths."""
    base = {"tier": "hotplug", "variant": "full", "label": "a",
            "kernel": "/runner/k"}
    plan = [job(255, **base, name="a-hotplug-255"),
            job(255, **base, name="a-hotplug-255-again")]
    shards = [path("s1"), path("s2")]
    for i, d in enumerate(shards):
        shard(d, i + 1, plan, plan[i:i + 1])
    return shards


@contextlib.contextmanager
def held(folder, pid=4242):
    """FOLDER's lock held while the block runs, as process PID holds it."""
    with open(os.path.join(folder, results_dir.LOCK_NAME), "w") as f:
        f.write(f"{pid}\n")
        f.flush()
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield


def shard(d, i, plan, jobs):
    """A shard folder D (shard I of 2) as a sweep leaves it: the whole
    PLAN, its own JOBS and their recorded logs."""
    results_dir.claim(d)
    write(os.path.join(d, "plan"), "".join(line(j) + "\n" for j in plan))
    write(os.path.join(d, "jobs"), "".join(line(j) + "\n" for j in jobs))
    write(os.path.join(d, "kernels"), "a build 0123abcd\n")
    write(os.path.join(d, "shard"), f"{i}/2\n")
    os.makedirs(os.path.join(d, "boots"))
    for j in jobs:
        for end in ("", ".meta"):
            shutil.copy(os.path.join(FIX, "hotplug-255.log" + end),
                        os.path.join(d, "boots", j["name"] + ".log" + end))


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.shards = two_shards(self.path)
        self.before = snapshot(self.dir)

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def door(self, *args):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop(results_dir.LOCKED_ENV, None)
        return subprocess.run([DOOR, *args], capture_output=True, text=True,
                              env=env, cwd=self.dir, check=False)

    def refused(self, want, status, *args):
        """The door refuses ARGS with exit STATUS, says WANT, reports no
        boot, and every file under the test's folder is as it was."""
        r = self.door(*args)
        self.assertEqual(snapshot(self.dir), self.before, r.stderr)
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertIn(want, r.stderr)
        self.assertIn("nothing was written", r.stderr)
        self.assertNotIn("passed", r.stdout)
        return r

    def test_two_shards_join_into_one_run(self):
        r = self.door("m", "s1", "s2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1],
                         "2 passed, 0 failed, 0 skipped")
        self.assertTrue(os.path.isfile(self.path("m", results_dir.MARKER)))
        with open(self.path("s1", "plan")) as a, \
                open(self.path("m", "jobs")) as b:
            self.assertEqual(a.read(), b.read())
        for name in ("a-hotplug-255.log", "a-hotplug-255-again.log.meta",
                     "a-hotplug-255-again.log.json"):
            self.assertTrue(os.path.isfile(self.path("m", "boots", name)))
        self.assertTrue(os.path.isfile(self.path("m", "results.ktap")))
        self.assertFalse(os.path.exists(self.path("m", "shard")))
        # The inputs are read, never written.
        after = snapshot(self.dir)
        self.assertEqual({k: v for k, v in after.items()
                          if k.split(os.sep)[0] != "m"}, self.before)

    def test_out_that_is_a_shard(self):
        self.refused("OUT s1 is the shard s1", 2, "s1", "s1", "s2")
        # Through a link and a path of another spelling too.
        os.symlink("s2", self.path("link"))
        self.before = snapshot(self.dir)
        self.refused("is the shard", 2, "link", "s1", "s2")
        self.refused("is the shard", 2, "./s1/", "s1", "s2")

    def test_out_inside_a_shard(self):
        r = self.refused("OUT s1/boots/m lies inside the shard s1", 2,
                         "s1/boots/m", "s1", "s2")
        self.assertTrue(r.stderr.startswith(
            "Usage: merge-results.sh [-h] OUT DIR...\n"))

    def test_a_shard_inside_out(self):
        # OUT a results folder of its own, with a shard kept in it.
        results_dir.claim(self.path("r"))
        shutil.move(self.shards[1], self.path("r", "baseline"))
        self.before = snapshot(self.dir)
        self.refused("OUT r holds the shard r/baseline", 2,
                     "r", "s1", "r/baseline")
        self.refused("holds the shard", 2, ".", "s1", "r/baseline")

    def test_out_a_folder_of_someones_notes(self):
        write(self.path("notes", "baseline", "mine.txt"), "my notes\n")
        write(self.path("notes", "plan"), "my plan\n")
        self.before = snapshot(self.dir)
        self.refused("OUT notes holds files and is not a results folder", 2,
                     "notes", "s1", "s2")

    def test_a_shard_that_is_not_a_results_folder(self):
        write(self.path("notes", "jobs"), "my jobs\n")
        self.before = snapshot(self.dir)
        self.refused("notes is not a sweep's results folder", 1,
                     "m", "s1", "notes")
        self.refused("nothere is not a sweep's results folder", 1,
                     "m", "s1", "nothere")
        self.assertFalse(os.path.exists(self.path("m")))

    def test_a_job_name_outside_boots(self):
        jobs = self.path("s1", "jobs")
        with open(jobs) as f:
            text = f.read()
        write(jobs, text.replace("name=a-hotplug-255\t", "name=../../evil\t"))
        self.before = snapshot(self.dir)
        self.refused("s1/jobs line 1: the job name '../../evil' is not a "
                     "plain file name", 1, "m", "s1", "s2")
        self.assertFalse(os.path.exists(self.path("m")))

    def test_a_wrong_operand_count_is_a_usage_error(self):
        r = self.door("m")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "Usage: merge-results.sh [-h] OUT DIR...\n"
                         "merge-results.sh: expects OUT and at least one "
                         "shard DIR\nTry 'merge-results.sh --help'.\n")
        self.assertEqual(snapshot(self.dir), self.before)

    def test_out_in_use_is_refused_with_the_holder(self):
        out = results_dir.claim(self.path("m"))
        with held(out):
            self.before = snapshot(self.dir)
            r = self.door("m", "s1", "s2")
            self.assertEqual(r.returncode, 1)
            self.assertIn("in use by process 4242", r.stderr)
            self.assertEqual(snapshot(self.dir), self.before)

    def test_the_report_and_its_stages_run_under_the_lock(self):
        seen = []

        def stage(prog, name, out, warning):
            fd = os.open(os.path.join(out, results_dir.LOCK_NAME), os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                seen.append((name, "free"))
            except BlockingIOError:
                seen.append((name, out in os.environ.get(
                    results_dir.LOCKED_ENV, "").split(os.pathsep)))
            finally:
                os.close(fd)
        with mock.patch.object(merge, "stage", stage), \
                mock.patch("sys.stdout"), mock.patch("sys.stderr"):
            self.assertEqual(merge.merge(self.path("m"), self.shards, "t"), 0)
        self.assertEqual(seen, [("plot.sh", True), ("budget.sh", True)])
        self.assertNotIn(results_dir.LOCKED_ENV, os.environ)

    def test_plans_compared_without_one_machines_paths(self):
        other = self.path("s2", "plan")
        with open(other) as f:
            text = f.read()
        write(other, text.replace("kernel=/runner/k", "kernel=/other/k"))
        self.assertEqual(merge.plan_key(other),
                         merge.plan_key(self.path("s1", "plan")))
        write(other, text.replace("pid_max=261120", "pid_max=1"))
        with self.assertRaisesRegex(merge.Refused, "different plans"):
            merge.check_shards(self.shards)


if __name__ == "__main__":
    unittest.main()
