#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-skips.sh: fail when a test of a finished 'make check' was skipped for a reason not listed in
# tests/allowed-skips (CI must have every prerequisite: a skip there hides a missing one).
# Usage: scripts/check-skips.sh BUILDDIR   (the directory whose tests/ holds the .log files)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: check-skips.sh BUILDDIR}
allowed=$src/tests/allowed-skips
patterns=$(mktemp)
trap 'rm -f "$patterns"' EXIT
grep -v '^#' "$allowed" | grep . >"$patterns"
bad=0
total=0
for log in $(find "$build/tests" -name '*.log' | sort); do
	grep -h '# SKIP' "$log" 2>/dev/null | while IFS= read -r line; do
		reason=${line#*# SKIP}
		reason=${reason# }
		if ! printf '%s\n' "$reason" | grep -qEf "$patterns"; then
			echo "check-skips: ${log#"$build"/}: skipped for a reason CI does not allow: $reason"
		fi
	done
done >"$patterns.out"
total=$(find "$build/tests" -name '*.log' -exec grep -h '# SKIP' {} + 2>/dev/null | wc -l)
bad=$(wc -l <"$patterns.out")
cat "$patterns.out"
rm -f "$patterns.out"
echo "check-skips: $total skip(s) in $build/tests, $bad not allowed by tests/allowed-skips"
[ "$bad" -eq 0 ]
