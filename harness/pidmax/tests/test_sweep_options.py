"""The sweep's options: each architecture's default lists, --only, the
checks of every list, and the tiers each kernel's plan is given."""
import unittest

from pidmax import sweep_options
from pidmax.plan import UsageError


def read(*argv):
    return sweep_options.read(list(argv), "sweep-smp.sh", "/repo")


class OptionsTest(unittest.TestCase):
    def test_defaults_are_the_architectures(self):
        o = read()
        self.assertEqual((o.cpus, o.cpus_given, o.scenarios, o.holes),
                         ("all", False, "yes", ""))
        self.assertEqual(o.counts["cpus"], tuple(range(1, 256)))
        self.assertEqual(o.out, "/repo/results")
        self.assertEqual(o.build, "/repo/build")
        a = read("--arch", "arm64")
        # arm64's hotplug list is not "all": it is given to the planner.
        self.assertEqual((a.cpus, a.cpus_given, a.scenarios),
                         ("1,2,8,32,33,64,128,256,512", True, "no"))
        self.assertEqual(a.counts["holes"], (8, 64, 256, 512))
        self.assertEqual(a.wide_online, "")

    def test_help_names_the_default_lists(self):
        text = sweep_options.help_text()
        self.assertIn("(default: 256,512,1024,1664,2048,4095,4096,4097,"
                      "8192)", text)
        self.assertIn("default 8,64,256,512", text)
        self.assertNotIn("{", text)

    def test_only_turns_every_other_tier_off(self):
        o = read("--only", "online:8", "--only", "wide-hotplug:300-301")
        self.assertEqual((o.cpus, o.online, o.possible, o.scenarios),
                         ("", "8", "", "no"))
        self.assertEqual(o.wide_hotplug, "300,301")
        self.assertEqual(sweep_options.wanted_tiers(o),
                         ["online", "wide-hotplug"])
        self.assertEqual(read("--only", "scenarios").scenarios, "yes")

    def test_only_selftests_is_their_boot_alone(self):
        o = read("--only", "selftests", "--only", "hotplug:1")
        self.assertEqual((o.scenarios, o.cpus), ("selftests", "1"))
        self.assertEqual(sweep_options.wanted_tiers(o),
                         ["hotplug", "scenario"])
        p = sweep_options.plan_options(o, ("hotplug", "scenario"))
        self.assertEqual(p.scenarios, "selftests")
        self.assertEqual(sweep_options.plan_options(o, ("hotplug",))
                         .scenarios, "no")
        for argv in (("--only", "selftests", "--only", "scenarios"),
                     ("--only", "scenarios", "--only", "selftests")):
            self.assertEqual(read(*argv).scenarios, "yes")

    def test_refusals_name_the_option(self):
        for argv, says in (
                (["--only", "online:8", "--cpus", "3"],
                 "--only and --cpus: name every tier with --only"),
                (["--only", "bogus:1"], "--only wants TIER:LIST"),
                (["--cpus", "1-300"], "--cpus: bad CPU list '1-300'"),
                (["--holes", "3"], "outside 4-255"),
                (["--wide-hotplug", "256"], "N above the 256 CPUs"),
                (["--jobs", "0"], "--jobs wants a positive number"),
                (["--shard", "3/2"], "--shard wants I/N"),
                (["--scenarios", "maybe"], "--scenarios wants yes or no"),
                (["--scenarios", "selftests"], "--scenarios wants yes or no"),
                (["--arch", "sparc"], "--arch wants one of x86_64 arm64"),
                (["--bogus"], "--bogus"),
                (["--list", "extra"], "unexpected operand 'extra'"),
                (["--cpus", "", "--online", "", "--possible", "",
                  "--wide-online", "", "--wide-hotplug", "",
                  "--scenarios", "no"], "nothing to boot")):
            with self.assertRaises(UsageError, msg=argv) as caught:
                read(*argv)
            self.assertIn(says, str(caught.exception))

    def test_shard_out_and_whole_names(self):
        o = read("--shard", "2/3", "--accel=tcg", "--fewest-kernels")
        self.assertEqual(o.out, "/repo/results/shard-2-of-3")
        self.assertEqual((o.shard_i, o.shard_n, o.accel, o.pick),
                         (2, 3, "tcg", "fewest"))
        # A misspelt option is refused, never taken for the one it
        # starts (--cpu is not --cpus, --base not --baseline).
        for argv in (["--acc=tcg"], ["--fewest"], ["--cpu", "1"],
                     ["--base"]):
            with self.assertRaisesRegex(UsageError, "unrecognized", msg=argv):
                read(*argv)

    def test_a_tier_named_twice_joins_its_lists(self):
        o = read("--only", "online:8", "--only", "online:16,8")
        self.assertEqual(o.counts["online"], (8, 16))

    def test_plan_options_of_a_kernel(self):
        o = read("--online", "8", "--possible", "256", "--scenarios", "no")
        p = sweep_options.plan_options(o, ("online",), label="k")
        self.assertEqual((p.cpus, p.cpus_given, p.online, p.possible,
                          p.scenarios, p.label), ("", True, "8", "", "no",
                                                  "k"))
        p = sweep_options.plan_options(o, ("hotplug", "possible"))
        self.assertEqual((p.cpus, p.cpus_given, p.online, p.possible),
                         ("all", False, "", "256"))


if __name__ == "__main__":
    unittest.main()
