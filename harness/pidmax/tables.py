"""The harness's tables, read here alone (the shell asks through lib.sh
and the verb table): harness/trees, kernels, machines and arches. Each
is whitespace-separated columns with # comments; a machine's QEMU
arguments and an architecture's kernel parameters are the rest of their
line."""
import os
import re
from dataclasses import dataclass

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def table(name):
    """The path of the table NAME: harness/NAME, or $PIDMAX_NAME (the
    self-tests' own tables), as lib.sh reads them."""
    return os.environ.get("PIDMAX_" + name.upper()) or os.path.join(HARNESS, name)


def rows(path):
    """The table's rows, a list of words each, with their line numbers."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if words and not words[0].startswith("#"):
                yield n, words


@dataclass(frozen=True)
class Kernel:
    tree: str
    arch: str
    variant: str
    build: str
    initrd: str
    boots: tuple


@dataclass(frozen=True)
class Arch:
    name: str
    kconfig: str
    make: str
    cross: str
    image: str
    qemu: str
    console: str
    machine: str
    firmware: str
    debian: str
    maxcpus: int
    packages: tuple
    append: str


def _dash(word):
    return "" if word == "-" else word


def arches(path=None):
    """harness/arches, by name."""
    path = path or table("arches")
    out = {}
    for n, w in rows(path):
        if len(w) < 13:
            raise ValueError(f"{path}:{n}: want 13 columns, not {len(w)}")
        out[w[0]] = Arch(w[0], w[1], w[2], _dash(w[3]), w[4], w[5], w[6],
                         w[7], w[8], w[9], int(w[10]),
                         tuple(p for p in _dash(w[11]).split(",") if p),
                         _dash(" ".join(w[12:])))
    return out


def kernels(path=None, tiers=None):
    """harness/kernels, in order; a row naming an unknown architecture
    or (with TIERS given) an unknown tier is an error."""
    path = path or table("kernels")
    known = arches()
    out = []
    for n, w in rows(path):
        boots = tuple(w[5].split(",")) if len(w) == 6 else ()
        bad = len(w) != 6 or w[4] not in ("builtin", "external") \
            or w[1] not in known \
            or (tiers is not None and not set(boots) <= set(tiers))
        if bad:
            raise ValueError(f"{path}:{n}: want TREE ARCH VARIANT BUILD builtin|external TIER,TIER...")
        out.append(Kernel(w[0], w[1], w[2], w[3], w[4], boots))
    return out


def machines(path=None):
    """harness/machines: name -> (architecture, QEMU arguments)."""
    path = path or table("machines")
    return {w[0]: (w[1], tuple(w[2:])) for _, w in rows(path)}


def trees(path=None):
    """harness/trees: tree -> (suite, series folder, mutants folder or
    "-"); a row of other than four columns, a suite not of a-z0-9-, or a
    folder with ".." in it is an error."""
    path = path or table("trees")
    out = {}
    for n, w in rows(path):
        if len(w) != 4 or not re.fullmatch(r"[a-z0-9-]+", w[1]) \
                or ".." in w[2] or ".." in w[3]:
            raise ValueError(f"{path}:{n}: want TREE SUITE SERIES MUTANTS")
        out[w[0]] = (w[1], w[2], w[3])
    return out


def tree(name):
    """(suite, series folder, mutants folder or "-") of the tree NAME."""
    known = trees()
    if name not in known:
        raise ValueError(f"{table('trees')} has no tree {name}")
    return known[name]


def tree_series(name):
    """The folder of the tree NAME's quilt series (its row's SERIES:
    relative to the repository, or absolute)."""
    return os.path.join(os.path.dirname(HARNESS), tree(name)[1])


def kunit_cases():
    """The cases the KUnit suite "pid_max" of this checkout's series has
    (config/kunit-pid_max.cases; the self-tests point PIDMAX_KUNIT_CASES
    at the list their recorded logs were made with). The planner writes
    them into each job of a kernel with the suite, so that a folder is
    judged by the cases of the kernel it booted, whatever the list says
    later."""
    path = os.environ.get("PIDMAX_KUNIT_CASES") or os.path.join(
        HARNESS, "config", "kunit-pid_max.cases")
    with open(path, encoding="utf-8") as f:
        names = [line.strip() for line in f]
    return [n for n in names if n and not n.startswith("#")]


def tree_mutants(name):
    """The folder of the mutants of the tree NAME's series (its row's
    MUTANTS, as SERIES), or "" when it has none (-)."""
    folder = tree(name)[2]
    return "" if folder == "-" else os.path.join(os.path.dirname(HARNESS),
                                                 folder)


def arch(name):
    """The row of the architecture NAME."""
    known = arches()
    if name not in known:
        raise ValueError(f'unknown architecture "{name}" ({table("arches")}: '
                         f'{", ".join(known)})')
    return known[name]


# Every tier a row of the kernel table may list.
TIERS = ("hotplug", "online", "scenario", "possible", "wide-online",
         "wide-hotplug", "holes")


def kernel_rows(tree_name, arch_name):
    """The kernel table's rows of TREE (every tree when empty) on ARCH."""
    return [k for k in kernels(tiers=TIERS) if k.arch == arch_name
            and tree_name in ("", k.tree)]


def kernel_trees(arch_name):
    """The table's trees of ARCH, in order."""
    return list(dict.fromkeys(k.tree for k in kernel_rows("", arch_name)))


def kernel_variants(tree_name, arch_name):
    return list(dict.fromkeys(k.variant
                              for k in kernel_rows(tree_name, arch_name)))


def kernel_name(tree_name, build, arch_name):
    """What names a build's folders and boots: TREE-BUILD on x86_64 (the
    names results and scripts already use), TREE-ARCH-BUILD otherwise."""
    if arch_name == "x86_64":
        return f"{tree_name}-{build}"
    return f"{tree_name}-{arch_name}-{build}"


def kernel_plan(tree_name, arch_name, variant, pick, want):
    """[(BUILD, [TIER...])] of the variant's builds that boot the tiers
    WANT, in the table's order: a tier boots on the first row of the
    variant listing it (PICK each) or the last (fewest)."""
    builds, chosen = [], {}
    for k in kernel_rows(tree_name, arch_name):
        if k.variant != variant:
            continue
        builds.append(k.build)
        for t in want:
            if t in k.boots and (pick == "fewest" or t not in chosen):
                chosen[t] = k.build
    for t in want:
        if t not in chosen:
            raise ValueError(f"{table('kernels')}, tree {tree_name}, "
                             f"{arch_name}: no kernel of {variant} boots the "
                             f"{t} tier")
    out = [(b, [t for t in want if chosen[t] == b]) for b in builds]
    return [(b, ts) for b, ts in out if ts]
