#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh: install what kvmbench needs to build and test on Debian 12 (run as root).
# Usage: scripts/deps.sh [--build-only]
set -eu
# The machine's architecture: amd64 (x86-64) or arm64, the two kvmbench builds for.
arch=$(dpkg --print-architecture)
build="autoconf automake libtool pkg-config make gcc binutils libc6-dev linux-libc-dev
	libhwloc-dev libnuma-dev libjson-c-dev libyajl-dev libgsl-dev liblzma-dev nettle-dev
	libyaml-dev libxml2-dev"
# Tests: jq reads results; GNU time measures peak memory (hostile.test, tools/soak.sh --mixed); xmllint (libxml2-utils) validates the JUnit reports against tests/testdata/junit.xsd; valgrind and strace check memory and privileges (tests/scripts/valgrind.test,
# privileges.test); groff renders the manual pages (man.test); qemu, the 6.1 kernel image, busybox, cpio and kmod make the SVM
# testbed (tests/vm); chromium renders the HTML report; python3-jsonschema checks the schema;
# linux-source-6.1 and patch check kernel/'s patches (tests/scripts/patches.test, tests/kernel/verify-6.1.sh);
# linux-source-6.12 checks the manifest's rules on 6.12 (tests/kernel/verify-6.12.sh) and
# linux-image-6.12-amd64 lets the testbed boot 6.12 (make check-vm KERNEL=6.12);
# gcc-12 and the kernel build tools build the patched kvm modules for 'make check-patches'
# (tests/kernel/testbed-ab.sh), with the headers of the installed kernel (below); ansible-core and
# OpenSSH run contrib/ansible's playbook against network-namespace hosts (tests/scripts/ansible.test,
# which builds its .deb with dpkg-dev's tools); time measures tools/fleet-bench.sh; lintian and rpm
# (rpmbuild, rpm2cpio) let tests/scripts/pkg-arch-planted.test build and check its made-up packages
# in make check, before scripts/package-check.sh installs the rest of the packaging tools.
test_tools="jq time libxml2-utils xz-utils util-linux valgrind strace groff-base python3-jsonschema patch dpkg-dev
	lintian rpm"
case $arch in
amd64)
	# libcpuid reads x86 CPUID (configure needs it on x86-64 only; it exists for x86 only).  The
	# x86 testbed, the kernel checks and the script tests run in an x86-64 build's make check only.
	build="$build libcpuid-dev"
	test_tools="$test_tools qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
	chromium linux-source-6.1 linux-source-6.12 linux-image-6.12-amd64
	gcc-12 flex bison bc libelf-dev libssl-dev dwarves
	ansible-core openssh-server openssh-client iproute2" ;;
arm64)
	# An arm64 build's make check runs the unit tests and fuzz replays that need no KVM guest
	# (KB_ARM64_CHECKS in Makefile.am): no x86 testbed, no x86 kernel or patch checks.
	;;
*)
	echo "deps.sh: kvmbench builds on amd64 and arm64 machines; this one is $arch" >&2
	exit 1 ;;
esac
pkgs="$build"
[ "${1:-}" = --build-only ] || pkgs="$pkgs $test_tools"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: installing packages needs root (try: sudo $0)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $pkgs
[ "${1:-}" != --build-only ] || exit 0
# The rest is for an x86-64 machine: the arm64 cross build and the x86 testbed's kernel headers.
[ "$arch" = amd64 ] || exit 0
# The arm64 cross build (make check-cross-arm64, scripts/cross-arm64.sh): the cross compiler, qemu's
# user-mode emulator for its tests, and the arm64 -dev packages configure asks for.  libgsl-dev is
# not Multi-Arch: same (installing libgsl-dev:arm64 removes libgsl-dev), so its arm64 files are
# unpacked apart, into /var/cache/kvmbench/arm64-gsl, never installed.
cross="gcc-aarch64-linux-gnu libc6-dev:arm64 linux-libc-dev:arm64 libhwloc-dev:arm64 libnuma-dev:arm64
	libjson-c-dev:arm64 libyajl-dev:arm64 liblzma-dev:arm64 nettle-dev:arm64 libyaml-dev:arm64
	libxml2-dev:arm64 libgsl27:arm64 libgslcblas0:arm64 qemu-user-static file
	qemu-system-arm binutils-aarch64-linux-gnu"
dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && apt-get update -qq; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $cross
gsl=/var/cache/kvmbench/arm64-gsl
if [ ! -f "$gsl/usr/lib/aarch64-linux-gnu/pkgconfig/gsl.pc" ]; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq libgsl-dev:arm64) && mkdir -p "$gsl" && dpkg -x "$tmp"/libgsl-dev_*_arm64.deb "$gsl"
	rm -rf "$tmp"
fi
# The arm64 KVM testbed (make check-vm-arm64, tests/vm-arm64/): qemu-system-arm (above) boots Debian's
# arm64 kernel with busybox-static:arm64.  Both are downloaded and unpacked (dpkg -x) into
# /var/cache/kvmbench/arm64-testbed, never installed: an arm64 kernel has no place on this system.
tb=/var/cache/kvmbench/arm64-testbed
if [ ! -x "$tb/busybox/bin/busybox" ] || ! ls "$tb"/kernel/boot/vmlinuz-*-arm64 >/dev/null 2>&1; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq linux-image-6.1.0-57-arm64:arm64 busybox-static:arm64) &&
		rm -rf "$tb/kernel" "$tb/busybox" && mkdir -p "$tb/kernel" "$tb/busybox" &&
		dpkg -x "$tmp"/linux-image-*_arm64.deb "$tb/kernel" && dpkg -x "$tmp"/busybox-static_*_arm64.deb "$tb/busybox"
	rm -rf "$tmp"
fi
# The headers (.config, Module.symvers) of the kernel release linux-image-amd64 installed: the
# patched modules must match the kernel the testbed boots.
krel=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | sed -n 's/.*linux-image-\([0-9][^ ,]*\).*/\1/p')
if [ -z "$krel" ]; then
	echo "deps.sh: cannot tell which kernel linux-image-amd64 installed" >&2
	exit 1
fi
apt-get install -y -qq --no-install-recommends "linux-headers-$krel"
