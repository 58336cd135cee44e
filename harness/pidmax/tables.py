"""The harness's tables, read here alone: harness/trees, kernels,
machines and arches. Each is whitespace-separated columns with # comments;
a machine's QEMU arguments and an architecture's kernel parameters are
the rest of their line."""
import os
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
    """harness/trees: tree -> (suite, series folder)."""
    path = path or table("trees")
    return {w[0]: (w[1], w[2]) for _, w in rows(path)}
