"""The planner's tiers past QEMU's 255 CPUs, on the recorded .configs of
tests/fixtures with a few symbols changed: the possible tier
(possible_cpus=), the wide tiers on QEMU 10's q35 and their skips, the
device tree's possible tier on arm64; each job's memory, timeout and
pid_max worked out here from the rules in plan.py's docstrings and the
formula (1024 a CPU, 32768 the floor, 4194304 the 64-bit limit)."""
import os
import tempfile
import unittest

from pidmax import plan
from pidmax.joblist import fields
from pidmax.tests.test_plan import CONFIG_61, CONFIG_612, arm64_config, options


def jobs(o):
    """The jobs of the options O by name, each a dict of its fields."""
    return {j["name"]: j for j in map(fields, plan.plan(o))}


def pick(job, *keys):
    return tuple(job[k] for k in keys)


class TiersTest(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name

    def config(self, base, *more, drop=()):
        """The .config BASE with the lines MORE added and the lines DROP
        taken out."""
        with open(base) as f:
            lines = [x for x in f.read().splitlines() if x not in drop]
        path = os.path.join(self.dir, f"config-{len(os.listdir(self.dir))}")
        with open(path, "w") as f:
            f.write("\n".join(lines + list(more)) + "\n")
        return path

    def wide_61(self, nr=8192):
        return self.config(CONFIG_61, "CONFIG_X86_X2APIC=y",
                           "CONFIG_IRQ_REMAP=y", f"CONFIG_NR_CPUS={nr}",
                           drop=("CONFIG_NR_CPUS=256",))

    def test_possible_tier(self):
        got = jobs(options(CONFIG_61, possible="200,300"))
        # 200 ids: 512 + 200 * 5 / 8 = 637 MiB, 60 + 200 / 16 = 72 s.
        self.assertEqual(pick(got["t-possible-0200"], "smp", "append", "mem",
                              "timeout", "possible", "online", "pid_max"),
                         ("1", "possible_cpus=200", "637M", "72", "200", "1",
                          "204800"))
        self.assertEqual(got["t-possible-0300"]["skip"], "NR_CPUS is 256: "
                         "possible_cpus=300 needs a kernel built with more "
                         "(the 6.1 kernels of harness/kernels)")

    def test_possible_tier_past_the_clamp(self):
        # 8192 ids: 512 + 5120 MiB, past 3.5 GiB: swiotlb=noforce; 60 +
        # 512 s; 8192 * 1024 clamped to 4194304.
        j = jobs(options(self.wide_61(), possible="8192"))["t-possible-8192"]
        self.assertEqual(pick(j, "append", "mem", "timeout", "pid_max",
                              "pid_max_min"),
                         ("possible_cpus=8192 swiotlb=noforce", "5632M",
                          "572", "4194304", "65536"))

    def test_possible_tier_needs_the_hotplug_slots(self):
        # 6.12 under TCG counts no hotplug CPU: possible_cpus= only lowers.
        j = jobs(options(CONFIG_612, possible="200"))["t-possible-0200"]
        self.assertEqual(j["skip"], "possible_cpus= only lowers the CPU "
                         "count of this kernel under TCG")

    def test_wide_tiers(self):
        got = jobs(options(self.wide_61(), wide_online="288",
                           wide_hotplug="512", wide_qemu="/q10/qemu"))
        # 288 online: 512 + 288 MiB, 60 + 288 * 288 / 400 = 267 s.
        self.assertEqual(pick(got["t-online-0288"], "smp", "machine", "qemu",
                              "mem", "timeout", "possible", "online",
                              "pid_max"),
                         ("288", "wide", "/q10/qemu", "800M", "267", "288",
                          "288", "294912"))
        # 512 possible, 256 present: 512 + 256 MiB, 60 + 512 / 4 s.
        self.assertEqual(pick(got["t-hotplug-0512"], "smp", "machine",
                              "append", "mem", "timeout", "possible",
                              "online", "pid_max"),
                         ("256,maxcpus=512", "wide", "maxcpus=1", "768M",
                          "188", "512", "1", "524288"))
        self.assertEqual(len(got), 2)
        self.assertEqual(plan.wide_tiers(None, [], [], None, "", True), [])

    def test_wide_tiers_skips(self):
        cases = (
            (self.wide_61(), "", "no QEMU for more than 255 CPUs"),
            (CONFIG_61, "/q", "the kernel lacks X86_X2APIC or IRQ_REMAP"),
            (self.wide_61(2048), "/q", "NR_CPUS is 2048: 4096 CPUs need a "
             "kernel built with more"))
        for config, qemu, why in cases:
            with self.subTest(why=why):
                got = jobs(options(config, wide_online="4096",
                                   wide_hotplug="4096", wide_qemu=qemu))
                self.assertEqual(sorted(got), ["t-hotplug-4096",
                                               "t-online-4096"])
                for j in got.values():
                    self.assertTrue(j["skip"].startswith(why), j["skip"])

    def test_wide_hotplug_on_the_machine_wide_vmware(self):
        """6.12 under TCG counts firmware-described hotplug CPUs only on
        a detected hypervisor: wide-vmware with DMI, else a skip."""
        wide = ("CONFIG_X86_X2APIC=y", "CONFIG_IRQ_REMAP=y",
                "CONFIG_NR_CPUS=8192")
        for dmi, name, machine in ((("CONFIG_DMI=y",), "t-hotplug-0512-vmware",
                                    "wide-vmware"),
                                   ((), "t-hotplug-0512", None)):
            config = self.config(CONFIG_612, *wide, *dmi,
                                 drop=("CONFIG_NR_CPUS=256",))
            got = jobs(options(config, wide_hotplug="512", wide_online="288",
                               wide_qemu="/q"))
            self.assertEqual(sorted(got), sorted([name, "t-online-0288"]))
            self.assertEqual(got["t-online-0288"]["machine"], "wide")
            if machine:
                self.assertEqual(got[name]["machine"], machine)
            else:
                self.assertIn("only on a detected hypervisor and lacks DMI",
                              got[name]["skip"])

    def test_no_hotplug_tier_asked_of_a_kernel_that_cannot(self):
        # No hotplug list: no boot and no skip, where a list would be
        # a skip (test_plan).
        self.assertEqual(list(jobs(options(CONFIG_612, online="1", cpus=""))),
                         ["t-online-001"])

    def test_device_tree_possible_tier(self):
        got = jobs(options(arm64_config(self.dir), possible="128,1024",
                           wide_online="288"))
        # 128 ids: 512 + 128 * 7 / 8 = 624 MiB, 60 + 128 / 16 = 68 s.
        self.assertEqual(pick(got["t-possible-0128"], "smp", "append",
                              "dt_cpus", "mem", "timeout", "machine",
                              "pid_max"),
                         ("1", "maxcpus=1", "128", "624M", "68", "virt",
                          "131072"))
        self.assertEqual(got["t-possible-1024"]["skip"], "NR_CPUS is 256: "
                         "1024 CPUs need a kernel built with more (the nr4096 "
                         "kernels of harness/kernels)")
        self.assertEqual(got["t-wide-online"]["skip"], "arm64 boots a device "
                         "tree: the wide-online tier is x86-64's (the MADT, "
                         "possible_cpus=, q35)")

    def test_selftests_wants_cpio_n(self):
        for value in ("s.cpio 3", "/s.cpio", "/s.cpio 0"):
            with self.subTest(value=value):
                with self.assertRaisesRegex(plan.UsageError, "--selftests "
                                            "wants \"CPIO N\""):
                    plan.plan(options(CONFIG_61, selftests=value))


if __name__ == "__main__":
    unittest.main()
