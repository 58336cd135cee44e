"""The merge (harness/merge-results.sh OUT DIR...): the results folders
DIR... of the shards of one sweep (sweep-smp.sh --shard I/N, on as many
CI runners) joined into the results folder OUT and reported as one run:
results.ktap, results.csv, results.xml, checks.csv, variants.csv, the
pictures and the PID budget, the baseline and compare.csv when the
shards have them. A merge of all shards equals one unsharded run, boot
for boot.

Everything is checked before anything is written, and a refused merge
writes nothing:

  - OUT is not one of the shards, does not lie inside one and holds
    none (real paths): the merge empties OUT first, so such an OUT
    would lose the very files it joins (a usage error, Usage);
  - OUT is missing, empty or a results folder (results_dir.check_out):
    never someone's own folder (a usage error too);
  - each DIR is a results folder with its plan, jobs and kernels; the
    shards come from one plan (DIR/plan without the paths of one
    machine) and booted the same kernels (DIR/kernels); every boot of
    the plan is in exactly one shard, its name a plain file name;
    either every shard has a baseline/ or none has, and the baselines
    hold to the same rules.

The merge then marks OUT as a results folder and holds its lock
(results_dir.lock) while it writes: the report runs here, and the
stages it starts (plot.sh, budget.sh) find OUT in results_dir.LOCKED_ENV.
"""
import os
import shutil
import subprocess
import sys

from . import compare, console, joblist, report, results_dir, tables

# The fields of a job that name paths on one machine: left out when the
# plans of shards from several runners are compared.
PATH_FIELDS = ("kernel", "config", "initrd")
# What a shard's folder must hold besides boots/.
NEEDS = ("plan", "jobs", "kernels")


class Usage(ValueError):
    """A merge the command line itself rules out: OUT is one of the
    shards, lies in one or holds one, or is someone's folder."""


class Refused(ValueError):
    """A merge that the shards rule out: they do not join into one run."""


def read_lines(path):
    with open(path, encoding=joblist.ENCODING) as f:
        return f.read().splitlines()


def plan_key(path):
    """The plan PATH without the fields that name paths on one machine."""
    gone, out = dict.fromkeys(PATH_FIELDS), []
    for n, line in enumerate(read_lines(path), 1):
        try:
            out.append(joblist.Job.parse(line).replace(**gone).line())
        except ValueError as err:
            raise Refused(f"{path} line {n}: {err}") from None
    return out


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def check_out(out, dirs):
    """Refuse OUT (Usage) when it is, holds or lies inside one of the
    shards DIRS, or is a folder the merge must not write into."""
    apart = "give a folder apart from the shards"
    for d in dirs:
        if os.path.realpath(out) == os.path.realpath(d):
            raise Usage(f"OUT {out} is the shard {d}, which the merge would "
                        f"empty: {apart}")
        if results_dir.inside(out, d):
            raise Usage(f"OUT {out} lies inside the shard {d}, which the "
                        f"merge would write into: {apart}")
        if results_dir.inside(d, out):
            raise Usage(f"OUT {out} holds the shard {d}, which the merge "
                        f"could remove: {apart}")
    try:
        results_dir.check_out(out, "OUT")
    except results_dir.NotResults as err:
        raise Usage(str(err)) from None


def check_shards(dirs):
    """Refuse shards that are not results folders of one plan and the
    same kernels."""
    first = dirs[0]
    for d in dirs:
        if not os.path.isdir(d) or not results_dir.is_results(d) or \
                not all(os.access(os.path.join(d, n), os.R_OK)
                        for n in NEEDS):
            raise Refused(f"{d} is not a sweep's results folder (no plan, "
                          "jobs, kernels or boots/)")
    key = plan_key(os.path.join(first, "plan"))
    kernels = read_bytes(os.path.join(first, "kernels"))
    for d in dirs[1:]:
        if plan_key(os.path.join(d, "plan")) != key:
            raise Refused(f"{d} and {first} come from different plans "
                          "(options or kernels differ)")
        theirs = read_bytes(os.path.join(d, "kernels"))
        if theirs != kernels:
            raise Refused(f"{d} and {first} booted different kernels or "
                          f"series: {' '.join(theirs.decode('latin-1').split())}"
                          f" vs {' '.join(kernels.decode('latin-1').split())}")


def check_owners(dirs):
    """Refuse shards unless every boot of the plan is in exactly one, and
    each boot's name is a plain file name of DIR/boots."""
    owner = {}
    for d in dirs:
        for n, line in enumerate(read_lines(os.path.join(d, "jobs")), 1):
            try:
                j = joblist.Job.parse(line)
                joblist.check_job(j)
            except ValueError as err:
                raise Refused(f"{d}/jobs line {n}: {err}") from None
            name = j.name
            if name in owner:
                raise Refused(f"boot {name} is in two shards: {owner[name]} "
                              f"and {d}")
            owner[name] = d
    for n, line in enumerate(read_lines(os.path.join(dirs[0], "plan")), 1):
        # What the report will want of each line, asked before writing.
        try:
            j = joblist.Job.parse(line)
            joblist.check_job(j)
        except ValueError as err:
            raise Refused(f"{dirs[0]}/plan line {n}: {err}") from None
        name = j.name
        if owner.pop(name, None) is None:
            raise Refused(f"boot {name} of the plan is in no shard")
    if owner:
        raise Refused(f"shards hold boots the plan lacks: {' '.join(owner)}")


def baselines(dirs):
    """The shards' baseline/ folders: one for every shard, or none."""
    bases = [os.path.join(d, "baseline") for d in dirs
             if os.path.isdir(os.path.join(d, "baseline"))]
    if bases and len(bases) != len(dirs):
        raise Refused(f"only {len(bases)} of the {len(dirs)} shards have a "
                      "baseline")
    return bases


def check(out, dirs):
    """Everything about a merge of DIRS into OUT that can refuse it, and
    the same of their baselines; writes nothing."""
    check_out(out, dirs)
    check_shards(dirs)
    check_owners(dirs)
    bases = baselines(dirs)
    if bases:
        try:
            check_shards(bases)
            check_owners(bases)
        except Refused as err:
            raise Refused(f"the baselines do not merge: {err}") from None
    return bases


def copy_boots(src, dst):
    """Every file of the folder SRC into the folder DST, as cp -pR
    copies them: times kept, links as links."""
    for entry in os.scandir(src):
        to = os.path.join(dst, entry.name)
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(entry.path, to, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(entry.path, to, follow_symlinks=False)


def stage(prog, name, out, warning):
    """Run the harness's script NAME on OUT; a failure is a warning."""
    sys.stdout.flush()
    rc = subprocess.run([os.path.join(tables.HARNESS, name), out],
                        stdout=subprocess.DEVNULL if name == "plot.sh"
                        else None, check=False).returncode
    if rc:
        print(f"{prog}: warning: {warning} (see above)", file=sys.stderr)


def join(out, dirs, prog):
    """Write the merge of the shards DIRS into OUT, a results folder whose
    lock this process holds: its files, its report, its pictures and its
    PID budget; the Boots reported."""
    results_dir.clean(out)
    os.makedirs(os.path.join(out, "boots"))
    for d in dirs:
        copy_boots(os.path.join(d, "boots"), os.path.join(out, "boots"))
    for src, dst in (("plan", "plan"), ("plan", "jobs"),
                     ("kernels", "kernels")):
        shutil.copyfile(os.path.join(dirs[0], src), os.path.join(out, dst))
    boots = report.load(out, console.parser_id())
    report.write(out, boots)
    report.tell(prog, out, boots)
    stage(prog, "plot.sh", out, "no plot")
    stage(prog, "budget.sh", out, "no PID budget")
    return boots


def join_baselines(out, bases, prog):
    """The shards' baselines BASES merged into OUT/baseline (its failed
    stock boots fail nothing), and OUT/compare.csv written; the rows
    where stock and patched differ printed."""
    try:
        b = results_dir.claim(os.path.join(out, "baseline"), "OUT/baseline")
        with results_dir.lock(b):
            stock = join(b, bases, prog)
    except (OSError, ValueError) as err:
        raise Refused(f"the baselines do not merge: {err}") from None
    print(f"{prog}: baseline (stock kernels, not in the exit status): "
          f"{report.summary(stock)}", file=sys.stderr)
    compare.tell(prog, out)


def merge(out, dirs, prog):
    """Merge the shards DIRS into OUT, and their baselines into
    OUT/baseline with compare.csv, under OUT's lock; print the summary
    line last. The exit status: 1 when a boot failed (a stock boot does
    not count), else 0."""
    try:
        bases = check(out, dirs)
    except (Usage, Refused) as err:
        raise type(err)(f"{err} (nothing was written)") from None
    real = results_dir.claim(out, "OUT")
    try:
        with results_dir.lock(real):
            boots = join(real, dirs, prog)
            if bases:
                join_baselines(real, bases, prog)
    except results_dir.Busy as err:
        raise Refused(str(err)) from None
    print(f"{prog}: merged {len(dirs)} shards into {out}", file=sys.stderr)
    print(report.summary(boots), flush=True)
    return 1 if report.totals(boots)[1] else 0
