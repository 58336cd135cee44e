"""pidmax: the harness's core as a Python package (standard library only).

The first slice of the issue "One data model for a boot": the tables
(trees, kernels, machines, architectures), the formula with its two
models, and the job record that the job list holds a line of. The shell
stages still plan, boot, parse and judge; these modules read what they
write, and `python3 -m pidmax check-jobs FILE` holds a job list to the
formula written here a second time.
"""
