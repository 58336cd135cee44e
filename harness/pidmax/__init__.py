"""pidmax: the harness's core as a Python package (standard library only).

tables    the tables (trees, kernels, machines, architectures)
formula   the formula with its two models (series and stock)
joblist   the job record that the job list holds a line of
console   the console parser: a log into one record and its nested KTAP
judge     the judge: a record against its job, a table of checks
boot      one boot's record and verdict, made once and kept beside its log
report    the writers of a results folder (KTAP, CSV, JUnit, variants)

`python3 -m pidmax VERB` is the front; parse-console.sh, judge.sh and
report.sh are its shims. The shell stages still plan and boot.
"""
