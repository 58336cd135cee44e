"""The sweep (harness/sweep-smp.sh): build what is missing, plan the
boots, run them, report. A thin front over the stages, which each work
on a results folder (DIR) and can be run alone:

  sweep_options   the options: help, reading, checks
  sweep_kernels   which kernels (harness/kernels), built by
                  build-kernel.sh; the selftests, QEMU 10, the stock twins
  build-initramfs.sh  busybox-static + guest-init.sh -> initramfs.cpio
  accel           KVM if a probe boot passes, else TCG
  plan            options -> DIR/jobs, a boot a line with its expected
                  values
  runner          DIR/jobs -> DIR/boots/*.log, each judged as it ends
  report          DIR/jobs + boots -> results.ktap/.csv/.xml, checks.csv
  plot.sh, budget.sh  the pictures, the PID budget
  baseline_run    the baseline: the jobs again on the stock kernels,
                  DIR/baseline and DIR/compare.csv

It is the front of the verb sweep, not a door: the door (__main__.main)
reads the environment and hands its settings (settings.py) to main,
which reads the command line with them into one frozen request
(sweep_options.Request, O) for every stage; a stage that settles an
option hands on a changed copy (dataclasses.replace).
"""
import dataclasses
import os
import shutil
import sys
import tempfile
import time

from . import (accel, baseline_run, joblist, plan, report, results_dir,
               runner, shard, stops, sweep_options, tables)
from . import sweep_kernels as sk
from .settings import Settings
from .sweep_kernels import Fail, script

REPO = os.path.dirname(tables.HARNESS)


def info(prog, text):
    print(f"{prog}: {text}", file=sys.stderr, flush=True)


def prepare(o):
    """The packages, the initramfs (first: a kernel may carry it inside),
    the kernels, and what their plans are given beside them: (O with the
    build folder's real path, kernels, unbuilt, given)."""
    if not o.list:
        ready(o)
    o = dataclasses.replace(o, build=os.path.realpath(o.build))
    # A list asks where the initramfs goes; nothing installed or built.
    # The builder is told the architecture's Debian name: it asks the
    # tables nothing.
    where = ["--where"] if o.list else []
    debian = tables.arch(o.arch, o.settings.tables).debian
    initrd = script("build-initramfs.sh", *where, "--arch", o.arch,
                    "--debian-arch", debian, o.build)[1]
    kernels, unbuilt, series = sk.sweep_kernels(o, o.want)
    given = dict(initrd=initrd, series=series,
                 wide_qemu=sk.wide_qemu(o, kernels),
                 selftests=sk.selftests(o, kernels, o.want),
                 selftests_unchanged=sk.unchanged_selftests(o, kernels,
                                                            o.want))
    return o, kernels, unbuilt, given


def ready(o):
    """The packages (the settings' deps: the self-tests' true needs
    none), QEMU (the settings' qemu, else the architecture's) and the
    build folder, for a sweep that boots."""
    deps = o.settings.deps
    if stops.run_group([deps, "build", o.arch])[0]:
        raise Fail(f"{deps} build {o.arch} failed (see above)")
    arch = tables.arches(o.settings.tables)[o.arch]
    qemu = o.settings.qemu or arch.qemu
    if not shutil.which(qemu):
        raise Fail(f"{qemu} not found: apt-get install "
                   f"{arch.packages[0] if arch.packages else ''} "
                   f"(harness/deps.sh build {o.arch})")
    os.makedirs(o.build, exist_ok=True)


def choose_accel(o, kernels, initrd):
    """auto: KVM when a probe boot on the first kernel passes. Nothing
    built (the tree's suite unreachable): nothing to probe with; KVM runs
    the host's own architecture only."""
    if not kernels or not tables.arches(o.settings.tables)[o.arch].is_host():
        return "tcg"
    if o.accel != "auto":
        return o.accel
    verdict, how = accel.choose(o.build, kernels[0].path, kernels[0].config,
                                initrd, not o.list, o.settings)
    info("accel.sh", f"accelerator: {verdict} ({how})")
    return verdict


def job_list(o, kernels, unbuilt, given):
    """Every kernel's jobs in one list."""
    lines = []
    for k in kernels:
        lines += plan.plan(sweep_options.plan_options(
            o, k.tiers, kernel=k.path, config=k.config, label=k.label,
            accel=o.accel, **given), o.settings.tables)
    return lines + sk.unbuilt_jobs(o, unbuilt)


def main(argv, prog, settings=Settings()):
    """The sweep of the command line ARGV on SETTINGS (the door's); its
    exit status (128 + the signal when INT, TERM or HUP stopped it:
    every child ended)."""
    with stops.stopping():
        return sweep(argv, prog, settings)


def sweep(argv, prog, settings):
    """main's work."""
    start = time.monotonic()
    try:
        o = sweep_options.read(argv, prog, REPO, settings)
        o = sk.check_kernel_options(o)
        if o.list:
            return list_jobs(o)
        # The results folder is checked, made and held before anything
        # is installed or built, and for the whole run.
        o = dataclasses.replace(o, out=out_folder(o))
        with results_dir.lock(o.out):
            return build_and_boot(o, prog, start)
    except results_dir.NotResults as err:
        print(f"{prog}: {err}\nTry '{prog} --help'.", file=sys.stderr)
        return 2
    except stops.Stop as stop:
        info(prog, f"stopped by {stop}")
        return stop.status
    except BrokenPipeError:
        # A reader that stopped early (--help | head): quiet, as a shell
        # tool killed by SIGPIPE.
        sys.stderr.close()
        return 141
    except plan.UsageError as err:
        print(f"{prog}: {err}\nTry '{prog} --help'.", file=sys.stderr)
        return 2
    except (Fail, OSError, ValueError, results_dir.Busy) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1


def list_jobs(o):
    """--list: print the job list, planned from the tables, and install,
    fetch, build, boot and write nothing (the build folder untouched: a
    kernel not built yet is planned from its fragments)."""
    with tempfile.TemporaryDirectory() as planned:
        o, kernels, unbuilt, given = prepare(
            dataclasses.replace(o, planned=planned))
        o = dataclasses.replace(
            o, accel=choose_accel(o, kernels, given["initrd"]))
        lines = job_list(o, kernels, unbuilt, given)
        # A job names the .config its kernel's build will write.
        for k in kernels:
            if k.config.startswith(planned + os.sep):
                real = os.path.join(os.path.dirname(k.path), ".config")
                lines = [x.replace(f"\tconfig={k.config}\t",
                                   f"\tconfig={real}\t") for x in lines]
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


def out_folder(o):
    """The results folder of --out, made a results folder (results_dir),
    its real path: a folder that holds other files is refused. The
    default, the checkout's own results/, is the harness's, whatever it
    holds."""
    if o.out_given:
        return results_dir.claim(o.out, "--out")
    os.makedirs(o.out, exist_ok=True)
    return results_dir.claim(o.out, mine=True)


def build_and_boot(o, prog, start):
    """Build what is missing, plan, boot, report: the exit status."""
    o, kernels, unbuilt, given = prepare(o)
    # The stock twins last: they pop the series off the tree that the
    # builds and the selftests share.
    stock = sk.stock_kernels(o, kernels) if o.baseline else []
    o = dataclasses.replace(o, accel=choose_accel(o, kernels,
                                                  given["initrd"]))
    lines = job_list(o, kernels, unbuilt, given)
    return boot(o, prog, kernels, lines, stock, start)


def results_folder(o, kernels, lines):
    """A fresh results folder: nothing from an earlier or killed run
    stays. DIR/plan is the whole list and DIR/kernels what was booted:
    merge-results.sh checks that shards come from one plan of the same
    kernels. DIR/jobs is the shard's, or the whole list. O.out is the
    folder's real path already (out_folder)."""
    os.makedirs(o.out, exist_ok=True)
    results_dir.clean(o.out)
    joblist.write_lines(os.path.join(o.out, "plan"), lines)
    joblist.write_lines(os.path.join(o.out, "kernels"),
          [f"{k.label} {sk.kernel_id(k.path)}" for k in kernels])
    if o.shard:
        joblist.write_lines(os.path.join(o.out, "shard"), [o.shard])
        lines = shard.split(lines, o.shard_i, o.shard_n)
    joblist.write_lines(os.path.join(o.out, "jobs"), lines)
    return lines


def boot(o, prog, kernels, lines, stock, start):
    """Boot the jobs LINES into the results folder, report, draw, and
    boot the baseline; the exit status is the patched kernels' alone."""
    jobs = results_folder(o, kernels, lines)
    booted = sum("\tskip=" not in line for line in jobs)
    info(prog, f"booting {booted} guests ({' '.join(k.label for k in kernels)}"
         f", {o.accel}, {o.jobs} at a time); results in {o.out}")
    booting_from = time.monotonic()
    runner.run(o.out, o.jobs, o.settings)
    boots = report.load(o.out, console_parser())
    report.write(o.out, boots)
    passed, failed, skipped = report.totals(boots)
    # The skips' count and each failed boot by name, with its checks.
    report.tell(prog, o.out, boots)
    info(prog, f"wrote {o.out}/results.ktap, results.csv, results.xml and "
         "checks.csv")
    if script("plot.sh", o.out, ok=range(256))[0]:
        info(prog, "warning: no plot (see above)")
    if script("budget.sh", o.out, ok=range(256))[0]:
        info(prog, "warning: no PID budget (see above)")
    if stock:
        baseline_run.run(o.out, stock, o.jobs, o.settings)
    took, booting = time.monotonic() - start, time.monotonic() - booting_from
    info(prog, f"done in {int(took) // 60} min {int(took) % 60} s: "
         f"{int(took - booting)} s building and planning, {int(booting)} s "
         "booting and reporting")
    print(f"{passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 1 if failed else 0


def console_parser():
    from . import console
    return console.parser_id()
