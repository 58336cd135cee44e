"""The kernels of a sweep: which to build (the kernel table,
harness/kernels), each with the tiers it boots; Debian's own for
--kernel debian; the tree's selftests; QEMU 10 for the wide tiers; the
baseline's stock twins. The builders and fetchers are the harness's
shell scripts, run here; a tree whose suite is unreachable (their exit
status 3) leaves its kernels unbuilt and their tiers skips. O is the
sweep's request (sweep_options.Request), changed here only as a copy;
the tables are its settings' (O.settings.tables, from the door)."""
import dataclasses
import glob
import hashlib
import os
import re
import sys
from dataclasses import dataclass

from . import joblist, stops, tables
from .kconfig import Config
from .plan import UsageError

UNREACHABLE = 3


class Fail(Exception):
    """A stage failed: the sweep stops with exit status 1."""


@dataclass
class Kernel:
    path: str
    config: str
    label: str
    build: str
    tiers: tuple


def script(name, *args, ok=(0,), capture=True):
    """(exit status, standard output unless not CAPTURE) of the harness's
    script NAME; its messages go to our standard error. A status outside
    OK fails. A signal that stops the sweep ends the script and every
    process it started (stops.run_group)."""
    rc, out = stops.run_group([os.path.join(tables.HARNESS, name), *args],
                              capture)
    if rc not in ok:
        raise Fail(f"{name} {' '.join(args)} failed (see above)")
    return rc, out.strip()


def kernel_id(path):
    """What identifies a booted kernel across machines: "build ID" of a
    kernel built here (build-kernel.sh), else "sha256 SUM" of the file."""
    try:
        with open(os.path.join(os.path.dirname(path), ".harness-build")) as f:
            return "build " + f.read().rstrip("\n")
    except OSError:
        with open(path, "rb") as f:
            return "sha256 " + hashlib.sha256(f.read()).hexdigest()


def build_kernel(o, b, *more, ok=(0,)):
    """build-kernel.sh of the build B of O's tree and architecture, MORE
    (--stock, --fragments) first, with every fact it needs of the tables
    given as its options (tables.build_facts), so that it asks them
    nothing: (exit status, standard output) as script's."""
    facts = tables.build_facts(o.tree, b, o.arch, o.settings.tables)
    return script("build-kernel.sh", *more, "--arch", o.arch,
                  *facts.options(), o.build, o.tree, b, ok=ok)


def debian_kernel(o):
    """--kernel debian: Debian's own kernel of --tree's suite
    (harness/trees: the host's, or one fetched from), by fetch-stock.sh;
    a host kernel of another tree is refused. None when the suite is
    unreachable."""
    suite = tables.tree(o.tree, o.settings.tables)[0]
    args = ["--arch", o.arch, o.build] + ([] if suite == "host" else [suite])
    rc, folder = script("fetch-stock.sh", *args, ok=(0, UNREACHABLE))
    if rc == UNREACHABLE:
        return None
    found = sorted(glob.glob(os.path.join(folder, "vmlinuz-*")))
    if not found:
        raise Fail(f"fetch-stock.sh left no vmlinuz-* in {folder}")
    version = Config(os.path.join(folder, ".config")).version
    if not version.startswith(o.tree + "."):
        raise Fail(f"--kernel debian --tree {o.tree}: Debian's kernel from "
                   f"the host's apt is {version}, not {o.tree} (harness/trees "
                   "names where each tree comes from)")
    return found[0]


def check_kernel_options(o):
    """--tree, --variant, --accel, --kernel and --config of the request O
    (sweep_options.Request) checked: O with them settled, a changed copy
    (variants the tree's list for all; --kernel debian fetched, stock,
    or missing when its suite is unreachable; a kernel file's .config)."""
    where = o.settings.tables
    known = tables.kernel_trees(o.arch, where)
    if o.tree not in known:
        raise UsageError(f"--tree wants one of {' '.join(known)} "
                         f"(harness/kernels, {o.arch}), not '{o.tree}'")
    vs = tables.kernel_variants(o.tree, o.arch, where)
    if o.variant != "all" and o.variant not in vs:
        raise UsageError(f"--variant wants all or one of {' '.join(vs)}, "
                         f"not '{o.variant}'")
    if o.accel not in ("auto", "tcg", "kvm"):
        raise UsageError("--accel wants auto, tcg or kvm, not "
                         f"'{o.accel}'")
    if o.kernel and o.variant == "all":
        raise UsageError("--variant all builds its own kernels; drop --kernel")
    if o.kernel and o.baseline:
        raise UsageError("--baseline builds the stock twins of its own "
                         "kernels; drop --kernel")
    o = dataclasses.replace(
        o, variants=tuple(vs) if o.variant == "all" else (o.variant,),
        stock=False, missing=False)
    if o.kernel == "debian":
        if o.config:
            raise UsageError("--kernel debian brings its own .config; drop "
                             "--config")
        kernel = debian_kernel(o) or ""
        o = dataclasses.replace(o, kernel=kernel, stock=bool(kernel),
                                missing=not kernel)
        if o.missing:
            return o
    return check_kernel_file(o)


def check_kernel_file(o):
    """--kernel FILE readable, with its .config (--config, else beside
    it); --config only with --kernel: O with that .config."""
    if not o.kernel:
        if o.config:
            raise UsageError("--config goes with --kernel")
        return o
    if not os.access(o.kernel, os.R_OK):
        raise Fail(f"--kernel {o.kernel} is not readable")
    config = o.config or os.path.join(os.path.dirname(o.kernel), ".config")
    if not os.access(config, os.R_OK):
        raise Fail(f"no .config for {o.kernel}: put it beside the kernel or "
                   "pass --config FILE")
    return dataclasses.replace(o, config=config)


def sweep_kernels(o, want):
    """(kernels, unbuilt, series): --kernel FILE, which boots every tier
    WANT; or of each variant the table's builds that boot them, built. A
    build whose tree's suite is unreachable (build-kernel.sh exit 3), or
    --kernel debian of one, is unbuilt: (LABEL, BUILD, TIERS)."""
    if o.missing:
        return [], [(f"debian-{o.tree}", "debian", want)], "yes"
    if o.kernel:
        k = Kernel(os.path.realpath(o.kernel), os.path.realpath(o.config),
                   os.path.basename(o.kernel), "", tuple(want))
        # Debian's own kernels carry no series: the formula's stock model.
        return [k], [], "no" if o.stock else "auto"
    kernels, unbuilt, where = [], [], o.settings.tables
    image = os.path.basename(tables.arches(where)[o.arch].image)
    for v in o.variants:
        for b, tiers in tables.kernel_plan(o.tree, o.arch, v, o.pick,
                                             want, where):
            label = tables.kernel_name(o.tree, b, o.arch)
            if o.list:
                kernels.append(planned_kernel(o, b, label, tiers, image))
                continue
            rc, folder = build_kernel(o, b, ok=(0, UNREACHABLE))
            if rc == UNREACHABLE:
                unbuilt.append((label, b, tiers))
                continue
            kernels.append(Kernel(os.path.join(folder, image),
                                  os.path.join(folder, ".config"), label, b,
                                  tuple(tiers)))
    return kernels, unbuilt, "yes"


def planned_kernel(o, b, label, tiers, image):
    """--list: the kernel B as a build would make it, built or not:
    where its image goes, and its .config, else one made from the
    fragments the build would merge (build-kernel.sh --fragments) into
    O.planned, the folder of those; "unbuilt" on standard error."""
    text = build_kernel(o, b, "--fragments")[1]
    folder, mode, *frags = text.splitlines()
    config = os.path.join(folder, ".config")
    if not os.path.isfile(config):
        config = fragments_config(o, label, mode, frags)
        say(o, f"--list: {label} is not built: planned from its fragments "
            "(harness/config); a value they leave to tinyconfig is taken "
            "as unset until the build")
    return Kernel(os.path.join(folder, image), config, label, b, tuple(tiers))


def fragments_config(o, label, mode, frags):
    """A .config of the fragments FRAGS in order (a later line wins, "is
    not set" as n), on the architecture, 64-bit, with the tree's version
    and a built-in initramfs when MODE says builtin; its path in
    O.planned."""
    arch = tables.arches(o.settings.tables)[o.arch]
    lines = [f"# Linux/{arch.make} {o.tree} Kernel Configuration",
             f"CONFIG_{arch.kconfig}=y", "CONFIG_64BIT=y"]
    for path in frags:
        with open(path, encoding="latin-1") as f:
            for line in f.read().splitlines():
                m = re.fullmatch(r"# (CONFIG_\w+) is not set", line.strip())
                lines.append(f"{m.group(1)}=n" if m else line)
    if mode == "builtin":
        lines.append('CONFIG_INITRAMFS_SOURCE="built in"')
    path = os.path.join(o.planned, f"{label}.config")
    joblist.write_lines(path, lines)
    return path


def say(o, text):
    print(f"{o.prog}: {text}", file=sys.stderr, flush=True)


def selftests(o, kernels, want):
    """"CPIO N" of the tree's own pid_namespace selftests with its series
    (build-selftests.sh) for a sweep that boots the scenarios or the
    holes: from the tree the sweep's kernels were built of, or for
    Debian's own kernel of the tree (--kernel debian: O.stock) the
    tarball's with the series' changes (--series), judged there by the
    same rules, since the series' selftests pass without it too; "" for
    a --kernel FILE, or a tree without them."""
    if not {"scenario", "holes"} & set(want):
        return ""
    if o.list:
        say(o, "--list: the selftests are built for a boot, not for a list: "
            "their boot is listed as a skip")
        return ""
    if o.stock:
        return build_selftests(o, "--series")
    if not any(k.build for k in kernels):
        return ""
    return build_selftests(o)


def unchanged_selftests(o, kernels, want):
    """"CPIO N" of the tree's own pid_namespace selftests as its tarball
    has them, for the holes tier of a tree whose series changes them (the
    holes machine is where the series changes pid_max); "" otherwise."""
    if not any(k.build for k in kernels) or "holes" not in want or o.list:
        return ""
    folder = tables.tree_series(o.tree, o.settings.tables)
    changes = False
    for patch in glob.glob(os.path.join(folder, "*.patch")):
        with open(patch, encoding="latin-1") as f:
            changes = changes or any(
                line.startswith("+++ ") and
                "/tools/testing/selftests/pid_namespace/" in line
                for line in f)
    if not changes:
        return ""
    return build_selftests(o, "--stock")


def build_selftests(o, *how):
    """build-selftests.sh of O's tree and architecture, HOW (--stock,
    --series) first, told every fact it needs of the tables
    (tables.selftests_facts): its standard output."""
    facts = tables.selftests_facts(o.tree, o.arch, o.settings.tables)
    return script("build-selftests.sh", "--arch", o.arch, *how,
                  *facts.options(), o.build, o.tree)[1]


def wide_qemu(o, kernels):
    """QEMU 10's path when a kernel boots the wide tiers (x2APIC with
    interrupt remapping), fetched; "" when none does or it is
    unreachable (the tiers are then skips)."""
    for k in kernels:
        if any(t.startswith("wide-") for t in k.tiers) and \
                Config(k.config).boots_wide():
            if o.list:
                say(o, "--list: QEMU 10 is fetched for a boot, not for a "
                    "list: the wide tiers are listed as skips")
                return ""
            return script("fetch-qemu.sh", o.build, ok=(0, UNREACHABLE))[1]
    return ""


def stock_kernels(o, kernels):
    """The baseline's stock twin of every kernel, LABEL=IMAGE each,
    built last (they pop the series off the tree the builds share)."""
    image = os.path.basename(tables.arches(o.settings.tables)[o.arch].image)
    out = []
    for k in kernels:
        folder = build_kernel(o, k.build, "--stock")[1]
        out.append(f"{k.label}={os.path.join(folder, image)}")
    return out


def unbuilt_jobs(o, unbuilt):
    """A skip job per tier of each unbuilt kernel, with the reason: its
    tree's suite (harness/trees) could not be reached."""
    suite = tables.tree(o.tree, o.settings.tables)[0] if unbuilt else ""
    return [joblist.Job(
        name=f"{label}-{t}", tier=t, variant=b.split("-")[0], label=label,
        skip=f"{suite} is unreachable: no kernel of tree {o.tree} to boot "
        "(harness/trees)").line() for label, b, tiers in unbuilt for t in tiers]
