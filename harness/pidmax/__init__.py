"""pidmax: the harness's core as a Python package (standard library only).

sweep     the main job (sweep-smp.sh): build, plan, boot, report
sweep_options  its options, help and each architecture's default lists
sweep_kernels  its kernels: the table's builds, Debian's, the stock twins
tables    the tables (trees, kernels, machines, architectures)
formula   the formula with its two models (series and stock)
kconfig   a .config's facts: what a kernel can boot
jobs      the job writer: one boot a line, its expected values with it
plan      the tiers and scenarios, a generator each
joblist   the job record read back, and job lists held to the formula
guest     one boot: QEMU from the job and its machine, with a timeout
runner    every job of a folder booted, parsed and judged as it ends
console   the console parser: a log into one record and its nested KTAP
judge     the judge: a record against its job, a table of checks
boot      one boot's record and verdict, made once and kept beside its log
report    the writers of a results folder (KTAP, CSV, JUnit, variants)
shard     the shard split of a job list
baseline  the job list again on the stock kernels
compare   the baseline's values beside the patched ones
baseline_run  the baseline of a finished sweep: booted, reported, compared
budget    the PID budget's rows and fit
accel     the accelerator: KVM only when a probe boot passes
merge     the shards' results folders joined into one (merge-results.sh)
results_dir  what a results folder is, which OUT a door refuses, its lock
stops     INT, TERM and HUP: a door and its children stopped, 130/143/129
settings  what the environment may change ($QEMU, $PIDMAX_FAIL_TAIL,
          $PIDMAX_DEPS, the tables' paths), read by the front alone

`python3 -m pidmax VERB` (or harness/pidmax.sh VERB) is the front, a verb
a stage, and the one door that reads the environment's settings
(__main__.settings_of), once, for every verb and the sweep; plan.sh,
boot-guest.sh, run-jobs.sh, parse-console.sh, judge.sh, report.sh,
shard.sh, baseline.sh, run-baseline.sh, compare.sh, accel.sh and
merge-results.sh are its shims. The sweep's front (sweep-smp.sh), the builders and fetchers
and the guest's init are shell.
"""
