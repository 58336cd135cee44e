"""The judge: one boot's Record (console.py) against its Job (joblist.py,
written by jobs.py).

Every expected value comes from the job; nothing is recomputed here and
nothing is read back from the guest as an expectation. A boot passes
only when no check failed (the vmtest.sh rule: a guest fails until it
proves success). The checks run in the order of CHECKS; most compare
one observed field with the job's field of the same name (plain), the
rest are the few that need more than one field. A reason shows a value
as the record's line writes it ("none" where the guest showed none).
"""
from dataclasses import dataclass, field
from enum import StrEnum

from .console import Suite
from .joblist import Kunit, fields, write_value

REQUIRED = ("name", "possible", "online", "pid_max", "pid_max_min",
            "pid_max_max", "line_default", "line_min", "sysctl_refused",
            "kunit")


class Result(StrEnum):
    """What one check says of a boot."""
    OK = "ok"
    FAIL = "fail"
    SKIP = "skip"


class Status(StrEnum):
    """A boot's verdict: it passed, failed a check, timed out or
    panicked; a skip is a job that boots nothing (the report's)."""
    PASS = "pass"
    FAIL = "fail"
    TIMEOUT = "timeout"
    PANIC = "panic"
    SKIP = "skip"


@dataclass
class Check:
    name: str
    result: Result
    reason: str = ""

    def line(self):
        return f"check={self.name}\tresult={self.result}\treason={self.reason}"


@dataclass
class Verdict:
    verdict: Status
    reason: str
    checks: list = field(default_factory=list)

    def lines(self):
        head = f"verdict={self.verdict}\treason={self.reason}"
        return [head] + [c.line() for c in self.checks]


def shown(value, none="none"):
    """VALUE as a reason shows it: as a record writes it (Line), NONE for
    None, an empty list or an empty text."""
    if value is None or value in ((), ""):
        return none
    return write_value(value)


def expect(name, what, got, want):
    if got == want:
        return Check(name, Result.OK)
    return Check(name, Result.FAIL, f"{what} {shown(got)}, expected "
                 f"{shown(want)}")


def check_timeout(j, r):
    if r.timed_out:
        return Check("timeout", Result.FAIL, f"TIMEOUT: guest killed after "
                     f"{shown(r.seconds, '?')}s under "
                     f"{j.accel or 'an unknown accelerator'}")
    return Check("timeout", Result.OK)


def check_panic(j, r):
    if r.panic:
        return Check("panic", Result.FAIL, "PANIC: the kernel panicked: "
                     + shown(r.panic_msg))
    return Check("panic", Result.OK)


def check_final_marker(j, r):
    if not r.begin:
        said = f": {r.qemu_said}" if r.qemu_said else ""
        return Check("final_marker", Result.FAIL, "the guest's init never "
                     f"reported (qemu exit {shown(r.qemu_exit)}{said})")
    if not r.end:
        return Check("final_marker", Result.FAIL, "no final marker: the guest "
                     "stopped before its checks ended")
    return Check("final_marker", Result.OK)


def guest_results(j, r):
    """(failed, notoks, oks, recorded) of the guest's KTAP: the selftests
    of a job that records them (selftests_judged=no) count as results,
    whatever their outcome."""
    failed, notoks, oks, recorded = shown(r.failed), r.notoks, r.oks, []
    if j.selftests_judged == "no" and r.failed:
        names = [f for f in r.failed if f]
        recorded = [f[len("selftest_"):] for f in names
                    if f.startswith("selftest_")]
        failed = ",".join(f for f in names if not f.startswith("selftest_"))
        notoks, oks = notoks - len(recorded), oks + len(recorded)
    return failed, notoks, oks, recorded


def check_guest(j, r):
    failed, notoks, oks, _ = guest_results(j, r)
    if notoks != 0:
        return Check("guest_checks", Result.FAIL,
                     f"guest checks failed: {failed or '?'}")
    if oks != r.plan:
        return Check("guest_checks", Result.FAIL,
                     f"{oks} guest results for a plan of {shown(r.plan)}")
    return Check("guest_checks", Result.OK)


def check_kunit(j, r):
    """The suite passed every case it planned, built in (kunit=1) or as a
    module the guest loaded (kunit=m), skipped none, and ran every case
    of the job's kunit_cases (the planner's, from the kernel's series).
    A job written before jobs carried kunit_cases is judged by the
    suite's own KTAP: its plan and its results."""
    suite = "KUnit suite pid_max: "
    if j.kunit == Kunit.NONE:
        return Check("kunit", Result.SKIP,
                     "the kernel is built without CONFIG_PID_MAX_KUNIT_TEST")
    if j.kunit == Kunit.MODULE:
        unloaded = check_kunit_module(r)
        if unloaded:
            return unloaded
    if r.kunit != Suite.OK or r.kunit_notoks:
        return Check("kunit", Result.FAIL, f"{suite}{shown(r.kunit)}, failed "
                     f"cases: {shown(r.kunit_failed)}")
    if r.kunit_oks != r.kunit_plan:
        return Check("kunit", Result.FAIL, f"{suite}{r.kunit_oks} results for "
                     f"a plan of {shown(r.kunit_plan)}")
    # The suite skips nothing by design: a skipped case checked nothing.
    if r.kunit_skipped:
        return Check("kunit", Result.FAIL, f"{suite}skipped cases: "
                     f"{shown(r.kunit_skipped)}")
    missing = [c for c in j.kunit_cases or () if c not in r.kunit_passed]
    if missing:
        return Check("kunit", Result.FAIL,
                     f"{suite}case {missing[0]} is missing")
    return Check("kunit", Result.OK)


def check_kunit_module(r):
    """A failed check unless the guest loaded every module it was given
    and at least one, the suite's (guest-init.sh's load_modules)."""
    suite = "KUnit suite pid_max: "
    if r.insmod_failed:
        return Check("kunit", Result.FAIL, f"{suite}a module did not load: "
                     f"{r.insmod_failed}")
    if not r.modules:
        # As a suite that never ran: "none," (mutants.sh tells them so).
        return Check("kunit", Result.FAIL,
                     f"{suite}none, no module loaded: the kernel builds the "
                     "suite as a module, and the guest loaded none")
    return None


def check_log_scan(j, r):
    if r.stall:
        return Check("log_scan", Result.FAIL, "RCU STALL: the console "
                     "shows an RCU CPU stall warning (under "
                     f"{j.accel or 'an unknown accelerator'})")
    if r.oops:
        return Check("log_scan", Result.FAIL,
                     "the console shows an oops, BUG or WARNING")
    return Check("log_scan", Result.OK)


def check_online(j, r):
    up = r.brought_up
    if r.online is None and up not in (None, j.online):
        why = f"online CPUs none, expected {j.online}: the kernel " \
            f"brought up {up}"
        if up < j.online:
            # x86 brings its CPUs up in id order: the ones after the last
            # one up never came. When more came up than the job wants
            # (a maxcpus= lost, say), no CPU is missing.
            why += f", CPUs {up}-{j.online - 1} never came up"
        return Check("online_cpus", Result.FAIL, why)
    return expect("online_cpus", "online CPUs", r.online, j.online)


def check_pid_max_min(j, r):
    if j.pid_max_min > j.pid_max:
        # A minimum above pid_max (stock with BASE_SMALL past 4096 CPU
        # ids): no value is writable, so the guest's probe finds none.
        return expect("pid_max_min", "pid_max_min (the lowest writable "
                      "value)", r.pid_max_min, None)
    lmin, ldef = r.line_min, r.line_default
    if r.pid_max_min is None and None not in (lmin, ldef) and lmin > ldef:
        # Stock 6.1 with BASE_SMALL and more than 4096 CPU ids: the
        # sysctl's range is empty, so the guest's probe finds nothing.
        return Check("pid_max_min", Result.FAIL, f"pid_max_min none, expected "
                     f"{j.pid_max_min}: no value is writable, the boot "
                     f"line's minimum {lmin} lies above pid_max {ldef}")
    return expect("pid_max_min", "pid_max_min", r.pid_max_min, j.pid_max_min)


def check_boot_line(j, r):
    got = f"{shown(r.line_default)}/{shown(r.line_min)}"
    want = f"{j.line_default}/{j.line_min}"
    return expect("boot_line", "boot line default/minimum", got, want)


def check_sysctl(j, r):
    if r.sysctl_err == j.sysctl_refused:
        return Check("sysctl_setting", Result.OK)
    did = "did not refuse" if j.sysctl_refused else "refused"
    return Check("sysctl_setting", Result.FAIL,
                 f"the kernel {did} the sysctl.kernel.pid_max= setting")


def check_pidns(j, r):
    """The child pid namespace: what the child read, that it took the
    write of W, the fork after ns_last_pid W - 2 got W - 1 and the next
    one wrapped below it, and the parent's value after."""
    if j.pidns is None:
        return None
    w = j.pidns
    got = " ".join(shown(v) for v in (r.pidns_child, r.pidns_written,
                                      r.pidns_top, r.pidns_parent))
    want = " ".join(shown(v, "") for v in (j.pidns_child, w, w - 1,
                                           j.pidns_parent))
    if got != want:
        return Check("pid_namespace", Result.FAIL, f"child pid namespace "
                     f"({j.pidns_scope or '?'} pid_max): child/written/"
                     f"first PID/parent {got}, expected {want}")
    if r.pidns_next is None or r.pidns_next >= w - 1:
        return Check("pid_namespace", Result.FAIL, "child pid namespace: the "
                     f"fork after PID {w - 1} got {shown(r.pidns_next)}, "
                     "expected a wrap below it")
    return Check("pid_namespace", Result.OK)


def check_selftests(j, r):
    """The kernel's own selftests: every one packed passed (not
    skipped), or their outcome recorded (selftests_judged=no)."""
    if j.selftests is None:
        return None
    if j.selftests_judged == "no":
        recorded = ",".join(guest_results(j, r)[3])
        failed = f", failed: {recorded}" if recorded else ""
        return Check("selftests", Result.SKIP, "recorded, not judged: "
                     f"{r.selftests_ok} of {shown(j.selftests)} passed"
                     f"{failed}")
    return expect("selftests", "kernel selftests passed:", r.selftests_ok,
                  j.selftests)


def plain(name, what, key):
    """A check of one observed field against the job's field KEY."""
    return lambda j, r: expect(name, what, getattr(r, key), getattr(j, key))


CHECKS = (check_timeout, check_panic, check_final_marker, check_guest,
          check_kunit, check_log_scan,
          plain("possible_cpus", "possible CPUs", "possible"),
          check_online, plain("pid_max", "pid_max", "pid_max"),
          check_pid_max_min,
          plain("pid_max_max", "pid_max_max", "pid_max_max"),
          check_boot_line, check_sysctl, check_pidns, check_selftests)


def judge(j, r):
    """The Verdict of the boot of the Job J with the Record R."""
    if j.skip:
        raise ValueError(f"job {j.name or '?'} is a skip: nothing to judge")
    for key in REQUIRED:
        if getattr(j, key) in (None, ""):
            raise ValueError(f"the job lacks its {key} field")
    checks = [c for c in (check(j, r) for check in CHECKS) if c]
    reasons = [c.reason or c.name for c in checks if c.result == Result.FAIL]
    verdict = Status.FAIL if reasons else Status.PASS
    if r.timed_out:
        verdict = Status.TIMEOUT
    elif r.panic:
        verdict = Status.PANIC
    return Verdict(verdict, "; ".join(reasons), checks)


def read_verdict(lines):
    """The Verdict of the judge's LINES (Verdict.lines); a ValueError
    when a status or a result is none the judge writes."""
    head = fields(lines[0])
    checks = [Check(c["check"], Result(c["result"]), c.get("reason", ""))
              for c in map(fields, lines[1:])]
    return Verdict(Status(head["verdict"]), head.get("reason", ""), checks)
