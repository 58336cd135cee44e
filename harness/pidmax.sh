#!/bin/bash
# pidmax.sh - run the package harness/pidmax: python3 -m pidmax VERB...
# (a verb a stage; --help lists every one). The stages' scripts
# (report.sh and its kind) are shims over it.
#
# Debian's python3 (/usr/bin/python3, which deps.sh installs) when it is
# there, else the first python3 on PATH: the package needs only the
# standard library of Python 3.11, and a version manager's shim in front
# of Debian's costs tens of milliseconds a start.
set -euo pipefail
here=${BASH_SOURCE[0]%/*}
[[ $here != "${BASH_SOURCE[0]}" ]] || here=.
python=/usr/bin/python3
[[ -x $python ]] || python=python3
PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH} exec "$python" -m pidmax "$@"
