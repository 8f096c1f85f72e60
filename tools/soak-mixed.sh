#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# soak-mixed.sh: 'tools/soak.sh --mixed DURATION': kvmbench used as people use it, over and over:
# each iteration runs every suite (one 'kvmbench run' each, 1 and 2 vCPUs, short samples), then
# compare (this iteration's result of the first suite that measured validly in iteration 1
# against the last iteration's), report (HTML and CSV of all of
# this iteration's results), info, plan and list, until DURATION is up.
#   tools/soak.sh --mixed DURATION [--interval SECONDS] [--min-iterations N] [-o DIR]   (DURATION: 90s, 30m, 1h)
# (--min-iterations: go on past DURATION until N iterations are done; default 6, the fewest judged)
#   tools/soak.sh --mixed - --judge DIR   (the verdict again, from the CSV files of an earlier soak in DIR)
# Every command runs under GNU time (its peak RSS, exact) and is sampled every --interval
# (default 0.2 s) from /proc while it lives: RSS, open fds, threads; 'kvmbench run', which holds
# the VMs and vCPU threads, lives long enough to give many samples.  After each iteration the
# files left in the commands' TMPDIR and the run-lock directory are counted.
# Files in DIR: samples.csv (every sample), commands.csv (one row per command),
# iterations.csv (one row per iteration) and verdict.txt, the one-line verdict it also prints:
# flat, or GROWING naming what grows.  Per command, after a tenth of the iterations as warm-up:
# the least-squares slope of its peak RSS over time (growing when slope x span > RSS_SLACK_KB,
# default 2048 kB); the fds and threads of the calls sampled 3 times or more (the runs; a call too
# short for that is caught at a random point of its life): growing when the least peak of a call
# in the last third of the iterations is above the greatest peak of one in the first third; the files left behind at the end against after the first iteration.  A
# command exiting 2 or worse (usage, setup, crash, signal) also fails the soak.
# Exit 0 flat, 1 growing or a command failed, 2 the soak cannot run.
# SOAK_SUITES (default: every suite of 'kvmbench list' and selftest/nop) chooses the runs, and
# SOAK_RUN_OPTS their sampling (default '--runs 3 --warmup 0 --sample-time 10ms'): the fds and
# threads of a run are those of its phase the sampler catches, and a 1-vCPU phase holds fewer
# than a 2-vCPU one, so a short soak gives each phase several --interval samples.
set -u
# All of it one compound command, read whole before it runs: editing this file during a soak
# cannot change the soak.
{
die() { echo "soak: $*" >&2; exit 2; }

DURATION=
INTERVAL=0.2
MIN_ITER=6
OUT=
JUDGE=
while [ $# -gt 0 ]; do
	case $1 in
	--mixed) [ $# -ge 2 ] || die "--mixed needs a duration (90s, 30m, 1h)"; DURATION=$2; shift 2 ;;
	--interval) [ $# -ge 2 ] || die "--interval needs seconds"; INTERVAL=$2; shift 2 ;;
	--judge) [ $# -ge 2 ] || die "--judge needs a directory"; JUDGE=$2; shift 2 ;;
	--min-iterations) [ $# -ge 2 ] || die "--min-iterations needs a number"; MIN_ITER=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || die "-o needs a directory"; OUT=$2; shift 2 ;;
	*) die "unknown argument '$1' for the mixed soak (see tools/soak.sh -h)" ;;
	esac
done
if [ -z "$JUDGE" ]; then
case $DURATION in
[0-9]*s) secs=${DURATION%s} ;;
[0-9]*m) secs=$((${DURATION%m} * 60)) ;;
[0-9]*h) secs=$((${DURATION%h} * 3600)) ;;
*) die "--mixed '$DURATION': not a duration (a whole number and s, m or h: 90s, 30m, 1h)" ;;
esac
case $secs in '' | *[!0-9]*) die "--mixed '$DURATION': not a duration (a whole number and s, m or h: 90s, 30m, 1h)" ;; esac
fi
case $INTERVAL in '' | *[!0-9.]* | *.*.*) die "--interval '$INTERVAL': not a number of seconds" ;; esac
case $MIN_ITER in '' | *[!0-9]*) die "--min-iterations '$MIN_ITER': not a whole number" ;; esac

run_soak() {
B=$(cd "$(dirname "$0")/.." && pwd)
K=${KVMBENCH:-$B/kvmbench}
[ -x "$K" ] || die "$K is not built (./configure && make), or set KVMBENCH"
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is not installed (apt-get install time)"
[ -r /dev/kvm ] && [ -w /dev/kvm ] || die "/dev/kvm is not usable here"
command -v jq >/dev/null 2>&1 || die "jq is not installed (apt-get install jq)"
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-soak.XXXXXX")
mkdir -p "$OUT" || die "-o $OUT: cannot create it"
W=$OUT/work
rm -rf "$W"
mkdir -p "$W/tmp" "$W/lock" "$W/prev"
# The commands' own temporary files and run lock live here, so that what they leave is counted.
export TMPDIR="$W/tmp" KVMBENCH_LOCK_DIR="$W/lock"

run_opts=${SOAK_RUN_OPTS:---runs 3 --warmup 0 --sample-time 10ms}
suites=${SOAK_SUITES:-$("$K" list --json 2>/dev/null | jq -r '.[].name' | tr '\n' ' ') selftest/nop}
[ -n "$(echo "$suites" | tr -d ' ')" ] || die "no suites to run ('$K list --json' gave none)"

now() { date +%s.%N; }
start=$(now)
elapsed() { awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

echo "elapsed_s,iteration,command,pid,rss_kb,fds,threads" >"$OUT/samples.csv"
echo "iteration,elapsed_s,command,exit,wall_s,maxrss_kb,samples,peak_rss_kb,peak_fds,peak_threads" >"$OUT/commands.csv"
echo "iteration,elapsed_s,tmp_files,lock_entries" >"$OUT/iterations.csv"

failed=0
# measure ITER NAME CMD...: run CMD under GNU time, sampling it until it exits; one commands.csv row.
measure() {
	iter=$1 name=$2
	shift 2
	t0=$(now)
	/usr/bin/time -f '%M %e' -o "$W/time.out" "$@" >"$W/cmd.out" 2>"$W/cmd.err" &
	tpid=$!
	n=0 prss=0 pfds=0 pthr=0
	while :; do
		state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$tpid/status" 2>/dev/null)
		[ -n "$state" ] && [ "$state" != Z ] || break
		pid=$(cut -d' ' -f1 "/proc/$tpid/task/$tpid/children" 2>/dev/null)
		if [ -n "$pid" ]; then
			# shellcheck disable=SC2046  # "RSS THREADS": two words
			set -- $(awk '/^VmRSS:/ { r = $2 } /^Threads:/ { t = $2 } END { print r + 0, t + 0 }' "/proc/$pid/status" 2>/dev/null) 0 0
			fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
			if [ "$1" -gt 0 ]; then
				echo "$(elapsed),$iter,$name,$pid,$1,$fds,$2" >>"$OUT/samples.csv"
				n=$((n + 1))
				[ "$1" -le "$prss" ] || prss=$1
				[ "$fds" -le "$pfds" ] || pfds=$fds
				[ "$2" -le "$pthr" ] || pthr=$2
			fi
		fi
		sleep "$INTERVAL"
	done
	wait "$tpid"
	rc=$?
	# GNU time's last line: "MAXRSS WALL" (before it, "Command exited with non-zero status N").
	# shellcheck disable=SC2046
	set -- $(tail -n 1 "$W/time.out" 2>/dev/null) 0 0
	echo "$iter,$(awk -v a="$t0" -v b="$(now)" -v s="$start" 'BEGIN { printf "%.2f", a - s }'),$name,$rc,$2,$1,$n,$prss,$pfds,$pthr" >>"$OUT/commands.csv"
	if [ "$rc" -ge 2 ]; then
		failed=$((failed + 1))
		echo "soak: iteration $iter: '$name' exited with $rc: $(grep -v '^kvmbench: WARNING' "$W/cmd.err" | tail -n 1)" >&2
	fi
}

echo "soak: mixed, $DURATION: every iteration runs $(echo "$suites" | wc -w) suite(s) ($suites), compare, report, info, plan, list (samples every $INTERVAL s into $OUT)"
end=$(awk -v s="$start" -v d="$secs" 'BEGIN { printf "%d", s + d }')
iter=0
tpid=
trap '[ -z "$tpid" ] || kill "$tpid" 2>/dev/null; exit 2' INT TERM HUP
# compare: the suite whose run measured everything validly in the first iteration (exit 0; a
# suite whose tests cannot be measured here leaves compare nothing to compare), every iteration.
csuite=
while [ "$(date +%s)" -lt "$end" ] || [ "$iter" -lt "$MIN_ITER" ]; do
	iter=$((iter + 1))
	rm -f "$W"/cur-*.json
	for s in $suites; do
		j=$W/cur-$(echo "$s" | tr / _).json
		# shellcheck disable=SC2086  # the options, one word each
		measure "$iter" "run $s" "$K" run "$s" --vcpus 1,2 $run_opts -q --json "$j"
		[ -n "$csuite" ] || [ "$rc" -ne 0 ] || csuite=$s
	done
	first=$W/cur-$(echo "$csuite" | tr / _).json
	[ -n "$csuite" ] && [ -f "$W/prev/first.json" ] && [ -f "$first" ] &&
		measure "$iter" "compare $csuite" "$K" compare "$W/prev/first.json" "$first"
	# shellcheck disable=SC2046  # the results of this iteration, one word each
	ls "$W"/cur-*.json >/dev/null 2>&1 &&
		measure "$iter" report "$K" report $(ls "$W"/cur-*.json) --html "$W/report.html" -f csv -o "$W/report.csv"
	measure "$iter" info "$K" info --json
	measure "$iter" plan "$K" plan --vcpus 2
	measure "$iter" list "$K" list --json
	[ -z "$csuite" ] || [ ! -f "$first" ] || cp "$first" "$W/prev/first.json"
	echo "$iter,$(elapsed),$(find "$W/tmp" -mindepth 1 | wc -l),$(find "$W/lock" -mindepth 1 | wc -l)" >>"$OUT/iterations.csv"
done

}

judge() {	# judge DIR: the verdict from DIR's CSV files alone
awk -F, -v slack="${RSS_SLACK_KB:-2048}" '
	FNR == 1 { next }
	FILENAME ~ /iterations.csv$/ { ni++; tmpf[ni] = $3; lockf[ni] = $4; next }
	{ it = $1; c = $3; if (!(c in cnt)) names[++nc] = c; if ($4 >= 2) failed++
	  k = ++cnt[c]; I[c, k] = it; T[c, k] = $2; R[c, k] = $6; N[c, k] = $7; F[c, k] = $9; H[c, k] = $10
	  if (it > niter) niter = it; total++; last_t = $2 + $5 }
	END {
		if (niter < 6) { print "mixed: too few iterations (" niter "; 6 or more are needed to judge)"; exit 1 }
		warm = int(niter / 10) + 1; third = int(niter / 3)
		bad = ""; worst = -1e18; fmax1 = fmax2 = hmax1 = hmax2 = 0
		for (x = 1; x <= nc; x++) {
			c = names[x]; n = 0; sx = sy = sxx = sxy = 0; f1 = f2 = h1 = h2 = e1 = e2 = 0
			for (k = 1; k <= cnt[c]; k++) {
				it = I[c, k]
				# fds and threads: only calls that lived for 3 samples or more (a shorter one
				# is caught at a random point of its life, exec and exit included); growing
				# when even the least peak of a late call is above the greatest of an early
				# one (a sample may catch a passing fd, such as the temp file of an atomic write).
				if (N[c, k] >= 3 && it <= third) { e1++; if (F[c, k] > f1) f1 = F[c, k]; if (H[c, k] > h1) h1 = H[c, k] }
				if (N[c, k] >= 3 && it > niter - third) {
					if (!e2 || F[c, k] < f2) f2 = F[c, k]; if (!e2 || H[c, k] < h2) h2 = H[c, k]; e2++ }
				if (it <= warm) continue
				t = T[c, k] / 3600; n++; sx += t; sy += R[c, k]; sxx += t * t; sxy += t * R[c, k]
				if (n == 1) t0 = t; t1 = t
			}
			slope = (n > 2 && n * sxx - sx * sx > 0) ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0
			growth = slope * (t1 - t0)
			if (slope > worst) { worst = slope; worst_c = c; worst_g = growth }
			if (growth > slack) bad = bad sprintf("; peak RSS of \"%s\" grows %+.0f kB/h (%+.0f kB over the soak)", c, slope, growth)
			if (!e1 || !e2) f1 = f2 = h1 = h2 = 0
			if (f2 > f1) bad = bad sprintf("; \"%s\" fds %d -> %d", c, f1, f2)
			if (h2 > h1) bad = bad sprintf("; \"%s\" threads %d -> %d", c, h1, h2)
			if (f1 > fmax1) fmax1 = f1; if (f2 > fmax2) fmax2 = f2; if (h1 > hmax1) hmax1 = h1; if (h2 > hmax2) hmax2 = h2
		}
		if (tmpf[ni] > tmpf[1]) bad = bad sprintf("; files left in TMPDIR %d -> %d", tmpf[1], tmpf[ni])
		if (lockf[ni] > lockf[1]) bad = bad sprintf("; run-lock entries %d -> %d", lockf[1], lockf[ni])
		failed += 0
		if (failed > 0) bad = bad sprintf("; %d command(s) exited with 2 or worse", failed)
		word = failed > 0 ? "FAILED" : bad == "" ? "flat" : "GROWING"
		printf "mixed: %s: %d iterations, %d commands in %.0f s; worst peak-RSS slope %+.1f kB/h (\"%s\", %+.0f kB over the soak, slack %d kB); fds: most early %d, least late %d; threads: most early %d, least late %d; files left %d%s\n",
		       word, niter, total, last_t, worst, worst_c, worst_g, slack,
		       fmax1, fmax2, hmax1, hmax2, tmpf[ni], bad
		exit bad != ""
	}' "$1/iterations.csv" "$1/commands.csv" >"$1/verdict.txt"
st=$?
cat "$1/verdict.txt"
return $st
}

if [ -n "$JUDGE" ]; then
	[ -f "$JUDGE/commands.csv" ] && [ -f "$JUDGE/iterations.csv" ] ||
		die "--judge $JUDGE: no commands.csv and iterations.csv of a mixed soak there"
	judge "$JUDGE"
	exit
fi
run_soak
judge "$OUT"
exit
}
