#!/bin/sh
# deps.sh: install what kvmbench needs to build and test on Debian 12 (run as root).
# Usage: scripts/deps.sh [--build-only]
set -eu
build="autoconf automake libtool pkg-config make gcc binutils libc6-dev linux-libc-dev
	libcpuid-dev libhwloc-dev libnuma-dev libjson-c-dev libgsl-dev liblzma-dev"
# Tests: jq reads results; qemu, the 6.1 kernel image, busybox, cpio and kmod make the SVM
# testbed (tests/vm); chromium renders the HTML report; python3-jsonschema checks the schema;
# linux-source-6.1 and patch check kernel/'s patches (tests/patches.test, tests/kernel/verify-6.1.sh);
# gcc-12 and the kernel build tools build the patched kvm modules for 'make check-patches'
# (tests/kernel/testbed-ab.sh), with the headers of the installed kernel (below).
test_tools="jq xz-utils util-linux qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
	chromium python3-jsonschema linux-source-6.1 patch
	gcc-12 flex bison bc libelf-dev libssl-dev dwarves"
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
# The headers (.config, Module.symvers) of the kernel release linux-image-amd64 installed: the
# patched modules must match the kernel the testbed boots.
krel=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | sed -n 's/.*linux-image-\([0-9][^ ,]*\).*/\1/p')
if [ -z "$krel" ]; then
	echo "deps.sh: cannot tell which kernel linux-image-amd64 installed" >&2
	exit 1
fi
apt-get install -y -qq --no-install-recommends "linux-headers-$krel"
