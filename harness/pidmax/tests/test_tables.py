"""The tables: every kernel's architecture is a row of arches, every
machine's too, and a bad row names its line; the tables of a folder or
a file passed in, whatever the environment says."""
import dataclasses
import os
import tempfile
import unittest
from unittest import mock

from pidmax import tables


class TablesTest(unittest.TestCase):
    def test_arches(self):
        a = tables.arches()
        self.assertEqual(a["arm64"].machine, "virt")
        self.assertEqual(a["arm64"].firmware, "dt")
        self.assertEqual(a["x86_64"].append, "lpj=10000000 tsc=reliable")
        self.assertEqual(a["arm64"].packages[0], "qemu-system-arm")
        self.assertEqual((a["arm64"].uname, a["x86_64"].uname),
                         ("aarch64", "x86_64"))
        self.assertEqual(a["arm64"].append, "")

    def test_kernels_and_machines_name_known_arches(self):
        a = tables.arches()
        ks = tables.kernels()
        self.assertTrue(ks)
        for k in ks:
            self.assertIn(k.arch, a)
        m = tables.machines()
        self.assertEqual(m["virt"][0], "arm64")
        for arch, _ in m.values():
            self.assertIn(arch, a)
        for k in ks:
            self.assertIn(k.tree, tables.trees())

    def test_bad_row_names_its_line(self):
        with tempfile.NamedTemporaryFile("w", suffix="kernels", delete=False) as f:
            f.write("# a comment\n6.1 sparc full full external hotplug\n")
        try:
            with self.assertRaisesRegex(ValueError, r":2: want TREE ARCH"):
                tables.kernels(dataclasses.replace(tables.HOME,
                                                   kernels=f.name))
        finally:
            os.unlink(f.name)

    def test_the_tables_of_a_folder_passed_in(self):
        """Tables.inside(FOLDER) is FOLDER's tables, laid out as harness/
        lays out its own; the environment's PIDMAX_* are the door's to
        read, not the tables'."""
        self.assertEqual(tables.Tables.inside(tables.HARNESS), tables.HOME)
        with tempfile.TemporaryDirectory() as d:
            where = tables.Tables.inside(d)
            os.mkdir(os.path.join(d, "config"))
            for name, text in (
                    ("trees", "9.9 host mainline -\n"),
                    ("kernels", "9.9 x86_64 full full external online\n"),
                    ("machines", "pc x86_64 -M odd\n"),
                    ("arches", "x86_64 X86_64 x86_64 - arch/x86/boot/bzImage"
                     " qemu-system-x86_64 ttyS0 pc acpi amd64 255 - x86_64 -\n"),
                    (os.path.join("config", "kunit-pid_max.cases"),
                     "# the cases\none\ntwo\n")):
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            env = {"PIDMAX_" + name.upper(): "/nonexistent"
                   for name in ("trees", "kernels", "machines", "arches",
                                "kunit_cases")}
            with mock.patch.dict(os.environ, env):
                self.assertEqual(tables.tree("9.9", where),
                                 ("host", "mainline", "-"))
                self.assertEqual(tables.kernel_plan(
                    "9.9", "x86_64", "full", "each", ["online"], where),
                    [("full", ["online"])])
                self.assertEqual(tables.machines(where),
                                 {"pc": ("x86_64", ("-M", "odd"))})
                self.assertEqual(list(tables.arches(where)), ["x86_64"])
                self.assertEqual(tables.kunit_cases(where), ["one", "two"])
                with self.assertRaisesRegex(ValueError, f"{d}/trees has no "
                                            "tree 6.1"):
                    tables.tree("6.1", where)
                # And the harness's own, by default.
                self.assertIn("6.1", tables.trees())



# A variant of three builds: a tier boots on the first build that lists
# it, or on the last with --fewest-kernels.
TABLE = """\
# TREE ARCH VARIANT BUILD INITRD BOOTS
9.9 x86_64 full full external hotplug,online,scenario
9.9 x86_64 full full-big external hotplug,possible
9.9 x86_64 full full-wide builtin possible,wide-online
9.9 arm64 full full external hotplug,holes
9.9 x86_64 small small external hotplug
"""


def kernel_table(case):
    """TABLE as the kernel table for the test CASE, in a folder of its
    own, both gone when it ends: (the folder, the harness's tables with
    that kernel table)."""
    d = tempfile.TemporaryDirectory()
    case.addCleanup(d.cleanup)
    path = os.path.join(d.name, "kernels")
    with open(path, "w") as f:
        f.write(TABLE)
    return d.name, dataclasses.replace(tables.HOME, kernels=path)


class KernelTableTest(unittest.TestCase):
    """Which builds of a kernel table boot which tiers, on TABLE."""

    def setUp(self):
        self.where = kernel_table(self)[1]

    def test_each_tier_on_the_first_or_last_build(self):
        want = ["hotplug", "online", "possible", "wide-online"]
        self.assertEqual(tables.kernel_plan("9.9", "x86_64", "full", "each",
                                            want, self.where),
                         [("full", ["hotplug", "online"]),
                          ("full-big", ["possible"]),
                          ("full-wide", ["wide-online"])])
        self.assertEqual(
            tables.kernel_plan("9.9", "x86_64", "full", "fewest", want,
                               self.where),
            [("full", ["online"]), ("full-big", ["hotplug"]),
             ("full-wide", ["possible", "wide-online"])])
        with self.assertRaisesRegex(ValueError, "no kernel of small boots the "
                                    "online tier"):
            tables.kernel_plan("9.9", "x86_64", "small", "each", ["online"],
                               self.where)

    def test_trees_variants_and_names(self):
        self.assertEqual(tables.kernel_trees("arm64", self.where), ["9.9"])
        self.assertEqual(tables.kernel_variants("9.9", "x86_64", self.where),
                         ["full", "small"])
        self.assertEqual(tables.kernel_name("9.9", "full", "x86_64"), "9.9-full")
        self.assertEqual(tables.kernel_name("9.9", "full", "arm64"), "9.9-arm64-full")

    def test_tree_series_and_mutants(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        path = os.path.join(d.name, "trees")
        with open(path, "w") as f:
            f.write("9.9 host mainline m/9.9\n9.8 sid /abs/series -\n")
        repo = os.path.dirname(tables.HARNESS)
        where = dataclasses.replace(self.where, trees=path)
        self.assertEqual(tables.tree_series("9.9", where),
                         os.path.join(repo, "mainline"))
        self.assertEqual(tables.tree_series("9.8", where), "/abs/series")
        self.assertEqual(tables.tree_mutants("9.9", where),
                         os.path.join(repo, "m", "9.9"))
        self.assertEqual(tables.tree_mutants("9.8", where), "")
        for bad in ("9.7 host ../elsewhere -", "9.7 host . ../m",
                    "9.7 host ."):
            with open(path, "w") as f:
                f.write(f"9.9 host mainline -\n{bad}\n")
            with self.assertRaisesRegex(ValueError,
                                        ":2: want TREE SUITE SERIES MUTANTS"):
                tables.tree_series("9.9", where)

    def trees_99(self):
        """(path, tables) of a trees table of its own, with tree 9.9 of
        trixie-backports, beside this test's kernels and the arches."""
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        path = os.path.join(d.name, "trees")
        with open(path, "w") as f:
            f.write("9.9 trixie-backports /abs/$series -\n")
        return path, dataclasses.replace(self.where, trees=path)

    def test_build_facts(self):
        """Every fact of a build at once, from TABLE, a trees table of
        its own and the harness's arches; as build-kernel.sh's options,
        quoted for the shell; an unknown architecture, build or tree
        named."""
        path, where = self.trees_99()
        arm = tables.build_facts("9.9", "full", "arm64", where)
        self.assertEqual(arm, tables.BuildFacts(
            "9.9-arm64-full", "external", "trixie-backports",
            "/abs/$series", "arm64", "aarch64-linux-gnu-",
            "arch/arm64/boot/Image"))
        wide = tables.build_facts("9.9", "full-wide", where=where)
        self.assertEqual(wide.options(), [
            "--name", "9.9-full-wide", "--initrd", "builtin",
            "--suite", "trixie-backports", "--series", "/abs/$series",
            "--make", "x86", "--cross", "", "--image", "vmlinux"])
        self.assertEqual(wide.words(), (
            "--name 9.9-full-wide --initrd builtin --suite trixie-backports "
            "--series '/abs/$series' --make x86 --cross '' --image "
            "vmlinux"))
        for args, error in (
                (("9.9", "full", "sparc"), 'unknown architecture "sparc"'),
                (("9.9", "full-big", "arm64"), f"{self.where.kernels} has "
                 "no build full-big of tree 9.9 for arm64"),
                (("9.8", "full", "x86_64"), "has no build full of tree 9.8")):
            with self.assertRaisesRegex(ValueError, error):
                tables.build_facts(*args, where=where)
        # A build of the kernel table whose tree the trees table lacks.
        with open(path, "w") as f:
            f.write("9.8 host . -\n")
        with self.assertRaisesRegex(ValueError, f"{path} has no tree 9.9"):
            tables.build_facts("9.9", "full", where=where)

    def test_selftests_facts(self):
        """What build-selftests.sh needs of the tables at once, as its
        options, quoted for the shell; an unknown architecture, then an
        unknown tree, named."""
        path, where = self.trees_99()
        arm = tables.selftests_facts("9.9", "arm64", where)
        self.assertEqual(arm.options(), [
            "--suite", "trixie-backports", "--series-dir", "/abs/$series",
            "--make", "arm64", "--cross", "aarch64-linux-gnu-"])
        self.assertEqual(tables.selftests_facts("9.9", where=where).words(),
                         "--suite trixie-backports --series-dir "
                         "'/abs/$series' --make x86 --cross ''")
        for args, error in ((("9.8", "sparc"), 'unknown architecture "sparc"'),
                            (("9.8", "arm64"), f"{path} has no tree 9.8")):
            with self.assertRaisesRegex(ValueError, error):
                tables.selftests_facts(*args, where=where)

    def test_the_trees_mutants(self):
        """Each tree's mutants folder holds patches; 6.1's stay where
        they were, 7.3's have a folder of their own."""
        harness = tables.HARNESS
        self.assertEqual(tables.tree_mutants("6.1"),
                         os.path.join(harness, "mutants"))
        self.assertEqual(tables.tree_mutants("7.3"),
                         os.path.join(harness, "mutants", "7.3"))
        for t in ("6.1", "7.3"):
            names = os.listdir(tables.tree_mutants(t))
            self.assertTrue(any(n.endswith(".patch") for n in names), t)

    def test_unknown_tree_and_architecture(self):
        with self.assertRaisesRegex(ValueError, "has no tree 1.0"):
            tables.tree("1.0")
        with self.assertRaisesRegex(ValueError, 'unknown architecture '
                                    '"sparc" .*: x86_64, arm64'):
            tables.arch("sparc")


if __name__ == "__main__":
    unittest.main()
