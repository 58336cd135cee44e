# SPDX-License-Identifier: GPL-2.0
#
# kunit-qemu-pvh.py - a qemu_config for the kernel's own kunit.py
# (tools/testing/kunit/kunit.py exec --qemu_config=THIS): x86_64 like
# its qemu_configs/x86_64.py, but the kernel is the harness's PVH
# vmlinux (CONFIG_PVH; QEMU's -kernel loads it with no bzImage, as
# harness/boot-guest.sh does), under QEMU's default firmware. Used by
# ci/kunit-uml.sh --exec.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_PVH=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-accel', 'tcg'])
