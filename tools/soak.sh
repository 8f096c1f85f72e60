#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# soak.sh: does kvmbench leak?  Part 1: CYCLES machines created, run and destroyed in one process
# (tests/unit/soak, on libkvmbench.a), its RSS, open file descriptors and threads sampled as it
# goes.  Part 2, the mixed run: one 'kvmbench run' of many host tests (self-ipi's at 2 vCPUs) for
# MINUTES, sampled from /proc/PID every few seconds, then stopped with SIGTERM.  Each says whether
# the figures stay flat: fds and threads end where they were after warm-up; RSS grows by at most
# RSS_SLACK_KB over the cycles, and in the mixed run no faster than the result it keeps.  Part 3,
# with valgrind installed: a short mixed run leaves no byte allocated at exit.  Exit 0 when both are flat, 1 when not, 2 when the soak cannot run.
#   tools/soak.sh [-n CYCLES] [-m MINUTES] [-o DIR]     (defaults: 10000 cycles, 30 minutes)
#   tools/soak.sh --mixed DURATION [--interval SECONDS] [--min-iterations N] [-o DIR]   (a loop of run, compare, report,
#       info, plan and list for DURATION: 90s, 30m, 1h; tools/soak-mixed.sh says what it judges)
# Run it in a built tree (./configure && make); it builds tests/unit/soak itself.
set -u
for a; do
	[ "$a" != --mixed ] || exec "$(dirname "$0")/soak-mixed.sh" "$@"
done
CYCLES=10000
MINUTES=30
OUT=
RSS_SLACK_KB=${RSS_SLACK_KB:-2048}
while getopts n:m:o: opt; do
	case $opt in
	n) CYCLES=$OPTARG ;;
	m) MINUTES=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n 's/^#   //p' "$0"; exit 2 ;;
	esac
done
B=$(cd "$(dirname "$0")/.." && pwd)
K=${KVMBENCH:-$B/kvmbench}
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-soak.XXXXXX")
mkdir -p "$OUT"
[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "soak: /dev/kvm is not usable here" >&2; exit 2; }
make -C "$B" -s kvmbench tests/unit/soak >"$OUT/build.out" 2>&1 || { cat "$OUT/build.out" >&2; exit 2; }

# flat FILE WHAT: from the samples "cycle seconds rss_kb fds threads", the first after a tenth of
# the run (warm-up: allocator pools, first-time mappings) against the last.
flat() {
	awk -v what="$2" -v slack="$RSS_SLACK_KB" '
	/^#/ { next }
	{ n++; c[n] = $1; t[n] = $2; r[n] = $3; f[n] = $4; h[n] = $5 }
	END {
		if (n < 3) { print what ": too few samples (" n ")"; exit 1 }
		w = int(n / 10) + 1
		rate = t[n] > 0 ? c[n] / t[n] : 0
		printf "%s: %d samples over %.0f s (%.1f cycles/s); start rss %d kB fds %d threads %d; " \
		       "after warm-up rss %d kB fds %d threads %d; end rss %d kB fds %d threads %d; max rss %d kB\n",
		       what, n, t[n], rate, r[1], f[1], h[1], r[w], f[w], h[w], r[n], f[n], h[n], maxr(r, n)
		bad = (r[n] - r[w] > slack) || f[n] != f[w] || h[n] != h[w]
		print what ": " (bad ? "NOT FLAT" : "flat") " (rss grew " r[n] - r[w] " kB after warm-up, slack " slack \
		      " kB; fds " f[n] - f[w] "; threads " h[n] - h[w] ")"
		exit bad
	}
	function maxr(a, n,   i, m) { m = 0; for (i = 1; i <= n; i++) if (a[i] > m) m = a[i]; return m }' "$1"
}

status=0
echo "soak: $CYCLES machines created, run and destroyed in one process (samples in $OUT/cycles.txt)"
"$B/tests/unit/soak" "$CYCLES" "$(( CYCLES / 50 > 0 ? CYCLES / 50 : 1 ))" >"$OUT/cycles.txt" 2>"$OUT/cycles.err" ||
	{ echo "soak: the cycles failed: $(tail -n 1 "$OUT/cycles.err")"; status=1; }
flat "$OUT/cycles.txt" "cycles" || status=1

# The mixed run: every host suite's tests (and the self-tests), short samples,
# named again and again up to run's 256 operands; stopped with SIGTERM after MINUTES.
tests=$("$K" list --json 2>/dev/null | jq -r '.[] | select(.name != "guest") | .name as $s |
	.tests[] | select(.hidden | not) | "\($s)/\(.name)"' 2>/dev/null)
[ -n "$tests" ] || tests="selftest/nop"
ops=
n=0
while [ "$n" -lt 256 ]; do
	for t in selftest/nop $tests; do
		[ "$n" -lt 256 ] || break
		ops="$ops $t"
		n=$((n + 1))
	done
done
echo "soak: mixed run, one 'kvmbench run' of $n operands for $MINUTES minute(s) (samples in $OUT/mixed.txt)"
# n test runs, each given its share of MINUTES in 10 ms samples (a test's own setup and
# calibration come on top, so the run outlasts MINUTES and SIGTERM ends it).  One --vcpus count:
# the tests with their own (self-ipi's two) are mixed in all along, so early and late compare.
runs=$(( MINUTES * 60000 / n / 10 ))
[ "$runs" -ge 2 ] || runs=2
# shellcheck disable=SC2086
KVMBENCH_LOCK_DIR=$OUT/lock "$K" run $ops --runs "$runs" --warmup 0 --sample-time 10ms -q \
	--json "$OUT/mixed.json" >"$OUT/mixed.out" 2>&1 &
pid=$!
end=$(( $(date +%s) + MINUTES * 60 ))
start=$(date +%s)
echo "# cycle seconds rss_kb fds threads (cycle: tests completed)" >"$OUT/mixed.txt"
# Every half second, so that some samples fall between two tests (while run rewrites the JSON),
# where no VM is open; the test count is read every 20th sample.
i=0
done_tests=0
while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
	[ $((i % 20)) -ne 0 ] || done_tests=$(jq '.tests | length' "$OUT/mixed.json" 2>/dev/null || echo "$done_tests")
	i=$((i + 1))
	[ -n "$rss" ] && echo "${done_tests:-0} $(( $(date +%s) - start )) $rss $fds $thr" >>"$OUT/mixed.txt"
	sleep 0.5
done
kill -s TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
echo "soak: the mixed run ended with exit $rc ($( [ "$rc" -eq 143 ] && echo "stopped by SIGTERM" || echo "finished by itself"))," \
	"$(jq '.tests | length' "$OUT/mixed.json" 2>/dev/null) tests kept; $(grep -c . "$OUT/mixed.out") lines of output"
# A sample may fall inside a test (its VM's and vCPUs' fds and threads open): the mixed run
# compares the least fds and threads early on (10% to 40% of the samples) with the least at the
# end (the last 30%): the state between tests, which some samples of each window catch.  Its RSS grows by design, since run keeps every
# completed test in memory: judged against the result's own size, a leak shows as RSS growing
# faster than RSS_PER_JSON times the JSON written (default 20: json-c holds 20 to 50 times the
# size of a JSON text, tests/scripts/hostile.test measures it; a leaked VM would be megabytes).
awk -v k="${RSS_PER_JSON:-20}" -v json="$(stat -c %s "$OUT/mixed.json" 2>/dev/null || echo 0)" '
	!/^#/ { n++; c[n] = $1; t[n] = $2; r[n] = $3; f[n] = $4; h[n] = $5 }
	function least(a, i, j,   m, x) { m = a[i]; for (x = i; x <= j; x++) if (a[x] < m) m = a[x]; return m }
	END {
		if (n < 6) { print "mixed: too few samples (" n ")"; exit 1 }
		a = int(n / 10) + 1; b = int(n * 4 / 10); e = int(n * 7 / 10) + 1
		f1 = least(f, a, b); f2 = least(f, e, n); h1 = least(h, a, b); h2 = least(h, e, n)
		per_test = c[n] > c[a] ? (r[n] - r[a]) / (c[n] - c[a]) : 0
		json_per_test = c[n] > 0 ? json / 1024 / c[n] : 0
		max = 0; for (x = 1; x <= n; x++) if (r[x] > max) max = r[x]
		printf "mixed: %d samples over %d s, %d tests (%.1f tests/s); rss %d kB at the start, %d after warm-up, " \
		       "%d at the end (max %d): %.1f kB per test against %.1f kB of JSON per test; " \
		       "least fds %d early, %d late; least threads %d early, %d late\n", n, t[n], c[n], c[n] / (t[n] ? t[n] : 1),
		       r[1], r[a], r[n], max, per_test, json_per_test, f1, f2, h1, h2
		bad = f2 != f1 || h2 != h1 || per_test > k * json_per_test + 8
		print "mixed: " (bad ? "NOT FLAT" : "flat") " (fds " f2 - f1 ", threads " h2 - h1 \
		      ", rss per test " per_test " kB, bound " k " x JSON per test + 8 kB)"
		exit bad
	}' "$OUT/mixed.txt" || status=1

# Under valgrind (when installed): a short mixed run must leave nothing allocated at exit.
if command -v valgrind >/dev/null 2>&1; then
	# shellcheck disable=SC2086,SC2046
	KVMBENCH_LOCK_DIR=$OUT/lock valgrind --leak-check=full --log-file="$OUT/valgrind.txt" "$K" run \
		$(echo $ops | cut -d' ' -f1-15) --vcpus 1,2 --runs 2 --warmup 0 --sample-time 20ms -q \
		--json "$OUT/valgrind.json" >/dev/null 2>&1
	inuse=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes.*/\1/p' "$OUT/valgrind.txt" | tr -d ,)
	errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$OUT/valgrind.txt")
	echo "valgrind: $(jq '.tests | length' "$OUT/valgrind.json" 2>/dev/null) test runs, ${inuse:-?} bytes in use at exit, ${errors:-?} errors ($OUT/valgrind.txt)"
	[ "${inuse:-1}" -eq 0 ] && [ "${errors:-1}" -eq 0 ] || status=1
fi
exit $status
