"""The judge: one boot's record (console.py) against its job (plan.sh).

Every expected value comes from the job; nothing is recomputed here and
nothing is read back from the guest as an expectation. A boot passes
only when no check failed (the vmtest.sh rule: a guest fails until it
proves success). The checks run in the order of CHECKS; most compare
one observed field with the job's field of the same name (EXPECT), the
rest are the few that need more than one field.
"""
from dataclasses import dataclass, field
from enum import StrEnum

from .joblist import fields

REQUIRED = ("name", "possible", "online", "pid_max", "pid_max_min",
            "pid_max_max", "line_default", "line_min", "sysctl_refused",
            "kunit")
# The job's kunit: the suite not built, built in, a module (Config.kunit).
KUNIT = ("0", "1", "m")
# The record's names of what the job calls otherwise.
OBSERVED_AS = {"sysctl_refused": "sysctl_err", "selftests": "selftests_ok"}


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


def get(d, key, default="none"):
    """d[key] unless it is missing or empty (Bash's ${d[key]:-default})."""
    return d.get(key) or default


def is_num(value):
    return value.isdigit() and value.isascii()


def expect(name, what, got, want):
    if got == want:
        return Check(name, Result.OK)
    return Check(name, Result.FAIL, f"{what} {got}, expected {want}")


def check_timeout(j, r):
    if get(r, "timed_out", "0") == "1":
        accel = get(j, "accel", "an unknown accelerator")
        return Check("timeout", Result.FAIL, f"TIMEOUT: guest killed after "
                     f"{get(r, 'seconds', '?')}s under {accel}")
    return Check("timeout", Result.OK)


def check_panic(j, r):
    if get(r, "panic", "0") == "1":
        return Check("panic", Result.FAIL, "PANIC: the kernel panicked: "
                     + get(r, "panic_msg"))
    return Check("panic", Result.OK)


def check_final_marker(j, r):
    if get(r, "begin", "0") != "1":
        said = get(r, "qemu_said", "none")
        return Check("final_marker", Result.FAIL, "the guest's init never "
                     f"reported (qemu exit {get(r, 'qemu_exit')}"
                     + (f": {said}" if said != "none" else "") + ")")
    if get(r, "end", "0") != "1":
        return Check("final_marker", Result.FAIL, "no final marker: the guest "
                     "stopped before its checks ended")
    return Check("final_marker", Result.OK)


def guest_results(j, r):
    """(failed, notoks, oks, recorded) of the guest's KTAP: the selftests
    of a job that records them (selftests_judged=no) count as results,
    whatever their outcome."""
    failed, notoks = get(r, "failed"), int(get(r, "notoks", "0"))
    oks, recorded = int(get(r, "oks", "0")), []
    if j.get("selftests_judged") == "no" and failed != "none":
        kept = []
        for name in [f for f in failed.split(",") if f]:
            if name.startswith("selftest_"):
                recorded.append(name[len("selftest_"):])
                notoks, oks = notoks - 1, oks + 1
            else:
                kept.append(name)
        failed = ",".join(kept)
    return failed, notoks, str(oks), ",".join(recorded)


def check_guest(j, r):
    failed, notoks, oks, _ = guest_results(j, r)
    if notoks != 0:
        return Check("guest_checks", Result.FAIL,
                     f"guest checks failed: {failed or '?'}")
    plan = get(r, "plan")
    if plan == "none" or oks != plan:
        return Check("guest_checks", Result.FAIL,
                     f"{oks} guest results for a plan of {plan}")
    return Check("guest_checks", Result.OK)


def check_kunit(j, r):
    """The suite passed every case it planned, built in (kunit=1) or as a
    module the guest loaded (kunit=m), skipped none, and ran every case
    of the job's kunit_cases (the planner's, from the kernel's series).
    A job written before jobs carried kunit_cases is judged by the
    suite's own KTAP: its plan and its results."""
    suite = "KUnit suite pid_max: "
    if j["kunit"] == "0":
        return Check("kunit", Result.SKIP,
                     "the kernel is built without CONFIG_PID_MAX_KUNIT_TEST")
    if j["kunit"] == "m":
        unloaded = check_kunit_module(r)
        if unloaded:
            return unloaded
    if get(r, "kunit") != "ok" or get(r, "kunit_notoks", "0") != "0":
        return Check("kunit", Result.FAIL, f"{suite}{get(r, 'kunit')}, failed "
                     f"cases: {get(r, 'kunit_failed')}")
    if get(r, "kunit_oks", "0") != get(r, "kunit_plan"):
        return Check("kunit", Result.FAIL,
                     f"{suite}{get(r, 'kunit_oks', '0')} results for a plan "
                     f"of {get(r, 'kunit_plan')}")
    # The suite skips nothing by design: a skipped case checked nothing.
    if get(r, "kunit_skipped") != "none":
        return Check("kunit", Result.FAIL, f"{suite}skipped cases: "
                     f"{get(r, 'kunit_skipped')}")
    passed = get(r, "kunit_passed", "").split(",")
    cases = [c for c in j.get("kunit_cases", "").split(",") if c]
    missing = [c for c in cases if c not in passed]
    if missing:
        return Check("kunit", Result.FAIL,
                     f"{suite}case {missing[0]} is missing")
    return Check("kunit", Result.OK)


def check_kunit_module(r):
    """A failed check unless the guest loaded every module it was given
    and at least one, the suite's (guest-init.sh's load_modules)."""
    suite = "KUnit suite pid_max: "
    failed = get(r, "insmod_failed")
    if failed != "none":
        return Check("kunit", Result.FAIL, f"{suite}a module did not load: "
                     f"{failed}")
    if get(r, "modules") == "none":
        # As a suite that never ran: "none," (mutants.sh tells them so).
        return Check("kunit", Result.FAIL,
                     f"{suite}none, no module loaded: the kernel builds the "
                     "suite as a module, and the guest loaded none")
    return None


def check_log_scan(j, r):
    if get(r, "stall", "0") == "1":
        accel = get(j, "accel", "an unknown accelerator")
        return Check("log_scan", Result.FAIL, "RCU STALL: the console "
                     f"shows an RCU CPU stall warning (under {accel})")
    if get(r, "oops", "0") == "1":
        return Check("log_scan", Result.FAIL,
                     "the console shows an oops, BUG or WARNING")
    return Check("log_scan", Result.OK)


def check_online(j, r):
    online, up = get(r, "online"), get(r, "brought_up")
    if online == "none" and up not in ("none", j["online"]):
        why = f"online CPUs none, expected {j['online']}: the kernel " \
            f"brought up {up}"
        if int(up) < int(j["online"]):
            # x86 brings its CPUs up in id order: the ones after the last
            # one up never came. When more came up than the job wants
            # (a maxcpus= lost, say), no CPU is missing.
            why += f", CPUs {up}-{int(j['online']) - 1} never came up"
        return Check("online_cpus", Result.FAIL, why)
    return expect("online_cpus", "online CPUs", online, j["online"])


def check_pid_max_min(j, r):
    got, lmin, ldef = get(r, "pid_max_min"), get(r, "line_min"), \
        get(r, "line_default")
    if int(j["pid_max_min"]) > int(j["pid_max"]):
        # A minimum above pid_max (stock with BASE_SMALL past 4096 CPU
        # ids): no value is writable, so the guest's probe finds none.
        return expect("pid_max_min", "pid_max_min (the lowest writable "
                      "value)", got, "none")
    if got == "none" and is_num(lmin) and is_num(ldef) and \
            int(lmin) > int(ldef):
        # Stock 6.1 with BASE_SMALL and more than 4096 CPU ids: the
        # sysctl's range is empty, so the guest's probe finds nothing.
        return Check("pid_max_min", Result.FAIL, f"pid_max_min none, expected "
                     f"{j['pid_max_min']}: no value is writable, the boot "
                     f"line's minimum {lmin} lies above pid_max {ldef}")
    return expect("pid_max_min", "pid_max_min", got, j["pid_max_min"])


def check_boot_line(j, r):
    got = f"{get(r, 'line_default')}/{get(r, 'line_min')}"
    want = f"{j['line_default']}/{j['line_min']}"
    return expect("boot_line", "boot line default/minimum", got, want)


def check_sysctl(j, r):
    refused = j["sysctl_refused"]
    if get(r, OBSERVED_AS["sysctl_refused"], "0") == refused:
        return Check("sysctl_setting", Result.OK)
    did = "did not refuse" if refused == "1" else "refused"
    return Check("sysctl_setting", Result.FAIL,
                 f"the kernel {did} the sysctl.kernel.pid_max= setting")


def check_pidns(j, r):
    """The child pid namespace: what the child read, that it took the
    write of W, the fork after ns_last_pid W - 2 got W - 1 and the next
    one wrapped below it, and the parent's value after."""
    if not j.get("pidns"):
        return None
    w = int(j["pidns"])
    got = " ".join(get(r, "pidns_" + k) for k in
                   ("child", "written", "top", "parent"))
    want = f"{j.get('pidns_child', '')} {w} {w - 1} {j.get('pidns_parent', '')}"
    if got != want:
        return Check("pid_namespace", Result.FAIL, f"child pid namespace "
                     f"({get(j, 'pidns_scope', '?')} pid_max): child/written/"
                     f"first PID/parent {got}, expected {want}")
    nxt = get(r, "pidns_next")
    if not is_num(nxt) or int(nxt) >= w - 1:
        return Check("pid_namespace", Result.FAIL, "child pid namespace: the "
                     f"fork after PID {w - 1} got {nxt}, expected a wrap "
                     "below it")
    return Check("pid_namespace", Result.OK)


def check_selftests(j, r):
    """The kernel's own selftests: every one packed passed (not
    skipped), or their outcome recorded (selftests_judged=no)."""
    want = j.get("selftests")
    if not want:
        return None
    passed = get(r, OBSERVED_AS["selftests"], "0")
    if j.get("selftests_judged") == "no":
        recorded = guest_results(j, r)[3]
        failed = f", failed: {recorded}" if recorded else ""
        return Check("selftests", Result.SKIP, "recorded, not judged: "
                     f"{passed} of {want} passed{failed}")
    return expect("selftests", "kernel selftests passed:", passed, want)


def plain(name, what, key):
    """A check of one observed field against the job's field KEY."""
    return lambda j, r: expect(name, what, get(r, key), j[key])


CHECKS = (check_timeout, check_panic, check_final_marker, check_guest,
          check_kunit, check_log_scan,
          plain("possible_cpus", "possible CPUs", "possible"),
          check_online, plain("pid_max", "pid_max", "pid_max"),
          check_pid_max_min,
          plain("pid_max_max", "pid_max_max", "pid_max_max"),
          check_boot_line, check_sysctl, check_pidns, check_selftests)


def judge(j, r):
    """The Verdict of the boot with job fields J and record fields R."""
    if j.get("skip"):
        raise ValueError(f"job {get(j, 'name', '?')} is a skip: nothing "
                         "to judge")
    for key in REQUIRED:
        if not j.get(key):
            raise ValueError(f"the job lacks its {key} field")
    if j["kunit"] not in KUNIT:
        raise ValueError(f"the job's kunit is {j['kunit']}, not one of "
                         f"{', '.join(KUNIT)}")
    checks = [c for c in (check(j, r) for check in CHECKS) if c]
    reasons = [c.reason or c.name for c in checks if c.result == Result.FAIL]
    verdict = Status.FAIL if reasons else Status.PASS
    if get(r, "timed_out", "0") == "1":
        verdict = Status.TIMEOUT
    elif get(r, "panic", "0") == "1":
        verdict = Status.PANIC
    return Verdict(verdict, "; ".join(reasons), checks)



def read_verdict(lines):
    """The Verdict of the judge's LINES (Verdict.lines); a ValueError
    when a status or a result is none the judge writes."""
    head = fields(lines[0])
    checks = [Check(c["check"], Result(c["result"]), c.get("reason", ""))
              for c in map(fields, lines[1:])]
    return Verdict(Status(head["verdict"]), head.get("reason", ""), checks)
