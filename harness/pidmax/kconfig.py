"""What a kernel can boot, answered from its .config alone: the same for a
kernel built by the sweep and for any --kernel FILE."""
import re

from . import tables

VERSION = re.compile(r"^# Linux/[^ ]* ([0-9][0-9.]*) Kernel Configuration$")


class Config:
    """A kernel's .config: its CONFIG_ values (the last of each) and the
    version in its header."""

    def __init__(self, path):
        self.path, self.values, self.version = path, {}, ""
        try:
            with open(path, encoding="latin-1") as f:
                lines = f.read().splitlines()
        except OSError:
            raise ValueError(f"kernel config '{path}' is not readable")
        for line in lines:
            m = VERSION.match(line)
            if m and not self.version:
                self.version = m.group(1)
            key, sep, value = line.partition("=")
            if sep and key.startswith("CONFIG_"):
                self.values[key[7:]] = value

    def get(self, sym):
        """CONFIG_SYM's value, "n" when unset."""
        return self.values.get(sym, "n")

    def arch(self, where=tables.HOME):
        """The architecture (a row of harness/arches, WHERE's) the .config
        sets."""
        for name, arch in tables.arches(where).items():
            if self.get(arch.kconfig) == "y":
                return name
        raise ValueError(f"{self.path} sets none of the architectures of "
                         f"{where.arches}")

    def pid_params(self):
        """(BASE_SMALL, 64-bit, the KUnit suite): the first two 0 or 1,
        the suite 1 built in, "m" a module (the guest loads it), else 0."""
        return (int(self.get("BASE_SMALL") in ("1", "y")),
                int(self.get("64BIT") == "y"), self.kunit())

    def kunit(self):
        """The KUnit suite "pid_max": 1 built in, "m" a module (with
        CONFIG_MODULES, else it is not built), 0 not built."""
        value = self.get("PID_MAX_KUNIT_TEST")
        if value == "m" and self.get("MODULES") == "y":
            return "m"
        return int(value == "y")

    def initrd(self, initrd):
        """How the jobs give the guest its initramfs: "builtin" when the
        kernel carries one (the wide kernels: an -initrd overwrites
        SeaBIOS's ACPI tables past about 1000 CPUs), else INITRD."""
        return initrd if self.get("INITRAMFS_SOURCE") in ("n", '""') \
            else "builtin"

    def boots_wide(self):
        """x2APIC and interrupt remapping: APIC IDs past 254."""
        return self.get("X86_X2APIC") == "y" and self.get("IRQ_REMAP") == "y"

    def detects_vmware(self):
        """Whether the kernel can detect VMware from the DMI serial number
        and the backdoor port, as the machine vmware (harness/machines)
        shows it: HYPERVISOR_GUEST with DMI."""
        return self.get("HYPERVISOR_GUEST") == "y" and self.get("DMI") == "y"

    def nr_cpus(self):
        value = self.get("NR_CPUS")
        return int(value) if value.isdigit() else 1


def version_at_least(version, major, minor, unknown):
    """Whether VERSION ("6.12.3") is MAJOR.MINOR or later; UNKNOWN when it
    does not say."""
    parts = (version.split(".") + ["", ""])[:2]
    if not all(p.isdigit() for p in parts):
        return unknown
    return (int(parts[0]), int(parts[1])) >= (major, minor)


def tcg_counts_hotplug_cpus(version):
    """Whether an x86 kernel of VERSION counts the not-present CPUs of
    QEMU's MADT (Enabled=0) as possible under TCG. Since 6.3,
    acpi_is_processor_usable() counts them only for a detected
    hypervisor, and TCG is not one: -smp 1,maxcpus=N then gives one
    possible CPU (the machine vmware is detected). KVM would be too."""
    return not version_at_least(version, 6, 3, False)


def pidns_scope(version):
    """What a write to pid_max in a child pid namespace changes on a
    kernel of VERSION: "namespace" since 6.14, where each pid namespace
    has its own pid_max (a new one starts at PID_MAX_LIMIT,
    create_pid_namespace(); forks in it are bounded by it and by every
    ancestor's), else "global", the one pid_max every namespace reads."""
    return "namespace" if version_at_least(version, 6, 14, False) \
        else "global"
