#!/bin/sh
# deps.sh: install what kvmbench needs to build and test on Debian 12 (run as root).
# Usage: scripts/deps.sh [--build-only]
set -eu
build="autoconf automake libtool pkg-config make gcc binutils libc6-dev linux-libc-dev
	libcpuid-dev libhwloc-dev libnuma-dev libjson-c-dev libgsl-dev liblzma-dev"
# Tests: jq reads results; qemu, the 6.1 kernel image, busybox, cpio and kmod make the SVM
# testbed (tests/vm); chromium renders the HTML report; python3-jsonschema checks the schema;
# linux-source-6.1 and patch check kernel/'s patches (tests/patches.test, tests/kernel/verify-6.1.sh).
test_tools="jq xz-utils util-linux qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
	chromium python3-jsonschema linux-source-6.1 patch"
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
