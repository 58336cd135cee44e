#!/bin/bash
# accel.sh - choose the accelerator for a sweep: KVM only when a short
# probe boot on it reaches the guest's final marker, TCG otherwise
# (harness/pidmax/accel.py). The verdict is kept in BUILD_DIR/kvm-probe
# for the rest of this host boot, so the sweeps of one CI run probe once.
#
# Usage: harness/accel.sh [--no-probe] BUILD_DIR KERNEL CONFIG INITRD
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" accel "$@"
