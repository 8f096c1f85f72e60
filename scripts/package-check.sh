#!/bin/bash
# shellcheck disable=SC2317 # the steps are functions called through step()
# package-check.sh: build kvmbench's release tarball with 'make distcheck', then from that tarball
# the Debian package (dpkg-buildpackage, checked with lintian and unpacked to run it) and the RPM
# (rpmbuild; on Debian with --nodeps, since Debian's rpm database knows no Fedora packages).
#
# Usage: scripts/package-check.sh [WORKDIR]
#   Run from a tree configured in place (as .ci/run leaves it: distcheck runs there) or from an
#   unconfigured one (it then configures in WORKDIR/build).  Installs the packaging tools it
#   needs when run as root.  Everything else goes to WORKDIR (default: a new directory in /tmp),
#   which is kept: the .deb, the .rpm and the logs are there.
#   KB_PACKAGE_TARBALL=kvmbench-VERSION.tar.gz packages that tarball instead, without distcheck.
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
	summary+=("$(printf '%-12s %4ss  %s' "$name" $(($(date +%s) - start)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
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
	for p in debhelper dpkg-dev lintian rpm bash-completion jq pkgconf; do
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
	# The info and plan tests read CPUID dumps and topologies from ../shared/testdata of the source.
	if [ -z "${KB_TESTDATA:-}" ] && [ -d "$srcdir/../shared/testdata" ]; then
		export KB_TESTDATA=$srcdir/../shared/testdata
	fi
	# One CPU model and the cpuid suite in the SVM testbed are enough here: this checks that the
	# tarball's testbed works; make check has booted both models with every suite already.
	export TESTBED_CPUS=${TESTBED_CPUS:-EPYC-Rome} KB_SUITES=${KB_SUITES:-cpuid}
	step distcheck make -C "$build" -j"$jobs" distcheck
	[ "$last" -eq 0 ] || finish
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
deb() {
	rm -rf "$work/deb" && mkdir -p "$work/deb"
	tar -xzf "$tarball" -C "$work/deb"
	cd "$work/deb/kvmbench-$version"
	dpkg-checkbuilddeps
	DEB_BUILD_OPTIONS="$nocheck ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b
	ls -l "$work"/deb/*.deb
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
}
step deb deb
if [ "$last" -eq 0 ]; then
	step lintian lint
	step deb-unpack unpacked
	grep -E '^[EWI]: ' "$work/lintian.log" || say "lintian: no tags"
fi

# ---- RPM: rpmbuild from the tarball ----
rpmpkg() {
	local top=$work/rpm opts=()
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
	rpmbuild -bb --nodeps --define "_topdir $top" "${opts[@]}" "$top/kvmbench.spec"
	for r in "$top"/RPMS/*/kvmbench-"$version"-*.rpm; do
		rpm -qip "$r"
		rpm -qlp "$r"
		echo "Requires:"
		rpm -qRp "$r"
	done
}
step rpm rpmpkg

finish
