"""What a results folder is, which folders a door refuses, and the lock."""
import os
import subprocess
import sys
import tempfile
import unittest

from pidmax import results_dir as rd


class ResultsDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def touch(self, *names):
        os.makedirs(os.path.dirname(self.path(*names)), exist_ok=True)
        with open(self.path(*names), "w", encoding="utf-8") as f:
            f.write("x\n")

    def test_marker_or_an_old_folder_is_one(self):
        os.makedirs(self.path("new"))
        self.assertFalse(rd.is_results(self.path("new")))
        rd.claim(self.path("new"))
        self.assertTrue(rd.is_results(self.path("new")))
        for name in ("jobs", "plan"):
            self.touch("old", name)
        self.assertFalse(rd.is_results(self.path("old")))
        os.makedirs(self.path("old", "boots"))
        self.assertTrue(rd.is_results(self.path("old")))

    def test_someones_folder_is_refused_and_kept(self):
        self.touch("notes", "baseline", "mine.txt")
        self.touch("notes", "plan")
        with self.assertRaisesRegex(rd.NotResults, "not a results folder"):
            rd.claim(self.path("notes"))
        self.assertEqual(sorted(os.listdir(self.path("notes"))),
                         ["baseline", "plan"])
        self.touch("file")
        with self.assertRaisesRegex(rd.NotResults, "not a folder"):
            rd.check_out(self.path("file"))

    def test_empty_new_and_unmakeable(self):
        os.makedirs(self.path("empty"))
        rd.check_out(self.path("empty"))
        rd.check_out(self.path("a", "b", "new"))
        self.assertFalse(os.path.exists(self.path("a")))
        with self.assertRaisesRegex(rd.NotResults, "cannot be made"):
            rd.check_out("/proc/forbidden/out")
        with self.assertRaisesRegex(rd.NotResults, "longer than"):
            rd.check_out(self.path("x" * 300))
        with self.assertRaisesRegex(rd.NotResults, "empty"):
            rd.check_out("")

    def test_inside(self):
        self.assertTrue(rd.inside(self.path("a", "b"), self.path("a")))
        self.assertTrue(rd.inside(self.path("a"), self.path("a")))
        self.assertFalse(rd.inside(self.path("ab"), self.path("a")))

    def test_a_second_holder_is_refused_with_the_first_pid(self):
        out = rd.claim(self.path("r"))
        code = ("import sys; from pidmax import results_dir as rd\n"
                "with rd.lock(sys.argv[1]): print('got it')\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(
            os.path.dirname(rd.__file__)))
        env.pop(rd.LOCKED_ENV, None)
        with rd.lock(out):
            other = subprocess.run([sys.executable, "-c", code, out], env=env,
                                   capture_output=True, text=True, check=False)
            self.assertNotEqual(other.returncode, 0)
            self.assertIn(f"in use by process {os.getpid()}", other.stderr)
            # A stage this door starts holds it already.
            with rd.lock(out):
                pass
            child = subprocess.run(
                [sys.executable, "-c", code, out], capture_output=True,
                text=True, check=False,
                env=dict(os.environ, PYTHONPATH=env["PYTHONPATH"]))
            self.assertEqual(child.stdout, "got it\n", child.stderr)
        again = subprocess.run([sys.executable, "-c", code, out], env=env,
                               capture_output=True, text=True, check=False)
        self.assertEqual(again.stdout, "got it\n", again.stderr)


if __name__ == "__main__":
    unittest.main()
