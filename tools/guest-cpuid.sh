#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# guest-cpuid.sh: kvmbench's guest CPUID rate against the original method (a minimal CPUID loop timed
# with clock() over one long fixed run), alternated in one run on the same CPU; prints their ratio and
# whether kvmbench reached a 95% CI within ±1% and how long it took.
# Usage: tools/guest-cpuid.sh [KVMBENCH] [ROUNDS] [SECONDS]   (from a built tree; needs jq, gcc)
#   SECONDS: length of each clock()-timed run (default 5).  KB_OPTS: kvmbench's sampling options
#   (default: sample to a ±1% CI, bounded by time alone so that the whole run stays under 5 s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kvmbench=${1:-$here/../kvmbench}
rounds=${2:-5}
seconds=${3:-5}
opts=${KB_OPTS:---target-ci 1 --max-runs 100 --max-time 4.5s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/cpuid-clock" "$here/cpuid-clock.c"

now() { date +%s.%N; }
iters=
echo "kvmbench run guest/cpuid $opts, alternated with cpuid-clock on the same CPU; $rounds rounds"
printf '%-5s %14s %6s %7s %7s   %14s %7s\n' round "kvmbench /s" "±CI%" samples "wall s" "clock() /s" ratio
for ((r = 1; r <= rounds; r++)); do
	# Wall time from the shell: process start, calibration and warm-up included.
	t0=$(now)
	# shellcheck disable=SC2086
	"$kvmbench" run guest/cpuid $opts --json "$tmp/r.json" -q >/dev/null 2>&1 || true
	t1=$(now)
	read -r kb ci n cpu < <(jq -r '.tests[0] | [(.metrics[] | select(.name == "rate") | .summary.mean),
		(.metrics[] | select(.name == "rate") | .summary.ci95_rel * 100), .extra.sampling.samples,
		(.extra.pinned_cpu // 0)] | @tsv' "$tmp/r.json")
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	# The same CPU, and a fixed count lasting about SECONDS, as the original program ran.
	[ -n "$iters" ] || iters=$(awk -v r="$kb" -v s="$seconds" 'BEGIN { printf "%d", r * s }')
	clk=$(taskset -c "$cpu" "$tmp/cpuid-clock" "$iters")
	ratio=$(awk -v a="$kb" -v b="$clk" 'BEGIN { printf "%.4f", a / b }')
	printf '%-5s %14.0f %6.2f %7d %7s   %14.0f %7s\n' "$r" "$kb" "$ci" "$n" "$wall" "$clk" "$ratio"
	echo "$kb $ci $wall $clk" >>"$tmp/rounds"
done
med=$(cut -d' ' -f3 "$tmp/rounds" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
awk -v it="$iters" -v med="$med" '{ kb += $1; clk += $4; n++; if ($2 <= 1) reached++; if ($3 < 5) fast++ }
	END {
		printf "mean: kvmbench %.0f /s, clock() loop %.0f /s (%d iterations a run), ratio %.4f (%+.2f%%)\n",
			kb / n, clk / n, it, kb / clk, (kb / clk - 1) * 100
		printf "95%% CI within ±1%%: %d of %d rounds; under 5 s wall: %d of %d; median wall %.2f s\n",
			reached, n, fast, n, med
	}' "$tmp/rounds"
