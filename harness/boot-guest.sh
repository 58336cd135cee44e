#!/bin/bash
# boot-guest.sh - run one job: boot its QEMU guest and keep the serial
# console log (harness/pidmax/guest.py, which says what each of the
# job's fields does).
#
# Usage: harness/boot-guest.sh JOB LOG
# JOB is a job line (plan.sh). Writes the console to LOG and
# "qemu_exit=.. timed_out=0|1 seconds=.." to LOG.meta; a guest still
# running after its timeout is killed. $QEMU overrides the emulator (the
# self-tests use a fake one); BOOT_STYLE=kunit boots the way the
# kernel's kunit.py boots x86_64 (bench.sh's reference).
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" boot "$@"
