"""The sweep's kernels: what identifies a kernel, the --kernel checks, a
kernel file's tiers and the skips of an unbuilt tree, on a kernel table
of its own."""
import dataclasses
import os
import unittest
from unittest import mock

from pidmax import sweep_kernels as sk, tables
from pidmax.sweep_options import Request
from pidmax.plan import UsageError
from pidmax.settings import Settings
from pidmax.tests.test_tables import kernel_table

class KernelsTest(unittest.TestCase):
    def setUp(self):
        self.dir, where = kernel_table(self)
        self.settings = Settings(tables=where)

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
                 kernel="", config="", baseline=False, build=self.dir,
                 list=False, settings=self.settings)
        o.update(more)
        return Request(**o)

    def test_kernel_options(self):
        o = sk.check_kernel_options(self.options(variant="all"))
        self.assertEqual(o.variants, ("full", "small"))
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
        o = dataclasses.replace(o, stock=True)
        self.assertEqual(sk.sweep_kernels(o, ["online"])[2], "no")

    def test_selftests_for_debian_and_built_kernels(self):
        """The series' selftests for the scenarios and the holes: from
        the shared tree for kernels built here, from the tarball with the
        series' changes (--series) for Debian's own; none for a kernel
        file or without those tiers."""
        built = sk.Kernel("/b/Image", "/b/.config", "9.9-full", "full", ())
        debian = sk.Kernel("/d/vmlinuz", "/d/.config", "vmlinuz", "", ())
        calls = []

        def script(name, *args, **kw):
            calls.append((name, *args))
            return 0, "/b/selftests.cpio 3"
        # What the tables say of 9.9 (none here) and arm64, told.
        facts = tables.SelftestsFacts("sid", "/s", "arm64", "a64-")
        told = ("--suite", "sid", "--series-dir", "/s", "--make", "arm64",
                "--cross", "a64-", "/b", "9.9")
        cases = ((False, built, ["holes"], ("--arch", "arm64", *told)),
                 (True, debian, ["scenario"],
                  ("--arch", "arm64", "--series", *told)),
                 (True, debian, ["online"], None),
                 (False, debian, ["holes"], None))
        for stock, kernel, want, args in cases:
            calls.clear()
            o = self.options(arch="arm64", build="/b", stock=stock)
            with mock.patch.object(sk, "script", script), \
                    mock.patch.object(sk.tables, "selftests_facts",
                                      return_value=facts):
                got = sk.selftests(o, [kernel], want)
            self.assertEqual(got, "/b/selftests.cpio 3" if args else "")
            self.assertEqual(calls, [("build-selftests.sh", *args)]
                             if args else [])

    def test_unbuilt_tiers_are_skips(self):
        o = self.options()
        with mock.patch.object(sk.tables, "trees",
                               return_value={"9.9": ("sid", "s", "-")}):
            lines = sk.unbuilt_jobs(o, [("9.9-full-big", "full-big",
                                         ["hotplug", "possible"])])
        self.assertEqual(lines[1], "name=9.9-full-big-possible\ttier=possible"
                         "\tvariant=full\tlabel=9.9-full-big\tskip=sid is "
                         "unreachable: no kernel of tree 9.9 to boot "
                         "(harness/trees)")
        self.assertEqual(len(lines), 2)


if __name__ == "__main__":
    unittest.main()
