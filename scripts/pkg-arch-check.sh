#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pkg-arch-check.sh: a built kvmbench package (.deb or .rpm) is a package of the architecture it
# says.  Its architecture (dpkg-deb's Architecture field, rpm's ARCH tag) must be ARCH, it must hold
# /usr/bin/kvmbench, and every ELF file in it must be of ARCH's machine (readelf -h): a cross build
# that packaged the build machine's binary, or no binary at all, fails.  Off x86-64 it must not
# depend on libcpuid, which exists for x86 only.  A .deb is then checked with lintian: on the
# .changes beside it when there is one, else on the .deb; errors and warnings fail
# (debian/kvmbench.lintian-overrides says why its tag does not apply).  KB_PKG_NO_LINTIAN=1 leaves
# lintian out; an .rpm's lint is rpmlint's, in scripts/package-check.sh.
# Usage: scripts/pkg-arch-check.sh PACKAGE ARCH   (ARCH: amd64 or arm64; x86_64 or aarch64)
set -eu
[ $# -eq 2 ] || { echo "usage: $0 PACKAGE ARCH" >&2; exit 2; }
pkg=$1 arch=$2
fail() { echo "pkg-arch-check.sh: $*" >&2; exit 1; }
[ -f "$pkg" ] || fail "$pkg: no such file"
case $arch in
amd64 | x86_64) machine='Advanced Micro Devices X86-64' ;;
arm64 | aarch64) machine='AArch64' ;;
*) fail "$arch: an architecture kvmbench is not packaged for (amd64/x86_64, arm64/aarch64)" ;;
esac
command -v readelf >/dev/null 2>&1 || fail "readelf not found (apt-get install binutils)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pkg-arch-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/root"
case $pkg in
*.deb)
	kind=deb
	field=$(dpkg-deb --field "$pkg" Architecture)
	depends=$(dpkg-deb --field "$pkg" Depends)
	dpkg-deb -x "$pkg" "$tmp/root" ;;
*.rpm)
	kind=rpm
	field=$(rpm -qp --qf '%{ARCH}' "$pkg")
	depends=$(rpm -qRp "$pkg" | tr '\n' ' ')
	rpm2cpio "$pkg" >"$tmp/payload.cpio"
	(cd "$tmp/root" && cpio -idm --quiet <"$tmp/payload.cpio") ;;
*) fail "$pkg: neither a .deb nor an .rpm" ;;
esac
[ "$field" = "$arch" ] || fail "$pkg: architecture $field, want $arch"
[ -f "$tmp/root/usr/bin/kvmbench" ] || fail "$pkg: no /usr/bin/kvmbench in the package"

# Every ELF file of the package, by its magic number, with the machine readelf reads in it.
n=0 bad=0
find "$tmp/root" -type f >"$tmp/files"
while IFS= read -r f; do
	magic=$(od -An -N4 -tx1 "$f" | tr -d ' \n')
	[ "$magic" = 7f454c46 ] || continue
	n=$((n + 1))
	m=$(readelf -h "$f" | sed -n 's/^ *Machine: *//p')
	if [ "$m" != "$machine" ]; then
		echo "pkg-arch-check.sh: ${f#"$tmp/root"} is an ELF file for '$m', not $arch ($machine)" >&2
		bad=1
	fi
done <"$tmp/files"
[ "$bad" -eq 0 ] || fail "$pkg holds ELF files of another architecture"
echo "$pkg: architecture $arch, $n ELF file(s), all $machine"
echo "depends: $depends"
case $arch in
amd64 | x86_64) ;;
*) if echo "$depends" | grep -q libcpuid; then fail "$pkg depends on libcpuid, which exists for x86 only"; fi ;;
esac

[ "$kind" = deb ] && [ "${KB_PKG_NO_LINTIAN:-0}" != 1 ] || exit 0
command -v lintian >/dev/null 2>&1 || fail "lintian not found (apt-get install lintian)"
changes=
for c in "$(dirname "$pkg")"/kvmbench_*_"$arch".changes; do
	[ -f "$c" ] && changes=$c
done
lintian --info --display-info --fail-on error,warning "${changes:-$pkg}" ||
	fail "lintian: errors or warnings in ${changes:-$pkg} (above)"
echo "lintian: no errors or warnings in ${changes:-$pkg}"
