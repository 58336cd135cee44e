#!/bin/sh
# fake-busybox.sh - stands in for busybox-static in the self-tests: it is
# only packed into a fake initramfs, never run in a guest.
echo "fake busybox" >&2
exit 1
