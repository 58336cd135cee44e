"""python3 -m pidmax VERB: the package's front, a verb a stage."""
import argparse
import os
import sys

from . import formula, tables
from .settings import Settings

# A shim (harness/report.sh and its kind) names itself, and stands for
# one verb.
SHIM = os.environ.get("PIDMAX_PROG")
PROG = SHIM or "python3 -m pidmax"


def settings_of(env):
    """The settings (settings.py) of the environment ENV: the one place
    that reads them, once a run, for every verb and the sweep. $QEMU is
    the emulator, $PIDMAX_FAIL_TAIL the lines of a failed boot's console
    the runner prints, $PIDMAX_DEPS the sweep's package check, and
    $PIDMAX_TREES, $PIDMAX_KERNELS, $PIDMAX_MACHINES, $PIDMAX_ARCHES and
    $PIDMAX_KUNIT_CASES the tables (the self-tests' own); an empty one
    is as unset."""
    home, default = tables.HOME, Settings()
    where = tables.Tables(**{
        name: env.get("PIDMAX_" + name.upper()) or getattr(home, name)
        for name in home.__dataclass_fields__})
    tail = env.get("PIDMAX_FAIL_TAIL") or str(default.fail_tail)
    try:
        tail = int(tail)
    except ValueError:
        raise ValueError("$PIDMAX_FAIL_TAIL wants a number of lines, not "
                         f"'{tail}'") from None
    return Settings(qemu=env.get("QEMU") or default.qemu, fail_tail=tail,
                    tables=where, deps=env.get("PIDMAX_DEPS") or default.deps)


class Usage(argparse.HelpFormatter):
    """Help that starts "Usage:", as every script of the harness does."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups,
                          "Usage: " if prefix is None else prefix)


class Exact(argparse.ArgumentParser):
    """A parser that takes an option by its whole name only (--cpu is not
    --cpus), as lib.sh's parse_options does; its verbs' parsers too."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)


def verb(verbs, name, help_text, run):
    """A verb's parser: named as its shim when a shim runs it."""
    p = verbs.add_parser(name, help=help_text, description=help_text,
                         formatter_class=Usage, prog=SHIM)
    p.set_defaults(run=run, parser=p)
    return p


def cmd_expected(args):
    e = formula.expected(args.cpus, args.small, not args.bits32, args.model)
    print(e.pid_max, e.minimum, e.limit, int(e.clamped))
    return 0


def cmd_curve(args):
    """The formula's curve for the pictures (plot.sh, budget.sh): "N
    pid_max" for N CPU ids from 1 to 8192, every N to 32, then steps of
    N/16."""
    n = 1
    while n <= 8192:
        print(n, formula.expected(n, args.small, not args.bits32).pid_max)
        n = n + 1 if n < 32 else n + n // 16
    return 0


def cmd_field(args):
    """The fields KEY... of each job or record line of standard input,
    TAB-joined in the order asked, "none" for a missing one."""
    from . import joblist
    for text in sys.stdin.read().splitlines():
        f = joblist.fields(text)
        print("\t".join(f.get(k, "none") for k in args.keys))
    return 0


def cmd_cpu_list(args):
    """Each CPU count of LIST (plan.cpu_list), a line each."""
    from . import plan
    for n in plan.cpu_list(args.list, args.top, args.least):
        print(n)
    return 0


def cmd_initrd_of(args):
    """How the jobs of the kernel of CONFIG give it INITRD."""
    from .kconfig import Config
    print(Config(args.config).initrd(args.initrd))
    return 0


def verbs_of_a_line(verbs):
    cu = verb(verbs, "curve", "print the formula's curve, \"N pid_max\" for "
              "N from 1 to 8192 CPU ids, for the pictures", cmd_curve)
    cu.add_argument("--small", action="store_true", help="CONFIG_BASE_SMALL")
    cu.add_argument("--32bit", dest="bits32", action="store_true")
    fi = verb(verbs, "field", "print the fields KEY... of each job or record "
              "line on standard input, TAB-joined (none when missing)",
              cmd_field)
    fi.add_argument("keys", nargs="+", metavar="KEY")
    cl = verb(verbs, "cpu-list", "print each CPU count of LIST (like "
              "1,2,32-34,255 or all), a line each, from LEAST to TOP",
              cmd_cpu_list)
    cl.add_argument("list", metavar="LIST")
    cl.add_argument("top", type=int, nargs="?", default=255, metavar="TOP")
    cl.add_argument("least", type=int, nargs="?", default=1, metavar="LEAST")
    io = verb(verbs, "initrd-of", "print builtin when the kernel of CONFIG "
              "carries its initramfs, else INITRD", cmd_initrd_of)
    io.add_argument("config", metavar="CONFIG")
    io.add_argument("initrd", metavar="INITRD")


def cmd_check_jobs(args):
    from . import joblist
    from .kconfig import Config
    bad = checked = 0
    for path in args.jobs:
        for job in joblist.read(path):
            if job.skip:
                continue
            small, is64, _ = Config(job.need("config")).pid_params()
            for m in joblist.mismatches(job, small, is64):
                print(f"{path}: {job.name}: {m}")
                bad += 1
            checked += 1
    print(f"{checked} jobs checked, {bad} fields differ from the formula")
    return 1 if bad else 0


def cmd_parse(args):
    from . import boot, console
    if args.write:
        r, _ = boot.record(args.log)
    else:
        r, _ = console.parse(args.log)
    print(r.line())
    return 0


def cmd_judge(args):
    from . import console, joblist, judge
    v = judge.judge(joblist.Job.parse(args.job),
                    console.Record.parse(args.record))
    print("\n".join(v.lines()))
    return 0


def usage_error(args, text):
    """Say what is wrong with the command line under the verb's own usage
    line (args.parser), as lib.sh's usage_error does; exit status 2."""
    p = args.parser
    print(f"{p.format_usage()}{p.prog}: {text}\nTry '{p.prog} --help'.",
          file=sys.stderr)
    return 2


def one_verb(p, usage, operands, help_text):
    """Give the verb P the usage line USAGE and take its operands as a
    list, so that the verb counts them itself and a wrong count gets
    its own usage line (usage_error), not the package's."""
    p.usage = usage
    p.set_defaults(parser=p)
    p.add_argument("operands", nargs="*", metavar=operands, help=help_text)


def cmd_report(args):
    from . import console, report, results_dir
    if len(args.operands) != 1:
        return usage_error(args, "expects one DIR, not " + (
            f"{len(args.operands)}: {' '.join(args.operands)}"
            if args.operands else "none"))
    d = args.operands[0]
    if not os.path.isdir(d):
        raise ValueError(f"{d} is not a results folder (no such folder)")
    with results_dir.lock(d):
        boots = report.load(d, console.parser_id())
        report.write(d, boots)
    report.tell(PROG, d, boots)
    print(report.summary(boots))
    return 1 if report.totals(boots)[1] else 0


def cmd_merge(args):
    from . import merge
    if len(args.operands) < 2:
        return usage_error(args, "expects OUT and at least one shard DIR")
    out, *dirs = args.operands
    try:
        return merge.merge(out, dirs, PROG)
    except merge.Usage as err:
        return usage_error(args, str(err))
    except merge.Refused as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1


def cmd_compare(args):
    from . import compare
    compare.tell(PROG, args.dir)
    return 0


def cmd_budget(args):
    from . import budget
    if not budget.write(args.out or args.dirs[0], args.dirs):
        print(f"{PROG}: fewer than two online-tier boots with a PID budget "
              f"in {' '.join(args.dirs)}: no fit", file=sys.stderr)
    return 0


def cmd_boot(args):
    from . import boot, guest, joblist
    from .stops import Stop
    meta = args.log + ".meta"
    g = guest.Guest(joblist.Job.parse(args.job), args.log,
                    os.environ.get("BOOT_STYLE"), args.settings)
    # What an earlier boot into LOG left (LOG.meta, a judged record)
    # would stand for this one.
    boot.forget(args.log)
    try:
        g.start()
        joblist.write_lines(meta, [g.wait()])
    except Stop:
        g.kill()
        raise
    return 0


def cmd_plan(args):
    from . import plan
    try:
        lines = plan.plan(plan.Options.of(args), args.settings.tables)
    except plan.UsageError as err:
        print(f"{PROG}: {err}\nTry '{PROG} --help'.", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


def cmd_job(args):
    from .jobs import Maker
    facts = None
    if args.facts:
        # KUNIT is 0, 1 (built in) or m (a module), as Config.kunit says.
        *nums, kunit = args.facts.split(",")
        facts = (*map(int, nums), kunit if kunit == "m" else int(kunit))
    m = Maker(args.kernel, args.config, args.initrd, args.label, args.accel,
              args.series, facts, where=args.settings.tables)
    if args.skip is not None:
        print(m.skip(args.case, args.tier, args.skip))
        return 0
    if len(args.rest) < 3:
        raise ValueError("a job wants CASE TIER POSSIBLE ONLINE SMP")
    possible, online, smp, *fields = args.rest
    given = dict(f.split("=", 1) if "=" in f else (f, None) for f in fields)
    if None in given.values():
        raise ValueError(f"a field wants KEY=VALUE, not {fields}")
    print(m.job(args.case, args.tier, int(possible), online, smp, **given))
    return 0


def cmd_baseline(args):
    from . import baseline
    stock = baseline.stock_kernels(args.pairs)
    if not os.access(args.jobs, os.R_OK):
        raise ValueError(f"{args.jobs} is not readable")
    with open(args.jobs, encoding="latin-1") as f:
        lines = [baseline.stock_job(x, stock) for x in f.read().splitlines()]
    sys.stdout.write("".join(x + "\n" for x in lines))
    return 0


def cmd_run_baseline(args):
    from . import baseline_run
    baseline_run.run(args.dir, args.pairs, args.jobs, args.settings,
                     PROG)
    return 0


def cmd_accel(args):
    from . import accel
    verdict, how = accel.choose(args.build, args.kernel, args.config,
                                args.initrd, not args.no_probe,
                                args.settings)
    print(f"{PROG}: accelerator: {verdict} ({how})", file=sys.stderr)
    print(verdict)
    return 0


def cmd_run(args):
    from . import results_dir, runner
    if not os.path.isdir(args.dir):
        raise ValueError(f"{args.dir} is not a results folder (no such "
                         "folder)")
    with results_dir.lock(args.dir):
        runner.run(args.dir, args.jobs, args.settings)
    return 0


def cmd_shard(args):
    from . import shard
    with open(args.jobs or "/dev/stdin", encoding="latin-1") as f:
        lines = f.read().splitlines()
    out = shard.split(lines, *args.shard)
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


def positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(
            f"--jobs wants a positive number, not '{text}'")
    return int(text)


def shard_spec(text):
    from . import shard
    try:
        return shard.spec(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err))


class RawUsage(argparse.RawDescriptionHelpFormatter, Usage):
    """Usage, with a description kept as written."""


def verb_plan(verbs):
    """The verb plan's parser: its defaults are plan.Options's, which
    its command line becomes (plan.Options.of)."""
    from .plan import HELP, Options
    d = Options()
    p = verbs.add_parser("plan", help="the job list of one kernel",
                         description=HELP, formatter_class=RawUsage,
                         prog=SHIM)
    p.set_defaults(run=cmd_plan, cpus_given=d.cpus_given)
    for name in ("kernel", "config", "initrd"):
        p.add_argument("--" + name, required=True, metavar="FILE")
    p.add_argument("--label", default=d.label)
    p.add_argument("--accel", choices=("tcg", "kvm"), default=d.accel)
    p.add_argument("--cpus", action=Given, default=d.cpus, metavar="LIST")
    for name in ("online", "possible", "wide-online", "wide-hotplug",
                 "holes"):
        p.add_argument("--" + name, default=getattr(d, name.replace("-", "_")),
                       metavar="LIST")
    p.add_argument("--scenarios", choices=("yes", "no", "selftests"),
                   default=d.scenarios)
    p.add_argument("--series", choices=("yes", "auto", "no"),
                   default=d.series)
    p.add_argument("--wide-qemu", default=d.wide_qemu, metavar="FILE")
    for name in ("selftests", "selftests-unchanged"):
        p.add_argument("--" + name, default=getattr(d, name.replace("-", "_")),
                       metavar='"CPIO N"')


class Given(argparse.Action):
    """--cpus, remembered as given: an error where its tier cannot run."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.cpus, namespace.cpus_given = values, True


def verb_job(verbs):
    p = verb(verbs, "job", "print the job line of one boot LABEL-CASE of "
             "KERNEL (its .config, or --facts SMALL,IS64,KUNIT), with QEMU's "
             "-smp SMP, where the guest must show POSSIBLE possible and "
             "ONLINE online CPUs; KEY=VALUE adds an optional field (jobs.py), "
             "--skip REASON prints a skip instead", cmd_job)
    for name in ("kernel", "config", "initrd", "label"):
        p.add_argument("--" + name, required=True)
    p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg")
    p.add_argument("--series", choices=("yes", "auto", "no"), default="yes")
    p.add_argument("--facts", metavar="SMALL,IS64,KUNIT")
    p.add_argument("--skip", metavar="REASON")
    p.add_argument("case", metavar="CASE")
    p.add_argument("tier", metavar="TIER")
    p.add_argument("rest", nargs="*", metavar="POSSIBLE ONLINE SMP KEY=VALUE")


def verb_accel(verbs):
    p = verb(verbs, "accel", "print tcg or kvm, and say why on stderr: kvm "
             "only when a probe boot of KERNEL under it passes (kept in "
             "BUILD_DIR/kvm-probe for this host boot)", cmd_accel)
    p.add_argument("--no-probe", action="store_true",
                   help="for a plan that boots nothing: an unprobed usable "
                   "/dev/kvm is reported as tcg")
    for name in ("build", "kernel", "config", "initrd"):
        p.add_argument(name, metavar=name.upper().replace("BUILD",
                                                          "BUILD_DIR"))


def jobs_and_dir(p):
    """The --jobs N and DIR of a verb that boots a results folder."""
    p.add_argument("--jobs", type=positive, default=2, metavar="N",
                   help="guests booted at once (default 2)")
    p.add_argument("dir", metavar="DIR")


def verbs_of_a_list(verbs):
    verb_accel(verbs)
    ba = verb(verbs, "baseline", "print the jobs of JOBS again for the stock "
              "kernels: each job of kernel LABEL boots KERNEL (its .config "
              "beside it) as LABEL-stock", cmd_baseline)
    ba.add_argument("jobs", metavar="JOBS")
    ba.add_argument("pairs", nargs="+", metavar="LABEL=KERNEL")
    rb = verb(verbs, "run-baseline", "boot DIR's jobs again on the stock "
              "kernels (each job of kernel LABEL on KERNEL) into "
              "DIR/baseline, report and draw them, and write "
              "DIR/compare.csv. Exits 0 when stock boots fail, on purpose "
              "(the sweep's exit status is the patched kernels'); 1 when a "
              "stage fails; 130, 143 or 129 when INT, TERM or HUP stops "
              "it. A DIR/baseline that holds other files and is not a "
              "results folder is refused", cmd_run_baseline)
    jobs_and_dir(rb)
    rb.add_argument("pairs", nargs="+", metavar="LABEL=KERNEL")
    verb_plan(verbs)
    verb_job(verbs)
    ru = verb(verbs, "run", "boot the jobs of DIR/jobs (plan.sh), --jobs N "
              "at a time, into DIR/boots; judge each as it ends and print "
              "a line for it (and a progress line on a terminal), and the "
              "last lines of a failed boot's console ($PIDMAX_FAIL_TAIL, "
              "default 15; 0 for none). Jobs with a skip field boot "
              "nothing. Exits 0 whatever the boots' verdicts, on purpose: "
              "it only boots (report.sh DIR fails on a failed boot); 1 "
              "when a job line is refused before any boot", cmd_run)
    jobs_and_dir(ru)
    sh = verb(verbs, "shard", "print the jobs of shard I of N (1 <= I <= "
              "N) of the job list JOBS (or standard input)", cmd_shard)
    sh.add_argument("shard", type=shard_spec, metavar="I/N")
    sh.add_argument("jobs", nargs="?", metavar="JOBS")


def verbs_of_a_boot(verbs):
    pa = verb(verbs, "parse", "print the record of one console LOG",
              cmd_parse)
    pa.add_argument("--write", action="store_true",
                    help="also keep the judged record LOG.json beside it")
    pa.add_argument("log", metavar="LOG")
    bo = verb(verbs, "boot", "boot the guest of one JOB line, its console "
              "into LOG and how it ended into LOG.meta ($QEMU overrides the "
              "emulator; $BOOT_STYLE=kunit boots as kunit.py does)", cmd_boot)
    bo.add_argument("job", metavar="JOB")
    bo.add_argument("log", metavar="LOG")
    ju = verb(verbs, "judge", "judge one boot's RECORD against its JOB line",
              cmd_judge)
    ju.add_argument("job", metavar="JOB")
    ju.add_argument("record", metavar="RECORD")
    rp = verb(verbs, "report", "judge the boots of DIR/jobs from DIR/boots "
              "and write DIR/results.ktap, results.csv, results.xml, "
              "checks.csv (and variants.csv)", cmd_report)
    one_verb(rp, "%(prog)s [-h] DIR", "DIR", "a results folder")
    co = verb(verbs, "compare", "write DIR/compare.csv from DIR and "
              "DIR/baseline (both reported), a row per boot of both; print "
              "the rows where stock and patched differ", cmd_compare)
    co.add_argument("dir", metavar="DIR")
    bu = verb(verbs, "budget", "write pid_budget.csv, pid_budget.txt and "
              "the fits that budget.sh draws (pid_budget.fits) from the "
              "online-tier boots of each DIR/jobs and their console logs",
              cmd_budget)
    bu.add_argument("--out", metavar="OUT",
                    help="where they go (default: the first DIR)")
    bu.add_argument("dirs", nargs="+", metavar="DIR")


def cmd_default(args):
    from . import sweep_options
    print(sweep_options.default(args.tier.replace("-", "_"), args.arch))
    return 0


def cmd_clean(args):
    from . import results_dir
    d = results_dir.claim(args.dir, "DIR")
    with results_dir.lock(d):
        results_dir.clean(d)
    return 0


def cmd_kernel_id(args):
    from . import sweep_kernels
    print(sweep_kernels.kernel_id(args.kernel))
    return 0


def table_arch(where, name):
    """ARCH_KCONFIG=... lines of ARCH's row, for the shell's eval."""
    import shlex
    a = tables.arch(name, where)
    cols = (("KCONFIG", a.kconfig), ("MAKE", a.make), ("CROSS", a.cross),
            ("IMAGE", a.image), ("QEMU", a.qemu), ("CONSOLE", a.console),
            ("MACHINE", a.machine), ("FIRMWARE", a.firmware),
            ("DEBIAN", a.debian), ("MAXCPUS", a.maxcpus),
            ("PACKAGES", ",".join(a.packages)), ("APPEND", a.append))
    return [f"ARCH_{k}={shlex.quote(str(v))}" for k, v in cols]


def table_initrd(where, tree, build, arch="x86_64"):
    for k in tables.kernel_rows(tree, arch, where):
        if k.build == build:
            return [k.initrd]
    raise ValueError(f"{where.kernels} has no build {build} of "
                     f"tree {tree} for {arch}")


# The questions the shell asks of the tables (lib.sh's tree_row,
# arch_row, kernel_plan and their kind), each asked of the tables W
# (the settings'): each answer printed as lib.sh's functions printed it.
TABLE_ANSWERS = {
    "tree": lambda w, t: [" ".join(tables.tree(t, w))],
    "series": lambda w, t: [tables.tree_series(t, w)],
    "mutants": lambda w, t: [tables.tree_mutants(t, w)],
    "arch": table_arch,
    "arches": lambda w: [" ".join(tables.arches(w))],
    "trees": lambda w, a="x86_64": [" ".join(tables.kernel_trees(a, w))],
    "variants": lambda w, t, a="x86_64": [
        " ".join(tables.kernel_variants(t, a, w))],
    "initrd": table_initrd,
    "name": lambda w, t, b, a="x86_64": [tables.kernel_name(t, b, a)],
    # Every fact build-kernel.sh needs, as its options (shell-quoted).
    "build": lambda w, t, b, a="x86_64": [
        tables.build_facts(t, b, a, w).words()],
    # Every fact build-selftests.sh needs, as its options.
    "selftests": lambda w, t, a="x86_64": [
        tables.selftests_facts(t, a, w).words()],
    "plan": lambda w, t, a, v, pick, *want: [
        " ".join([b, *ts]) for b, ts in tables.kernel_plan(t, a, v, pick,
                                                           want, w)],
}


def cmd_table(args):
    try:
        lines = TABLE_ANSWERS[args.what](args.settings.tables, *args.args)
    except TypeError:
        raise ValueError(f"table {args.what}: wrong number of arguments "
                         f"({' '.join(args.args)})")
    print("\n".join(lines))
    return 0


def verbs_of_a_sweep(verbs):
    ta = verb(verbs, "table", "answer a question of the tables, as lib.sh "
              "asks it: tree TREE, series TREE, mutants TREE, arch ARCH, "
              "arches, trees [ARCH], variants "
              "TREE [ARCH], initrd TREE BUILD [ARCH], name TREE BUILD [ARCH], "
              "build TREE BUILD [ARCH] (build-kernel.sh's options), "
              "selftests TREE [ARCH] (build-selftests.sh's), "
              "plan TREE ARCH VARIANT each|fewest TIER...", cmd_table)
    ta.add_argument("what", choices=sorted(TABLE_ANSWERS))
    ta.add_argument("args", nargs="*")
    verbs.add_parser("sweep", help="the main job (harness/sweep-smp.sh): "
                     "build, plan, boot, report; sweep --help says its "
                     "options", add_help=False)
    de = verb(verbs, "default", "print the default list of TIER (hotplug, "
              "online, holes, possible, wide-online, wide-hotplug, or "
              "scenarios: yes or no) on ARCH", cmd_default)
    de.add_argument("tier", metavar="TIER")
    de.add_argument("arch", nargs="?", default="x86_64", metavar="ARCH")
    cl = verb(verbs, "clean", "remove every file a sweep writes into DIR, "
              "and any half-written one; refuse a DIR that holds other "
              "files and is not a results folder, else make it one",
              cmd_clean)
    cl.add_argument("dir", metavar="DIR")
    ki = verb(verbs, "kernel-id", "print what identifies KERNEL across "
              "machines: its build ID, else its sha256", cmd_kernel_id)
    ki.add_argument("kernel", metavar="KERNEL")
    verb_merge(verbs)


def verb_merge(verbs):
    me = verb(verbs, "merge", "join the results folders DIR... of the "
              "shards of one sweep (sweep-smp.sh --shard I/N) into OUT and "
              "report them as one run: every file a sweep writes, the "
              "baselines merged and compare.csv when the shards have them, "
              "and the line \"N passed, N failed, N skipped\" last. Checks "
              "everything first and writes nothing when refused: OUT that "
              "is, holds or lies inside a shard, or is a folder of other "
              "files (exit status 2, as any usage error); shards of "
              "different plans or kernels, a boot of the plan in no shard "
              "or in two (1). Exits 1 when a boot failed (a stock boot does "
              "not count)", cmd_merge)
    one_verb(me, "%(prog)s [-h] OUT DIR...", "OUT DIR", "the folder to "
             "write (missing, empty or a results folder) and the shards' "
             "results folders")


def parser():
    """The package's parser, a verb each."""
    p = Exact(prog=PROG, description=__doc__, formatter_class=Usage)
    verbs = p.add_subparsers(dest="verb", required=True)
    verbs_of_a_boot(verbs)
    verbs_of_a_list(verbs)
    e = verbs.add_parser("expected", help="the formula for CPUS counted CPUs")
    e.add_argument("cpus", type=int)
    e.add_argument("--small", action="store_true", help="CONFIG_BASE_SMALL")
    e.add_argument("--32bit", dest="bits32", action="store_true")
    e.add_argument("--model", choices=formula.MODELS, default="series")
    e.set_defaults(run=cmd_expected)
    verbs_of_a_sweep(verbs)
    verbs_of_a_line(verbs)
    c = verbs.add_parser("check-jobs", help="hold job lists to the formula")
    c.add_argument("jobs", nargs="+", metavar="JOBS")
    c.set_defaults(run=cmd_check_jobs)
    return p


def main(argv=None):
    """The door: the verb of ARGV run on the settings of the environment,
    read here once (settings_of) and handed to it as args.settings, or
    to the sweep."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        settings = settings_of(os.environ)
    except ValueError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    if argv[:1] == ["sweep"]:
        # The sweep reads its own options (sweep_options.py).
        from . import sweep
        return sweep.main(argv[1:], SHIM or PROG + " sweep", settings)
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra:
        # Under the verb's own usage line, not the package's.
        args.parser = getattr(args, "parser", p)
        return usage_error(args, f"unrecognized arguments: {' '.join(extra)}")
    args.settings = settings
    from . import stops
    try:
        with stops.stopping():
            return args.run(args)
    except stops.Stop as stop:
        return stop.status
    except BrokenPipeError:
        # A reader that stopped early (curve | head): quiet, as a shell
        # tool killed by SIGPIPE.
        sys.stderr.close()
        return 141
    except (OSError, ValueError, KeyError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
