"""The sweep's kernels: which builds of a kernel table boot which tiers,
their names, what identifies a kernel, the --kernel checks and the
skips of an unbuilt tree."""
import os
import tempfile
import types
import unittest
from unittest import mock

from pidmax import sweep_kernels as sk
from pidmax.plan import UsageError

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


class KernelsTest(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name
        path = os.path.join(d.name, "kernels")
        with open(path, "w") as f:
            f.write(TABLE)
        env = mock.patch.dict(os.environ, {"PIDMAX_KERNELS": path})
        env.start()
        self.addCleanup(env.stop)

    def test_each_tier_on_the_first_or_last_build(self):
        want = ["hotplug", "online", "possible", "wide-online"]
        self.assertEqual(sk.kernel_plan("9.9", "x86_64", "full", "each", want),
                         [("full", ["hotplug", "online"]),
                          ("full-big", ["possible"]),
                          ("full-wide", ["wide-online"])])
        self.assertEqual(
            sk.kernel_plan("9.9", "x86_64", "full", "fewest", want),
            [("full", ["online"]), ("full-big", ["hotplug"]),
             ("full-wide", ["possible", "wide-online"])])
        with self.assertRaisesRegex(sk.Fail, "no kernel of small boots the "
                                    "online tier"):
            sk.kernel_plan("9.9", "x86_64", "small", "each", ["online"])

    def test_trees_variants_and_names(self):
        self.assertEqual(sk.trees("arm64"), ["9.9"])
        self.assertEqual(sk.variants("9.9", "x86_64"), ["full", "small"])
        self.assertEqual(sk.name("9.9", "full", "x86_64"), "9.9-full")
        self.assertEqual(sk.name("9.9", "full", "arm64"), "9.9-arm64-full")

    def test_kernel_id(self):
        empty = os.path.join(self.dir, "vmlinux")
        open(empty, "w").close()
        self.assertEqual(sk.kernel_id(empty), "sha256 e3b0c44298fc1c149afb"
                         "f4c8996fb92427ae41e4649b934ca495991b7852b855")
        with open(os.path.join(self.dir, ".harness-build"), "w") as f:
            f.write("abc 123\n")
        self.assertEqual(sk.kernel_id(empty), "build abc 123")

    def options(self, **more):
        o = dict(arch="x86_64", tree="9.9", variant="full", accel="auto",
                 kernel="", config="", baseline=False, build=self.dir)
        o.update(more)
        return types.SimpleNamespace(**o)

    def test_kernel_options(self):
        o = self.options(variant="all")
        sk.check_kernel_options(o)
        self.assertEqual(o.variants, ["full", "small"])
        for more, says in (({"tree": "1.0"}, "--tree wants one of 9.9"),
                           ({"variant": "huge"}, "one of full small"),
                           ({"kernel": "/k", "variant": "all"}, "drop --kernel"),
                           ({"kernel": "/k", "baseline": True}, "drop --kernel"),
                           ({"config": "/c"}, "--config goes with --kernel")):
            with self.assertRaisesRegex(UsageError, says):
                sk.check_kernel_options(self.options(**more))
        kernel = os.path.join(self.dir, "bzImage")
        open(kernel, "w").close()
        with self.assertRaisesRegex(sk.Fail, "no .config for"):
            sk.check_kernel_options(self.options(kernel=kernel))

    def test_a_kernel_file_boots_every_tier(self):
        o = self.options(kernel="/b/k", config="/b/c", missing=False,
                         stock=False)
        kernels, unbuilt, series = sk.sweep_kernels(o, ["online", "holes"])
        self.assertEqual((kernels[0].label, kernels[0].tiers, series),
                         ("k", ("online", "holes"), "auto"))
        o.stock = True
        self.assertEqual(sk.sweep_kernels(o, ["online"])[2], "no")

    def test_unbuilt_tiers_are_skips(self):
        o = self.options()
        with mock.patch.object(sk.tables, "trees",
                               return_value={"9.9": ("sid", "s")}):
            lines = sk.unbuilt_jobs(o, [("9.9-full-big", "full-big",
                                         ["hotplug", "possible"])])
        self.assertEqual(lines[1], "name=9.9-full-big-possible\ttier=possible"
                         "\tvariant=full\tlabel=9.9-full-big\tskip=sid is "
                         "unreachable: no kernel of tree 9.9 to boot "
                         "(harness/trees)")
        self.assertEqual(len(lines), 2)


if __name__ == "__main__":
    unittest.main()
