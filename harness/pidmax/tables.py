"""The harness's tables, read here alone (the shell asks through lib.sh
and the verb table): harness/trees, kernels, machines and arches. Each
is whitespace-separated columns with # comments; a machine's QEMU
arguments and an architecture's kernel parameters are the rest of their
line. Which files they are is a Tables, given to each function as WHERE:
harness/'s own (HOME) unless the door (__main__.settings_of) read others
from the environment."""
import os
import re
import shlex
from dataclasses import dataclass

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Tables:
    """The paths of the tables, and of the list of the KUnit suite's
    cases (kunit_cases). The door reads $PIDMAX_TREES, $PIDMAX_KERNELS,
    $PIDMAX_MACHINES, $PIDMAX_ARCHES and $PIDMAX_KUNIT_CASES (the
    self-tests' own tables), as lib.sh reads the first four."""
    trees: str
    kernels: str
    machines: str
    arches: str
    kunit_cases: str

    @classmethod
    def inside(cls, folder):
        """The tables of FOLDER, laid out as harness/ lays out its own."""
        return cls(*(os.path.join(folder, name) for name in (
            "trees", "kernels", "machines", "arches",
            os.path.join("config", "kunit-pid_max.cases"))))


# The harness's own tables.
HOME = Tables.inside(HARNESS)


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
    uname: str
    append: str

    def is_host(self):
        """Whether this machine is of the architecture (KVM runs only
        its own)."""
        return os.uname().machine == self.uname


def _dash(word):
    return "" if word == "-" else word


def arches(where=HOME):
    """harness/arches (WHERE's), by name."""
    path = where.arches
    out = {}
    for n, w in rows(path):
        if len(w) < 14:
            raise ValueError(f"{path}:{n}: want 14 columns, not {len(w)}")
        out[w[0]] = Arch(w[0], w[1], w[2], _dash(w[3]), w[4], w[5], w[6],
                         w[7], w[8], w[9], int(w[10]),
                         tuple(p for p in _dash(w[11]).split(",") if p),
                         w[12], _dash(" ".join(w[13:])))
    return out


def kernels(where=HOME, tiers=None):
    """harness/kernels (WHERE's), in order; a row naming an architecture
    not of WHERE's arches or (with TIERS given) an unknown tier is an
    error."""
    path = where.kernels
    known = arches(where)
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


def machines(where=HOME):
    """harness/machines (WHERE's): name -> (architecture, QEMU
    arguments)."""
    return {w[0]: (w[1], tuple(w[2:])) for _, w in rows(where.machines)}


def trees(where=HOME):
    """harness/trees (WHERE's): tree -> (suite, series folder, mutants
    folder or "-"); a row of other than four columns, a suite not of
    a-z0-9-, or a folder with ".." in it is an error."""
    path = where.trees
    out = {}
    for n, w in rows(path):
        if len(w) != 4 or not re.fullmatch(r"[a-z0-9-]+", w[1]) \
                or ".." in w[2] or ".." in w[3]:
            raise ValueError(f"{path}:{n}: want TREE SUITE SERIES MUTANTS")
        out[w[0]] = (w[1], w[2], w[3])
    return out


def tree(name, where=HOME):
    """(suite, series folder, mutants folder or "-") of the tree NAME."""
    known = trees(where)
    if name not in known:
        raise ValueError(f"{where.trees} has no tree {name}")
    return known[name]


def tree_series(name, where=HOME):
    """The folder of the tree NAME's quilt series (its row's SERIES:
    relative to the repository, or absolute)."""
    return os.path.join(os.path.dirname(HARNESS), tree(name, where)[1])


def kunit_cases(where=HOME):
    """The cases the KUnit suite "pid_max" of this checkout's series has
    (WHERE's kunit_cases, config/kunit-pid_max.cases; the self-tests
    point $PIDMAX_KUNIT_CASES at the list their recorded logs were made
    with). The planner writes them into each job of a kernel with the
    suite, so that a folder is judged by the cases of the kernel it
    booted, whatever the list says later."""
    with open(where.kunit_cases, encoding="utf-8") as f:
        names = [line.strip() for line in f]
    return [n for n in names if n and not n.startswith("#")]


def tree_mutants(name, where=HOME):
    """The folder of the mutants of the tree NAME's series (its row's
    MUTANTS, as SERIES), or "" when it has none (-)."""
    folder = tree(name, where)[2]
    return "" if folder == "-" else os.path.join(os.path.dirname(HARNESS),
                                                 folder)


def arch(name, where=HOME):
    """The row of the architecture NAME."""
    known = arches(where)
    if name not in known:
        raise ValueError(f'unknown architecture "{name}" ({where.arches}: '
                         f'{", ".join(known)})')
    return known[name]


# Every tier a row of the kernel table may list.
TIERS = ("hotplug", "online", "scenario", "possible", "wide-online",
         "wide-hotplug", "holes")


def kernel_rows(tree_name, arch_name, where=HOME):
    """The kernel table's rows of TREE (every tree when empty) on ARCH."""
    return [k for k in kernels(where, TIERS) if k.arch == arch_name
            and tree_name in ("", k.tree)]


def kernel_trees(arch_name, where=HOME):
    """The table's trees of ARCH, in order."""
    return list(dict.fromkeys(k.tree
                              for k in kernel_rows("", arch_name, where)))


def kernel_variants(tree_name, arch_name, where=HOME):
    return list(dict.fromkeys(k.variant for k in kernel_rows(
        tree_name, arch_name, where)))


def kernel_name(tree_name, build, arch_name):
    """What names a build's folders and boots: TREE-BUILD on x86_64 (the
    names results and scripts already use), TREE-ARCH-BUILD otherwise."""
    if arch_name == "x86_64":
        return f"{tree_name}-{build}"
    return f"{tree_name}-{arch_name}-{build}"


@dataclass(frozen=True)
class BuildFacts:
    """What a build of the kernel table (TREE BUILD on ARCH) needs of the
    tables: its name (kernel_name), its row's INITRD, its tree's suite
    and series folder (harness/trees), and its architecture's make ARCH,
    cross-compiler prefix and image file (harness/arches)."""
    name: str
    initrd: str
    suite: str
    series: str
    make: str
    cross: str
    image: str

    def options(self):
        """The facts as the options build-kernel.sh takes them."""
        return ["--name", self.name, "--initrd", self.initrd,
                "--suite", self.suite, "--series", self.series,
                "--make", self.make, "--cross", self.cross,
                "--image", self.image]

    def words(self):
        """options() on one line, each word quoted for the shell's eval
        (build-kernel.sh run by hand asks this, the table question
        "build")."""
        return " ".join(shlex.quote(w) for w in self.options())


def build_facts(tree_name, build, arch_name="x86_64", where=HOME):
    """The BuildFacts of the build BUILD of the tree TREE on ARCH: every
    fact a build reads of the tables, at once. An unknown architecture,
    build or tree is an error naming it, in that order."""
    a = arch(arch_name, where)
    rows = [k for k in kernel_rows(tree_name, arch_name, where)
            if k.build == build]
    if not rows:
        raise ValueError(f"{where.kernels} has no build {build} of tree "
                         f"{tree_name} for {arch_name}")
    return BuildFacts(kernel_name(tree_name, build, arch_name),
                      rows[0].initrd, tree(tree_name, where)[0],
                      tree_series(tree_name, where), a.make, a.cross,
                      a.image)


@dataclass(frozen=True)
class SelftestsFacts:
    """What build-selftests.sh needs of the tables to build TREE's
    selftests for ARCH: the tree's suite and series folder
    (harness/trees), the architecture's make ARCH and cross-compiler
    prefix (harness/arches)."""
    suite: str
    series: str
    make: str
    cross: str

    def options(self):
        """The facts as the options build-selftests.sh takes them."""
        return ["--suite", self.suite, "--series-dir", self.series,
                "--make", self.make, "--cross", self.cross]

    def words(self):
        """options() on one line, quoted for the shell's eval (the table
        question "selftests")."""
        return " ".join(shlex.quote(w) for w in self.options())


def selftests_facts(tree_name, arch_name="x86_64", where=HOME):
    """The SelftestsFacts of TREE's selftests on ARCH. An unknown
    architecture or tree is an error naming it, in that order."""
    a = arch(arch_name, where)
    return SelftestsFacts(tree(tree_name, where)[0],
                          tree_series(tree_name, where), a.make, a.cross)


def kernel_plan(tree_name, arch_name, variant, pick, want, where=HOME):
    """[(BUILD, [TIER...])] of the variant's builds that boot the tiers
    WANT, in the table's order: a tier boots on the first row of the
    variant listing it (PICK each) or the last (fewest)."""
    builds, chosen = [], {}
    for k in kernel_rows(tree_name, arch_name, where):
        if k.variant != variant:
            continue
        builds.append(k.build)
        for t in want:
            if t in k.boots and (pick == "fewest" or t not in chosen):
                chosen[t] = k.build
    for t in want:
        if t not in chosen:
            raise ValueError(f"{where.kernels}, tree {tree_name}, "
                             f"{arch_name}: no kernel of {variant} boots the "
                             f"{t} tier")
    out = [(b, [t for t in want if chosen[t] == b]) for b in builds]
    return [(b, ts) for b, ts in out if ts]
