"""The sweep's kernels with their builders and fetchers stood in for:
a script's exit status, Debian's own kernel (--kernel debian) fetched,
unreachable or of another tree, the table's builds and an unreachable
tree's, the selftests of a --list and of a series that changes them, and
QEMU 10 for the wide tiers; on tables of their own."""
import contextlib
import dataclasses
import io
import os
import stat
import tempfile
import unittest
from unittest import mock

from pidmax import sweep_kernels as sk
from pidmax import tables
from pidmax.plan import UsageError
from pidmax.settings import Settings
from pidmax.sweep_options import Request
from pidmax.tests.helpers import FolderCase
from pidmax.tests.test_plan import CONFIG_61

KERNELS = """\
6.1 x86_64 full full external hotplug,online
6.1 x86_64 full full-wide builtin wide-online
7.3 x86_64 full full external online
"""
TREES = "6.1 host . -\n7.3 trixie-backports {series} -\n"
# A patch of the series that changes the pid_namespace selftests, and
# one that does not.
SELFTESTS_PATCH = """\
--- a/tools/testing/selftests/pid_namespace/regression_enomem.c
+++ b/tools/testing/selftests/pid_namespace/regression_enomem.c
"""
KERNEL_PATCH = "--- a/kernel/pid.c\n+++ b/kernel/pid.c\n"
# What build-kernel.sh is told of 6.1's full on x86_64 (KERNELS, TREES
# and the harness's arches), so that it asks the tables nothing.
FULL_61 = ("--name", "6.1-full", "--initrd", "external", "--suite", "host",
           "--series", os.path.join(os.path.dirname(tables.HARNESS), "."),
           "--make", "x86", "--cross", "", "--image", "vmlinux")


class BuildsTest(FolderCase):
    def setUp(self):
        super().setUp()
        self.series = self.folder("series")
        self.write("kernels", KERNELS)
        self.write("trees", TREES.format(series=self.series))
        self.settings = Settings(tables=dataclasses.replace(
            tables.HOME, kernels=self.path("kernels"),
            trees=self.path("trees")))
        self.calls, self.answers = [], {}
        self.patched(mock.patch.object(sk, "script", self.script))

    def script(self, name, *args, ok=(0,), capture=True):
        self.calls.append((name, *args))
        rc, out = self.answers.get(name, (0, ""))
        self.assertIn(rc, ok)
        return rc, out

    def options(self, **more):
        o = dict(arch="x86_64", tree="6.1", variant="full", accel="auto",
                 kernel="", config="", baseline=False, build="/b",
                 list=False, pick="each", prog="sweep-smp.sh",
                 settings=self.settings)
        o.update(more)
        return Request(**o)

    def debian_folder(self):
        """A folder as fetch-stock.sh leaves it: Debian's 6.1 kernel and
        its .config."""
        folder = self.path("debian")
        self.write(os.path.join("debian", "vmlinuz-6.1.0-30-amd64"), "")
        with open(CONFIG_61) as f:
            self.write(os.path.join("debian", ".config"), f.read())
        return folder

    def test_debian_kernel(self):
        folder = self.debian_folder()
        self.answers["fetch-stock.sh"] = (0, folder)
        o = sk.check_kernel_options(self.options(kernel="debian"))
        self.assertEqual((o.kernel, o.config, o.stock, o.missing), (
            os.path.join(folder, "vmlinuz-6.1.0-30-amd64"),
            os.path.join(folder, ".config"), True, False))
        # The host's suite: fetched from the host's apt, no suite named.
        self.assertEqual(self.calls, [("fetch-stock.sh", "--arch", "x86_64",
                                       "/b")])
        kernels, unbuilt, series = sk.sweep_kernels(o, ["online"])
        self.assertEqual((kernels[0].label, series), ("vmlinuz-6.1.0-30-amd64",
                                                      "no"))

    def test_debian_kernel_of_another_tree_or_none(self):
        folder = self.debian_folder()
        self.answers["fetch-stock.sh"] = (0, folder)
        with self.assertRaisesRegex(sk.Fail, "--kernel debian --tree 7.3: "
                                    "Debian's kernel from the host's apt is "
                                    "6.1.192, not 7.3"):
            sk.check_kernel_options(self.options(kernel="debian", tree="7.3"))
        self.assertEqual(self.calls[-1], ("fetch-stock.sh", "--arch", "x86_64",
                                          "/b", "trixie-backports"))
        os.remove(os.path.join(folder, "vmlinuz-6.1.0-30-amd64"))
        with self.assertRaisesRegex(sk.Fail, f"fetch-stock.sh left no "
                                    f"vmlinuz-\\* in {folder}"):
            sk.check_kernel_options(self.options(kernel="debian"))
        with self.assertRaisesRegex(UsageError, "brings its own .config"):
            sk.check_kernel_options(self.options(kernel="debian", config="/c"))
        self.answers["fetch-stock.sh"] = (sk.UNREACHABLE, "")
        o = sk.check_kernel_options(self.options(kernel="debian"))
        self.assertEqual((o.kernel, o.missing, o.stock), ("", True, False))
        self.assertEqual(sk.sweep_kernels(o, ["online"]),
                         ([], [("debian-6.1", "debian", ["online"])], "yes"))

    def test_accel_checked(self):
        with self.assertRaisesRegex(UsageError, "--accel wants auto, tcg or "
                                    "kvm, not 'hvf'"):
            sk.check_kernel_options(self.options(accel="hvf"))

    def test_builds_and_an_unreachable_tree(self):
        o = self.options(variants=("full",), missing=False)
        self.answers["build-kernel.sh"] = (0, "/b/kernel-6.1-full")
        kernels, unbuilt, series = sk.sweep_kernels(o, ["hotplug", "online"])
        self.assertEqual(kernels, [sk.Kernel(
            "/b/kernel-6.1-full/vmlinux", "/b/kernel-6.1-full/.config",
            "6.1-full", "full", ("hotplug", "online"))])
        self.assertEqual((unbuilt, series), ([], "yes"))
        self.assertEqual(self.calls, [("build-kernel.sh", "--arch", "x86_64",
                                       *FULL_61, "/b", "6.1", "full")])
        self.answers["build-kernel.sh"] = (sk.UNREACHABLE, "")
        o = dataclasses.replace(o, tree="7.3")
        self.assertEqual(sk.sweep_kernels(o, ["online"]),
                         ([], [("7.3-full", "full", ["online"])], "yes"))

    def test_a_list_plans_from_the_fragments_it_is_told(self):
        """--list: build-kernel.sh --fragments of each build, told its
        facts (7.3's: its suite and series folder of TREES); its
        fragments make the planned .config."""
        frag = self.write("frag.config", "CONFIG_NR_CPUS=64\n")
        folder = self.path("b", "kernel-7.3-full")
        self.answers["build-kernel.sh"] = (0, "\n".join(
            (folder, "external", frag)))
        o = self.options(tree="7.3", variants=("full",), missing=False,
                         list=True, planned=self.folder("planned"))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            kernels, _, _ = sk.sweep_kernels(o, ["online"])
        self.assertIn("--list: 7.3-full is not built", err.getvalue())
        self.assertEqual(self.calls, [(
            "build-kernel.sh", "--fragments", "--arch", "x86_64",
            "--name", "7.3-full", "--initrd", "external",
            "--suite", "trixie-backports", "--series", self.series,
            "--make", "x86", "--cross", "", "--image", "vmlinux",
            "/b", "7.3", "full")])
        self.assertEqual((kernels[0].path, kernels[0].config), (
            os.path.join(folder, "vmlinux"),
            self.path("planned", "7.3-full.config")))
        self.assertIn("CONFIG_NR_CPUS=64\n",
                      self.read("planned", "7.3-full.config"))

    def test_stock_twins(self):
        self.answers["build-kernel.sh"] = (0, "/b/kernel-6.1-full-stock")
        kernel = sk.Kernel("/b/k/vmlinux", "/b/k/.config", "6.1-full", "full",
                           ("online",))
        self.assertEqual(sk.stock_kernels(self.options(), [kernel]),
                         ["6.1-full=/b/kernel-6.1-full-stock/vmlinux"])
        self.assertEqual(self.calls, [("build-kernel.sh", "--stock", "--arch",
                                       "x86_64", *FULL_61, "/b", "6.1",
                                       "full")])

    def test_selftests_of_a_list(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(sk.selftests(self.options(list=True), [],
                                          ["scenario"]), "")
        self.assertEqual(err.getvalue(), "sweep-smp.sh: --list: the selftests "
                         "are built for a boot, not for a list: their boot "
                         "is listed as a skip\n")
        self.assertEqual(self.calls, [])

    def test_unchanged_selftests_when_the_series_changes_them(self):
        built = [sk.Kernel("/b/k", "/b/c", "7.3-full", "full", ("holes",))]
        o = self.options(tree="7.3", arch="arm64")
        self.write(os.path.join("series", "0001.patch"), KERNEL_PATCH)
        self.answers["build-selftests.sh"] = (0, "/b/stock.cpio 3")
        self.assertEqual(sk.unchanged_selftests(o, built, ["holes"]), "")
        self.write(os.path.join("series", "0002.patch"), SELFTESTS_PATCH)
        self.assertEqual(sk.unchanged_selftests(o, built, ["holes"]),
                         "/b/stock.cpio 3")
        # Told what the tables say of the tree (this test's) and arm64.
        self.assertEqual(self.calls, [("build-selftests.sh", "--arch",
                                       "arm64", "--stock", "--suite",
                                       "trixie-backports", "--series-dir",
                                       self.series, "--make", "arm64",
                                       "--cross", "aarch64-linux-gnu-", "/b",
                                       "7.3")])
        # Not for a list, a tier other than the holes, a kernel file.
        self.assertEqual(sk.unchanged_selftests(self.options(
            tree="7.3", list=True), built, ["holes"]), "")
        self.assertEqual(sk.unchanged_selftests(o, built, ["online"]), "")
        kernel_file = sk.Kernel("/k", "/c", "k", "", ("holes",))
        self.assertEqual(sk.unchanged_selftests(o, [kernel_file], ["holes"]),
                         "")
        self.assertEqual(len(self.calls), 1)

    def test_wide_qemu(self):
        with open(CONFIG_61) as f:
            wide = self.write("wide.config", f.read() +
                              "CONFIG_X86_X2APIC=y\nCONFIG_IRQ_REMAP=y\n")
        kernels = [sk.Kernel("/b/k", CONFIG_61, "6.1-full", "full",
                             ("online",)),
                   sk.Kernel("/b/w", wide, "6.1-full-wide", "full-wide",
                             ("wide-online",))]
        self.answers["fetch-qemu.sh"] = (0, "/b/qemu-10/qemu-system-x86_64")
        self.assertEqual(sk.wide_qemu(self.options(), kernels),
                         "/b/qemu-10/qemu-system-x86_64")
        self.assertEqual(self.calls, [("fetch-qemu.sh", "/b")])
        # No kernel boots them: nothing fetched; a --list fetches nothing.
        self.assertEqual(sk.wide_qemu(self.options(), kernels[:1]), "")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(sk.wide_qemu(self.options(list=True), kernels),
                             "")
        self.assertIn("--list: QEMU 10 is fetched for a boot", err.getvalue())
        self.assertEqual(len(self.calls), 1)


class ScriptTest(unittest.TestCase):
    def test_exit_status_and_output(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.sh")
            with open(path, "w") as f:
                f.write('#!/bin/sh\necho " out $* "\nexit 5\n')
            os.chmod(path, stat.S_IRWXU)
            with mock.patch.object(tables, "HARNESS", d):
                self.assertEqual(sk.script("s.sh", "a", ok=(0, 5)),
                                 (5, "out a"))
                with self.assertRaisesRegex(sk.Fail, r"^s.sh a b failed "
                                            r"\(see above\)$"):
                    sk.script("s.sh", "a", "b")


if __name__ == "__main__":
    unittest.main()
