"""The job writer: one boot a line, what to boot and how (kernel, initrd,
accel, QEMU's -smp, memory, timeout, extra kernel parameters) and what
the judge must find (possible and online CPUs, pid_max, pid_max_min,
pid_max_max, the boot line, whether a sysctl.kernel.pid_max= setting is
refused, whether the KUnit suite runs: kunit=1 built in, kunit=m a
module the guest loads, kunit=0 not built). The expectations travel with
the job, from the formula and the kernel's .config, so the judge never
recomputes them. A job with a "skip" field is a boot that does not
apply, and the field says why.
"""
from . import formula, tables
from .joblist import Job
from .kconfig import Config

# The optional fields of a job and their values when not given.
OPTIONAL = {"append": "", "pid_max": "", "sysctl_refused": "0",
            "timeout": "", "series": "", "mem": "512M", "machine": None,
            "qemu": "", "pidns_scope": "", "initrd_extra": "",
            "selftests": "", "selftests_judged": "", "holes": "",
            "cpu_ids": "", "dt_cpus": ""}



class Maker:
    """The jobs of one kernel: KERNEL booted with INITRD (its .config
    CONFIG gives BASE_SMALL, 64-bit, the suite and the architecture,
    unless FACTS gives them: small, is64, kunit; CFG is that .config read
    already), named LABEL-CASE, under
    ACCEL. SERIES is yes (built here with the series), auto (any
    --kernel: held to the series' model too) or no (the stock model).
    WHERE's arches and KUnit cases (tables.Tables) are the ones read."""

    def __init__(self, kernel, config, initrd, label, accel, series="yes",
                 facts=None, cfg=None, where=tables.HOME):
        self.kernel, self.config, self.initrd = kernel, config, initrd
        self.label, self.accel, self.series = label, accel, series
        self.where = where
        if facts is None:
            cfg = cfg or Config(config)
            facts = cfg.pid_params()
            self.machine = tables.arches(where)[cfg.arch(where)].machine
        else:
            self.machine = "pc"
        self.small, self.is64, self.kunit = facts
        self.variant = "small" if self.small else "full"

    def cases(self):
        """The kunit_cases field of a kernel with the suite: the cases it
        must pass (tables.kunit_cases), read once."""
        if str(self.kunit) == "0":
            return []
        if not hasattr(self, "_cases"):
            self._cases = ",".join(tables.kunit_cases(self.where))
        return [("kunit_cases", self._cases)]

    def skip(self, case, tier, reason):
        """The line of a boot that does not apply to this kernel."""
        return Job(name=f"{self.label}-{case}", tier=tier,
                   variant=self.variant, label=self.label, skip=reason).line()

    def expected(self, possible, x):
        """The formula's values for this job, and the model's field."""
        if self.series == "no":
            return formula.expected(possible, self.small, self.is64,
                                    "stock"), [("model", "stock")]
        count = int(x["cpu_ids"]) if x["cpu_ids"] else possible
        return formula.expected(count, self.small, self.is64), []

    def job(self, case, tier, possible, online, smp, **given):
        """The line of boot LABEL-CASE with QEMU's -smp SMP, where the
        guest must show POSSIBLE possible and ONLINE online CPUs. The
        fields of OPTIONAL may be given: pid_max is the value /proc must
        show instead (a sysctl.kernel.pid_max= override; the boot line
        still shows the formula's); pidns_scope adds the child pid
        namespace check; initrd_extra with selftests gives the guest the
        kernel's own selftests on top of its initramfs; holes leaves the
        CPU ids of a list out of the possible map, cpu_ids then being
        nr_cpu_ids; dt_cpus is a device tree describing that many CPUs."""
        unknown = set(given) - set(OPTIONAL)
        if unknown:
            raise ValueError(f"make_job: unknown field '{sorted(unknown)[0]}'")
        x = {**OPTIONAL, "machine": self.machine,
             **{k: str(v) for k, v in given.items()}}
        e, more = self.expected(possible, x)
        boot_value = x["pid_max"] or str(e.pid_max)
        if x["pidns_scope"]:
            more += pidns_fields(x, e, x["pidns_scope"], boot_value)
        if x["selftests"]:
            more += [("initrd_extra", x["initrd_extra"]),
                     ("selftests", x["selftests"])]
        if x["selftests_judged"]:
            more.append(("selftests_judged", x["selftests_judged"]))
        if x["holes"]:
            more += [("holes", x["holes"]), ("cpu_ids", x["cpu_ids"])]
        if x["dt_cpus"]:
            more.append(("dt_cpus", x["dt_cpus"]))
        timeout = x["timeout"] or str(60 + int(smp.split(",")[0]))
        return Job.read([
            ("name", f"{self.label}-{case}"), ("tier", tier),
            ("variant", self.variant), ("label", self.label),
            ("kernel", self.kernel), ("config", self.config),
            ("initrd", self.initrd), ("accel", self.accel), ("smp", smp),
            ("mem", x["mem"]), ("timeout", timeout), ("append", x["append"]),
            *more, ("possible", possible), ("online", online),
            ("pid_max", boot_value), ("pid_max_min", e.minimum),
            ("pid_max_max", e.limit), ("line_default", e.pid_max),
            ("line_min", e.minimum), ("sysctl_refused", x["sysctl_refused"]),
            ("kunit", self.kunit), *self.cases(),
            ("series", x["series"] or self.series),
            ("machine", x["machine"]), ("qemu", x["qemu"])]).line()


def pidns_fields(x, e, scope, boot_value):
    """The child pid namespace check (guest-init.sh's pidns_checks): the
    value W written in the child (pid_max_min + 1000, in range), added to
    the job's append, and what the child reads before and the parent
    after, by SCOPE: "namespace", the child starts at PID_MAX_LIMIT and
    the parent keeps the boot value; "global", both read the one value,
    the boot value then W. Forks in the child get W - 1 after
    ns_last_pid W - 2, then wrap, on every tree."""
    w = e.minimum + 1000
    x["append"] += (" " if x["append"] else "") + f"pidmax_pidns={w}"
    if scope == "namespace":
        child, parent = e.limit, boot_value
    else:
        child, parent = boot_value, w
    return [("pidns", w), ("pidns_child", child), ("pidns_parent", parent),
            ("pidns_scope", scope)]
