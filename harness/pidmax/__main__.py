"""python3 -m pidmax VERB: the package's front, a verb a stage."""
import argparse
import sys

from . import formula, joblist


def cmd_expected(args):
    e = formula.expected(args.cpus, args.small, not args.bits32, args.model)
    print(e.pid_max, e.minimum, e.limit, int(e.clamped))
    return 0


def cmd_check_jobs(args):
    bad = checked = 0
    for path in args.jobs:
        for job in joblist.read(path):
            if job.skip:
                continue
            small, is64 = joblist.kconfig(job.get("config"))
            for m in joblist.mismatches(job, small, is64):
                print(f"{path}: {job.get('name')}: {m}")
                bad += 1
            checked += 1
    print(f"{checked} jobs checked, {bad} fields differ from the formula")
    return 1 if bad else 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m pidmax", description=__doc__)
    verbs = p.add_subparsers(dest="verb", required=True)
    e = verbs.add_parser("expected", help="the formula for CPUS counted CPUs")
    e.add_argument("cpus", type=int)
    e.add_argument("--small", action="store_true", help="CONFIG_BASE_SMALL")
    e.add_argument("--32bit", dest="bits32", action="store_true")
    e.add_argument("--model", choices=formula.MODELS, default="series")
    e.set_defaults(run=cmd_expected)
    c = verbs.add_parser("check-jobs", help="hold job lists to the formula")
    c.add_argument("jobs", nargs="+", metavar="JOBS")
    c.set_defaults(run=cmd_check_jobs)
    args = p.parse_args(argv)
    try:
        return args.run(args)
    except (OSError, ValueError, KeyError) as err:
        print(f"pidmax: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
