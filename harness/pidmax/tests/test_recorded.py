"""Every recorded console log of tests/fixtures in tables, in the manner
of the kernel's tools/testing/kunit/kunit_tool_test.py: the console
parser on each log once, with the record's key fields written in its
row; the judge on each log against jobs built here from the formula and
the tree's semantics (never from the log or the judge's answer), with
the verdict, the failed checks and a reason written in the row; the
planner's jobs of every tier on both architectures and three trees,
their expected values worked out here from the formula; and the
runner's rule that a boot with 16 or more online CPUs runs alone.

Each row runs in a subTest of its own, so a failure names its row."""
import dataclasses
import functools
import os
import re
import shutil
import tempfile
import unittest
from typing import NamedTuple

from pidmax import console, judge, plan, runner, tables
from pidmax.formula import expected
from pidmax.joblist import Job
from pidmax.tables import HARNESS
from pidmax.tests.test_judge import FIX
from pidmax.tests.test_plan import options

# CASES holds the lists of the KUnit suite's cases: of its first
# version, which most recorded logs ran, and of today's, which the arm64
# logs and the module's ran.
CASES = {"v1": os.path.join(FIX, "kunit-pid_max-v1.cases"),
         "v2": os.path.join(HARNESS, "config", "kunit-pid_max.cases")}
CHECK_NAMES = ("timeout", "panic", "final_marker", "guest_checks", "kunit",
               "log_scan", "possible_cpus", "online_cpus", "pid_max",
               "pid_max_min", "pid_max_max", "boot_line", "sysctl_setting",
               "pid_namespace", "selftests")


def case_list(which):
    """The cases of the list WHICH, comma-joined as a job carries them."""
    with open(CASES[which], encoding="utf-8") as f:
        names = [x.strip() for x in f]
    return ",".join(n for n in names if n and not n.startswith("#"))


def pidns_fields(e, scope, boot):
    """What the child pid namespace must show, by the tree's semantics:
    the guest writes W = pid_max_min + 1000 in the child; since 6.14 a
    child has its own pid_max, starting at PID_MAX_LIMIT, and the parent
    keeps the boot value; before, both read the one global value."""
    w = e.minimum + 1000
    child, parent = (e.limit, boot) if scope == "namespace" else (boot, w)
    return {"pidns": str(w), "pidns_child": str(child),
            "pidns_parent": str(parent), "pidns_scope": scope}


def job(cpus, possible=None, online=1, small=False, model="series",
        kunit="0", cases=None, pidns=None, **more):
    """A job of a 64-bit kernel whose formula counts CPUS (nr_cpu_ids
    for the series, the possible CPUs for the stock model), POSSIBLE
    (CPUS unless given) possible and ONLINE online CPUs; the suite
    KUNIT with the cases of the list CASES; the child pid namespace of
    scope PIDNS; the fields MORE last (pid_max: an override)."""
    e = expected(cpus, small, True, model)
    boot = more.pop("pid_max", str(e.pid_max))
    j = {"name": "recorded", "possible": str(possible or cpus),
         "online": str(online), "pid_max": boot,
         "pid_max_min": str(e.minimum), "pid_max_max": str(e.limit),
         "line_default": str(e.pid_max), "line_min": str(e.minimum),
         "sysctl_refused": "0", "kunit": kunit, "accel": "tcg"}
    if cases:
        j["kunit_cases"] = case_list(cases)
    if pidns:
        j.update(pidns_fields(e, pidns, boot))
    j.update(more)
    return Job.read(j)


@functools.lru_cache(maxsize=None)
def _parsed(name):
    return console.parse(os.path.join(FIX, name))[0]


def record(name, edits=()):
    """The record of the fixture NAME, parsed once; with EDITS, of a copy
    (serial CRs dropped) with each (PATTERN, REPLACEMENT) made on it, line
    by line, and its meta; a PATTERN None gives the copy a LOG.qemu (what
    QEMU wrote on its standard error) holding REPLACEMENT."""
    if not edits:
        return _parsed(name)
    src = os.path.join(FIX, name)
    with open(src, encoding="latin-1", newline="") as f:
        text = f.read().replace("\r", "")
    for pattern, replacement in edits:
        if pattern is None:
            continue
        text, n = re.subn(pattern, replacement, text, flags=re.M)
        if not n:
            raise AssertionError(f"{name}: no line matches {pattern!r}")
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, name)
        with open(log, "w", encoding="latin-1", newline="") as f:
            f.write(text)
        shutil.copy(src + ".meta", log + ".meta")
        for pattern, replacement in edits:
            if pattern is None:
                with open(log + ".qemu", "w", encoding="latin-1") as f:
                    f.write(replacement)
        return console.parse(log)[0]


def logs():
    return sorted(f for f in os.listdir(FIX) if f.endswith(".log"))


class Parsed(NamedTuple):
    """A log and what its record must say: the guest's markers (begin,
    end), its CPUs and pid_max, the KUnit suite (its state, its plan and
    how many cases passed), and fields of note to this log."""
    log: str
    begin: str
    end: str
    possible: str
    online: str
    pid_max: str
    kunit: str
    kunit_plan: str
    kunit_oks: str
    more: dict = {}


KILL_INIT = "Attempted to kill init! exitcode=0x0000000b"
LOAD_FAILED = ("pid_max_kunit: insmod exit 2: insmod: can't insert "
               "'/lib/modules/pid_max_kunit.ko': unknown symbol in module, "
               "or unknown parameter")
PARSED = (
    Parsed("arm64-holes-064-h1-16-7.3.log", "1", "1", "48", "1", "65536",
           "ok", "7", "7", {"pid_max_min": "512", "brought_up": "1"}),
    Parsed("arm64-holes-064-selftests-unchanged-7.3.log", "1", "1", "48",
           "1", "65536", "ok", "7", "7",
           {"plan": "9", "oks": "8", "notoks": "1", "selftests_ok": "2",
            "failed": "selftest_pid_max"}),
    Parsed("budget-online-008.log", "1", "1", "8", "8", "32768", "ok", "7",
           "7", {"last_pid_at_init": "63", "tasks": "55", "kthreads": "53",
                 "brought_up": "8"}),
    Parsed("extended-064-7.3.log", "1", "1", "64", "64", "65536", "ok", "7",
           "7", {"plan": "20", "oks": "20", "pidns_child": "4194304",
                 "pidns_written": "1512", "pidns_top": "1511",
                 "pidns_next": "300", "pidns_parent": "65536"}),
    Parsed("extended-064-pidns-6.1.log", "1", "1", "64", "1", "65536", "ok",
           "7", "7", {"pidns_child": "65536", "pidns_parent": "1512"}),
    Parsed("extended-064.log", "1", "1", "64", "1", "65536", "ok", "7", "7",
           {"plan": "19", "oks": "19", "pidns_child": "none"}),
    Parsed("hang.log", "0", "0", "none", "none", "none", "none", "none", "0",
           {"timed_out": "1", "qemu_exit": "137", "seconds": "7.92",
            "brought_up": "1", "panic": "0"}),
    Parsed("hotplug-033.log", "1", "1", "33", "1", "33792", "none", "none",
           "0", {"line_default": "33792", "line_min": "301"}),
    Parsed("hotplug-255-vmware-7.3.log", "1", "1", "255", "1", "261120",
           "ok", "7", "7", {"pid_max_min": "2040", "pid_max_max": "4194304"}),
    Parsed("hotplug-255.log", "1", "1", "255", "1", "261120", "none",
           "none", "0", {"plan": "6", "oks": "6", "notoks": "0",
                         "failed": "none", "pid_max_min": "2040",
                         "pid_max_max": "4194304", "line_default": "261120",
                         "line_min": "2040", "panic": "0", "oops": "0",
                         "timed_out": "0"}),
    Parsed("kunit-hotplug-040.log", "1", "1", "40", "1", "40960", "ok", "7",
           "7", {"kunit_notoks": "0", "kunit_failed": "none"}),
    Parsed("kunit-module-hotplug-033-6.1.log", "1", "1", "33", "1", "32768",
           "ok", "7", "7", {"modules": "pid_max_kunit", "pid_max_max": "32768",
                            "insmod_failed": "none"}),
    Parsed("kunit-module-unknown-symbol-7.3-arm64.log", "1", "1", "1", "1",
           "32768", "none", "none", "0",
           {"modules": "none", "insmod_failed": LOAD_FAILED, "notoks": "1",
            "failed": "insmod_pid_max_kunit"}),
    Parsed("online-008.log", "1", "1", "8", "8", "32768", "none", "none", "0",
           {"brought_up": "8"}),
    Parsed("online-064-6.12.log", "1", "1", "64", "64", "65536", "ok", "7",
           "7", {"brought_up": "64"}),
    Parsed("panic.log", "0", "0", "none", "none", "none", "none", "none", "0",
           {"panic": "1", "oops": "0", "panic_msg": "Requested init /y "
            "failed (error -2)."}),
    Parsed("printk-time-001.log", "1", "1", "1", "1", "32768", "ok", "7",
           "7", {"line_min": "301"}),
    Parsed("selftests-7.3.log", "1", "1", "1", "1", "32768", "ok", "7", "7",
           {"plan": "9", "selftests_ok": "3"}),
    Parsed("starved-online-255.log", "0", "0", "none", "none", "none",
           "none", "none", "0", {"brought_up": "203", "oops": "1",
                                 "panic": "1", "panic_msg": KILL_INIT}),
    Parsed("sysctl-override.log", "1", "1", "64", "1", "30000", "ok", "7",
           "7", {"line_default": "65536", "sysctl_err": "0"}),
    Parsed("sysctl-too-low.log", "1", "1", "64", "1", "65536", "ok", "7",
           "7", {"sysctl_err": "1"}),
)


class Judged(NamedTuple):
    """A log judged against a job (job()'s arguments): the verdict, the
    checks that fail, in order, and a part of the verdict's reason; the
    log edited first by EDITS for what no recorded boot shows."""
    why: str
    log: str
    job: dict
    verdict: str
    failed: tuple = ()
    reason: str = ""
    edits: tuple = ()


# A job's suite is built in, with the cases of its first version (V1)
# or of today's (V2).
V1 = dict(kunit="1", cases="v1")
V2 = dict(kunit="1", cases="v2")
# These checks fail when the guest never reports, and these when it
# reports no value.
NO_GUEST = ("final_marker", "guest_checks")
NO_VALUES = ("possible_cpus", "online_cpus", "pid_max", "pid_max_min",
             "pid_max_max", "boot_line")
# The holes boot has 64 CPU ids on arm64, of which cpu@1 to cpu@16 are
# holes: 48 possible CPUs.
HOLES = dict(cpus=64, possible=48, **V2)
UNCHANGED = dict(HOLES, selftests="3", initrd_extra="/u.cpio")
SELFTESTS = dict(cpus=1, selftests="3", initrd_extra="/s", **V1)
# The edits below change the child's fork after the wrap, give QEMU a
# last word, and put an RCU stall warning, a WARNING or arm64's stack
# dump before init.
NEXT = r"^(# pidns: .*) next=300 "
QEMU_SAID = "qemu-system-x86_64: terminating on signal 15 from pid 4242"
INIT = r"^Run /init as init process"
STALL = (INIT, "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n\\g<0>")
WARNING = (INIT, "WARNING: CPU: 0 PID: 1 at kernel/pid.c:650 "
           "pid_idr_init+0x0/0x0\n\\g<0>")
CALL_TRACE = (INIT, "Call trace:\n\\g<0>")
OOPS = "the console shows an oops, BUG or WARNING"
# Stock 6.1 with BASE_SMALL and 4097 CPU ids: its boot line states a
# minimum above pid_max, and the guest's probes find nothing.
EMPTY_RANGE = (
    (r"^pid_max: default: .*", "pid_max: default: 32768 minimum: 32776"),
    (r"^# boot_line: .*", "# boot_line: pid_max: default: 32768 minimum: "
     "32776"),
    (r"^# pid_max: 261120", "# pid_max: 32768"),
    (r"^# pid_max_min: 2040", "# pid_max_min: unknown"),
    (r"^# pid_max_max: 4194304", "# pid_max_max: unknown"),
    (r"^# cpus: possible=0-254", "# cpus: possible=0-4096"))
JUDGED = (
    Judged("as planned", "hotplug-255.log", dict(cpus=255), "pass"),
    Judged("one CPU fewer", "hotplug-255.log", dict(cpus=254), "fail",
           ("possible_cpus", "pid_max", "pid_max_min", "boot_line"),
           "possible CPUs 255, expected 254; pid_max 261120, expected "
           "260096"),
    Judged("as BASE_SMALL", "hotplug-255.log", dict(cpus=255, small=True),
           "fail", ("pid_max", "pid_max_max", "boot_line"),
           "pid_max 261120, expected 32768"),
    Judged("cut in the checks", "hotplug-255.log", dict(cpus=255), "fail",
           NO_GUEST + ("pid_max_max",), "no final marker: the guest stopped "
           "before its checks ended; 3 guest results for a plan of 6",
           ((r"^ok 4 (.|\n)*", ""),)),
    Judged("an RCU stall", "hotplug-255.log", dict(cpus=255), "fail",
           ("log_scan",), "RCU STALL: the console shows an RCU CPU stall "
           "warning (under tcg)", (STALL,)),
    Judged("a WARNING", "hotplug-255.log", dict(cpus=255), "fail",
           ("log_scan",), OOPS, (WARNING,)),
    Judged("pid_max off by one", "hotplug-255.log", dict(cpus=255), "fail",
           ("pid_max",), "pid_max 261119, expected 261120",
           ((r"^# pid_max: 261120", "# pid_max: 261119"),)),
    Judged("an unscaled minimum", "hotplug-255.log", dict(cpus=255), "fail",
           ("pid_max_min",), "pid_max_min 301, expected 2040",
           ((r"^# pid_max_min: 2040", "# pid_max_min: 301"),)),
    Judged("broken four ways", "hotplug-255.log", dict(cpus=255), "fail",
           ("log_scan", "possible_cpus", "pid_max", "pid_max_min"),
           OOPS + "; possible CPUs 254, expected 255; pid_max 32768, "
           "expected 261120; pid_max_min 301, expected 2040",
           ((r"^# pid_max: 261120", "# pid_max: 32768"),
            (r"^# pid_max_min: 2040", "# pid_max_min: 301"),
            (r"^# cpus: possible=0-254", "# cpus: possible=0-253"),
            WARNING)),
    Judged("upstream's boot line", "hotplug-255.log", dict(cpus=255), "pass",
           edits=((r" minimum: 2040 \(nr_cpu_ids.*", " minimum: 2040"),)),
    Judged("the guest's boot line bare", "hotplug-255.log", dict(cpus=255),
           "pass", edits=((r"^(# boot_line: pid_max: default: 261120 "
                           r"minimum: 2040) \(.*\)$", r"\1"),)),
    Judged("the boot line's default", "hotplug-255.log", dict(cpus=255),
           "fail", ("boot_line",), "boot line default/minimum 32768/2040, "
           "expected 261120/2040",
           ((r"default: 261120 minimum", "default: 32768 minimum"),)),
    Judged("stock values on the boot line", "hotplug-255.log",
           dict(cpus=255), "fail", ("boot_line",), "boot line default/"
           "minimum 32768/301, expected 261120/2040",
           ((r"^# boot_line: .*", "# boot_line: pid_max: default: 32768 "
             "minimum: 301"),)),
    Judged("a guest check failed", "hotplug-255.log", dict(cpus=255), "fail",
           ("guest_checks",), "guest checks failed: pid_max_min_probe",
           ((r"^ok 3 pid_max_min_probe",
             "not ok 3 pid_max_min_probe # 1 was accepted"),)),
    Judged("a guest result missing", "hotplug-255.log", dict(cpus=255),
           "fail", ("guest_checks",), "5 guest results for a plan of 6",
           ((r"^ok 5 .*\n", ""),)),
    Judged("cut before init", "hotplug-255.log", dict(cpus=255), "fail",
           NO_GUEST + NO_VALUES, "the guest's init never reported (qemu "
           "exit 0); 0 guest results for a plan of none",
           ((r"^PIDMAX-HARNESS-BEGIN(.|\n)*", ""),)),
    Judged("an empty log", "hotplug-255.log", dict(cpus=255), "fail",
           NO_GUEST + NO_VALUES, "the guest's init never reported (qemu "
           "exit 0)", ((r"(.|\n)+", ""),)),
    Judged("no writable value", "hotplug-255.log",
           dict(cpus=4097, small=True), "fail",
           ("pid_max_min", "pid_max_max", "boot_line"),
           "pid_max_min none, expected 32768: no value is writable, the "
           "boot line's minimum 32776 lies above pid_max 32768", EMPTY_RANGE),
    Judged("no writable value, stock", "hotplug-255.log",
           dict(cpus=4097, small=True, model="stock"), "fail",
           ("pid_max_max",), "pid_max_max none, expected 32768", EMPTY_RANGE),
    Judged("as planned", "hotplug-033.log", dict(cpus=33), "pass"),
    Judged("suite asked, none ran", "hotplug-033.log", dict(cpus=33, **V1),
           "fail", ("kunit",), "KUnit suite pid_max: none, failed cases: "
           "none"),
    Judged("on vmware", "hotplug-255-vmware-7.3.log", dict(cpus=255, **V1),
           "pass"),
    Judged("as planned", "online-008.log", dict(cpus=8, online=8), "pass"),
    Judged("one online asked", "online-008.log", dict(cpus=8), "fail",
           ("online_cpus",), "online CPUs 8, expected 1"),
    Judged("as planned", "online-064-6.12.log",
           dict(cpus=64, online=64, **V1), "pass"),
    Judged("as planned", "budget-online-008.log",
           dict(cpus=8, online=8, **V1), "pass"),
    Judged("as planned", "printk-time-001.log", dict(cpus=1, **V1), "pass"),
    Judged("as planned", "kunit-hotplug-040.log", dict(cpus=40, **V1),
           "pass"),
    Judged("today's cases", "kunit-hotplug-040.log", dict(cpus=40, **V2),
           "fail", ("kunit",), "KUnit suite pid_max: case "
           "pid_max_floor_up_to_32_cpu_ids is missing"),
    Judged("a case short", "kunit-hotplug-040.log", dict(cpus=40, **V1),
           "fail", ("kunit",), "KUnit suite pid_max: 6 results for a plan "
           "of 7", ((r"^    ok 7 .*\n", ""),)),
    Judged("a case failed", "kunit-hotplug-040.log", dict(cpus=40, **V1),
           "fail", ("kunit",), "KUnit suite pid_max: notok, failed cases: "
           "pid_max_no_overflow",
           ((r"^    ok 6 pid_max_no_overflow",
             "    not ok 6 pid_max_no_overflow"),
            (r"^ok 1 pid_max$", "not ok 1 pid_max"))),
    Judged("a case gone", "kunit-hotplug-040.log", dict(cpus=40, **V1),
           "fail", ("kunit",), "KUnit suite pid_max: case "
           "pid_max_base_small is missing",
           ((r"^    ok 5 .*\n", ""), (r"^    1\.\.7$", "    1..6"))),
    Judged("cut in the suite", "kunit-hotplug-040.log", dict(cpus=40, **V1),
           "fail", NO_GUEST + ("kunit",) + NO_VALUES, "KUnit suite pid_max: "
           "running, failed cases: none", ((r"^    ok 4 (.|\n)*", ""),)),
    Judged("as planned", "kunit-module-hotplug-033-6.1.log",
           dict(cpus=33, small=True, kunit="m", cases="v2"), "pass"),
    Judged("without BASE_SMALL", "kunit-module-hotplug-033-6.1.log",
           dict(cpus=33, kunit="m", cases="v2"), "fail",
           ("pid_max", "pid_max_max", "boot_line"),
           "pid_max_max 32768, expected 4194304"),
    Judged("the module refused", "kunit-module-unknown-symbol-7.3-arm64.log",
           dict(cpus=1, kunit="m", cases="v2"), "fail",
           ("guest_checks", "kunit"), "KUnit suite pid_max: a module did "
           "not load: " + LOAD_FAILED),
    Judged("no suite asked", "kunit-module-unknown-symbol-7.3-arm64.log",
           dict(cpus=1), "fail", ("guest_checks",),
           "guest checks failed: insmod_pid_max_kunit"),
    Judged("init never found", "panic.log", dict(cpus=1), "panic",
           ("panic",) + NO_GUEST + NO_VALUES,
           "PANIC: the kernel panicked: Requested init /y failed (error "
           "-2).; the guest's init never reported (qemu exit 0)"),
    Judged("QEMU's own word", "panic.log", dict(cpus=1), "fail",
           NO_GUEST + NO_VALUES, "the guest's init never reported (qemu "
           "exit 0: " + QEMU_SAID + ")",
           ((r"^Kernel panic(.|\n)*", ""), (None, "\n" + QEMU_SAID + "\n\n"))),
    Judged("killed", "hang.log", dict(cpus=4), "timeout",
           ("timeout",) + NO_GUEST + NO_VALUES,
           "TIMEOUT: guest killed after 7.92s under tcg"),
    Judged("held at 1024 PIDs", "starved-online-255.log",
           dict(cpus=255, online=255, **V1), "panic",
           ("panic",) + NO_GUEST + ("kunit", "log_scan") + NO_VALUES,
           "online CPUs none, expected 255: the kernel brought up 203, CPUs "
           "203-254 never came up"),
    Judged("init killed first", "starved-online-255.log",
           dict(cpus=255, online=255, **V1), "panic",
           ("panic",) + NO_GUEST + ("kunit", "log_scan") + NO_VALUES,
           "PANIC: the kernel panicked: " + KILL_INIT + "; "),
    Judged("more brought up than asked", "starved-online-255.log",
           dict(cpus=255, **V1), "panic",
           ("panic",) + NO_GUEST + ("kunit", "log_scan") + NO_VALUES,
           "online CPUs none, expected 1: the kernel brought up 203; "),
    Judged("before the pidns check", "extended-064.log",
           dict(cpus=64, **V1), "pass"),
    Judged("a bad write accepted", "extended-064.log", dict(cpus=64, **V1),
           "fail", ("guest_checks",), "guest checks failed: "
           "bad_write_2pow63", ((r"^ok ([0-9]*) bad_write_2pow63$",
                                 r"not ok \1 bad_write_2pow63 # accepted"),)),
    Judged("pidns never measured", "extended-064.log",
           dict(cpus=64, pidns="global", **V1), "fail", ("pid_namespace",),
           "child/written/first PID/parent none none none none, expected "
           "65536 1512 1511 1512"),
    Judged("6.1, global", "extended-064-pidns-6.1.log",
           dict(cpus=64, pidns="global", **V1), "pass"),
    Judged("6.1 as 7.3", "extended-064-pidns-6.1.log",
           dict(cpus=64, pidns="namespace", **V1), "fail", ("pid_namespace",),
           "child pid namespace (namespace pid_max): child/written/first "
           "PID/parent 65536 1512 1511 1512, expected 4194304 1512 1511 "
           "65536"),
    Judged("7.3, per namespace", "extended-064-7.3.log",
           dict(cpus=64, online=64, pidns="namespace", **V1), "pass"),
    Judged("7.3 as 6.1", "extended-064-7.3.log",
           dict(cpus=64, online=64, pidns="global", **V1), "fail",
           ("pid_namespace",), "expected 65536 1512 1511 1512"),
    Judged("no wrap", "extended-064-7.3.log",
           dict(cpus=64, online=64, pidns="namespace", **V1), "fail",
           ("pid_namespace",), "the fork after PID 1511 got 1512, expected "
           "a wrap below it", ((NEXT, r"\1 next=1512 "),)),
    Judged("W - 1 again", "extended-064-7.3.log",
           dict(cpus=64, online=64, pidns="namespace", **V1), "fail",
           ("pid_namespace",), "the fork after PID 1511 got 1511",
           ((NEXT, r"\1 next=1511 "),)),
    Judged("pidns lines gone", "extended-064-7.3.log",
           dict(cpus=64, online=64, pidns="namespace", **V1), "fail",
           ("pid_namespace",), "child/written/first PID/parent none none "
           "none none, expected 4194304 1512 1511 65536",
           ((r"^# pidns: .*\n", ""),)),
    Judged("the override", "sysctl-override.log",
           dict(cpus=64, pid_max="30000", **V1), "pass"),
    Judged("the formula's", "sysctl-override.log", dict(cpus=64, **V1),
           "fail", ("pid_max",), "pid_max 30000, expected 65536"),
    Judged("a refusal wanted", "sysctl-override.log",
           dict(cpus=64, pid_max="30000", sysctl_refused="1", **V1), "fail",
           ("sysctl_setting",), "the kernel did not refuse the "
           "sysctl.kernel.pid_max= setting"),
    Judged("refused", "sysctl-too-low.log",
           dict(cpus=64, sysctl_refused="1", **V1), "pass"),
    Judged("no refusal wanted", "sysctl-too-low.log", dict(cpus=64, **V1),
           "fail", ("sysctl_setting",), "the kernel refused the "
           "sysctl.kernel.pid_max= setting"),
    Judged("three passed", "selftests-7.3.log", SELFTESTS, "pass"),
    Judged("four packed", "selftests-7.3.log", dict(SELFTESTS, selftests="4"),
           "fail", ("selftests",), "kernel selftests passed: 3, expected 4"),
    Judged("one failed", "selftests-7.3.log", SELFTESTS, "fail",
           ("guest_checks", "selftests"), "guest checks failed: "
           "selftest_pidns_init_via_setns; kernel selftests passed: 2, "
           "expected 3",
           ((r"^ok 7 (selftest_pidns_init_via_setns)$",
             r"not ok 7 \1 # exit 1"),)),
    Judged("one skipped", "selftests-7.3.log", SELFTESTS, "fail",
           ("selftests",), "kernel selftests passed: 2, expected 3",
           ((r"^ok 6 selftest_pid_max$", r"\g<0> # SKIP exit 4"),)),
    Judged("the series'", "arm64-holes-064-h1-16-7.3.log", HOLES, "pass"),
    Judged("the stock model", "arm64-holes-064-h1-16-7.3.log",
           dict(HOLES, cpus=48, model="stock"), "fail",
           ("pid_max", "pid_max_min", "boot_line"),
           "pid_max 65536, expected 49152; pid_max_min 512, expected 384"),
    Judged("an RCU stall on arm64", "arm64-holes-064-h1-16-7.3.log", HOLES,
           "fail", ("log_scan",), "RCU STALL: the console shows an RCU CPU "
           "stall warning (under tcg)", (STALL,)),
    Judged("arm64's stack dump", "arm64-holes-064-h1-16-7.3.log", HOLES,
           "fail", ("log_scan",), OOPS, (CALL_TRACE,)),
    Judged("recorded, not judged",
           "arm64-holes-064-selftests-unchanged-7.3.log",
           dict(UNCHANGED, selftests_judged="no"), "pass"),
    Judged("judged", "arm64-holes-064-selftests-unchanged-7.3.log",
           UNCHANGED, "fail", ("guest_checks", "selftests"),
           "guest checks failed: selftest_pid_max; kernel selftests passed: "
           "2, expected 3"),
)


def failed(v):
    return tuple(c.name for c in v.checks if c.result == "fail")


def skipped(v):
    return tuple(c.name for c in v.checks if c.result == "skip")


class RecordedTest(unittest.TestCase):
    def test_every_log_has_rows(self):
        self.assertEqual(len(logs()), 21)
        self.assertEqual([p.log for p in PARSED], logs())
        self.assertEqual(sorted({j.log for j in JUDGED}), logs())

    def test_parser(self):
        for p in PARSED:
            with self.subTest(log=p.log):
                r = record(p.log).fields()
                want = p._asdict()
                want.update(want.pop("more"))
                del want["log"]
                self.assertEqual({k: r[k] for k in want}, want)

    def test_judge(self):
        for n, row in enumerate(JUDGED):
            with self.subTest(row=n, log=row.log, why=row.why):
                v = judge.judge(job(**row.job), record(row.log, row.edits))
                self.assertEqual((v.verdict, failed(v)),
                                 (row.verdict, row.failed))
                if row.verdict == "pass":
                    self.assertEqual(v.reason, "")
                else:
                    self.assertIn(row.reason, v.reason)
                # A check is a skip only where the job says so.
                want = ("kunit",) if row.job.get("kunit", "0") == "0" else ()
                if row.job.get("selftests_judged") == "no":
                    want += ("selftests",)
                self.assertEqual(skipped(v), want)

    def test_the_lines_of_a_boot(self):
        """The judge's whole answer, in its lines: the verdict, then each
        check in the order of CHECKS, a check of the child pid namespace
        or the selftests only when the job asks for it."""
        plain = [f"check={c}\tresult=ok\treason=" for c in CHECK_NAMES[:13]]
        plain[4] = ("check=kunit\tresult=skip\treason=the kernel is built "
                    "without CONFIG_PID_MAX_KUNIT_TEST")
        v = judge.judge(job(255), record("hotplug-255.log"))
        self.assertEqual(v.lines(), ["verdict=pass\treason="] + plain)
        v = judge.judge(job(64, online=64, **V1),
                        record("extended-064-7.3.log"))
        self.assertNotIn("pid_namespace", [c.name for c in v.checks])
        self.assertEqual(len(v.checks), 13)
        v = judge.judge(job(**dict(UNCHANGED, selftests_judged="no")),
                        record("arm64-holes-064-selftests-unchanged-7.3.log"))
        self.assertEqual(v.lines()[-1], "check=selftests\tresult=skip\t"
                         "reason=recorded, not judged: 2 of 3 passed, "
                         "failed: pid_max")

    def test_every_check_fails_and_passes(self):
        """The table makes each check of the judge fail at least once and
        pass at least once, and names every check the judge has."""
        fails, passes = set(), set()
        for row in JUDGED:
            self.assertEqual(row.verdict == "pass", not row.failed, row)
            self.assertEqual(row.verdict == "pass", not row.reason, row)
            v = judge.judge(job(**row.job), record(row.log, row.edits))
            fails.update(failed(v))
            passes.update(c.name for c in v.checks if c.result == "ok")
        self.assertEqual(len(judge.CHECKS), len(CHECK_NAMES))
        self.assertEqual(sorted(fails), sorted(CHECK_NAMES))
        self.assertEqual(sorted(passes), sorted(CHECK_NAMES))


# The planner's rows plan for these .configs: a recorded one
# (tests/fixtures), its header's version made another tree's, with lines
# added after it (a later line wins, as in kconfig.py). 7.3 is 6.12's
# with the version changed and with DMI, so that its hotplug tier boots
# on the machine vmware.
WIDE = ("CONFIG_X86_X2APIC=y", "CONFIG_IRQ_REMAP=y", "CONFIG_NR_CPUS=8192")
CONFIGS = {
    "6.1": ("config-6.1-full", "", ()),
    "6.1-kunit": ("config-6.1-full-kunit", "", ()),
    "6.1-kmod-small": ("config-6.1-full-kunit", "", (
        "CONFIG_BASE_SMALL=1", "CONFIG_PID_MAX_KUNIT_TEST=m",
        "CONFIG_MODULES=y")),
    "6.1-wide": ("config-6.1-full-kunit", "", WIDE),
    "6.12": ("config-6.12-full", "", ()),
    "6.12-wide": ("config-6.12-full", "", WIDE),
    "7.3": ("config-6.12-full", "7.3.4", ("CONFIG_DMI=y",)),
    "7.3-wide": ("config-6.12-full", "7.3.4", ("CONFIG_DMI=y",) + WIDE),
    "6.1-arm64": ("config-6.1-full", "", ()),
    "6.12-arm64": ("config-6.12-full", "", ()),
    "7.3-arm64": ("config-6.12-full", "7.3.4", ()),
}


def write_config(d, key):
    """The .config CONFIGS[KEY] in the folder D; an -arm64 one sets ARM64
    instead of X86."""
    base, version, more = CONFIGS[key]
    with open(os.path.join(FIX, base), encoding="latin-1") as f:
        text = f.read()
    arch = "x86"
    if key.endswith("-arm64"):
        arch, text = "arm64", text.replace("\nCONFIG_X86=y\n",
                                           "\nCONFIG_ARM64=y\n")
    text, n = re.subn(r"^# Linux/x86 ([0-9.]+) Kernel Configuration$",
                      lambda m: f"# Linux/{arch} {version or m.group(1)} "
                      "Kernel Configuration", text, count=1, flags=re.M)
    if not n or ("CONFIG_ARM64=y" in text) != (arch == "arm64"):
        raise AssertionError(f"{base} changed: no header or no CONFIG_X86")
    path = os.path.join(d, "config-" + key)
    with open(path, "w", encoding="latin-1") as f:
        f.write(text + "".join(x + "\n" for x in more))
    return path


class Planned(NamedTuple):
    """A job of the planner (plan.py) for a .config of CONFIGS and the
    options OPTS: its fields WANT, written here, and the values the
    formula gives for COUNT CPUs (a skip: none) of that variant and model;
    a recorded boot LOG of that kernel that the job must pass, judged by
    the KUnit cases of the list CASES that its kernel ran."""
    config: str
    opts: dict
    name: str
    want: dict
    count: int = 0
    small: bool = False
    model: str = "series"
    log: str = ""
    cases: str = "v1"


def hotplug(n, machine="pc", kunit="0"):
    return dict(tier="hotplug", smp=f"1,maxcpus={n}", possible=str(n),
                online="1", machine=machine, kunit=kunit, timeout="61")


def scenario(append, possible=64, online=1, smp="1,maxcpus=64", kunit="1",
             **more):
    return dict(tier="scenario", append=append, possible=str(possible),
                online=str(online), smp=smp, kunit=kunit, machine="pc",
                **more)


def arm64(tier, smp, possible, append="maxcpus=1", **more):
    return dict(tier=tier, smp=smp, possible=str(possible), online="1",
                append=append, machine="virt", kunit="1", **more)


def skip(tier, why):
    return dict(tier=tier, skip=why)


# Memory and timeouts follow plan.py's rules, worked out by hand: the
# possible tier 512 + 5N/8 MiB and 60 + N/16 s, a device tree's 512 +
# 7N/8 MiB; wide-online 512 + N MiB and 60 + N * N/400 s; wide-hotplug
# 512 + N/2 MiB and 60 + N/4 s; any other boot 60 s and the first count
# of its -smp.
SCENARIOS = dict(scenarios="yes")
WIDE_QEMU = "/q10/qemu-system-x86_64"
ONLY_ON_A_HYPERVISOR = ("this kernel counts firmware-described hotplug CPUs "
                        "only on a detected hypervisor and lacks DMI")
PLANNED = (
    Planned("6.1", dict(cpus="255"), "t-hotplug-255", hotplug(255), 255,
            log="hotplug-255.log"),
    Planned("6.1-kunit", dict(cpus="40"), "t-hotplug-040",
            hotplug(40, kunit="1"), 40, log="kunit-hotplug-040.log"),
    Planned("6.1-kmod-small", dict(cpus="33"), "t-hotplug-033",
            dict(hotplug(33, kunit="m"), variant="small"), 33, small=True,
            log="kunit-module-hotplug-033-6.1.log", cases="v2"),
    Planned("6.1", dict(cpus="255", series="no"), "t-hotplug-255",
            dict(hotplug(255), model="stock", series="no"), 255,
            model="stock", log="hotplug-255.log"),
    Planned("6.12", dict(cpus="33"), "t-hotplug",
            skip("hotplug", "Linux 6.12.118 under TCG ignores QEMU's "
                 "hotpluggable CPUs")),
    Planned("7.3", dict(cpus="255"), "t-hotplug-255-vmware",
            hotplug(255, "vmware", "1"), 255,
            log="hotplug-255-vmware-7.3.log"),
    Planned("6.1", dict(online="8"), "t-online-008",
            dict(tier="online", smp="8", possible="8", online="8",
                 machine="pc", kunit="0"), 8, log="online-008.log"),
    Planned("6.1-kunit", dict(online="8"), "t-online-008",
            dict(tier="online", smp="8", online="8", kunit="1"), 8,
            log="budget-online-008.log"),
    Planned("6.1-kunit", dict(online="1"), "t-online-001",
            dict(tier="online", smp="1", online="1", timeout="61",
                 kunit="1"), 1,
            log="printk-time-001.log"),
    Planned("6.12", dict(online="64"), "t-online-064",
            dict(tier="online", smp="64", online="64", kunit="1"), 64,
            log="online-064-6.12.log"),
    Planned("6.1", dict(possible="200"), "t-possible-0200",
            dict(tier="possible", smp="1", possible="200", online="1",
                 append="possible_cpus=200", mem="637M", timeout="72",
                 kunit="0"), 200),
    Planned("6.1", dict(possible="300"), "t-possible-0300",
            skip("possible", "NR_CPUS is 256: possible_cpus=300 needs")),
    Planned("6.12", dict(possible="200"), "t-possible-0200",
            skip("possible", "possible_cpus= only lowers the CPU count")),
    Planned("6.1-wide", dict(possible="8192"), "t-possible-8192",
            dict(tier="possible", append="possible_cpus=8192 swiotlb=noforce",
                 mem="5632M", timeout="572", kunit="1"), 8192),
    Planned("6.1-wide", dict(wide_online="288", wide_qemu=WIDE_QEMU),
            "t-online-0288",
            dict(tier="wide-online", smp="288", possible="288", online="288",
                 machine="wide", qemu=WIDE_QEMU, mem="800M", timeout="267",
                 kunit="1"),
            288),
    Planned("6.1", dict(wide_online="288", wide_qemu=WIDE_QEMU),
            "t-online-0288",
            skip("wide-online", "the kernel lacks X86_X2APIC or IRQ_REMAP")),
    Planned("6.1-wide", dict(wide_hotplug="512", wide_qemu=WIDE_QEMU),
            "t-hotplug-0512",
            dict(tier="wide-hotplug", smp="256,maxcpus=512", possible="512",
                 online="1", machine="wide", append="maxcpus=1", mem="768M",
                 timeout="188", kunit="1"), 512),
    Planned("7.3-wide", dict(wide_hotplug="512", wide_qemu=WIDE_QEMU),
            "t-hotplug-0512-vmware",
            dict(tier="wide-hotplug", machine="wide-vmware", possible="512",
                 kunit="1"),
            512),
    Planned("6.12-wide", dict(wide_hotplug="512", wide_qemu=WIDE_QEMU),
            "t-hotplug-0512", skip("wide-hotplug", ONLY_ON_A_HYPERVISOR)),
    Planned("6.12-wide", dict(wide_online="300"), "t-online-0300",
            skip("wide-online", "no QEMU for more than 255 CPUs")),
    Planned("6.1", dict(holes="8"), "t-holes",
            skip("holes", "x86_64 describes its CPUs in ACPI's MADT")),
    Planned("6.1-kunit", SCENARIOS, "t-extended-064",
            scenario("pidmax_harness=extended", pidns_scope="global"), 64,
            log="extended-064-pidns-6.1.log"),
    Planned("6.12", SCENARIOS, "t-extended-064",
            scenario("pidmax_harness=extended", online=64, smp="64",
                     pidns_scope="global"), 64),
    Planned("7.3", SCENARIOS, "t-extended-064",
            scenario("pidmax_harness=extended", online=64, smp="64",
                     pidns_scope="namespace"), 64,
            log="extended-064-7.3.log"),
    Planned("6.1-kunit", SCENARIOS, "t-sysctl-override",
            scenario("sysctl.kernel.pid_max=30000", pid_max="30000"), 64,
            log="sysctl-override.log"),
    Planned("6.1-kunit", SCENARIOS, "t-sysctl-too-low",
            scenario("sysctl.kernel.pid_max=100", sysctl_refused="1"), 64,
            log="sysctl-too-low.log"),
    Planned("6.1", SCENARIOS, "t-nr_cpus-40",
            scenario("nr_cpus=40", possible=40, kunit="0"), 40),
    Planned("7.3", SCENARIOS, "t-possible_cpus-40",
            scenario("possible_cpus=40", possible=40, online=40, smp="64"),
            40),
    Planned("6.12", SCENARIOS, "t-maxcpus-2",
            scenario("maxcpus=2", possible=40, online=2, smp="40"), 40),
    Planned("7.3", dict(scenarios="yes", selftests="/s.cpio 3"),
            "t-selftests",
            scenario("", possible=1, smp="1", initrd_extra="/s.cpio",
                     selftests="3"), 1, log="selftests-7.3.log"),
    Planned("6.1", dict(scenarios="selftests"), "t-selftests",
            skip("scenario", "no pid_namespace selftests for this kernel")),
    Planned("7.3-arm64", dict(cpus="64"), "t-hotplug-064",
            arm64("hotplug", "64", 64, timeout="124"), 64),
    Planned("6.1-arm64", dict(online="4"), "t-online-004",
            dict(arm64("online", "4", 4, append=""), online="4", kunit="0"),
            4),
    Planned("6.12-arm64", dict(possible="128"), "t-possible-0128",
            arm64("possible", "1", 128, dt_cpus="128", mem="624M",
                  timeout="68"), 128),
    Planned("7.3-arm64", dict(possible="1024"), "t-possible-1024",
            skip("possible", "NR_CPUS is 256: 1024 CPUs need a kernel")),
    Planned("7.3-arm64", dict(holes="64"), "t-holes-064-h1-16",
            arm64("holes", "64", 48, holes="1-16", cpu_ids="64"), 64,
            log="arm64-holes-064-h1-16-7.3.log", cases="v2"),
    Planned("7.3-arm64", dict(holes="64"), "t-holes-064-h48-63",
            arm64("holes", "64", 48, holes="48-63", cpu_ids="48"), 48),
    Planned("7.3-arm64", dict(holes="64", series="no"), "t-holes-064-h1-16",
            arm64("holes", "64", 48, model="stock", cpu_ids="64"), 48,
            model="stock"),
    Planned("7.3-arm64", dict(holes="64", selftests_unchanged="/u.cpio 3"),
            "t-holes-064-h1-16-selftests-unchanged",
            arm64("holes", "64", 48, initrd_extra="/u.cpio", selftests="3",
                  selftests_judged="no"), 64, cases="v2",
            log="arm64-holes-064-selftests-unchanged-7.3.log"),
    Planned("7.3-arm64", dict(wide_online="288"), "t-wide-online",
            skip("wide-online", "arm64 boots a device tree: the wide-online "
                 "tier is x86-64's")),
    Planned("6.12-arm64", dict(wide_hotplug="512"), "t-wide-hotplug",
            skip("wide-hotplug", "arm64 boots a device tree")),
    Planned("7.3-arm64", SCENARIOS, "t-scenario",
            skip("scenario", "the scenario tier is x86-64's")),
)
TIERS = ("hotplug", "online", "possible", "wide-online", "wide-hotplug",
         "holes", "scenario")


def planned_job(d, row):
    """The job named ROW.name of the planner's jobs for ROW, with today's
    KUnit cases (the list CASES["v2"] names); there must be one."""
    where = dataclasses.replace(tables.HOME, kunit_cases=CASES["v2"])
    lines = plan.plan(options(write_config(d, row.config), **row.opts),
                      where)
    jobs = [j for j in map(Job.parse, lines) if j.name == row.name]
    if len(jobs) != 1:
        raise AssertionError(f"{len(jobs)} jobs named {row.name}")
    return jobs[0]


def formula_fields(row):
    """The fields of ROW's job that the formula gives, for ROW.count CPUs
    (the child pid namespace's too), with ROW.want over them."""
    e = expected(row.count, row.small, True, row.model)
    want = {"pid_max": str(e.pid_max), "pid_max_min": str(e.minimum),
            "pid_max_max": str(e.limit), "line_default": str(e.pid_max),
            "line_min": str(e.minimum)}
    want.update(row.want)
    scope = want.get("pidns_scope")
    if scope:
        want.update(pidns_fields(e, scope, want["pid_max"]))
        want["append"] += f" pidmax_pidns={e.minimum + 1000}"
    if want.get("kunit", "0") != "0":
        want["kunit_cases"] = case_list("v2")
    return want


class PlannedTest(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name

    def test_planner(self):
        for n, row in enumerate(PLANNED):
            with self.subTest(row=n, config=row.config, name=row.name):
                j = planned_job(self.dir, row)
                if "skip" in row.want:
                    self.assertEqual(j.tier, row.want["tier"])
                    self.assertIn(row.want["skip"], j.skip)
                    continue
                self.assertIn("kunit", row.want)
                want = formula_fields(row)
                self.assertEqual({k: j.fields().get(k) for k in want}, want)
                if row.log:
                    # The recorded boot of that kernel passes its job,
                    # with the cases its kernel ran, as a folder planned
                    # then carries them.
                    if j.kunit != "0":
                        j = j.replace(kunit_cases=tuple(
                            case_list(row.cases).split(",")))
                    v = judge.judge(j, record(row.log))
                    self.assertEqual((v.verdict, v.reason), ("pass", ""))

    def test_every_tier_on_both_architectures(self):
        """The table has a job or a skip of every tier on each
        architecture, and each architecture's jobs of the three trees."""
        arch = {k: "arm64" if k.endswith("-arm64") else "x86_64"
                for k in CONFIGS}
        self.assertEqual({(arch[r.config], r.want["tier"]) for r in PLANNED},
                         {(a, t) for a in ("x86_64", "arm64") for t in TIERS})
        for a in ("x86_64", "arm64"):
            self.assertEqual({r.config.split("-")[0] for r in PLANNED
                              if arch[r.config] == a},
                             {"6.1", "6.12", "7.3"}, a)
        self.assertEqual(len({r.config for r in PLANNED}), len(CONFIGS))


class Scheduled(runner.Runner):
    """The runner's order of boots alone: no guest starts, one "runs"
    from its start until reap() ends the one started first. Kept: what
    ran at once after each start (the jobs' names), and the events, +x
    for the start of x, =x for its judgement."""

    def __init__(self, onlines, parallel):
        todo = [Job(name=chr(ord("a") + i), online=n)
                for i, n in enumerate(onlines)]
        super().__init__("/nonexistent", todo, parallel)
        self.progress, self.seen, self.events = False, [], []

    def start_guest(self, i, j):
        self.running[i] = j
        self.seen.append("".join(self.todo[k].name
                                 for k in sorted(self.running)))
        self.events.append("+" + j.name)

    def reap(self):
        i = min(self.running)
        del self.running[i]
        return i

    def finish(self, i):
        self.events.append("=" + self.todo[i].name)


# Each schedule gives the online CPUs of each job, the runner's --jobs,
# the guests running after each start, and the events. A guest with 16
# online CPUs or more runs alone, one with 15 beside others, and a guest
# starts before the ones that ended are judged.
SCHEDULES = (
    ((1, 1, 16, 1, 1, 15, 1), 2, ["a", "ab", "c", "d", "de", "ef", "fg"],
     "+a +b +c =a =b +d =c +e +f =d +g =e =f =g"),
    ((16, 16, 1, 1, 1), 3, ["a", "b", "c", "cd", "cde"],
     "+a +b =a +c =b +d +e =c =d =e"),
    ((2, 4, 8, 255, 1, 1), 4, ["a", "ab", "abc", "d", "e", "ef"],
     "+a +b +c +d =a =b =c +e =d +f =e =f"),
    ((15, 15, 15), 3, ["a", "ab", "abc"], "+a +b +c =a =b =c"),
    ((1, 1, 1), 1, ["a", "b", "c"], "+a +b =a +c =b =c"),
)


class HeavyBootsTest(unittest.TestCase):
    def test_heavy_boots_run_alone(self):
        for onlines, parallel, seen, events in SCHEDULES:
            with self.subTest(onlines=onlines, parallel=parallel):
                r = Scheduled(onlines, parallel)
                r.run()
                self.assertEqual(r.seen, seen)
                self.assertEqual(" ".join(r.events), events)
