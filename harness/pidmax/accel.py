"""The accelerator of a sweep: KVM only when a short probe boot on it
reaches the guest's final marker, TCG otherwise. The probe's verdict is
kept in BUILD_DIR/kvm-probe for the rest of this host boot, so the
sweeps of one CI run probe once, not each. (/dev/kvm may exist and hang
a guest: its presence decides nothing.)"""
import os

from . import console, guest, joblist
from .jobs import Maker
from .settings import Settings

PROBE_TIMEOUT = 20  # a working KVM boots one CPU in about a second


def host_boot():
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def cached(path, boot):
    """The verdict kept at PATH for the host boot BOOT, else None."""
    try:
        with open(path) as f:
            words = f.readline().split()
    except OSError:
        return None
    if len(words) == 2 and words[0] == boot and words[1] in ("tcg", "kvm"):
        return words[1]
    return None


def probe(build, kernel, config, initrd, settings=Settings()):
    """Boot one CPU under KVM, on SETTINGS' tables and emulator: "kvm"
    when the guest proves itself."""
    m = Maker(kernel, config, initrd, "kvm-probe", "kvm",
              where=settings.tables)
    job = joblist.Job.parse(m.job("probe", "probe", 1, 1, "1",
                                  timeout=PROBE_TIMEOUT))
    log = os.path.join(build, "kvm-probe.log")
    try:
        g = guest.Guest(job, log, settings=settings)
        g.start()
        meta = g.wait()
    except ValueError:
        return "tcg"
    record, _ = console.parse(log, meta)
    return "kvm" if record.end else "tcg"


def choose(build, kernel, config, initrd, may_probe=True,
           settings=Settings()):
    """(verdict, how it was reached). Without MAY_PROBE (the sweep's
    --list) it writes nothing. A probe boots on SETTINGS (probe)."""
    if may_probe:
        os.makedirs(build, exist_ok=True)
    boot, cache = host_boot(), os.path.join(build, "kvm-probe")
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no usable /dev/kvm"
    verdict = cached(cache, boot)
    if verdict:
        return verdict, f"KVM probe verdict cached for this host boot in {cache}"
    if not may_probe:
        return "tcg", "KVM not probed yet; a sweep that boots will probe it"
    verdict = probe(build, kernel, config, initrd, settings)
    with open(cache, "w") as f:
        f.write(f"{boot} {verdict}\n")
    passed = "passed" if verdict == "kvm" else "failed"
    return verdict, (f"KVM probe boot: {passed}, log: "
                     f"{os.path.join(build, 'kvm-probe.log')}")
