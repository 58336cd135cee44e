"""The planner: CPU lists, the .config's facts, the job writer and the
tiers, on the recorded .configs of tests/fixtures."""
import os
import tempfile
import unittest

from pidmax import kconfig, plan, tables
from pidmax.formula import expected
from pidmax.jobs import Maker
from pidmax.joblist import fields
from pidmax.tests.test_judge import FIX

CONFIG_61 = os.path.join(FIX, "config-6.1-full")
CONFIG_612 = os.path.join(FIX, "config-6.12-full")


def options(config, **more):
    o = dict(kernel="/k/vmlinux", config=config, initrd="/i", label="t",
             accel="tcg", cpus="", cpus_given=False, online="", possible="",
             wide_online="", wide_hotplug="", holes="", scenarios="no",
             series="yes", wide_qemu="", selftests="",
             selftests_unchanged="")
    o.update(more)
    return plan.Options(**o)


def arm64_config(d):
    """A copy of the 6.12 .config that sets ARM64 instead of X86."""
    path = os.path.join(d, "config-arm64")
    with open(CONFIG_612) as f, open(path, "w") as out:
        out.write(f.read().replace("CONFIG_X86=y", "CONFIG_ARM64=y"))
    return path


class PlanTest(unittest.TestCase):
    def test_cpu_lists(self):
        self.assertEqual(plan.cpu_list("5,1-3,2,010", 255), [1, 2, 3, 5, 10])
        self.assertEqual(plan.cpu_list("all", 6, 4), [4, 5, 6])
        self.assertEqual(plan.cpu_list("", 255), [])
        for bad, why in (("0", "outside 1-255"), ("256", "outside"),
                         ("3-1", "runs backwards"), ("1,,2", "not N or N-M"),
                         ("x", "not N or N-M"), ("1-2-3", "not N or N-M"),
                         ("9" * 5000, r"'9{20}\.\.\.9{12}' is outside"),
                         ("1-10000000000", "1-10000000000' is outside")):
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(ValueError, why):
                    plan.cpu_list(bad, 255)

    def test_versions(self):
        self.assertTrue(kconfig.tcg_counts_hotplug_cpus("6.1.192"))
        self.assertFalse(kconfig.tcg_counts_hotplug_cpus("6.12.118"))
        self.assertTrue(kconfig.tcg_counts_hotplug_cpus(""))
        self.assertEqual([kconfig.pidns_scope(v) for v in
                          ("6.13.1", "6.14", "7.3.0", "")],
                         ["global", "namespace", "namespace", "global"])
        self.assertEqual(kconfig.Config(CONFIG_612).version, "6.12.118")
        self.assertEqual(kconfig.Config(CONFIG_61).version, "6.1.192")

    def test_config_facts(self):
        def facts(text):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "config")
                with open(path, "w") as f:
                    f.write(text)
                c = kconfig.Config(path)
                return c.arch(), c.pid_params()
        with open(CONFIG_61) as f:
            base = f.read()
        self.assertEqual(facts(base), ("x86_64", (0, 1, 0)))
        self.assertEqual(facts(base.replace("CONFIG_BASE_SMALL=0",
                                            "CONFIG_BASE_SMALL=y")),
                         ("x86_64", (1, 1, 0)))
        self.assertEqual(facts(base.replace("CONFIG_64BIT=y", "")),
                         ("x86_64", (0, 0, 0)))
        self.assertEqual(facts(base.replace("CONFIG_X86=y", "CONFIG_ARM64=y")),
                         ("arm64", (0, 1, 0)))
        with open(CONFIG_61.replace("full", "full-kunit")) as f:
            kunit = f.read()
        self.assertEqual(facts(kunit)[1], (0, 1, 1))
        # The suite as a module: "m", which the guest loads (kunit=m).
        module = kunit.replace("CONFIG_PID_MAX_KUNIT_TEST=y",
                               "CONFIG_PID_MAX_KUNIT_TEST=m")
        self.assertEqual(facts(module)[1], (0, 1, 0))
        self.assertEqual(facts(module + "CONFIG_MODULES=y\n")[1], (0, 1, "m"))
        with self.assertRaisesRegex(ValueError, "sets none of the arch"):
            facts(base.replace("CONFIG_X86=y", ""))
        with self.assertRaisesRegex(ValueError, "is not readable"):
            kconfig.Config("/nonexistent/config")

    def test_machines_name_their_architecture(self):
        self.assertEqual(tables.machines()["virt"],
                         ("arm64", ("-machine", "virt,gic-version=3", "-cpu",
                                    "cortex-a57")))
        self.assertEqual(tables.arches()["arm64"].machine, "virt")

    def test_job_values_from_the_formula(self):
        m = Maker("/k", CONFIG_61, "/i", "t", "tcg")
        j = fields(m.job("hotplug-100", "hotplug", 100, 1, "1,maxcpus=100"))
        e = expected(100, False, True)
        self.assertEqual([j[k] for k in ("pid_max", "pid_max_min",
                                         "pid_max_max", "timeout", "machine")],
                         [str(e.pid_max), str(e.minimum), str(e.limit), "61",
                          "pc"])
        with self.assertRaisesRegex(ValueError, "unknown field 'nope'"):
            m.job("x", "t", 1, 1, "1", nope=1)

    def test_pid_namespace_fields_by_scope(self):
        e = expected(64, False, True)
        w = e.minimum + 1000
        for scope, child, parent in (("global", e.pid_max, w),
                                     ("namespace", e.limit, e.pid_max)):
            m = Maker("/k", CONFIG_61, "/i", "t", "tcg", series="no")
            j = fields(m.job("x", "scenario", 64, 1, "64", pidns_scope=scope))
            self.assertEqual((j["pidns"], j["pidns_child"], j["pidns_parent"],
                              j["append"], j["model"]),
                             (str(w), str(child), str(parent),
                              f"pidmax_pidns={w}", "stock"))

    def test_x86_hotplug_on_a_kernel_since_6_3(self):
        # Without DMI and HYPERVISOR_GUEST: a skip, or an error when
        # --cpus asked for the tier.
        lines = plan.plan(options(CONFIG_612, cpus="1,33"))
        self.assertEqual([fields(x)["name"] for x in lines], ["t-hotplug"])
        self.assertIn("lacks DMI or HYPERVISOR_GUEST", fields(lines[0])["skip"])
        with self.assertRaisesRegex(plan.UsageError, "use --cpus ''"):
            plan.plan(options(CONFIG_612, cpus="1", cpus_given=True))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "config")
            with open(CONFIG_612) as f, open(path, "w") as out:
                out.write(f.read() + "CONFIG_DMI=y\nCONFIG_HYPERVISOR_GUEST=y\n")
            lines = plan.plan(options(path, cpus="1,33"))
        self.assertEqual([fields(x)["name"] for x in lines],
                         ["t-hotplug-001-vmware", "t-hotplug-033-vmware"])
        self.assertEqual(fields(lines[1])["machine"], "vmware")

    def test_holes_and_selftests_on_arm64(self):
        with tempfile.TemporaryDirectory() as d:
            lines = plan.plan(options(arm64_config(d), holes="8,64,256",
                                      selftests="/s.cpio 3", scenarios="yes"))
        names = [fields(x)["name"] for x in lines]
        # The selftests' boot, the longest, first.
        self.assertEqual(names, [
            "t-holes-064-h1-16-selftests", "t-holes-008-h1-2",
            "t-holes-008-h6-7", "t-holes-064-h1-16", "t-holes-064-h48-63",
            "t-holes-256-h1-64", "t-holes-256-h192-255", "t-scenario"])
        j = fields(lines[3])
        self.assertEqual((j["possible"], j["cpu_ids"], j["pid_max"]),
                         ("48", "64", str(expected(64, False).pid_max)))

    def test_selftests_boot_alone(self):
        """--scenarios selftests: the selftests' boot of the scenarios
        alone, one CPU; without selftests a skip with the reason."""
        lines = plan.plan(options(CONFIG_61, scenarios="selftests",
                                  selftests="/s.cpio 3"))
        self.assertEqual(len(lines), 1)
        j = fields(lines[0])
        self.assertEqual((j["name"], j["tier"], j["smp"], j["initrd_extra"],
                          j["selftests"]), ("t-selftests", "scenario", "1",
                                            "/s.cpio", "3"))
        everything = plan.plan(options(CONFIG_61, scenarios="yes",
                                       selftests="/s.cpio 3"))
        self.assertEqual(everything[-1], lines[0])
        self.assertEqual(len(everything), 7)
        j = fields(plan.plan(options(CONFIG_61, scenarios="selftests"))[0])
        self.assertEqual(j["name"], "t-selftests")
        self.assertIn("no pid_namespace selftests for this kernel", j["skip"])

    def test_usage_errors(self):
        with self.assertRaisesRegex(plan.UsageError, "--holes: .*outside 4-"):
            plan.plan(options(CONFIG_61, holes="2"))
        with self.assertRaisesRegex(plan.UsageError, "--label"):
            plan.plan(options(CONFIG_61, label="a b"))


if __name__ == "__main__":
    unittest.main()
