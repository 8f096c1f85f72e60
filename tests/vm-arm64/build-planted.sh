#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# build-planted.sh: the arm64 kvmbench with a defect planted, for the testbed to see its checks catch
# it on real arm64 KVM (only there can they: the defects are ones KVM's counters show).  Each
# planted/*.mutant is applied to the arm64 build's source copy, the build made again (incremental),
# its kvmbench kept as BUILD/kvmbench-planted-NAME, and the patch taken out and the build made again,
# so that BUILD's kvmbench stays the tree's own.  command.sh runs each planted program it finds.
# Usage: build-planted.sh SRCDIR BUILDDIR   (a cross-built tree: make check-vm-arm64 makes one)
set -u
[ $# -eq 2 ] || { echo "usage: $0 SRCDIR BUILDDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=$1
build=$2
[ -x "$build/kvmbench" ] || { echo "build-planted.sh: no kvmbench in $build" >&2; exit 2; }
for p in "$here"/planted/*.mutant; do
	name=$(basename "$p" .mutant)
	(cd "$src" && patch -p1 -s -f <"$p") || { echo "build-planted.sh: $name does not apply to $src" >&2; exit 1; }
	make -C "$build" -s kvmbench >"$build/planted-$name.log" 2>&1 && cp "$build/kvmbench" "$build/kvmbench-planted-$name"
	made=$?
	(cd "$src" && patch -R -p1 -s -f <"$p") || { echo "build-planted.sh: cannot take $name out of $src" >&2; exit 1; }
	[ "$made" -eq 0 ] || { echo "build-planted.sh: the build with $name failed (see $build/planted-$name.log)" >&2; exit 1; }
	echo "build-planted.sh: $build/kvmbench-planted-$name"
done
make -C "$build" -s kvmbench >"$build/planted-unplant.log" 2>&1 ||
	{ echo "build-planted.sh: the build without the plants failed (see $build/planted-unplant.log)" >&2; exit 1; }
