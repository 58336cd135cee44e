"""The console parser on recorded console logs and edited copies."""
import os
import tempfile
import unittest

from pidmax import console

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures")


def parsed(name):
    r, nested = console.parse(os.path.join(FIX, name))
    return r.fields(), nested


def parse_text(text, meta=None):
    """The record of a console log holding TEXT."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "x.log")
        with open(log, "w", encoding="latin-1") as f:
            f.write(text)
        if meta is not None:
            with open(log + ".meta", "w", encoding="latin-1") as f:
                f.write(meta)
        r, nested = console.parse(log)
    return r.line(), r.fields(), nested


class ConsoleTest(unittest.TestCase):
    def test_recorded_pass(self):
        # 255 possible CPUs, one online: 1024 PIDs a CPU id, 8 a CPU
        # for the minimum; the guest's six results.
        r, _ = parsed("hotplug-255.log")
        want = {"begin": "1", "end": "1", "plan": "6", "oks": "6",
                "notoks": "0", "possible": "255", "online": "1",
                "pid_max": str(255 * 1024), "pid_max_min": str(255 * 8),
                "pid_max_max": "4194304", "line_default": str(255 * 1024),
                "line_min": str(255 * 8), "panic": "0", "oops": "0",
                "timed_out": "0", "failed": "none"}
        self.assertEqual({k: r[k] for k in want}, want)

    def test_recorded_budget(self):
        r, _ = parsed("budget-online-008.log")
        self.assertEqual((r["last_pid_at_init"], r["tasks"], r["kthreads"],
                          r["brought_up"]), ("63", "55", "53", "8"))

    def test_recorded_panic(self):
        r, nested = parsed("panic.log")
        self.assertEqual((r["panic"], r["begin"]), ("1", "0"))
        self.assertNotEqual(r["panic_msg"], "none")
        self.assertTrue(any(n.startswith("console\t# console: Kernel panic")
                            for n in nested))

    def test_fields_in_order_after_meta(self):
        line, r, _ = parse_text("", "qemu_exit=0 timed_out=1 seconds=3.5\n")
        names = list(r)
        self.assertEqual(names[:4], ["qemu_exit", "timed_out", "seconds",
                                     "qemu_said"])
        # Then the parser's, as it starts them: the markers first, the
        # modules the guest loaded last.
        self.assertEqual(names[4:], list(console.start()))
        self.assertEqual(names[4:7] + names[-2:], ["begin", "end", "plan",
                                                   "modules", "insmod_failed"])
        self.assertEqual(len(names), 41)
        self.assertEqual(r["qemu_said"], "none")
        self.assertEqual(r["timed_out"], "1")
        self.assertNotIn(" ", line)

    def test_no_meta(self):
        _, r, _ = parse_text("")
        self.assertEqual((r["qemu_exit"], r["seconds"]), ("none", "0"))

    def test_guest_lines_count_between_markers_only(self):
        text = ("ok 1 before\n[    1.5] PIDMAX-HARNESS-BEGIN\r\n1..3\n"
                "ok 1 a\nnot ok 2 b # why\nok 3 selftest_x\n"
                "# cpus: possible=0-3,8 online=0\n# pid_max: 4096\n"
                "# pid_max_min: x\nPIDMAX-HARNESS-END\n")
        _, r, nested = parse_text(text)
        self.assertEqual((r["plan"], r["oks"], r["notoks"], r["failed"]),
                         ("3", "2", "1", "b"))
        self.assertEqual((r["selftests_ok"], r["possible"], r["online"]),
                         ("1", "5", "1"))
        self.assertEqual((r["pid_max"], r["pid_max_min"]), ("4096", "none"))
        self.assertEqual([n for n in nested if n.startswith("guest")][0],
                         "guest_checks\t1..3")

    def test_garbled_lines_make_a_record(self):
        """Whatever a console garbled, the parser writes a record that
        reads back: a module's name with a TAB, results cut short after
        their number, a count with a leading zero or too many digits
        (none), a CPU list cut short (a negative count, as before)."""
        text = ("PIDMAX-HARNESS-BEGIN\n1..07\nok 1 insmod_a\tb\nnot ok 2 \n"
                "    # Subtest: pid_max\n    1..2\n    ok 1 \n    not ok 2 \n"
                "not ok 1 pid_max\n# cpus: possible=0,17- online=10-\n"
                "# pid_max: 032768\n# pid_max_min: " + "3" * 30 + "\n"
                "PIDMAX-HARNESS-END\n")
        line, r, _ = parse_text(text)
        self.assertEqual(console.Record.parse(line).line(), line)
        self.assertEqual((r["plan"], r["modules"], r["failed"], r["online"]),
                         ("none", "a b", "none", "-9"))
        self.assertEqual((r["kunit_passed"], r["kunit_failed"], r["pid_max"],
                          r["pid_max_min"]), ("none", "none", "none", "none"))

    def test_kunit_suite(self):
        text = ("    # Subtest: pid_max\n    1..3\n    ok 1 a\n"
                "    not ok 2 b\n    ok 3 c # SKIP no\nnot ok 1 pid_max\n")
        _, r, nested = parse_text(text)
        self.assertEqual((r["kunit"], r["kunit_plan"], r["kunit_oks"],
                          r["kunit_notoks"], r["kunit_failed"],
                          r["kunit_passed"], r["kunit_skipped"]),
                         ("notok", "3", "2", "1", "b", "a", "c"))
        self.assertEqual(len([n for n in nested if n.startswith("kunit")]), 4)

    def test_kunit_suite_of_a_module(self):
        # The guest loaded the suite as a module and copied the kernel's
        # log of the load to the console, before its own report: nested
        # under kunit as a built-in suite is, the load a guest result.
        r, nested = parsed("kunit-module-hotplug-033-6.1.log")
        self.assertEqual((r["kunit"], r["kunit_plan"], r["kunit_oks"],
                          r["modules"], r["insmod_failed"], r["plan"],
                          r["oks"]),
                         ("ok", "7", "7", "pid_max_kunit", "none", "7", "7"))
        kunit = [n.split("\t", 1)[1] for n in nested if n.startswith("kunit")]
        self.assertEqual(kunit[0], "1..7")
        self.assertEqual(kunit[-1], "ok 7 pid_max_min_never_above_pid_max")
        self.assertEqual(len(kunit), 8)
        self.assertIn("guest_checks\tok 6 insmod_pid_max_kunit",
                      nested)

    def test_nested_lines_read_back_as_a_tree(self):
        # Each section's lines as Nodes: a result's word, number, name
        # and rest apart, a plan or a comment as its text; each renders
        # the line it was read from.
        _, r, nested = parse_text(
            "    # Subtest: pid_max\n    1..2\n    ok 1 a\n"
            "    not ok 2 b # why\nnot ok 1 pid_max\n"
            "PIDMAX-HARNESS-BEGIN\n1..1\n# said: x\nok 1 selftest_c # SKIP y\n"
            "PIDMAX-HARNESS-END\n")
        t = console.tree(nested)
        self.assertEqual(t["kunit"][2], console.Node(
            "not ok 2 b # why", False, "2", "b", " # why"))
        self.assertEqual(t["guest_checks"][:2], [console.Node("1..1"),
                                                 console.Node("# said: x")])
        self.assertEqual(t["guest_checks"][2].name, "selftest_c")
        self.assertEqual(t["console"], [])
        for section, nodes in t.items():
            self.assertEqual([n.line() for n in nodes],
                             [x.split("\t", 1)[1] for x in nested
                              if x.startswith(section + "\t")])

    def test_module_not_loaded(self):
        text = ("PIDMAX-HARNESS-BEGIN\n1..3\nok 1 insmod_a\n"
                "not ok 2 insmod_b # insmod exit 1: no\n"
                "not ok 3 insmod_c # later\nPIDMAX-HARNESS-END\n")
        _, r, _ = parse_text(text)
        self.assertEqual((r["modules"], r["insmod_failed"], r["failed"]),
                         ("a", "b: insmod exit 1: no", "insmod_b,insmod_c"))

    def test_log_scan(self):
        for text, key in (("[ 1.0] WARNING: at x\n", "oops"),
                          ("Call trace:\n", "oops"),
                          ("rcu: INFO: rcu_preempt detected stalls on\n",
                           "stall"),
                          ("Failed to set sysctl parameter 'kernel.pid_max=1'"
                           ": invalid argument\n", "sysctl_err")):
            with self.subTest(text=text):
                self.assertEqual(parse_text(text)[1][key], "1")
        self.assertEqual(parse_text("WARNINGS none\n")[1]["oops"], "0")

    def test_quotes_twelve_lines(self):
        _, _, nested = parse_text("an Error here\n" * 20)
        self.assertEqual(len(nested), console.QUOTED_LINES)

    def test_count_cpus(self):
        self.assertEqual([console.count_cpus(s) for s in
                          ("0-3,8", "", "0", "0,17-63")], [5, 0, 1, 48])

    def test_unreadable(self):
        with self.assertRaisesRegex(ValueError, "is not readable"):
            console.parse("/nonexistent/x.log")


if __name__ == "__main__":
    unittest.main()
