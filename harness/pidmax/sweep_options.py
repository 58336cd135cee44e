"""The sweep's options (harness/sweep-smp.sh): its help text, each
architecture's default lists, reading and checking the options (--only
among them) once into a frozen Request, and which tiers it asks of each
kernel's plan."""
import argparse
import dataclasses
import os
import types
from typing import Mapping

from . import tables
from .plan import (DEFAULT_ONLINE, MAX_NR_CPUS, MAX_Q35_CPUS,
                   MIN_WIDE_HOTPLUG, Options, UsageError, cpu_list)
from .settings import Settings

# Each architecture's default list of each tier. x86-64: every CPU count
# QEMU 7.2 starts for the hotplug tier; the online tier's regimes (the
# floor, the edge of scaling at 32/33, the top) and enough points between
# for the PID budget's fit; the possible tier past QEMU's 255
# (possible_cpus=), across the clamp at 4096 up to NR_CPUS's largest x86
# value, with 1664, the machine of the 2010 report; the wide tiers on
# QEMU 10's q35. arm64 (QEMU's virt, no hotplug, 512 vCPUs at most): one
# CPU online of N across the edge up to 512; all online up to 256 (past
# 64 online vCPUs TCG runs a host thread each on two cores: 128 took
# 110 s, 256 203 s; docs/speed.md); holes in the possible map at 8
# (below the edge), 64, 256 and 512; a device tree describing more CPUs
# than virt runs, up to arm64's largest NR_CPUS (1024 took 4.5 s, 4096
# 41 s); no counterpart of x86-64's wide tiers or scenarios.
DEFAULTS = {
    "x86_64": {"hotplug": "all", "online": DEFAULT_ONLINE, "holes": "",
               "possible": "256,512,1024,1664,2048,4095,4096,4097,8192",
               "wide_online": "256,288,384,512",
               "wide_hotplug": "512,1024,2048,4096", "scenarios": "yes"},
    "arm64": {"hotplug": "1,2,8,32,33,64,128,256,512",
              "online": "1,2,4,8,16,32,33,64,128,256",
              "holes": "8,64,256,512", "possible": "1024,2048,4096",
              "wide_online": "", "wide_hotplug": "", "scenarios": "no"},
}
# --only's tiers, and the option that sets each.
ONLY = {"hotplug": "cpus", "online": "online", "possible": "possible",
        "wide-online": "wide_online", "wide-hotplug": "wide_hotplug",
        "holes": "holes"}
# The options that set a tier's list: not with --only.
TIER_OPTIONS = ("cpus", "online", "possible", "wide_online", "wide_hotplug",
                "scenarios", "holes")


def default(tier, arch):
    """The default list of TIER (hotplug, online, holes, possible,
    wide_online, wide_hotplug, or scenarios: yes or no) on ARCH."""
    try:
        return DEFAULTS[arch][tier]
    except KeyError:
        raise ValueError(f"no default {tier} list for {arch} "
                         "(DEFAULTS in harness/pidmax/sweep_options.py)")


class Parser(argparse.ArgumentParser):
    """Errors as every script of the harness gives them: the message,
    then "Try 'PROG --help'.", exit 2."""

    def error(self, message):
        raise UsageError(message)

    def print_help(self, file=None):
        print(help_text(), file=file)


def parser(prog):
    p = Parser(prog=prog, add_help=True, allow_abbrev=False)
    p.add_argument("--only", action="append", default=[])
    for name in TIER_OPTIONS:
        p.add_argument("--" + name.replace("_", "-"), dest=name,
                       action=TierOption, default="default")
    for name, value in (("arch", "x86_64"), ("jobs", "2"), ("kernel", ""),
                        ("config", ""), ("tree", "6.1"), ("variant", "full"),
                        ("accel", "auto"), ("build-dir", None),
                        ("out", ""), ("shard", "")):
        p.add_argument("--" + name, default=value)
    p.add_argument("--list", action="store_true")
    p.add_argument("--baseline", action="store_true")
    p.add_argument("--fewest-kernels", dest="pick", action="store_const",
                   const="fewest", default="each")
    p.add_argument("operands", nargs="*")
    return p


class TierOption(argparse.Action):
    """A tier's own option, remembered (not with --only)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.tier_given = "--" + self.dest.replace("_", "-")
        if self.dest == "cpus":
            namespace.cpus_given = True


@dataclasses.dataclass(frozen=True)
class Request:
    """A sweep's command line, read once and checked (read): each tier's
    list as plan.sh takes it (the architecture's where no option named
    it, the wide ones comma lists) and its CPU counts, the other options
    with their types, and the settings (settings.py) and program name it
    was read with. A later stage that settles an option hands on a
    changed copy (dataclasses.replace): sweep_kernels the kernel and its
    variants, the sweep the accelerator of auto and the folders' real
    paths. Request() asks for no boot; tests build the ones they need."""
    # The tiers' lists (TIER_OPTIONS): "" boots none of a tier; scenarios
    # is yes, no or selftests (their boot alone, from --only).
    cpus: str = ""
    online: str = ""
    possible: str = ""
    wide_online: str = ""
    wide_hotplug: str = ""
    holes: str = ""
    scenarios: str = "no"
    # Whether the hotplug list is given to the planner (not its "all").
    cpus_given: bool = False
    # The CPU counts of each list but scenarios, sorted, by the name
    # of its option (cpus, online, wide_online...).
    counts: Mapping[str, tuple] = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({}))
    only: tuple = ()
    arch: str = "x86_64"
    jobs: int = 2
    kernel: str = ""
    config: str = ""
    tree: str = "6.1"
    variant: str = "full"
    accel: str = "auto"
    # The build folder (--build-dir, else the checkout's build/) and
    # the results folder (--out, else the checkout's results/ or the
    # shard's folder there); out_given whether --out named it.
    build: str = ""
    out: str = ""
    out_given: bool = False
    # --shard I/N as given, and its I and N (0 without it).
    shard: str = ""
    shard_i: int = 0
    shard_n: int = 0
    list: bool = False
    baseline: bool = False
    # --fewest-kernels: "fewest", else "each".
    pick: str = "each"
    prog: str = ""
    settings: Settings = Settings()
    # What sweep_kernels.check_kernel_options settles: the variants to
    # build, whether --kernel debian found Debian's kernel (stock) or
    # its suite was unreachable (missing).
    variants: tuple = ()
    stock: bool = False
    missing: bool = False
    # --list: the folder of the .configs planned from fragments.
    planned: str = ""

    @property
    def want(self):
        """The tiers the request asks for (wanted_tiers)."""
        return tuple(wanted_tiers(self))


def read(argv, prog, repo, settings=Settings()):
    """The Request of ARGV, every list checked, the tiers' lists the
    architecture's where no option named them; --arch a row of the
    arches of SETTINGS's tables (tables.Tables)."""
    a = parser(prog).parse_args(argv, types.SimpleNamespace(
        tier_given="", cpus_given=False))
    if a.operands:
        raise UsageError(f"unexpected operand '{a.operands[0]}'")
    known = tables.arches(settings.tables)
    if a.arch not in known:
        raise UsageError(f"--arch wants one of {' '.join(known)} "
                         f"(harness/arches), not '{a.arch}'")
    lists = {name: default("hotplug" if name == "cpus" else name, a.arch)
             if getattr(a, name) == "default" else getattr(a, name)
             for name in TIER_OPTIONS}
    # A default hotplug list other than "all" is given to plan.sh.
    cpus_given = a.cpus_given or lists["cpus"] != "all"
    if a.only:
        lists, cpus_given = only_tiers(a.only, a.tier_given), True
    elif lists["scenarios"] not in ("yes", "no"):
        raise UsageError("--scenarios wants yes or no, not "
                         f"'{lists['scenarios']}'")
    counts = count_lists(lists, known[a.arch].maxcpus)
    for name in ("wide_online", "wide_hotplug"):
        lists[name] = ",".join(map(str, counts[name]))
    if not (a.jobs.isascii() and a.jobs.isdigit() and int(a.jobs) > 0):
        raise UsageError(f"--jobs wants a positive number, not '{a.jobs}'")
    shard_i, shard_n, out = results_of(a.shard, a.out, repo)
    if not any(counts.values()) and lists["scenarios"] == "no":
        raise UsageError("every tier's list is empty and --scenarios is no: "
                         "nothing to boot")
    return Request(
        **lists, cpus_given=cpus_given,
        counts=types.MappingProxyType(counts), only=tuple(a.only),
        arch=a.arch, jobs=int(a.jobs), kernel=a.kernel, config=a.config,
        tree=a.tree, variant=a.variant, accel=a.accel,
        build=a.build_dir or os.path.join(repo, "build"), out=out,
        out_given=bool(a.out), shard=a.shard, shard_i=shard_i,
        shard_n=shard_n, list=a.list, baseline=a.baseline, pick=a.pick,
        prog=prog, settings=settings)


def only_tiers(only, tier_given):
    """--only's lists: every tier off, then each one named on at its
    LIST; not with a tier's own option (TIER_GIVEN)."""
    if tier_given:
        raise UsageError(f"--only and {tier_given}: name every tier with "
                         "--only")
    lists = dict.fromkeys(ONLY.values(), "")
    lists["scenarios"] = "no"
    for t in only:
        tier, sep, value = t.partition(":")
        if t == "scenarios":
            lists["scenarios"] = "yes"
        elif t == "selftests":
            # The selftests' boot of the scenarios alone (with them: all).
            lists["scenarios"] = "yes" if lists["scenarios"] == "yes" \
                else "selftests"
        elif sep and tier in ONLY:
            # A tier named twice: its lists joined.
            lists[ONLY[tier]] = ",".join(
                x for x in (lists[ONLY[tier]], value) if x)
        else:
            raise UsageError("--only wants TIER:LIST (hotplug, online, "
                             "possible, wide-online, wide-hotplug, holes), "
                             f"scenarios or selftests, not '{t}'")
    return lists


def count_lists(lists, maxcpus):
    """The CPU counts of each tier's list of LISTS, checked against its
    bounds (MAXCPUS the architecture's), a tuple each."""
    bounds = (("cpus", maxcpus, 1), ("online", maxcpus, 1),
              ("holes", maxcpus, 4), ("possible", MAX_NR_CPUS, 1),
              ("wide_online", MAX_Q35_CPUS, 1),
              ("wide_hotplug", MAX_Q35_CPUS, MIN_WIDE_HOTPLUG))
    counts = {}
    for name, top, least in bounds:
        try:
            counts[name] = tuple(cpu_list(lists[name], top, least))
        except ValueError as err:
            hint = " (N above the 256 CPUs QEMU is given)" \
                if name == "wide_hotplug" else ""
            raise UsageError(f"--{name.replace('_', '-')}: {err}{hint}")
    return counts


def results_of(spec, out, repo):
    """(I, N, results folder) of --shard SPEC (0, 0 without it) and
    --out OUT: the shard's folder, else the checkout's results/, where
    --out names none."""
    if not spec:
        return 0, 0, out or os.path.join(repo, "results")
    from . import shard
    try:
        i, n = shard.spec(spec)
    except ValueError:
        raise UsageError(f"--shard wants I/N with 1 <= I <= N, not '{spec}'")
    return i, n, out or os.path.join(repo, "results", f"shard-{i}-of-{n}")


def wanted_tiers(o):
    """The tiers the options ask for (the kernel table's names)."""
    w = [t for t, name in (("hotplug", "cpus"), ("online", "online"))
         if o.counts[name]]
    w += ["scenario"] if o.scenarios != "no" else []
    w += [t for t, name in ONLY.items()
          if t not in ("hotplug", "online") and o.counts[name]]
    return w


def plan_options(o, tiers, **given):
    """The options of the verb plan (plan.Options) for a kernel that
    boots TIERS, every other tier off; GIVEN the kernel's own (kernel,
    config, label...). Without --cpus the planner's own default stands
    for the hotplug tier (on a kernel that cannot boot it, a skip; a
    LIST given would be an error)."""
    lists = {name: getattr(o, name) if t in tiers else ""
             for t, name in ONLY.items()}
    return Options(
        **lists, **given,
        cpus_given=o.cpus_given if "hotplug" in tiers else True,
        scenarios=o.scenarios if "scenario" in tiers else "no")


HELP = """\
Usage: harness/sweep-smp.sh [OPTION]...
Boot QEMU guests with 1 to 8192 possible CPUs and check that pid_max is
max(32768, 1024 * nr_cpu_ids) clamped to PID_MAX_LIMIT in each.

Five tiers on x86-64 (none puts a pid_max setting on the kernel command
line), and six scenario boots:
  hotplug   -smp 1,maxcpus=N: N possible CPUs, one online (fast), 1..255
            (6.12 and 7.3 under TCG: on the machine vmware,
            harness/machines, the only one where they count them)
  online    -smp N: all N CPUs online, 1..255
  possible  -smp 1 and the kernel parameter possible_cpus=N: N CPU ids
            no firmware describes, one online, up to 8192 (NR_CPUS
            8192: the 6.1 kernels of harness/kernels)
  wide-online, wide-hotplug  past 255 CPUs the firmware describes, up
            to 4096, on QEMU 10 (see --wide-online, --wide-hotplug)
Four on arm64 (--arch arm64: QEMU's virt with GICv3, up to 512 CPUs):
  hotplug   -smp N and the kernel's maxcpus=1: N possible, one online
            (QEMU hotplugs no arm64 CPU), default {arm64[hotplug]}
  online    -smp N, default {arm64[online]}
  holes     -smp N, maxcpus=1 and QEMU's device tree less the enable
            method of cpu@1..cpu@N/4: CPU ids never possible, so
            nr_cpu_ids (N) exceeds the possible count (N - N/4), beside
            a control with the holes at the top; default {arm64[holes]}
            (see --holes)
  possible  -smp 1, maxcpus=1 and a device tree describing N CPUs, past
            the 512 virt runs: default {arm64[possible]} (NR_CPUS
            4096 kernels)

Options:
  --arch A         the architecture, a row of harness/arches: x86_64
                   (the default) or arm64 (cross-built, booted under
                   TCG); each tier's default list is the architecture's
  --only TIER:LIST boot only these tiers, each at its LIST (repeatable;
                   every tier not named is off): hotplug, online,
                   possible, wide-online, wide-hotplug, holes, and
                   scenarios (no LIST); selftests (no LIST) the
                   scenarios' selftests boot alone. One boot: --only
                   online:8. Not with the tiers' own options below
  --holes LIST     holes tier CPU counts N, at least 4 (arm64;
                   default: {arm64[holes]}); "" skips the tier
  --cpus LIST      hotplug tier CPU counts (default: all = 1-255);
                   LIST is like 1,2,32-34,255; "" skips the tier
  --online LIST    online tier CPU counts
                   (default: {x86_64[online]}); "" skips the tier
  --possible LIST  possible tier CPU counts, up to 8192
                   (default: {x86_64[possible]}); "" skips the tier
  --wide-online LIST   all N CPUs online past 255, N firmware-described
                   CPUs (default: {x86_64[wide_online]})
  --wide-hotplug LIST  -smp 256,maxcpus=N and maxcpus=1: N firmware-
                   described possible CPUs (default: {x86_64[wide_hotplug]});
                   both wide tiers boot QEMU 10 from bookworm-backports
                   (fetch-qemu.sh, never installed) on q35 with x2APIC
                   and interrupt remapping, a kernel built with them
                   (the 6.1 kernels); unreachable, they are skips
  --jobs N         guests booted at once (default: 2); a guest with 16
                   or more CPUs online always boots alone
  --kernel FILE    boot this vmlinux or bzImage instead of building
                   one; the expected values come from FILE's
                   directory's .config. "debian": Debian's own amd64
                   (or --arch's) kernel of --tree's suite (harness/trees:
                   6.1 the host's, 7.3 trixie-backports'), fetched into
                   the build folder (never installed) by fetch-stock.sh
  --config FILE    the .config of --kernel FILE
  --tree T         kernel tree to build, a tree of the kernel table
                   harness/kernels: 6.1 (default), 6.12 or 7.3 (fetched
                   from trixie-backports, harness/trees; unreachable, its
                   tiers are skips); each kernel boots every tier its
                   .config allows, the rest skip
  --variant V      the tree's variant to build: full (default), small
                   (CONFIG_BASE_SMALL), or all (every variant, planned
                   into one job list, side by side in DIR/variants.csv)
  --fewest-kernels  boot each tier on the last kernel of its variant
                   in harness/kernels that lists it, not the first: on
                   6.1 one build a variant (NR_CPUS 8192, x2APIC) boots
                   every tier, its 1..255 boots slower (docs/speed.md);
                   what CI does to save builds
  --scenarios Y/N  yes (default): also boot the six scenario guests: the
                   extended checks (bad writes, PIDs above 32768,
                   exhaustion), sysctl.kernel.pid_max= in and out of
                   range, nr_cpus=, possible_cpus= and maxcpus=
  --accel A        auto (default: KVM only if a probe boot passes),
                   tcg or kvm
  --build-dir DIR  where the tree and builds live (default: build/)
  --out DIR        where results go (default: results/): a new or empty
                   folder, or a results folder of an earlier run (its
                   sweep's files are replaced); a folder of other files
                   is refused, before anything is built
  --baseline       also build every kernel without the series (the
                   stock kernel) and boot the same jobs on it
                   (baseline.sh), into DIR/baseline; DIR/compare.csv
                   has stock and patched values side by side. The
                   exit status is the patched kernels' alone
  --list           print the job list (plan.sh) in seconds; install,
                   fetch, build, boot and write nothing (an unbuilt
                   kernel is planned from its config fragments)
  --shard I/N      run only shard I of N of the job list (shard.sh:
                   every boot in exactly one shard, heavy boots spread);
                   results in DIR (default: results/shard-I-of-N), to
                   be joined by harness/merge-results.sh
  -h, --help       this text

Writes DIR/jobs, DIR/boots/*.log, DIR/results.ktap, results.csv,
results.xml (JUnit), checks.csv, pid_max.svg and .png (gnuplot), and
from the online tier pid_budget.csv, .txt and .svg; prints
a line per boot (and a progress line on a terminal), ends with
"N passed, N failed, N skipped", and exits non-zero when anything failed.
harness/report.sh DIR judges a finished folder again without booting."""


def help_text():
    """The help text, with each architecture's default lists."""
    return HELP.format(**DEFAULTS)
