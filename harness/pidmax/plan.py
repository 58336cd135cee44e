"""The planner: the job list of one kernel, a generator a tier. What a
tier cannot run on this kernel and accelerator is one job with a skip
field and the reason (the help of plan.sh says each tier's boots)."""
import dataclasses
import os
import re

from . import tables
from .jobs import Maker
from .kconfig import Config, pidns_scope, tcg_counts_hotplug_cpus

HELP = """\
Print the job list of one kernel, a boot a line. The kernel's .config
names its architecture (harness/arches), and with it the machine its
boots run on and how that machine describes its CPUs (FIRMWARE):
  hotplug    N possible CPUs, one online, for each N of --cpus (default:
             all, 1 to the architecture's MAXCPUS). acpi (x86-64):
             -smp 1,maxcpus=N, QEMU's not-present CPUs; under TCG a
             kernel since 6.3 boots it on the machine vmware
             (harness/machines: boot names end in -vmware), needing
             DMI and HYPERVISOR_GUEST, else the tier is a skip. dt
             (arm64, which QEMU cannot hotplug): -smp N and the
             kernel's maxcpus=1
  online     -smp N for each N of --online (default: 1,2,4,8,16,32,33,64,96,128,192,255)
  possible   -smp 1 and possible_cpus=N on the kernel command line for
             each N of --possible (default: none; up to 8192): N CPU
             ids that no firmware describes, one online; needs a kernel
             with NR_CPUS >= N (harness/kernels: the 6.1 kernels). dt
             (arm64): -smp 1, maxcpus=1 and a device tree describing N
             CPUs (the arm64 kernels whose build ends in nr4096: up to
             4096)
  wide-online   -smp N on QEMU 10's q35 with x2APIC and interrupt
             remapping (--wide-qemu) for each N of --wide-online
             (default: none): N firmware-described CPUs, all online
  wide-hotplug  -smp 256,maxcpus=N and maxcpus=1 on the kernel command
             line, for each N of --wide-hotplug (default: none; 257 to
             4096): N possible CPUs the firmware describes, one
             online; both need a kernel with X86_X2APIC, IRQ_REMAP and
             NR_CPUS >= N (harness/kernels: the 6.1 kernels), and
             are skips without --wide-qemu
  scenario   (--scenarios yes, the default) six boots: the extended
             guest checks on 64 CPUs (with pid_max in a child pid
             namespace), sysctl.kernel.pid_max= in and out
             of range, nr_cpus=40, possible_cpus=40 and maxcpus=2
  selftests  (--selftests "CPIO N", with the scenarios) one boot, one
             CPU: the kernel's own N pid_namespace selftests of CPIO
             (build-selftests.sh), each a KTAP line that must pass;
             --scenarios selftests plans that boot alone (a skip
             without --selftests)
  holes      (dt only) for each N of --holes (at least 4): -smp N,
             maxcpus=1 and a device tree without the enable method of
             cpu@1 to cpu@N/4 (holes-NNN-h1-Q: N - N/4 possible CPUs,
             nr_cpu_ids N), and a control with the holes at the top
             (holes-NNN-hA-B: nr_cpu_ids N - N/4); with --selftests,
             the machine of the first N above 32 (else the last) also
             runs them (-selftests), and with
             --selftests-unchanged those of CPIO, recorded, not judged
             (-selftests-unchanged: the tree's own, on a patched
             kernel)
LIST is like 1,2,32-34,255 or all; "" plans no boot of that tier.
--initrd is the guests' initramfs, unless the kernel carries its own
(CONFIG_INITRAMFS_SOURCE): then every job has initrd=builtin.
A tier that cannot run on this kernel and accelerator is one job with
a skip field and the reason; a --cpus LIST given for it is an error.
--label names the kernel in every boot name (default: the kernel's
file name); --accel is the accelerator the boots will use (tcg).
--series yes (the default) says the kernel carries the series, and auto
that it may (any --kernel FILE): both are held to the formula's series
model (nr_cpu_ids). no says it does not (Debian's own kernels): the
formula's stock model (the possible count, the minimum unclamped; the
job's model=stock field)."""

# The largest NR_CPUS of x86, q35's limit, the least wide-hotplug N
# (above the 256 CPUs QEMU is given) and the online tier's default (the
# sweep's defaults of every tier: sweep_options.py).
DEFAULT_ONLINE = "1,2,4,8,16,32,33,64,96,128,192,255"
MAX_NR_CPUS = 8192
MAX_Q35_CPUS = 4096
MIN_WIDE_HOTPLUG = 257


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of one kernel's plan, in the one shape the verb plan
    (plan.sh: its defaults are these), the sweep (one a kernel) and the
    tests build: the kernel, its .config and the guests' initramfs;
    each tier's list ("" plans none of it; cpus_given says the hotplug
    list was asked for, so a tier that cannot run is an error, not a
    skip); --scenarios yes, no or selftests; --series; QEMU 10 for the
    wide tiers and the selftests' "CPIO N" (HELP says each)."""
    kernel: str = ""
    config: str = ""
    initrd: str = ""
    label: str = ""
    accel: str = "tcg"
    cpus: str = "all"
    cpus_given: bool = False
    online: str = DEFAULT_ONLINE
    possible: str = ""
    wide_online: str = ""
    wide_hotplug: str = ""
    holes: str = ""
    scenarios: str = "yes"
    series: str = "yes"
    wide_qemu: str = ""
    selftests: str = ""
    selftests_unchanged: str = ""

    @classmethod
    def of(cls, namespace):
        """The options of the verb plan's parsed command line NAMESPACE,
        which names every field."""
        return cls(**{f.name: getattr(namespace, f.name)
                      for f in dataclasses.fields(cls)})


def short(text, most=40):
    """TEXT for a message: its start and end past MOST characters."""
    return text if len(text) <= most else f"{text[:20]}...{text[-12:]}"


def cpu_list(text, top, least=1):
    """The CPU counts of a list like 1,2,32-34,255 or all (LEAST to TOP),
    sorted, each once; "" is none."""
    if not text:
        return []
    counts = set()
    for item in (f"{least}-{top}" if text == "all" else text).split(","):
        ends = item.split("-")
        say = f"bad CPU list '{short(text)}': '{short(item)}'"
        if len(ends) > 2 or not all(e.isdigit() and e.isascii() for e in ends):
            raise ValueError(f"{say} is not N or N-M")
        # (Past nine digits a count is out of range: no int() of a
        # thousand digits, which Python refuses.)
        if any(len(e.lstrip("0")) > 9 for e in ends):
            raise ValueError(f"{say} is outside {least}-{top}")
        lo, hi = int(ends[0]), int(ends[-1])
        if lo < least or hi > top:
            raise ValueError(f"{say} is outside {least}-{top}")
        if lo > hi:
            raise ValueError(f"{say} runs backwards")
        counts.update(range(lo, hi + 1))
    return sorted(counts)


def online_tier(m, counts):
    """-smp N, all N online, on every architecture's default machine."""
    return [m.job(f"online-{n:03d}", "online", n, n, str(n)) for n in counts]


def possible_tier(m, counts, cfg, slots):
    """-smp 1 and possible_cpus=N: N CPU ids no firmware describes.
    Memory grows with N (a 256 KiB per-CPU unit per id under MAXSMP, of
    which 160 KiB stay, and the log buffer; Debian's own kernel ran out at
    4097 ids with 2 GiB), the timeout too. Past 3.5 GiB the pc machine
    puts RAM above 4 GiB, and 6.1 then sets up SWIOTLB with an area per
    possible CPU, its bounce buffer rounded up to 2 GiB at 8192 ids and
    zeroed under TCG: swiotlb=noforce (the guest has no DMA device) cut
    that boot from 44 s to 26 s (docs/speed.md)."""
    out, nr = [], cfg.nr_cpus()
    for n in counts:
        case = f"possible-{n:04d}"
        if not slots:
            out.append(m.skip(case, "possible", "possible_cpus= only lowers "
                              "the CPU count of this kernel under TCG"))
        elif n > nr:
            out.append(m.skip(case, "possible", f"NR_CPUS is {nr}: "
                              f"possible_cpus={n} needs a kernel built with "
                              "more (the 6.1 kernels of harness/kernels)"))
        else:
            mem = 512 + n * 5 // 8
            append = f"possible_cpus={n}" + \
                (" swiotlb=noforce" if mem >= 3584 else "")
            out.append(m.job(case, "possible", n, 1, "1", append=append,
                             mem=f"{mem}M", timeout=60 + n // 16))
    return out


def wide_tiers(m, online, hotplug, cfg, qemu, slots):
    """QEMU 10's q35 with x2APIC and the Intel IOMMU's interrupt
    remapping (the machine "wide"): N firmware-described CPUs all online,
    and 256 present of N possible. Where the kernel counts not-present
    CPUs only on a detected hypervisor (SLOTS false), wide-hotplug boots
    on "wide-vmware" when the kernel can detect VMware. Memory and
    timeout grow with N (288 online 63 s, 1024 possible 57 s, 4096
    possible 478 s)."""
    if not online and not hotplug:
        return []
    why, hot_why, hot = "", "", "wide"
    if not slots:
        hot = "wide-vmware"
        if not cfg.detects_vmware():
            hot_why = ("this kernel counts firmware-described hotplug CPUs "
                       "only on a detected hypervisor and lacks DMI or "
                       "HYPERVISOR_GUEST for the machine wide-vmware")
    if not cfg.boots_wide():
        why = ("the kernel lacks X86_X2APIC or IRQ_REMAP: it ignores APIC "
               "IDs of 255 and up (the 6.1 kernels of harness/kernels have "
               "them)")
    elif not qemu:
        why = ("no QEMU for more than 255 CPUs: QEMU 10 from "
               "bookworm-backports is unavailable (harness/fetch-qemu.sh)")
    out = []
    for tier, counts in (("wide-online", online), ("wide-hotplug", hotplug)):
        for n in counts:
            case = f"{tier[5:]}-{n:04d}"
            skip = why or (tier == "wide-hotplug" and hot_why) or (
                n > cfg.nr_cpus() and f"NR_CPUS is {cfg.nr_cpus()}: {n} CPUs "
                "need a kernel built with more")
            if skip:
                out.append(m.skip(case, tier, skip))
            elif tier == "wide-online":
                out.append(m.job(case, tier, n, n, str(n), machine="wide",
                                 qemu=qemu, mem=f"{512 + n}M",
                                 timeout=60 + n * n // 400))
            else:
                out.append(m.job(case + ("-vmware" if hot != "wide" else ""),
                                 tier, n, 1, f"256,maxcpus={n}", machine=hot,
                                 qemu=qemu, append="maxcpus=1",
                                 mem=f"{512 + n // 2}M", timeout=60 + n // 4))
    return out


def scenarios(m, version, slots, selftests, alone=False):
    """Six boots, 64 possible CPUs and one online (all 64 online where
    the kernel does not count QEMU's not-present CPUs): the extended
    checks (bad writes, PIDs above 32768 and the wrap, exhaustion, pid_max
    in a child pid namespace by the tree's semantics); the command line
    override on top of the heuristic (30000 is in range for both
    variants) and refused out of range; nr_cpus= and possible_cpus=
    lower nr_cpu_ids, so pid_max follows, maxcpus= only limits the CPUs
    brought up, so it does not. And the kernel's own pid_namespace
    selftests (SELFTESTS "CPIO N"), one CPU: ALONE plans that boot
    alone."""
    if alone:
        return selftests_boot(m, selftests)
    s64, on, on40 = ("1,maxcpus=64", 1, 1) if slots else ("64", 64, 40)
    out = [
        m.job("extended-064", "scenario", 64, on, s64,
              append="pidmax_harness=extended",
              pidns_scope=pidns_scope(version)),
        m.job("sysctl-override", "scenario", 64, on, s64,
              append="sysctl.kernel.pid_max=30000", pid_max=30000),
        m.job("sysctl-too-low", "scenario", 64, on, s64,
              append="sysctl.kernel.pid_max=100", sysctl_refused=1),
        m.job("nr_cpus-40", "scenario", 40, on40, s64, append="nr_cpus=40"),
        m.job("possible_cpus-40", "scenario", 40, on40, s64,
              append="possible_cpus=40"),
        m.job("maxcpus-2", "scenario", 40, 2, "40", append="maxcpus=2")]
    return out + (selftests_boot(m, selftests) if selftests else [])


def selftests_boot(m, selftests):
    """The boot of the selftests SELFTESTS ("CPIO N"), one CPU; without
    them a skip with the reason."""
    if not selftests:
        return [m.skip("selftests", "scenario", "no pid_namespace selftests "
                       "for this kernel: the sweep gives them to its own "
                       "kernels and Debian's (build-selftests.sh)")]
    cpio, count = selftests.rsplit(" ", 1)
    return [m.job("selftests", "scenario", 1, 1, "1", initrd_extra=cpio,
                  selftests=count)]


def dt_tiers(m, hotplug, online, holes, selftests, unchanged):
    """A device tree machine (arm64's virt), where QEMU has no
    not-present CPUs and the kernel's maxcpus=1 keeps all but one of -smp
    N offline. A hole is a cpu node without an enable method
    (holes-dtb.sh): arm64 leaves its id out of the possible map, so
    num_possible_cpus() counts N - Q while nr_cpu_ids stays N. Each N of
    HOLES gets Q = N/4 holes at cpu@1..cpu@Q, and a control with the same
    count at the top, where nr_cpu_ids is N - Q as well. The selftests
    (SELFTESTS, UNCHANGED: "CPIO N" each) run on the machine with holes
    below the top of the first N above 32, else of the last N; their
    boots come first, the longest of these (48 s of Debian's 7.3 kernel
    against 27 s for the machine without them), so that the runner
    boots the others beside them."""
    st = None
    for n in holes:
        if st is None or st <= 32:
            st = n
    first = []
    out = [m.job(f"hotplug-{n:03d}", "hotplug", n, 1, str(n),
                 append="maxcpus=1") for n in hotplug]
    out += online_tier(m, online)
    for n in holes:
        q = n // 4
        name = f"holes-{n:03d}-h1-{q}"
        low = dict(append="maxcpus=1", holes=f"1-{q}", cpu_ids=n)
        out.append(m.job(name, "holes", n - q, 1, str(n), **low))
        out.append(m.job(f"holes-{n:03d}-h{n - q}-{n - 1}", "holes", n - q,
                         1, str(n), append="maxcpus=1",
                         holes=f"{n - q}-{n - 1}", cpu_ids=n - q))
        if n != st:
            continue
        # The tree's own, unchanged, are recorded here; on the stock
        # kernels of the baseline both are judged (baseline.py).
        for suffix, st_cpio, more in (
                ("-selftests", selftests, {}),
                ("-selftests-unchanged", unchanged,
                 {"selftests_judged": "no"})):
            if st_cpio:
                cpio, count = st_cpio.rsplit(" ", 1)
                first.append(m.job(name + suffix, "holes", n - q, 1,
                                   str(n), **low, initrd_extra=cpio,
                                   selftests=count, **more))
    return first + out


def dt_possible_tier(m, counts, cfg):
    """-smp 1 and a device tree describing N CPUs (dt_cpus), the ones past
    QEMU's never run, and maxcpus=1; N past the 512 CPUs virt runs, up to
    the kernel's NR_CPUS (arm64's largest is 4096: the kernels whose
    build ends in nr4096), else a skip. Memory grows with N (4096 ids ran out of
    2 GiB), the timeout too."""
    out = []
    for n in counts:
        case = f"possible-{n:04d}"
        if n > cfg.nr_cpus():
            out.append(m.skip(case, "possible", f"NR_CPUS is {cfg.nr_cpus()}"
                              f": {n} CPUs need a kernel built with more (the "
                              "nr4096 kernels of harness/kernels)"))
        else:
            out.append(m.job(case, "possible", n, 1, "1", append="maxcpus=1",
                             dt_cpus=n, mem=f"{512 + n * 7 // 8}M",
                             timeout=60 + n // 16))
    return out


def x86_hotplug(m, counts, cfg, accel, cpus_given):
    """(jobs, slots) of the hotplug tier on the PC: -smp 1,maxcpus=N, QEMU's
    not-present CPUs. Under TCG a kernel since 6.3 sees only QEMU's
    present CPUs there (slots false): its tier boots on the machine
    vmware when the kernel can detect VMware, else it is a skip (an
    error when --cpus asked for it)."""
    machine, suffix = "pc", ""
    if accel == "tcg" and not tcg_counts_hotplug_cpus(cfg.version):
        why = (f"Linux {cfg.version or '?'} under TCG ignores QEMU's "
               "hotpluggable CPUs (-smp 1,maxcpus=N gives 1 possible CPU)")
        if cfg.detects_vmware():
            machine, suffix = "vmware", "-vmware"
        elif counts:
            why += (" unless it detects a hypervisor: this kernel lacks DMI "
                    "or HYPERVISOR_GUEST for the machine vmware")
            if cpus_given:
                raise UsageError(f"{why}: use --cpus '' and --online LIST "
                                 "for this kernel")
            return [m.skip("hotplug", "hotplug", why)], False
        if machine == "pc":
            return [], False
        return [m.job(f"hotplug-{n:03d}{suffix}", "hotplug", n, 1,
                      f"1,maxcpus={n}", machine=machine)
                for n in counts], False
    return [m.job(f"hotplug-{n:03d}", "hotplug", n, 1, f"1,maxcpus={n}",
                  machine=machine) for n in counts], True


class UsageError(ValueError):
    """A bad command line: exit 2."""


def plan(o, where=tables.HOME):
    """The job lines of the options O (Options), on the tables WHERE
    (tables.Tables)."""
    cfg = Config(o.config)
    arch = tables.arches(where)[cfg.arch(where)]
    lists = read_lists(o, arch)
    accel = o.accel if arch.is_host() else "tcg"
    label = o.label or os.path.basename(o.kernel)
    m = Maker(o.kernel, o.config, cfg.initrd(o.initrd), label, accel,
              o.series, cfg=cfg, where=where)
    if arch.firmware == "dt":
        out = dt_tiers(m, lists["cpus"], lists["online"], lists["holes"],
                       o.selftests, o.selftests_unchanged)
        out += dt_possible_tier(m, lists["possible"], cfg)
        for tier, given in (("wide-online", lists["wide_online"]),
                            ("wide-hotplug", lists["wide_hotplug"]),
                            ("scenario", o.scenarios != "no")):
            if given:
                out.append(m.skip(tier, tier, f"{arch.name} boots a device "
                                  f"tree: the {tier} tier is x86-64's (the "
                                  "MADT, possible_cpus=, q35)"))
        return out
    out = [] if not lists["holes"] else [m.skip(
        "holes", "holes", f"{arch.name} describes its CPUs in ACPI's MADT: "
        "the holes tier needs a device tree (FIRMWARE dt in harness/arches)")]
    jobs, slots = x86_hotplug(m, lists["cpus"], cfg, accel, o.cpus_given)
    out += jobs + online_tier(m, lists["online"])
    out += possible_tier(m, lists["possible"], cfg, slots)
    out += wide_tiers(m, lists["wide_online"], lists["wide_hotplug"], cfg,
                      o.wide_qemu, slots)
    if o.scenarios != "no":
        out += scenarios(m, cfg.version, slots, o.selftests,
                         o.scenarios == "selftests")
    return out


def read_lists(o, arch):
    """The tiers' CPU counts from the options O, each checked against its
    bounds; the selftests' "CPIO N" and the label checked too."""
    bounds = {"cpus": (arch.maxcpus, 1), "possible": (MAX_NR_CPUS, 1),
              "online": (arch.maxcpus, 1), "holes": (arch.maxcpus, 4),
              "wide_online": (MAX_Q35_CPUS, 1),
              "wide_hotplug": (MAX_Q35_CPUS, MIN_WIDE_HOTPLUG)}
    lists = {}
    for key, (top, least) in bounds.items():
        try:
            lists[key] = cpu_list(getattr(o, key), top, least)
        except ValueError as err:
            raise UsageError(f"--{key.replace('_', '-')}: {err}")
    for key in ("selftests", "selftests_unchanged"):
        value = getattr(o, key)
        if value and not re.fullmatch(r"/[^ ]+ [1-9][0-9]*", value):
            raise UsageError(f"--{key.replace('_', '-')} wants \"CPIO N\" (an "
                             f"absolute path and a count), not '{value}'")
    label = o.label or os.path.basename(o.kernel)
    if not re.fullmatch(r"[A-Za-z0-9._+-]+", label):
        raise UsageError(f"--label '{label}': use letters, digits and . _ + - "
                         "only")
    return lists
