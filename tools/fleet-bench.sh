#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fleet-bench.sh: how fast and how lean is 'kvmbench report --fleet' on a large fleet?  Makes
# HOSTS result files (default 1000) by perturbing one real result (every sample of a host scaled
# by its own factor within +-3%, every 100th host slowed by 20%), one per host directory as the
# Ansible role fetches them, then times the fleet report in every format with /usr/bin/time -v:
# wall time and peak RSS, against the bounds (30 s, 1 GiB).  Exit 0 within them, 1 beyond, 2 when
# it cannot run.  Never run by the tests: a timed benchmark on a shared machine is not a test.
#   tools/fleet-bench.sh [-n HOSTS] [-r RESULT.json] [-o DIR]
# Without -r it measures this host once ('kvmbench run', default suites) for the real result.
# The wall time depends on the CPU the report gets: each line also gives its CPU time, its share of
# a CPU and the load average, so that a figure from a busy machine can be read for what it is.
set -u
HOSTS=1000
REF=
OUT=
MAX_S=30
MAX_KB=$((1024 * 1024))
while getopts n:r:o: opt; do
	case $opt in
	n) HOSTS=$OPTARG ;;
	r) REF=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n 's/^#   //p' "$0"; exit 2 ;;
	esac
done
B=$(cd "$(dirname "$0")/.." && pwd)
K=${KVMBENCH:-$B/kvmbench}
[ -x "$K" ] || { echo "fleet-bench: no kvmbench at $K (build it, or set KVMBENCH)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "fleet-bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "fleet-bench: jq is missing (apt-get install jq)" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-fleet-bench.XXXXXX")
mkdir -p "$OUT"
if [ -z "$REF" ]; then
	REF=$OUT/reference.json
	echo "fleet-bench: measuring this host for the reference result ($REF)"
	"$K" run -q --json "$REF" >"$OUT/run.out" 2>&1
	[ -s "$REF" ] || { cat "$OUT/run.out" >&2; exit 2; }
fi
[ -r "$REF" ] || { echo "fleet-bench: -r $REF: cannot read" >&2; exit 2; }

# One jq pass writes every host's result as one line; awk puts each into its host's directory.
F=$OUT/fleet
rm -rf "$F"
mkdir -p "$F"
start=$(date +%s)
jq -c --argjson n "$HOSTS" '
	. as $r | range($n) as $i |
	# a deterministic pseudo-random factor within +-3% per host; every 100th host 20% slower
	((($i * 7919) % 601) / 10000 - 0.03 + 1) as $noise |
	(if $i % 100 == 99 then 1.2 else 1 end * $noise) as $f |
	$r | .host.hostname = ("host-\($i)") |
	.tests |= map(.metrics |= map(
		(if .higher_is_better then 1 / $f else $f end) as $k |
		.samples |= map(. * $k) | if .rounds then .rounds |= map(.mean *= $k | .stddev *= $k) else . end))' \
	"$REF" | awk -v dir="$F" '{ d = sprintf("%s/host-%04d", dir, NR - 1); system("mkdir -p " d); print > (d "/result.json"); close(d "/result.json") }'
made=$(find "$F" -name result.json | wc -l)
bytes=$(du -sb "$F" | cut -f1)
echo "fleet-bench: $made result files, $((bytes / 1048576)) MiB, made in $(($(date +%s) - start)) s from $REF"
[ "$made" -eq "$HOSTS" ] || { echo "fleet-bench: made $made files, not $HOSTS" >&2; exit 2; }

status=0
for fmt in table json markdown html; do
	/usr/bin/time -v "$K" report --fleet --format "$fmt" -o "$OUT/fleet.$fmt" "$F" 2>"$OUT/time.$fmt"
	rc=$?
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time.$fmt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time.$fmt")
	secs=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$OUT/time.$fmt")
	share=$(sed -n 's/.*Percent of CPU this job got: //p' "$OUT/time.$fmt")
	verdict=ok
	if [ "$rc" -gt 1 ] || [ -z "$rss" ]; then
		verdict="FAILED (exit $rc)"
		status=1
	elif awk -v s="$secs" -v m="$MAX_S" 'BEGIN { exit !(s > m) }' || [ "$rss" -gt "$MAX_KB" ]; then
		verdict="BEYOND the bounds ($MAX_S s, $((MAX_KB / 1024)) MiB)"
		status=1
	fi
	printf 'fleet-bench: report --fleet --format %-8s %4s hosts: %7s s wall (%s s CPU, %s of a CPU; load %s), %5s MiB peak RSS, exit %s: %s\n' \
		"$fmt" "$HOSTS" "$secs" "$cpu" "$share" "$(cut -d' ' -f1 /proc/loadavg)" "$((${rss:-0} / 1024))" "$rc" "$verdict"
done
flagged=$(jq '[.hosts[] | select(.slow_outliers > 0)] | length' "$OUT/fleet.json")
echo "fleet-bench: $flagged hosts flagged slow (every 100th was slowed by 20%: $((HOSTS / 100)) expected); results in $OUT"
exit "$status"
