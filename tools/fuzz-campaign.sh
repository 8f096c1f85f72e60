#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-campaign.sh: the recorded fuzz campaign: every target of tests/fuzz, one after the other
# (one libFuzzer job, nice -n 10: the machine is shared), each until RUNS executions or MAX_TIME
# seconds, through 'make fuzz' (tests/fuzz/fuzz.sh: same build, seeds, corpora and crash files);
# then a table of target, executions, exec/s, coverage (cov and ft of libFuzzer's last status
# line), corpus (files and bytes), new crashes, wall time, and whether RUNS was reached.
#   tools/fuzz-campaign.sh [-r RUNS] [-t MAX_TIME] [-o DIR] [TARGET...]
#   tools/fuzz-campaign.sh [-r RUNS] [-o DIR] -m TSV [-m TSV...] [-a TSV...]
# Defaults: 1000000 runs, 86400 s, every target of Makefile.am's FUZZ_TARGETS.  Writes
# DIR/fuzz-campaign.{md,tsv,json} (default DIR: docs/) and keeps each target's libFuzzer log and
# make's output in tests/fuzz/campaign/ of the build tree.  Run in a built tree (./configure && make).
# A run of some targets replaces their rows and keeps the other targets' rows of DIR's table;
# each row says when it started and on which commit ("+" when the tree had changes).  The md's
# notes (from a line "## Notes" on) are kept.
# -m TSV: fuzz nothing; merge the rows of another campaign's fuzz-campaign.tsv (of a tree fuzzed
# beside this one, say) into DIR's table, each replacing the row of its target, and rewrite the table.
# -a TSV: the same, for a parallel job of a target run (on the same commit, on its own copy of the
# corpus) beside the one whose row came before: its row is added to that row, executions, exec/s and
# new crashes summed, wall time, cov, ft and corpus the larger of the two, started the earlier.
# Exit 0 when every target run (or merged) reached RUNS with no new crash, 1 when one did not, 2 on
# bad usage.
set -u

die() { echo "fuzz-campaign: $*" >&2; exit 2; }
RUNS=1000000
MAX_TIME=86400
B=$(cd "$(dirname "$0")/.." && pwd)
OUT=$B/docs
MERGE=
while getopts r:t:o:m:a: opt; do
	case $opt in
	r) RUNS=$OPTARG ;;
	t) MAX_TIME=$OPTARG ;;
	o) OUT=$OPTARG ;;
	m) [ -r "$OPTARG" ] || die "-m $OPTARG: cannot read it"; MERGE="$MERGE m:$OPTARG" ;;
	a) [ -r "$OPTARG" ] || die "-a $OPTARG: cannot read it"; MERGE="$MERGE a:$OPTARG" ;;
	*) sed -n 's/^#   //p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $RUNS in '' | *[!0-9]* | 0) die "-r $RUNS: not a positive number of executions" ;; esac
case $MAX_TIME in '' | *[!0-9]* | 0) die "-t $MAX_TIME: not a positive number of seconds" ;; esac
[ -z "$MERGE" ] || [ $# -eq 0 ] || die "-m and -a merge other tables' rows: they take no targets"
[ -n "$MERGE" ] || [ -f "$B/Makefile" ] || die "$B is not a configured build tree (./configure && make)"
mkdir -p "$OUT" || die "-o $OUT: cannot create it"
targets=${*:-$(sed -n 's/^FUZZ_TARGETS = //p' "$B/Makefile.am")}
[ -z "$MERGE" ] || targets=
for t in $targets; do
	[ -f "$B/tests/fuzz/fuzz-$t.c" ] || die "no fuzz target '$t' (tests/fuzz/fuzz-$t.c)"
done
command -v jq >/dev/null 2>&1 || die "jq is not installed (apt-get install jq)"

# Each target's longest input (libFuzzer's -max_len, which also caps how far its corpus grows):
# what the format needs for the real files it is seeded with, not more.  Longer inputs only
# cost time per execution (and make the corpus megabytes) without reaching new code.
max_len() {
	case $1 in
	# One argument per line, up to 64 of them: a shell command line a person types.
	cli) echo 4096 ;;
	# A profile is a short YAML file (the bundled ones are 0.7 to 2.2 KB).
	profile) echo 8192 ;;
	# One patch with its Kvmbench-Patch header (the bundled ones are 7 to 8 KB).
	patch-header) echo 16384 ;;
	# A CPUID dump: the plain dumps of machines up to 8 cores are 6 to 14 KB; the bigger ones
	# come in whole as .xz (3 KB or less), whose decompression the target runs too.
	cpuid-dump) echo 32768 ;;
	# An hwloc XML export of a one- or two-socket machine (the real seeds: 17, 27 and 41 KB;
	# the 300 KB dual EPYC export is read by make check's replay instead).
	topology) echo 65536 ;;
	# features.json (23 KB) with the bundled patches and a tree's files as "==> PATH <==" sections.
	manifest) echo 65536 ;;
	# A result file of a short run (the seeds of fuzz.sh's runs and seeds/fleet/).
	result-json | fleet) echo 65536 ;;
	*) echo 65536 ;;
	esac
}

W=$B/tests/fuzz
L=$W/campaign
mkdir -p "$L" || die "cannot create $L"
tsv=$OUT/fuzz-campaign.tsv
commit=$(git -C "$B" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git -C "$B" diff --quiet HEAD -- . ':!docs/fuzz-campaign.*' 2>/dev/null || commit=$commit+
header='target\texecutions\texec_per_s\tcov\tft\tcorpus_files\tcorpus_bytes\tnew_crashes\twall_s\treached\tmax_len\tstarted\tcommit'
printf "$header\n" >"$tsv.tmp"
status=0
# The merged tables' rows (the last one given wins for a target), judged as a run's would be.
for m in $MERGE; do
	kind=${m%%:*}
	m=${m#*:}
	[ "$(head -n 1 "$m")" = "$(printf "$header")" ] || { rm -f "$tsv.tmp"; die "-$kind $m: not a fuzz-campaign.tsv of these columns"; }
	sed 1d "$m" >"$tsv.merge.$$"
	while IFS= read -r row; do
		t=${row%%"$(printf '\t')"*}
		targets="$targets $t"
		if [ "$kind" = a ]; then
			old=$(grep "^$t$(printf '\t')" "$tsv.tmp")
			[ -n "$old" ] || { rm -f "$tsv.tmp" "$tsv.merge.$$"; die "-a $m: no row of $t before it to add its executions to (-m first)"; }
			row=$(printf '%s\n%s\n' "$old" "$row" | awk -F'\t' -v OFS='\t' -v runs="$RUNS" '
				function num(v) { return v ~ /^[0-9]+$/ }
				NR == 1 { for (i = 1; i <= NF; i++) a[i] = $i; next }
				{
					if (a[13] != $13 || a[11] != $11) exit 3
					for (i = 2; i <= 9; i++) if (!num(a[i]) || !num($i)) exit 4
					a[2] += $2; a[3] += $3; a[8] += $8
					for (i = 4; i <= 9; i++) if (i != 8 && $i > a[i]) a[i] = $i
					if ($12 < a[12]) a[12] = $12
					a[10] = a[2] >= runs && a[8] == 0 ? "yes" : "no"
					out = a[1]; for (i = 2; i <= 13; i++) out = out OFS a[i]; print out
				}') || { rm -f "$tsv.tmp" "$tsv.merge.$$"; die "-a $m: its $t row is not of the same commit and max_len as the one before, or not all numbers"; }
		fi
		grep -v "^$t$(printf '\t')" "$tsv.tmp" >"$tsv.tmp2"
		mv "$tsv.tmp2" "$tsv.tmp"
		printf '%s\n' "$row" >>"$tsv.tmp"
	done <"$tsv.merge.$$"
	rm -f "$tsv.merge.$$"
done
if [ -n "$MERGE" ]; then
	# A merged row meets the bar when it reached RUNS with no new crash (columns 2 and 8).
	awk -F'\t' -v runs="$RUNS" 'NR > 1 && !($2 >= runs && $8 == "0") { bad = 1 } END { exit bad }' "$tsv.tmp" || status=1
	targets=$(echo $targets)
fi
for t in $targets; do
	[ -z "$MERGE" ] || break
	ml=$(max_len "$t")
	echo "fuzz-campaign: $t: up to $RUNS executions or $MAX_TIME s, inputs up to $ml bytes"
	started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	t0=$(date +%s)
	nice -n 10 make -C "$B" -s fuzz FUZZ_TARGETS="$t" FUZZ_RUNS="$RUNS" FUZZ_TIME="$MAX_TIME" \
		FUZZ_ARGS="-max_len=$ml" >"$L/$t.out" 2>&1
	rc=$?
	wall=$(($(date +%s) - t0))
	log=$W/fuzz-$t.log
	[ -f "$log" ] || { cat "$L/$t.out" >&2; die "$t: no libFuzzer log ($log)"; }
	cp "$log" "$L/$t.log"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	# The last status line ("#N DONE cov: C ft: F corp: ..."), or the last one with coverage.
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	files=$(find "$W/corpus/$t" -type f | wc -l)
	bytes=$(find "$W/corpus/$t" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	crashes=$(sed -n "s/^  $t  *[0-9?]* executions  *\([0-9]*\) new crasher.*/\1/p" "$L/$t.out")
	[ -n "$crashes" ] || crashes=$( [ "$rc" -eq 0 ] && echo 0 || echo "?")
	reached=no
	[ "${execs:-0}" -ge "$RUNS" ] && reached=yes
	[ "$reached" = yes ] && [ "$crashes" = 0 ] || status=1
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
		"${ft:-?}" "$files" "$bytes" "$crashes" "$wall" "$reached" "$ml" "$started" "$commit" >>"$tsv.tmp"
	echo "fuzz-campaign: $t: ${execs:-?} executions in $wall s (${rate:-?}/s), cov ${cov:-?} ft ${ft:-?}, $crashes new crash(es)"
done
# The rows of targets not run this time stay, when the old table has this one's columns.
if [ -f "$tsv" ] && [ "$(head -n 1 "$tsv")" = "$(head -n 1 "$tsv.tmp")" ]; then
	ran=" $(echo $targets) "
	sed 1d "$tsv" | while IFS= read -r row; do
		case $ran in *" ${row%%"$(printf '\t')"*} "*) ;; *) printf '%s\n' "$row" ;; esac
	done >>"$tsv.tmp"
fi
mv "$tsv.tmp" "$tsv"
cmd="tools/fuzz-campaign.sh -r $RUNS -t $MAX_TIME $targets"
[ -z "$MERGE" ] || cmd="tools/fuzz-campaign.sh -r $RUNS$(for m in $MERGE; do printf ' -%s %s' "${m%%:*}" "${m#*:}"; done)"
jq -R -s --arg cmd "$cmd" --arg host "$(uname -srm), $(nproc) CPUs" --argjson runs "$RUNS" '
	split("\n") | map(select(length > 0) | split("\t")) | .[0] as $h | .[1:] |
	map([$h, .] | transpose | map({(.[0]): (.[1] | tonumber? // .)}) | add) |
	{ schema: "kvmbench-fuzz-campaign", started: (map(.started) | min), command: $cmd, host: $host,
	  runs_per_target: $runs, targets: . }' \
	"$tsv" >"$OUT/fuzz-campaign.json" || die "cannot write $OUT/fuzz-campaign.json"
# What people wrote after the table (from a line "## Notes" on) stays.
md=$OUT/fuzz-campaign.md
notes=
[ -f "$md" ] && notes=$(sed -n '/^## Notes/,$p' "$md")
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-or-later -->"
	echo "# Fuzz campaign"
	echo
	echo "On $(uname -srm) ($(nproc) CPUs, shared), last with \`$cmd\`:"
	echo "each target alone, one libFuzzer job at nice 10, until $RUNS executions or its run's time cap (-t),"
	echo "inputs up to max_len bytes, libFuzzer with ASan and UBSan (\`make fuzz\`, tests/fuzz/README.md)."
	echo "Each row is a target's last run (when it started, on which commit; \"+\": with changes not"
	echo "committed yet).  The same table is in fuzz-campaign.tsv and fuzz-campaign.json; cov and ft"
	echo "are libFuzzer's last status line."
	echo
	echo "| target | executions | exec/s | cov | ft | corpus files | corpus bytes | new crashes | wall s | reached $RUNS | max_len | started | commit |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|"
	sed 1d "$tsv" | awk -F'\t' '{ printf "| %s |", $1; for (i = 2; i <= NF; i++) printf " %s |", $i; print "" }'
	[ -z "$notes" ] || printf '\n%s\n' "$notes"
} >"$md.tmp" && mv "$md.tmp" "$md" || die "cannot write $md"
echo "fuzz-campaign: table in $OUT/fuzz-campaign.md (.tsv, .json)"
exit $status
