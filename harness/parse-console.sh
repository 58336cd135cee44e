#!/bin/bash
# parse-console.sh - the record of one guest's console log, printed as
# one line of TAB-separated KEY=VALUE fields: harness/pidmax/console.py
# parses it (see there for the fields).
#
# Usage: harness/parse-console.sh [--write] LOG
# With --write the record and the nested KTAP are also kept beside the
# log in its judged record (LOG.json, harness/pidmax/boot.py), where the
# runner and the reporter read them instead of parsing again.
set -euo pipefail
PIDMAX_PROG=${0##*/} exec "$(dirname "${BASH_SOURCE[0]}")/pidmax.sh" parse "$@"
