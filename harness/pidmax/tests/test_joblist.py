"""The job record: lossless lines, the count each model takes, and the
fields a job list holds that the formula disagrees with."""
import os
import re
import tempfile
import unittest

from pidmax import console, joblist
from pidmax.kconfig import Config
from pidmax.__main__ import main

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures")
CONFIG = os.path.join(FIX, "config-6.12-full")
HOLES = ("name=a-holes-064-h1-16\ttier=holes\tvariant=full\tconfig=" + CONFIG +
         "\tappend=maxcpus=1\tholes=1-16\tcpu_ids=64\tpossible=48\tonline=1"
         "\tpid_max=65536\tpid_max_min=512\tpid_max_max=4194304"
         "\tline_default=65536\tline_min=512\tmachine=virt")


def weight(fields):
    return joblist.weight(joblist.Job.read(fields))


class JobTest(unittest.TestCase):
    def test_round_trip(self):
        job = joblist.Job.parse(HOLES + "\n")
        self.assertEqual(job.line(), HOLES)
        self.assertEqual((job.append, job.cpu_ids, job.sysctl_refused),
                         ("maxcpus=1", 64, None))
        self.assertRaises(ValueError, joblist.Job.parse, "name=a\tnovalue")

    def test_typed_fields(self):
        """Each field read as its type: numbers, a flag, the suite's enum
        and its list of cases; a field the line lacks is None."""
        job = joblist.Job.parse(HOLES + "\tsysctl_refused=1\tkunit=m"
                                "\tkunit_cases=a,b")
        self.assertEqual((job.possible, job.pid_max, job.sysctl_refused,
                          job.kunit, job.kunit_cases, job.skip),
                         (48, 65536, True, joblist.Kunit.MODULE, ("a", "b"),
                          None))
        for bad, why in (("kunit=x", "kunit is 'x', not one of 0, 1, m"),
                         ("online=x", "online is 'x', not a number"),
                         ("online=04", "online is '04', not a number"),
                         ("sysctl_refused=2", "sysctl_refused is '2', not 0 "
                          "or 1")):
            with self.assertRaisesRegex(ValueError, "^job a-holes-064-h1-16: "
                                        + re.escape(why) + "$"):
                joblist.Job.parse(HOLES + "\t" + bad)

    def test_the_writer_refuses_what_no_line_holds(self):
        """A value with a TAB or a newline is no field of a line; a job
        needs a name."""
        for value in ("a\tb", "a\nb"):
            with self.assertRaisesRegex(ValueError, "^bad field 'append': a "
                                        "TAB or newline$"):
                joblist.Job(name="a", append=value).line()
        with self.assertRaisesRegex(ValueError, "^the job has no name$"):
            joblist.check_job(joblist.Job(tier="t", variant="full"))

    def test_unknown_fields_kept_last(self):
        """A field of an older (or newer) harness is kept, after the
        known ones; an empty list stays in the line."""
        job = joblist.Job.parse("name=a\tfrom_then=1\ttier=t\tkunit_cases=")
        self.assertEqual((job.extra, job.kunit_cases),
                         ((("from_then", "1"),), ()))
        self.assertEqual(job.line(), "name=a\ttier=t\tkunit_cases=\t"
                         "from_then=1")

    def test_records_read_back(self):
        """The record of every recorded log reads back from its line as
        the same Record; what the guest never showed is None."""
        logs = sorted(f for f in os.listdir(FIX) if f.endswith(".log"))
        for name in logs:
            with self.subTest(log=name):
                r, _ = console.parse(os.path.join(FIX, name))
                self.assertEqual(console.Record.parse(r.line()), r)
        r = console.Record.parse("qemu_exit=none\tplan=none\tfailed=none")
        self.assertEqual((r.qemu_exit, r.plan, r.failed, r.begin),
                         (None, None, (), False))

    def test_models_count(self):
        job = joblist.Job.parse(HOLES)
        self.assertEqual(job.count(), 64)
        self.assertEqual(job.replace(model="stock").count(), 48)

    def test_mismatches(self):
        small, is64, _ = Config(CONFIG).pid_params()
        self.assertEqual((small, is64), (False, True))
        job = joblist.Job.parse(HOLES)
        self.assertEqual(joblist.mismatches(job, small, is64), [])
        # The stock model's values on a job still saying the series'.
        job = job.replace(model="stock")
        self.assertEqual([m.split("=")[0] for m in joblist.mismatches(job, small, is64)],
                         ["line_default", "line_min", "pid_max_min", "pid_max"])
        # A pid_max set on the command line is left alone.
        job = joblist.Job.parse(HOLES.replace("pid_max=65536", "pid_max=30000"))
        self.assertEqual(joblist.mismatches(job, small, is64), [])

    def test_check_jobs_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            good, bad = os.path.join(d, "good"), os.path.join(d, "bad")
            with open(good, "w") as f:
                f.write(HOLES + "\nname=a-x\ttier=holes\tskip=why\n")
            with open(bad, "w") as f:
                f.write(HOLES.replace("line_min=512", "line_min=384") + "\n")
            self.assertEqual(main(["check-jobs", good]), 0)
            self.assertEqual(main(["check-jobs", bad]), 1)
            self.assertEqual(main(["check-jobs", os.path.join(d, "none")]), 1)
            # A job without its possible CPUs, a line the harness never
            # writes: an error that names the job, then the file's line.
            with open(bad, "w") as f:
                f.write(HOLES.replace("\tcpu_ids=64\tpossible=48", "") + "\n")
            with self.assertRaisesRegex(ValueError, "^job a-holes-064-h1-16: "
                                        "no possible field$"):
                joblist.mismatches(joblist.read(bad)[0], False, True)
            with open(bad, "w") as f:
                f.write("\n" + HOLES.replace("online=1", "online=01") + "\n")
            with self.assertRaisesRegex(ValueError, f"^{bad}:2: job "):
                joblist.read(bad)

    def test_weight(self):
        # 100 + 4 online + online^2/40 + ids/8 + ids^2/61000, worked out
        # by hand; the wide machine: 1900 + 4 online + ... + 3 ids/8.
        self.assertEqual(weight({"online": "64", "possible": "64"}),
                         100 + 256 + 102 + 8)
        self.assertEqual(weight({"online": "1", "possible": "8192"}),
                         100 + 4 + 1024 + 1100)
        self.assertEqual(weight({"online": "1", "possible": "512",
                                         "machine": "wide"}), 1900 + 4 + 192)
        self.assertEqual(joblist.weight(joblist.Job()), 100 + 4 + 0)


if __name__ == "__main__":
    unittest.main()
