"""One boot: a job's QEMU guest on its machine, its serial console kept in
LOG and QEMU's own output in LOG.qemu; wait() says how it ended ("qemu_exit=..
timed_out=0|1 seconds=..", the meta), which its caller keeps.

The job's kernel, initrd, accel (tcg or kvm; TCG on one host thread up
to TCG_SINGLE_MAX vCPUs), smp ("N" or "N,maxcpus=M"), machine (a row of
harness/machines; its architecture a row of harness/arches), qemu (else
the settings' qemu, $QEMU as the door read it, else the architecture's
emulator), mem, timeout, append (extra
kernel parameters), initrd_extra (a cpio archive on top of the
initramfs), holes and dt_cpus (a device tree from holes-dtb.sh) say how;
the kernel's own modules.cpio, beside it, goes on top of an external
initramfs.
The harness's kernel command line carries no pid_max setting; only a
job's append does. A guest still running after its timeout is killed.
"""
import os
import re
import shutil
import subprocess
import time

from . import tables
from .settings import Settings

REQUIRED = ("kernel", "initrd", "smp", "mem", "timeout", "accel")
# A kernel's modules, beside its image (build-kernel.sh).
MODULES = "modules.cpio"
# TCG runs up to this many vCPUs on one host thread, in turn, and larger
# guests a host thread a vCPU. With a thread a vCPU, Debian's kernels
# hung or oopsed on a stale int3 after patching a static key, beside a
# busy host core; in turn they did not, and booted faster. Past 64 vCPUs
# in turn is slower by far (docs/testing.md, "TCG's threads").
TCG_SINGLE_MAX = 64
# After the architecture's parameters (on x86, lpj= skips delay-loop
# calibration and tsc=reliable the clocksource watchdog, both seconds
# per CPU under TCG): expedited RCU grace periods save about 0.3 s of a
# one-CPU boot; emulated CPUs on a busy host can starve RCU's kthread
# past the default 21 s stall warning, which is the emulator's pace, not
# a kernel fault (a real stall still shows as a hang past the timeout);
# panic=-1 turns a panic into a reset, which -no-reboot turns into a
# QEMU exit.
PARAMS = "rcupdate.rcu_expedited=1 rcupdate.rcu_cpu_stall_timeout=120 panic=-1"


def accel_arg(accel, vcpus):
    """QEMU's -accel for a guest that starts VCPUS vCPUs."""
    return "tcg,thread=single" if accel == "tcg" and vcpus <= TCG_SINGLE_MAX \
        else accel


def check(job):
    """Refuse a Job that cannot boot, with what is wrong."""
    for key in REQUIRED:
        if getattr(job, key) in (None, ""):
            raise ValueError(f"the job lacks its {key} field")
    if not os.access(job.kernel, os.R_OK):
        raise ValueError(f"kernel {job.kernel} is not readable")
    initrd = job.initrd
    if initrd != "builtin" and not os.access(initrd, os.R_OK):
        raise ValueError(f"initramfs {initrd} is not readable")
    extra = job.initrd_extra
    if extra and not os.access(extra, os.R_OK):
        raise ValueError(f"initrd_extra {extra} is not readable")
    for key, pattern, want in (
            ("smp", r"[0-9]+(,maxcpus=[0-9]+)?", "N or N,maxcpus=M"),
            ("timeout", r"[1-9][0-9]*", "seconds"),
            ("mem", r"[1-9][0-9]*[MG]", "like 512M"),
            ("accel", r"tcg|kvm", "tcg or kvm")):
        text = job.fields()[key]
        if not re.fullmatch(pattern, text):
            raise ValueError(f"{key} must be {want}, not '{text}'")


def machine(job, settings=Settings()):
    """(QEMU binary, the machine's arguments, its Arch) of the job, on
    the tables and the emulator of SETTINGS."""
    name = job.machine or "pc"
    where = settings.tables
    known = tables.machines(where)
    if name not in known:
        raise ValueError(f"unknown machine \"{name}\" ({where.machines}"
                         f": {', '.join(known)})")
    arch_name, args = known[name]
    arch = tables.arches(where).get(arch_name)
    if arch is None:
        raise ValueError(f"the machine {name}'s architecture {arch_name} is "
                         f"not a row of {where.arches}")
    qemu = job.qemu or settings.qemu or arch.qemu
    if not shutil.which(qemu):
        package = arch.packages[0] if arch.packages else arch.qemu
        raise ValueError(f"{qemu} not found: apt-get install {package}")
    return qemu, list(args), arch


def kernel_modules(job):
    """The kernel's own modules, MODULES beside its image
    (build-kernel.sh's, for a kernel with CONFIG_MODULES=y), when the
    job's initramfs is external; None when there are none. A kernel with
    a built-in initramfs carries its modules inside. Found by the
    kernel's path, not the job's fields, so that a baseline job, the
    same job on the stock kernel, boots with that kernel's own."""
    path = os.path.join(os.path.dirname(job.kernel), MODULES)
    if job.initrd == "builtin" or not os.path.isfile(path):
        return None
    return path


def initrd_args(job, log):
    """-initrd of the job: its initramfs, with the kernel's modules and
    initrd_extra on top (extra alone beside a builtin initramfs, else
    appended to a copy: the kernel unpacks concatenated archives in
    turn); and the copy, if made."""
    initrd, extra = job.initrd, job.initrd_extra
    parts = [p for p in (kernel_modules(job), extra) if p]
    if not parts:
        return ([] if initrd == "builtin" else ["-initrd", initrd]), None
    if initrd == "builtin":
        return ["-initrd", extra], None
    copy = log + ".initrd"
    with open(copy, "wb") as out:
        for part in (initrd, *parts):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    return ["-initrd", copy], copy


def device_tree(job, log, qemu, args):
    """-dtb of a job with holes or dt_cpus: the machine's own device tree
    for its -smp and -m, less the enable method of the holes' CPUs,
    describing dt_cpus CPUs (holes-dtb.sh); and the file made."""
    if not (job.holes or job.dt_cpus):
        return [], None
    dtb = log + ".dtb"
    script = os.path.join(tables.HARNESS, "holes-dtb.sh")
    holes, cpus = job.holes or "", str(job.dt_cpus or "")
    done = subprocess.run([script, "--cpus", cpus or "0", dtb, holes, qemu,
                           *args, "-smp", job.smp])
    if done.returncode:
        raise ValueError(f"no device tree with holes '{holes}'"
                         f" and dt_cpus '{cpus}' (see above)")
    return ["-dtb", dtb], dtb


def command(job, log, style=None, settings=Settings()):
    """(QEMU's command line for the job's boot into LOG, files it made).
    STYLE "kunit" boots the way the kernel's kunit.py boots x86_64 (a
    bzImage, 1 GiB, QEMU's default accelerator options, console=ttyS0
    and the job's append alone): bench.sh's reference. SETTINGS gives
    the tables and the emulator (machine)."""
    check(job)
    qemu, args, arch = machine(job, settings)
    initrd, copy = initrd_args(job, log)
    append = " ".join(p for p in (f"console={arch.console}", arch.append,
                                  PARAMS, job.append) if p)
    vcpus = int(job.smp.split(",")[0])
    args += ["-accel", accel_arg(job.accel, vcpus), "-m", job.mem]
    dtb_args, dtb = device_tree(job, log, qemu, args)
    args += dtb_args
    if style == "kunit":
        args = ["-m", "1024"]
        append = " ".join(p for p in ("console=ttyS0", job.append) if p)
    cmd = [qemu, *args, "-smp", job.smp, "-nodefaults", "-display", "none",
           "-no-reboot", "-serial", "file:" + log, "-kernel", job.kernel,
           *initrd, "-append", append]
    return cmd, [f for f in (copy, dtb) if f]


class Guest:
    """One boot of the job JOB into LOG (in STYLE, on SETTINGS: command):
    start() it, then wait() for it."""

    def __init__(self, job, log, style=None, settings=Settings()):
        self.job, self.log = job, log
        # A job refused here leaves an earlier boot's LOG as it was.
        self.cmd, self.made = command(job, log, style, settings)
        if os.path.exists(log):
            os.remove(log)
        self.proc, self.start_time = None, 0.0

    def start(self):
        self.start_time = time.monotonic()
        with open(self.log + ".qemu", "w") as out:
            try:
                self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                             stdout=out, stderr=out)
            except OSError as err:
                out.write(f"{self.cmd[0]}: {err}\n")

    def wait(self):
        """Wait for the guest, at most its timeout; how it ended (the
        meta line)."""
        rc, timed_out = 127, 0
        if self.proc:
            try:
                rc = self.proc.wait(timeout=self.job.timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                rc, timed_out = self.proc.wait(), 1
        # A signal's death as a shell says it: 128 + the signal.
        rc = 128 - rc if rc < 0 else rc
        self.cleanup()
        # A QEMU that never started leaves no log: an empty one to parse.
        open(self.log, "a").close()
        cs = int((time.monotonic() - self.start_time) * 100 + 0.5)
        return (f"qemu_exit={rc} timed_out={timed_out} "
                f"seconds={cs // 100}.{cs % 100:02d}")

    def kill(self):
        """Stop the guest now (the runner is stopping)."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.cleanup()

    def cleanup(self):
        """Remove the files made for the boot (the runner's thread and a
        stopping runner may both get here)."""
        made, self.made = self.made, []
        for path in made:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
