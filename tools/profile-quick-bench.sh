#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# profile-quick-bench.sh: how long does 'kvmbench run --profile quick' take on this host?  Runs it
# RUNS times (default 3) and prints each run's wall time, CPU time, share of a CPU, load average
# and verdict, then the median wall time against the bound (30 s on a 2-core machine, issue #17).
# Exit 0 when the median is within the bound and every run passed, 1 otherwise, 2 when it cannot
# run.  Never run by the tests: a timed benchmark on a shared machine is not a test
# (tests/scripts/profile.test checks what the profile does, not how fast).
#   tools/profile-quick-bench.sh [-n RUNS] [-b SECONDS] [-o DIR]
set -u
RUNS=3
BOUND=30
OUT=
while getopts n:b:o: opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	b) BOUND=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n 's/^#   //p' "$0"; exit 2 ;;
	esac
done
case $RUNS in '' | *[!0-9]* | 0) echo "profile-quick-bench: -n wants a positive whole number, not '$RUNS'" >&2; exit 2 ;; esac
B=$(cd "$(dirname "$0")/.." && pwd)
K=${KVMBENCH:-$B/kvmbench}
[ -x "$K" ] || { echo "profile-quick-bench: no kvmbench at $K (build it, or set KVMBENCH)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "profile-quick-bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "profile-quick-bench: jq is missing (apt-get install jq)" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-profile-quick.XXXXXX")
mkdir -p "$OUT"
status=0
: >"$OUT/walls"
i=1
while [ "$i" -le "$RUNS" ]; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %U %S %P' -o "$OUT/time.$i" "$K" run --profile quick --json "$OUT/q.$i.json" \
		>"$OUT/out.$i" 2>&1
	rc=$?
	# /usr/bin/time puts "Command exited with non-zero status N" before its line when the run failed.
	read -r wall user sys share <<EOF
$(tail -n 1 "$OUT/time.$i")
EOF
	verdict=$(jq -r '.profile.verdict // "none"' "$OUT/q.$i.json" 2>/dev/null || echo none)
	printf 'run %d: %s s wall, %s s user + %s s sys (%s of a CPU), load %s before, exit %d, verdict %s\n' \
		"$i" "$wall" "$user" "$sys" "$share" "$load" "$rc" "$verdict"
	if [ "$rc" -ne 0 ] || [ "$verdict" != pass ]; then
		status=1
		grep -E '^profile |FAIL|invalid|error' "$OUT/out.$i" | head -n 5 | sed 's/^/    /'
	fi
	echo "$wall" >>"$OUT/walls"
	i=$((i + 1))
done
median=$(sort -n "$OUT/walls" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
if awk -v m="$median" -v b="$BOUND" 'BEGIN { exit !(m <= b) }'; then
	echo "median wall time $median s: within $BOUND s (results in $OUT)"
else
	echo "median wall time $median s: over $BOUND s (results in $OUT)"
	status=1
fi
exit "$status"
