#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cross-arm64.sh: the arm64 cross build (configure --host=aarch64-linux-gnu) in a directory of its own,
# which must be warning-free, its tests run under qemu-aarch64-static, and the arm64 kvmbench itself
# (scripts/cross-arm64-program.sh) (make check-cross-arm64).
# Usage: scripts/cross-arm64.sh SRCDIR BUILDDIR   (SRCDIR: an unconfigured tree, e.g. a make distdir)
# KB_CROSS_REUSE=1 keeps a configured BUILDDIR and makes it again (scripts/cross-arm64-planted.sh).
# KB_CROSS_BUILD_ONLY=1 stops after the warning-free build (make check-vm-arm64 boots what it built).
# The arm64 libraries are Debian's :arm64 -dev packages (scripts/deps.sh), except GSL: libgsl-dev is
# not Multi-Arch: same, so its arm64 files are unpacked apart, in $KB_ARM64_GSL.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 SRCDIR BUILDDIR" >&2; exit 2; }
src=$(cd "$1" && pwd)
build=$2
gsl=${KB_ARM64_GSL:-/var/cache/kvmbench/arm64-gsl}
fail() { echo "cross-arm64.sh: $*" >&2; exit 1; }
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
	fail "aarch64-linux-gnu-gcc not found: install gcc-aarch64-linux-gnu (scripts/deps.sh)"
command -v qemu-aarch64-static >/dev/null 2>&1 ||
	fail "qemu-aarch64-static not found: install qemu-user-static (scripts/deps.sh)"
[ -f "$gsl/usr/lib/aarch64-linux-gnu/pkgconfig/gsl.pc" ] ||
	fail "$gsl: no arm64 GSL there: scripts/deps.sh unpacks libgsl-dev:arm64 into it (dpkg -x)"
if [ "${KB_CROSS_REUSE:-}" != 1 ] || [ ! -f "$build/Makefile" ]; then
	rm -rf "$build"
	mkdir -p "$build"
	cd "$build"
	PKG_CONFIG=pkg-config
	PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig:$gsl/usr/lib/aarch64-linux-gnu/pkgconfig
	export PKG_CONFIG PKG_CONFIG_LIBDIR
	# gsl.pc names the system's library directory, where only the runtime libgsl.so.27 is: link
	# with the unpacked libgsl.a.
	"$src/configure" --host=aarch64-linux-gnu LDFLAGS="-L$gsl/usr/lib/aarch64-linux-gnu" >configure.log 2>&1 ||
		{ cat configure.log; fail "configure failed"; }
	sed -n '/^  kvmbench /,/^  prefix/p' configure.log
else
	cd "$build"
fi
make -j2 >make.log 2>&1 || { cat make.log; fail "make failed"; }
if grep -n 'warning:' make.log; then
	fail "the arm64 build has warnings (make.log above)"
fi
[ -f kvmbench ] || fail "the arm64 kvmbench was not built"
if [ "${KB_CROSS_BUILD_ONLY:-}" = 1 ]; then
	echo "cross-arm64.sh: arm64 build warning-free in $(pwd)"
	exit 0
fi
make -j2 check LOG_COMPILER=qemu-aarch64-static >check.log 2>&1 || status=$?
grep -E '^# (TOTAL|PASS|FAIL|ERROR|SKIP)' check.log || true
file tests/unit/arm64 | grep -q 'ARM aarch64' || fail "tests/unit/arm64 is not an aarch64 program"
if [ "${status:-0}" -ne 0 ]; then
	cat test-suite.log 2>/dev/null || cat check.log
	fail "make check of the arm64 build failed (under qemu-aarch64-static)"
fi
sh "$src/scripts/cross-arm64-program.sh" "$src" "$(pwd)" >program.log 2>&1 || status=$?
grep -E '^(ok|not ok|1\.\.)' program.log | sed 's/^/  /'
if [ "${status:-0}" -ne 0 ]; then
	cat program.log
	fail "checks of the arm64 kvmbench failed (under qemu-aarch64-static; program.log above)"
fi
echo "cross-arm64.sh: arm64 build warning-free, its tests and the arm64 kvmbench pass under qemu-aarch64-static"
