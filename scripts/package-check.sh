#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2317 # the steps are functions called through step()
# package-check.sh: build kvmbench's release tarball with 'make distcheck', then from that tarball
# the Debian package (dpkg-buildpackage, checked with lintian and unpacked to run it) and the RPM
# (rpmbuild; on Debian with --nodeps, since Debian's rpm database knows no Fedora packages).
# The .deb is also installed, used and purged in a fresh Debian 12 root (mmdebstrap), built twice
# to check that it is reproducible, and the RPM is checked with rpmlint.  Both are cross-built for
# arm64 too: the .deb with dpkg-buildpackage -a arm64 in a Debian 12 root of its own (its build
# dependencies installed there, never here), the RPM with rpmbuild --target aarch64 and the cross
# compiler; each is checked to hold aarch64 programs only (scripts/pkg-arch-check.sh) and linted.
#
# Usage: scripts/package-check.sh [WORKDIR]
#   Run from a tree configured in place (as .ci/run leaves it: distcheck runs there) or from an
#   unconfigured one (it then configures in WORKDIR/build).  Installs the packaging tools it
#   needs when run as root.  Everything else goes to WORKDIR (default: a new directory in /tmp),
#   which is kept: the .deb, the .rpm and the logs are there.
#   KB_PACKAGE_TARBALL=kvmbench-VERSION.tar.gz packages that tarball instead, without distcheck.
#   KB_PACKAGE_CACHE=DIR keeps the bootstrapped Debian 12 roots there, one tarball a day each (the
#   cross root's keyed by debian/control's build dependencies too; default /var/cache/kvmbench/mmdebstrap).
#   KB_PACKAGE_TESTS=1 also runs the test suite inside dpkg-buildpackage and rpmbuild (by default
#   they leave it out: distcheck has just run it on the same tarball).
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-package.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
declare -a summary=()
failed=0

say() { printf '== package-check: %s\n' "$*"; }

# step NAME COMMAND...: run a step with its output in WORKDIR/NAME.log, timed, its exit status
# in $last; on failure show the end of the log and remember it.  The step runs as a job of its
# own so that set -e holds inside it; for the same reason step is never called as a condition
# ('step ... || x' or 'if step' would switch set -e off inside it).
last=0
step() {
	local name=$1 start rc=0
	shift
	say "$name"
	start=$(date +%s)
	"$@" >"$work/$name.log" 2>&1 &
	wait $! || rc=$?
	summary+=("$(printf '%-15s %4ss  %s' "$name" $(($(date +%s) - start)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
	if [ $rc -ne 0 ]; then
		tail -n 60 "$work/$name.log"
		say "$name failed (exit $rc); the whole log is $work/$name.log"
		failed=1
	fi
	last=$rc
}

finish() {
	say "summary (work directory $work)"
	printf '  %s\n' "${summary[@]}"
	exit "$failed"
}

# ---- tools, and the build dependencies debian/control names ----
tools() {
	local need=() p unmet
	for p in debhelper dpkg-dev lintian rpm rpmlint bash-completion jq pkgconf mmdebstrap diffoscope; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
	done
	if command -v dpkg-checkbuilddeps >/dev/null; then
		unmet=$(cd "$srcdir" && { dpkg-checkbuilddeps 2>&1 || true; } |
			sed -n 's/.*Unmet build dependencies: //p' | sed 's/([^)]*)//g; s/<[^>]*>//g; s/:[a-z0-9]*//g')
		# shellcheck disable=SC2206 # a list of package names
		need+=($unmet)
	fi
	[ ${#need[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "package-check: missing ${need[*]}; install them as root (apt-get install ${need[*]})" >&2
		return 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}"
}
step tools tools
[ "$last" -eq 0 ] || finish

# ---- make distcheck: the tarball, built, tested, installed and uninstalled ----
if [ -n "${KB_PACKAGE_TARBALL:-}" ]; then
	# A tarball made before (make dist): package it, skipping distcheck.
	tarball=$(cd "$(dirname "$KB_PACKAGE_TARBALL")" && pwd)/$(basename "$KB_PACKAGE_TARBALL")
	version=${tarball##*/kvmbench-}
	version=${version%.tar.gz}
else
	if [ -f "$srcdir/Makefile" ]; then
		build=$srcdir
	else
		build=$work/build
		mkdir -p "$build"
		step configure sh -c "cd '$build' && '$srcdir/configure' -q"
		[ "$last" -eq 0 ] || finish
	fi
	version=$(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")
	# One CPU model and the cpuid suite in the SVM testbed are enough here: this checks that the
	# tarball's testbed works; make check has booted both models with every suite already.
	export TESTBED_CPUS=${TESTBED_CPUS:-EPYC-Rome} KB_SUITES=${KB_SUITES:-cpuid}
	step distcheck make -C "$build" -j"$jobs" distcheck
	if [ "$last" -ne 0 ]; then
		# The end of make's output names no test: show which failed, and their logs, last.
		sublog=$build/kvmbench-$version/_build/sub/test-suite.log
		if [ -f "$sublog" ]; then
			say "distcheck: the failed tests (from $sublog)"
			grep -E '^(not ok|FAIL|ERROR|XPASS)' "$sublog" || true
			cat "$sublog"
		fi
		finish
	fi
	cp "$build/kvmbench-$version.tar.gz" "$work/"
	tarball=$work/kvmbench-$version.tar.gz
fi

# ---- the tarball holds every file in git (EXTRA_DIST is complete), CI's own files aside ----
contents() {
	local missing
	tar -tzf "$tarball" | sed "s|^kvmbench-$version/||" | sort >"$work/tarball.list"
	git -C "$srcdir" ls-files | grep -v -e '^\.gitignore$' -e '^\.ci/' | sort >"$work/git.list"
	missing=$(comm -13 "$work/tarball.list" "$work/git.list")
	[ -z "$missing" ] || { printf 'in git, not in the tarball (add to EXTRA_DIST):\n%s\n' "$missing"; return 1; }
	echo "all $(wc -l <"$work/git.list") files in git are in the tarball"
}
if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	step contents contents
fi

# ---- the packaging files name the version configure.ac does ----
versions() {
	local deb rpm
	deb=$(dpkg-parsechangelog -l "$srcdir/debian/changelog" -S Version)
	rpm=$(sed -n 's/^Version: *//p' "$srcdir/rpm/kvmbench.spec")
	echo "configure.ac $version, debian/changelog $deb, rpm/kvmbench.spec $rpm"
	[ "${deb%-*}" = "$version" ] && [ "$rpm" = "$version" ]
}
step versions versions
[ "$last" -eq 0 ] || say "bump debian/changelog (dch -v $version-1) and Version: in rpm/kvmbench.spec"

# ---- Debian: dpkg-buildpackage from the tarball, lintian, unpack and run ----
nocheck=nocheck
[ "${KB_PACKAGE_TESTS:-0}" = 1 ] && nocheck=
# build_deb DIR: unpack the tarball in DIR and build the packages there (they land in DIR).
build_deb() {
	rm -rf "$1" && mkdir -p "$1"
	tar -xzf "$tarball" -C "$1"
	cd "$1/kvmbench-$version"
	dpkg-checkbuilddeps
	DEB_BUILD_OPTIONS="$nocheck ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b
	ls -l "$1"/*.deb
}
deb() {
	build_deb "$work/deb"
	dpkg-deb --info "$work"/deb/kvmbench_"$version"-*_amd64.deb
	dpkg-deb --contents "$work"/deb/kvmbench_"$version"-*_amd64.deb
}
lint() {
	# Errors and warnings fail; informational tags are shown.  debian/kvmbench.lintian-overrides
	# says why its tag does not apply.
	lintian --info --display-info --fail-on error,warning "$work"/deb/kvmbench_"$version"-*_amd64.changes
}
unpacked() {
	local root=$work/deb-root
	rm -rf "$root"
	dpkg-deb -x "$work"/deb/kvmbench_"$version"-*_amd64.deb "$root"
	"$root/usr/bin/kvmbench" --version | grep -qx "kvmbench $version"
	"$root/usr/bin/kvmbench" --version
	test -f "$root/usr/share/bash-completion/completions/kvmbench"
	test -f "$root/usr/share/doc/kvmbench/docs/result-schema.json"
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$root/usr/share/man/man1/kvmbench.1.gz" | head -n 5 | grep -q 'kvmbench - benchmark suite'
	fi
	dpkg-deb --field "$work"/deb/kvmbench_"$version"-*_amd64.deb Depends
	KB_PKG_NO_LINTIAN=1 sh "$srcdir/scripts/pkg-arch-check.sh" "$(echo "$work"/deb/kvmbench_"$version"-*_amd64.deb)" amd64
}
# ---- the .deb on a clean Debian 12, as a user installs it: apt resolves its dependencies ----
# The mirror of this machine's apt sources that serves bookworm (deb822 or one-line style).
bookworm_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     { t = s = u = ""
		       for (i = 1; i <= NF; i++) {
		         if ($i ~ /^Types:/) t = $i
		         if ($i ~ /^Suites:/) s = $i
		         if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) } }
		       if (t ~ /[ \t]deb([ \t]|$)/ && s ~ /[ \t]bookworm([ \t]|$)/ && u != "") { print u; exit } }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^deb \(\[[^]]*\] \)*\([^ ]*\) bookworm .*/\2/p'
	echo http://deb.debian.org/debian
}
# Bootstrapping takes minutes: the root (apt and man-db) is kept as a tarball, one a day.
clean_root_tarball() {
	local cache=${KB_PACKAGE_CACHE:-/var/cache/kvmbench/mmdebstrap} mirror tar
	tar=$cache/bookworm-apt-man-db-$(date -u +%Y%m%d).tar
	if [ -f "$tar" ]; then
		echo "cached root: $tar" >&2
	else
		mirror=$(bookworm_mirror | head -n 1)
		echo "bootstrapping Debian 12 from $mirror into $tar" >&2
		mkdir -p "$cache"
		rm -f "$cache"/bookworm-apt-man-db-*.tar
		mmdebstrap --variant=apt --include=man-db bookworm "$tar.tmp.tar" "$mirror" >&2 || return 1
		mv "$tar.tmp.tar" "$tar"
	fi
	echo "$tar"
}
# Runs inside the clean root, as root, in /root with the .deb beside it.
clean_script() {
	cat <<'SCRIPT'
set -euxo pipefail
cd /root
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
apt-get update -qq
apt-get install -y ./kvmbench_*.deb
dpkg -L kvmbench >/root/kvmbench.files
kvmbench --version
kvmbench info
kvmbench list
MANWIDTH=80 man kvmbench >/root/man.txt
head -n 5 /root/man.txt
grep -q 'kvmbench - benchmark suite' /root/man.txt
bash -c '. /usr/share/bash-completion/completions/kvmbench && complete -p kvmbench'
# No /dev/kvm here: a host suite named is refused with the reason, exit status 2.
rc=0
kvmbench run cpuid 2>/root/run-cpuid.err || rc=$?
cat /root/run-cpuid.err
[ "$rc" -eq 2 ] || { echo "kvmbench run cpuid without /dev/kvm: exit $rc, want 2" >&2; exit 1; }
grep -q '^kvmbench: /dev/kvm: no such device' /root/run-cpuid.err
# Without operands the host suites are skipped with the reason; the guest-side suites run only
# under a hypervisor, and without them the run is refused (exit 2) with the same reason.
rc=0
kvmbench run -o /root/run.json 2>/root/run.err >/root/run.out || rc=$?
cat /root/run.err
echo "kvmbench run: exit $rc" >/root/run.rc
SCRIPT
}
clean_purge_script() {
	cat <<'SCRIPT'
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get purge -y kvmbench
apt-get autoremove --purge -y
left=0
for p in /usr/bin/kvmbench /usr/share/kvmbench /usr/share/doc/kvmbench; do
	[ ! -e "$p" ] || { echo "left after purge: $p" >&2; left=1; }
done
if ls /usr/share/man/man1/kvmbench* 2>/dev/null; then echo "man pages left after purge" >&2; left=1; fi
while read -r p; do
	# A path of the package still there and owned by no other package was left behind.
	if [ -e "$p" ] && [ "$p" != /. ] && ! dpkg -S "$p" >/dev/null 2>&1; then
		echo "left after purge: $p" >&2
		left=1
	fi
done </root/kvmbench.files
if dpkg -S kvmbench; then echo "dpkg -S kvmbench still finds files" >&2; left=1; fi
if dpkg -l kvmbench 2>/dev/null | grep -q '^[a-z][a-z] '; then
	dpkg -l kvmbench | tail -n 1
	dpkg -l kvmbench | grep -q '^[up]n ' || { echo "kvmbench still known to dpkg" >&2; left=1; }
fi
exit "$left"
SCRIPT
}
# in_root ROOT: run the script on stdin in ROOT, chrooted, with its own /proc and the host's /sys
# in a mount namespace of its own (the mounts go with it, and never outlive it to be reached by
# rm -rf ROOT); /dev is the root's own, which has no kvm.
in_root() {
	# shellcheck disable=SC2016 # $1 is expanded by the inner sh
	unshare --mount --propagation private sh -c \
		'mount -t proc proc "$1/proc" && mount --rbind /sys "$1/sys" && exec chroot "$1" /bin/bash -s' \
		sh "$1"
}
clean() {
	local tar root=$work/clean-root rc
	if [ "$(id -u)" -ne 0 ]; then
		echo "package-check: the clean-system install needs root (chroot)" >&2
		return 1
	fi
	tar=$(clean_root_tarball)
	rm -rf "$root" && mkdir -p "$root"
	tar -xf "$tar" -C "$root"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	cp "$work"/deb/kvmbench_"$version"-*_amd64.deb "$root/root/"
	ls -l "$root"/dev/kvm 2>/dev/null && { echo "the clean root has a /dev/kvm" >&2; return 1; }
	(cd "$root/root" && clean_script | in_root "$root")
	cat "$root/root/run.rc"
	rc=$(sed -n 's/^kvmbench run: exit //p' "$root/root/run.rc")
	case $rc in
	0 | 1) # 1: a guest-side test failed or was invalid, a verdict on this machine, not the package.
		grep -q '^kvmbench: host suites: skipped, /dev/kvm: no such device' "$root/root/run.err"
		# Every host test is in the results, skipped with the reason; nothing else ran but guest/.
		jq -e '[.tests[] | select(.suite != "guest")] | length > 0 and
			all(.status == "skipped" and (.reason | startswith("/dev/kvm: no such device")))' \
			"$root/root/run.json"
		echo "kvmbench run: host suites skipped (no /dev/kvm), guest suites: $(jq -r \
			'[.tests[] | select(.suite == "guest") | .status] | group_by(.) | map("\(length) \(.[0])") | join(", ")' \
			"$root/root/run.json")" ;;
	2)	grep -q '^kvmbench: /dev/kvm: no such device' "$root/root/run.err"
		echo "kvmbench run: refused, no /dev/kvm and no hypervisor for the guest suites" ;;
	*)	echo "kvmbench run in a root without /dev/kvm: exit $rc; want 0 or 1 (host suites skipped) or 2 (refused)" >&2
		return 1 ;;
	esac
	clean_purge_script | in_root "$root"
	echo "installed, used and purged on a clean Debian 12: nothing of kvmbench left"
}
# ---- the .deb is reproducible: a second build, elsewhere and later, gives the same bytes ----
# SOURCE_DATE_EPOCH comes from debian/changelog (dpkg-buildpackage); the build path differs (a
# deeper directory), and so do the time (minutes after the first build), the time zone and the
# umask.
reproducible() {
	local dir=$work/deb2/second-build-in-another-directory f a b differ=0
	(umask 0002 && TZ=Pacific/Kiritimati build_deb "$dir")
	for a in "$work"/deb/*.deb "$work"/deb/*.ddeb; do
		[ -f "$a" ] || continue
		f=${a##*/}
		b=$dir/$f
		if [ ! -f "$b" ]; then
			echo "the second build made no $f" >&2
			differ=1
		elif cmp -s "$a" "$b"; then
			echo "identical: $f ($(sha256sum <"$a" | cut -c1-16)...)"
		else
			echo "DIFFERENT: $f; diffoscope's report (whole in $work/diffoscope-$f.txt):" >&2
			diffoscope --text "$work/diffoscope-$f.txt" "$a" "$b" >/dev/null || true
			[ ! -f "$work/diffoscope-$f.txt" ] || head -n 80 "$work/diffoscope-$f.txt" >&2
			differ=1
		fi
	done
	return "$differ"
}

step deb deb
if [ "$last" -eq 0 ]; then
	step lintian lint
	step deb-unpack unpacked
	grep -E '^[EWI]: ' "$work/lintian.log" || say "lintian: no tags"
	step clean-install clean
	step reproducible reproducible
fi

# ---- Debian for arm64: cross-built from the tarball in a Debian 12 root of its own ----
# libgsl-dev is not Multi-Arch: same, so its arm64 package cannot be installed beside the amd64 one
# on this machine: the cross build's dependencies (apt-get build-dep -a arm64) go into an amd64 root
# with arm64 as a foreign architecture, never into this system.  The root, with them installed, is
# kept as a tarball, keyed by debian/control's build dependencies and the day.
cross_root_tarball() {
	local cache=${KB_PACKAGE_CACHE:-/var/cache/kvmbench/mmdebstrap} mirror tar key deps
	deps=$(mktemp -d)
	mkdir -p "$deps/debian"
	tar -xzf "$tarball" -O "kvmbench-$version/debian/control" >"$deps/debian/control"
	key=$(sed -n '/^Build-Depends/,/^[A-Z][^ ]*:/p' "$deps/debian/control" | sha256sum | cut -c1-12)
	tar=$cache/bookworm-cross-arm64-$key-$(date -u +%Y%m%d).tar
	if [ -f "$tar" ]; then
		echo "cached cross root: $tar" >&2
	else
		mirror=$(bookworm_mirror | head -n 1)
		echo "bootstrapping a Debian 12 cross root from $mirror into $tar" >&2
		mkdir -p "$cache"
		rm -f "$cache"/bookworm-cross-arm64-*.tar
		# shellcheck disable=SC2016 # "$1", the root, is expanded by mmdebstrap's hooks
		mmdebstrap --variant=apt --architectures=amd64,arm64 \
			--include=build-essential,crossbuild-essential-arm64,dpkg-dev \
			--customize-hook='mkdir -p "$1/tmp/kvmbench-deps"' \
			--customize-hook="copy-in $deps/debian /tmp/kvmbench-deps" \
			--chrooted-customize-hook='apt-get build-dep -y --no-install-recommends -a arm64 -P cross,nocheck /tmp/kvmbench-deps' \
			--customize-hook='rm -rf "$1/tmp/kvmbench-deps"' \
			bookworm "$tar.tmp.tar" "$mirror" >&2 || { rm -rf "$deps"; return 1; }
		mv "$tar.tmp.tar" "$tar"
	fi
	rm -rf "$deps"
	echo "$tar"
}
deb_arm64() {
	local tar root=$work/cross-root
	if [ "$(id -u)" -ne 0 ]; then
		echo "package-check: the arm64 cross build needs root (chroot)" >&2
		return 1
	fi
	tar=$(cross_root_tarball)
	rm -rf "$root" "$work/deb-arm64" && mkdir -p "$root" "$work/deb-arm64"
	tar -xf "$tar" -C "$root"
	cp "$tarball" "$root/root/"
	# The cross build: dpkg-buildpackage checks the build dependencies for arm64 itself.
	cat <<SCRIPT | in_root "$root"
set -eux
cd /root
tar -xzf kvmbench-$version.tar.gz
cd kvmbench-$version
DEB_BUILD_OPTIONS="nocheck parallel=$jobs" dpkg-buildpackage -a arm64 --build-profiles=cross,nocheck -us -uc -b
SCRIPT
	cp "$root"/root/kvmbench*_"$version"-*_arm64.* "$work/deb-arm64/"
	ls -l "$work/deb-arm64"
	dpkg-deb --info "$work"/deb-arm64/kvmbench_"$version"-*_arm64.deb
	dpkg-deb --contents "$work"/deb-arm64/kvmbench_"$version"-*_arm64.deb
}
# The arm64 package: arm64 in its control file and in every ELF file, and lintian-clean; then the
# program itself, run under qemu-aarch64-static with the cross root's arm64 libraries.
arm64_check() {
	local deb
	deb=$(echo "$work"/deb-arm64/kvmbench_"$version"-*_arm64.deb)
	sh "$srcdir/scripts/pkg-arch-check.sh" "$deb" arm64
	command -v qemu-aarch64-static >/dev/null ||
		{ echo "qemu-aarch64-static not found: install qemu-user-static (scripts/deps.sh)" >&2; return 1; }
	rm -rf "$work/deb-arm64-root"
	dpkg-deb -x "$deb" "$work/deb-arm64-root"
	qemu-aarch64-static -L "$work/cross-root" "$work/deb-arm64-root/usr/bin/kvmbench" --version |
		grep -qx "kvmbench $version"
	qemu-aarch64-static -L "$work/cross-root" "$work/deb-arm64-root/usr/bin/kvmbench" --version
}
step deb-arm64 deb_arm64
if [ "$last" -eq 0 ]; then
	step lint-arm64 arm64_check
fi
rm -rf "$work/cross-root"

# ---- RPM: rpmbuild from the tarball, for x86_64 and, cross-compiled, for aarch64 ----
# rpmbuild --target aarch64 alone builds an x86-64 program into an .aarch64.rpm: on Debian rpm's
# --target sets the target architecture only, and %configure's --host and --build stay this
# machine's (%{_host}, x86_64-pc-linux-gnu).  The aarch64 build names the cross compiler's triplet
# as %{_host}, this machine's as %{_build}, the cross binutils for rpm's strip and objdump, and the
# arm64 libraries' pkg-config files (scripts/deps.sh installs them; GSL's unpacked apart, as for
# scripts/cross-arm64.sh, which links its static library).
rpmpkg() {	# rpmpkg ARCH
	local arch=$1 top=$work/rpm opts=() gsl=${KB_ARM64_GSL:-/var/cache/kvmbench/arm64-gsl}
	[ "$arch" = x86_64 ] || top=$work/rpm-$arch
	rm -rf "$top"
	mkdir -p "$top/SOURCES"
	cp "$tarball" "$top/SOURCES/"
	tar -xzf "$tarball" -O "kvmbench-$version/rpm/kvmbench.spec" >"$top/kvmbench.spec"
	# Debian's rpm has no find-debuginfo: no debuginfo package there.
	command -v find-debuginfo >/dev/null || opts+=(--define 'debug_package %{nil}')
	# rpm's brp-compress needs bash; Debian's /bin/sh is dash (the man pages would stay uncompressed).
	[ "$(readlink -f /bin/sh)" = /bin/bash ] ||
		opts+=(--define '__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}')
	[ -n "$nocheck" ] && opts+=(--nocheck)
	if [ "$arch" = aarch64 ]; then
		command -v aarch64-linux-gnu-gcc >/dev/null ||
			{ echo "aarch64-linux-gnu-gcc not found: install gcc-aarch64-linux-gnu (scripts/deps.sh)" >&2; return 1; }
		[ -f "$gsl/usr/lib/aarch64-linux-gnu/pkgconfig/gsl.pc" ] ||
			{ echo "$gsl: no arm64 GSL there (scripts/deps.sh unpacks it)" >&2; return 1; }
		# The cross build cannot run its tests.
		opts+=(--target aarch64 --nocheck --define '_host aarch64-linux-gnu' --define "_build $(gcc -dumpmachine)"
			--define '__strip aarch64-linux-gnu-strip' --define '__objdump aarch64-linux-gnu-objdump')
		PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig:$gsl/usr/lib/aarch64-linux-gnu/pkgconfig \
		LDFLAGS="-L$gsl/usr/lib/aarch64-linux-gnu" \
			rpmbuild -bb --nodeps --define "_topdir $top" "${opts[@]}" "$top/kvmbench.spec"
	else
		rpmbuild -bb --nodeps --define "_topdir $top" "${opts[@]}" "$top/kvmbench.spec"
	fi
	for r in "$top"/RPMS/"$arch"/kvmbench-"$version"-*."$arch".rpm; do
		rpm -qip "$r"
		rpm -qlp "$r"
		echo "Requires:"
		rpm -qRp "$r"
		sh "$srcdir/scripts/pkg-arch-check.sh" "$r" "$arch"
	done
}
# rpmlint: errors fail.  rpm/rpmlint.toml gives it what Fedora's configuration would (Debian's
# rpmlint has none) and says why each filtered tag cannot apply here.
rpmcheck() {	# rpmcheck TOPDIR
	tar -xzf "$tarball" -O "kvmbench-$version/rpm/rpmlint.toml" >"$1/rpmlint.toml"
	rpmlint -c "$1/rpmlint.toml" "$1/kvmbench.spec" "$1"/RPMS/*/kvmbench-"$version"-*.rpm
}
step rpm rpmpkg x86_64
if [ "$last" -eq 0 ]; then
	step rpmlint rpmcheck "$work/rpm"
fi
step rpm-aarch64 rpmpkg aarch64
if [ "$last" -eq 0 ]; then
	step rpmlint-aarch64 rpmcheck "$work/rpm-aarch64"
fi

finish
