#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# calibrate-compare.sh: how often kvmbench's comparisons are wrong on the machine this runs on.
# A/A (the same configuration on both sides: every "regressed" or "improved" is false) and A/B with a
# known real difference (selftest/rdmsr against selftest/rdmsr_plus5: one extra RDMSR every 20
# iterations, +5% exits, cross-checked in every run): the false-verdict rate and the detection rate.
#
# Usage: tools/calibrate-compare.sh [K] [KVMBENCH]   (from a built tree; needs jq and /dev/kvm)
#   K               comparisons per experiment (default 20)
#   KB_AB_RUN       run options of each whole-run measurement (aa-rounds, the --mode run experiments;
#                   default '--runs 10 --sample-time 50ms')
#   KB_AB_SAMPLE    extra run options of the --mode sample experiments (default none: ab's defaults)
#   KB_AB_PAIRS     pairs per --mode sample comparison (default: ab's, 500 pairs of samples)
#   KB_AB_RUN_PAIRS pairs per --mode run comparison (default 10, ab's default there)
#   KB_AB_TOL       tolerance of aa-ab-tol and the detection experiments, percent (default 2: a +5%
#                   difference cannot be told from a 5% tolerance, so detection needs a smaller one,
#                   chosen before measuring; aa-ab-tol holds the A/A rate to the same tolerance)
#   KB_ROUNDS       rounds of the non-interleaved A/A experiments with rounds (default 5)
#   KB_RUNS         separate runs a side of aa-runs and of aa-baseline's baseline (default 3)
#   KB_EXPERIMENTS  which to run (default "aa-default aa-rounds aa-ab aa-ab-tol ab-plus5")
# Experiments:
#   aa-default  two 'kvmbench run selftest/rdmsr' at the default settings (one round each), compared
#               with 'kvmbench compare' at its defaults (tolerance 5%)
#   aa-rounds   the same with --rounds KB_ROUNDS and KB_AB_RUN's sampling, compare at its defaults
#   aa-runs     KB_RUNS separate runs a side (KB_AB_RUN's sampling, alternated A B A B ...), compared as
#               'kvmbench compare A1.json,A2.json,... B1.json,B2.json,...' at its defaults
#   aa-baseline KB_RUNS separate runs as the baseline, against one run --rounds KB_ROUNDS (as run --baseline)
#   aa-ab       'kvmbench ab' of selftest/rdmsr against itself at ab's defaults (--mode sample, 5%)
#   aa-ab-tol   the same with tolerance KB_AB_TOL
#   ab-plus5    'kvmbench ab -A selftest/rdmsr -B selftest/rdmsr_plus5', tolerance KB_AB_TOL: detected
#               when ns/iter is "regressed"; "improved" there is a false verdict
#   aa-ab-run, ab-plus5-run   aa-ab-tol and ab-plus5 with --mode run (whole runs, KB_AB_RUN_PAIRS pairs)
# A comparison counts as a false verdict when any of its rows (rate, cycles, ns) is "regressed" or
# "improved" where nothing changed, or points the wrong way.  Nothing is retried or dropped.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k=${1:-20}
kvmbench=${2:-$here/../kvmbench}
ab_run=${KB_AB_RUN:---runs 10 --sample-time 50ms}
ab_sample=${KB_AB_SAMPLE:-}
pairs=${KB_AB_PAIRS:+--pairs $KB_AB_PAIRS}
run_pairs=${KB_AB_RUN_PAIRS:-10}
tol=${KB_AB_TOL:-2}
rounds=${KB_ROUNDS:-5}
nruns=${KB_RUNS:-3}
experiments=${KB_EXPERIMENTS:-aa-default aa-rounds aa-ab aa-ab-tol ab-plus5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v jq >/dev/null || { echo "calibrate-compare.sh: needs jq" >&2; exit 2; }

# flagged FILE: how many rows of a comparison are "regressed" or "improved".
flagged() { jq '[.rows[] | select(.verdict == "regressed" or .verdict == "improved")] | length' "$1"; }
# verdict FILE METRIC
verdict() { jq -r --arg m "$2" '[.rows[] | select(.metric == $m)][0].verdict' "$1"; }
delta() { jq -r --arg m "$2" '[.rows[] | select(.metric == $m)][0].delta_pct | . * 10 | round / 10' "$1"; }

report() {	# report NAME WHAT COUNT K SECONDS: with the load average at its end
	awk -v n="$1" -v w="$2" -v c="$3" -v k="$4" -v s="$5" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" \
		'BEGIN { printf "%-12s %s: %d of %d (%.1f%%), %d s, load %s\n", n, w, c, k, 100 * c / k, s, l }'
}

for exp in $experiments; do
	t0=$(date +%s)
	count=0
	errors=0
	wrong=0
	for ((i = 1; i <= k; i++)); do
		c=$tmp/c.json
		case $exp in
		aa-default)
			"$kvmbench" run -q selftest/rdmsr --json "$tmp/a.json" >/dev/null 2>&1
			"$kvmbench" run -q selftest/rdmsr --json "$tmp/b.json" >/dev/null 2>&1
			"$kvmbench" compare --format json "$tmp/a.json" "$tmp/b.json" >"$c" 2>/dev/null
			;;
		aa-rounds)
			"$kvmbench" run -q selftest/rdmsr --rounds "$rounds" $ab_run --json "$tmp/a.json" >/dev/null 2>&1
			"$kvmbench" run -q selftest/rdmsr --rounds "$rounds" $ab_run --json "$tmp/b.json" >/dev/null 2>&1
			"$kvmbench" compare --format json "$tmp/a.json" "$tmp/b.json" >"$c" 2>/dev/null
			;;
		aa-runs | aa-baseline)
			la= lb=
			for ((j = 1; j <= nruns; j++)); do
				"$kvmbench" run -q selftest/rdmsr $ab_run --json "$tmp/a$j.json" >/dev/null 2>&1
				la=$la${la:+,}$tmp/a$j.json
				if [ "$exp" = aa-runs ]; then
					"$kvmbench" run -q selftest/rdmsr $ab_run --json "$tmp/b$j.json" >/dev/null 2>&1
					lb=$lb${lb:+,}$tmp/b$j.json
				fi
			done
			if [ "$exp" = aa-baseline ]; then
				"$kvmbench" run -q selftest/rdmsr --rounds "$rounds" $ab_run --json "$tmp/b.json" >/dev/null 2>&1
				lb=$tmp/b.json
			fi
			"$kvmbench" compare --format json "$la" "$lb" >"$c" 2>/dev/null
			;;
		aa-ab)
			"$kvmbench" ab -q -A selftest/rdmsr -B selftest/rdmsr --run "$ab_sample" $pairs --format json >"$c" 2>/dev/null
			;;
		aa-ab-tol)
			"$kvmbench" ab -q -A selftest/rdmsr -B selftest/rdmsr --run "$ab_sample" $pairs -t "$tol" \
				--format json >"$c" 2>/dev/null
			;;
		ab-plus5)
			"$kvmbench" ab -q -A selftest/rdmsr -B selftest/rdmsr_plus5 --run "$ab_sample" $pairs -t "$tol" \
				--format json >"$c" 2>/dev/null
			;;
		aa-ab-run)
			"$kvmbench" ab -q --mode run -A selftest/rdmsr -B selftest/rdmsr --run "$ab_run" --pairs "$run_pairs" \
				-t "$tol" --format json >"$c" 2>/dev/null
			;;
		ab-plus5-run)
			"$kvmbench" ab -q --mode run -A selftest/rdmsr -B selftest/rdmsr_plus5 --run "$ab_run" \
				--pairs "$run_pairs" -t "$tol" --format json >"$c" 2>/dev/null
			;;
		*) echo "calibrate-compare.sh: unknown experiment $exp" >&2; exit 2 ;;
		esac
		if ! [ -s "$c" ] || ! jq -e '.rows | length > 0' "$c" >/dev/null 2>&1; then
			errors=$((errors + 1))
			echo "# $exp $i: no comparison (a measurement failed)" >&2
			continue
		fi
		if [ "$exp" = ab-plus5 ] || [ "$exp" = ab-plus5-run ]; then
			v=$(verdict "$c" ns)
			[ "$v" = regressed ] && count=$((count + 1))
			# B does more work: every metric is worse ("regressed" by its own higher_is_better), so
			# any "improved" row is a false verdict of its own, counted apart.
			if [ "$(jq '[.rows[] | select(.verdict == "improved")] | length' "$c")" -gt 0 ]; then
				wrong=$((wrong + 1))
				echo "# $exp $i: FALSE direction" >&2
			fi
			echo "# $exp $i: ns $(delta "$c" ns)% $v" >&2
		else
			f=$(flagged "$c")
			[ "$f" -gt 0 ] && count=$((count + 1))
			echo "# $exp $i: ns $(delta "$c" ns)% $(verdict "$c" ns) ($f rows flagged)" >&2
		fi
	done
	secs=$(($(date +%s) - t0))
	n=$((k - errors))
	[ "$n" -gt 0 ] || n=1
	case $exp in
	ab-plus5 | ab-plus5-run)
		report "$exp" "+5% detected (ns regressed)" "$count" "$n" "$secs"
		report "$exp" "false verdicts (a row improved)" "$wrong" "$n" "$secs"
		;;
	*) report "$exp" "false verdicts" "$count" "$n" "$secs" ;;
	esac
	[ "$errors" -eq 0 ] || echo "$exp: $errors comparison(s) without a result left out of the count"
done
echo "host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(uname -r); kvmbench $("$kvmbench" --version 2>/dev/null | head -1)"
