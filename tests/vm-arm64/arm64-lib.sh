# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Helpers of the arm64 testbed's scripts (sourced after tests/vm/testbed-lib.sh, not run).

# The Debian arm64 kernel the testbed boots, and where scripts/deps.sh unpacks it and busybox-static:arm64
# (dpkg -x of the downloaded packages: an arm64 kernel is never installed on this x86 system).
tb_arm64_kernel_package=linux-image-6.1.0-57-arm64
tb_arm64_cache() {
	printf '%s' "${KB_ARM64_TESTBED:-/var/cache/kvmbench/arm64-testbed}"
}

# tb_arm64_cache_ok DIR: DIR has the unpacked kernel image, its modules and busybox; else false with
# the reason in tb_arm64_cache_why.
tb_arm64_cache_ok() {
	tb_arm64_cache_why=""
	if [ -z "$(tb_arm64_vmlinuz "$1")" ]; then
		tb_arm64_cache_why="no arm64 kernel image in $1/kernel/boot ($tb_arm64_kernel_package:arm64 unpacked there by scripts/deps.sh)"
	elif [ -z "$(tb_arm64_moddir "$1")" ]; then
		tb_arm64_cache_why="no arm64 kernel modules in $1/kernel/lib/modules (scripts/deps.sh)"
	elif [ ! -x "$1/busybox/bin/busybox" ]; then
		tb_arm64_cache_why="no arm64 busybox in $1/busybox/bin (busybox-static:arm64 unpacked there by scripts/deps.sh)"
	fi
	[ -z "$tb_arm64_cache_why" ]
}

tb_arm64_vmlinuz() {
	find "$1/kernel/boot" -maxdepth 1 -name 'vmlinuz-*-arm64' -type f 2>/dev/null | sort -V | tail -n 1
}

tb_arm64_moddir() {
	find "$1/kernel/lib/modules" -mindepth 1 -maxdepth 1 -type d -name '*-arm64' 2>/dev/null | sort -V | tail -n 1
}
