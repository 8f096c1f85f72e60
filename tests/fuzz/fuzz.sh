#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh: 'make fuzz': build each fuzz target with clang, libFuzzer, ASan and UBSan, seed it from
# real data, run it for FUZZ_TIME seconds and keep what crashes in tests/fuzz/regressions/TARGET/.
# make passes the settings below; tests/fuzz/README.md says how to read the output.
set -euo pipefail

: "${KB_SRCDIR:?run through make fuzz}" "${KB_BUILDDIR:?run through make fuzz}" "${KVMBENCH:?}"
: "${KB_LIB_SOURCES:?}" "${KB_FUZZ_LIBS:?}"
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_TARGETS=${FUZZ_TARGETS:-result-json cpuid-dump arm64-dump topology manifest patch-header cli profile fleet}
S=$KB_SRCDIR
B=$KB_BUILDDIR
W=$B/tests/fuzz

die() { echo "make fuzz: $*" >&2; exit 2; }

case $FUZZ_TIME in '' | *[!0-9]*) die "FUZZ_TIME must be whole seconds, not '$FUZZ_TIME'" ;; esac
# FUZZ_RUNS (tools/fuzz-campaign.sh): stop a target after this many executions, or at FUZZ_TIME.
FUZZ_RUNS=${FUZZ_RUNS:-}
case $FUZZ_RUNS in *[!0-9]*) die "FUZZ_RUNS must be a whole number of executions, not '$FUZZ_RUNS'" ;; esac
# FUZZ_ARGS (tools/fuzz-campaign.sh): more libFuzzer flags, "-name=value" words (e.g. -max_len=4096).
FUZZ_ARGS=${FUZZ_ARGS:-}
for a in $FUZZ_ARGS; do
	case $a in -[a-z]*=*) ;; *) die "FUZZ_ARGS: '$a' is not a libFuzzer flag (-name=value)" ;; esac
done
command -v "$FUZZ_CC" >/dev/null 2>&1 ||
	die "$FUZZ_CC not found: the fuzz targets need clang and libFuzzer (apt-get install clang libclang-rt-14-dev)"
mkdir -p "$W/obj"
echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n; return 0; }' >"$W/probe.c"
"$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$W/probe.c" -o "$W/probe" 2>/dev/null ||
	die "$FUZZ_CC cannot link -fsanitize=fuzzer,address,undefined (apt-get install libclang-rt-14-dev)"
rm -f "$W/probe" "$W/probe.c"

# ---- build: the library sources and the targets, instrumented ----
cppflags=(-include "$B/config.h" -D_GNU_SOURCE -I"$S/src" -I"$S" -I"$S/include" -I"$B"
	-DKB_PKGDATADIR="\"${KB_PKGDATADIR:-/usr/local/share/kvmbench}\"")
# shellcheck disable=SC2206  # pkg-config flags: words on purpose
cflags=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
	-fno-sanitize-recover=all -Wno-gnu-variable-sized-type-not-at-end ${KB_FUZZ_CFLAGS:-})
# An object is rebuilt when its source, any header, config.h or the guest image is newer.
newest=$(ls -t "$B/config.h" "$B/guest/guest.bin" "$S"/src/*/*.h "$S"/bench/*.h "$S"/include/*.h "$S"/tests/fuzz/*.h | head -n 1)
compile() {	# compile SRC OBJ
	if [ ! -e "$2" ] || [ "$1" -nt "$2" ] || [ "$newest" -nt "$2" ]; then
		echo "  FUZZCC   ${1#"$S"/}"
		"$FUZZ_CC" "${cppflags[@]}" "${cflags[@]}" -c "$1" -o "$2"
	fi
}
objs=()
srcs=()
for src in $KB_LIB_SOURCES; do
	case $src in *.c | *.S) ;; *) continue ;; esac
	objs+=("$W/obj/$(echo "${src%.*}" | tr / -).o")
	srcs+=("$S/$src")
done
nlib=${#objs[@]}
for f in fuzz-util $(printf 'fuzz-%s ' $FUZZ_TARGETS); do
	objs+=("$W/obj/$f.o")
	srcs+=("$S/tests/fuzz/$f.c")
done
running=0
failed=0
for i in "${!srcs[@]}"; do
	compile "${srcs[i]}" "${objs[i]}" &
	running=$((running + 1))
	if [ "$running" -ge "$(nproc)" ]; then
		wait -n || failed=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=1
	running=$((running - 1))
done
[ "$failed" -eq 0 ] || die "compiling with $FUZZ_CC failed (see above)"
rm -f "$W/libkvmbench-fuzz.a"
ar rcs "$W/libkvmbench-fuzz.a" "${objs[@]:0:nlib}"
for t in $FUZZ_TARGETS; do
	[ -f "$S/tests/fuzz/fuzz-$t.c" ] || die "no fuzz target '$t' (tests/fuzz/fuzz-$t.c)"
	echo "  FUZZLD   tests/fuzz/fuzz-$t"
	# shellcheck disable=SC2086  # pkg-config flags: words on purpose
	"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$W/fuzz-$t" "$W/obj/fuzz-$t.o" "$W/obj/fuzz-util.o" \
		"$W/libkvmbench-fuzz.a" $KB_FUZZ_LIBS
done

# ---- seeds: real data, regenerated every time (the working corpora in $W/corpus grow) ----
seed=$W/seed
rm -rf "$seed"
mkdir -p "$seed"/{result-json,cpuid-dump,arm64-dump,topology,manifest,patch-header,cli,profile,fleet}
cp "$S"/kernel/patches/*.patch "$seed/patch-header/"
# The bundled profiles (seeds/profile/ has them too, with every key and some damage).
cp "$S"/profiles/*.yaml "$seed/profile/"
data=${KB_TESTDATA:-$S/../shared/testdata}
if [ -d "$data/cpuid" ]; then
	find "$data/cpuid" -type f ! -name SOURCES.tsv | while read -r f; do
		n=$(echo "${f#"$data"/cpuid/}" | tr / _)
		cp "$f" "$seed/cpuid-dump/$n"
		case $f in *.xz) xz -dc "$f" >"$seed/cpuid-dump/${n%.xz}" 2>/dev/null || true ;; esac
	done
fi
[ -d "$data/arm64" ] &&
	find "$data/arm64" -type f -exec cp {} "$seed/arm64-dump/" \;
[ -d "$data/topology" ] &&
	find "$data/topology" -type f ! -name SOURCES.tsv -exec cp {} "$seed/topology/" \;
{
	cat "$S/kernel/features.json"
	for p in "$S"/kernel/patches/*.patch; do
		printf '==> patches/%s <==\n' "${p##*/}"
		cat "$p"
	done
	printf '==> tree/Makefile <==\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\nNAME = Curry Ramen\n'
} >"$seed/manifest/bundle"
# The same with a tree that holds what the rules look for, and a record of applied patches.
if command -v jq >/dev/null 2>&1; then
	{
		cat "$seed/manifest/bundle"
		jq -r '[.features[].source_tree | (.applicable_if, .present_if, .bundled_if) | .[]? | select(.fixed)] |
			group_by(.file)[] | "==> tree/\(.[0].file) <==", (.[].fixed)' "$S/kernel/features.json"
		printf '==> tree/.kvmbench-patches.json <==\n'
		jq -c '{schema: "kvmbench-applied-patches", applied: [.features[] | select(.patch) | {feature: .id,
			patch: .patch, files: ["arch/x86/kvm/pmu.c"],
			diff: "diff --git a/arch/x86/kvm/pmu.c b/arch/x86/kvm/pmu.c\n"}]}' "$S/kernel/features.json"
	} >"$seed/manifest/bundle-tree"
fi
# A real result: a short run of the cheap tests, one of which fails on purpose (#UD), so every
# status and the error path's fields are in it.
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	"$KVMBENCH" run selftest/nop selftest/fault efer-msr/rd_tsc_adjust_msr cpuid --runs 3 --sample-time 10ms \
		--json "$seed/result-json/run.json" -q >/dev/null 2>&1 || true
	"$KVMBENCH" run efer-msr/rd_user_msr --vcpus 1,2 --runs 2 --sample-time 10ms \
		--json "$seed/result-json/sweep.json" -q >/dev/null 2>&1 || true
fi
"$KVMBENCH" run guest/nop --runs 2 --sample-time 10ms --json "$seed/result-json/guest.json" -q >/dev/null 2>&1 || true
# The fleet target reads one host's result: the same real results.
cp "$seed"/result-json/*.json "$seed/fleet/" 2>/dev/null || true
# Dictionaries: every option name, and every key of the result.
{
	for c in run list info plan compare report patches; do
		echo "\"$c\""
		"$KVMBENCH" "$c" --help 2>/dev/null | grep -o -- '--[a-z0-9-]*' | sort -u | sed 's/.*/"&"/'
	done
	for v in 100ms 2s 1,2,4 0-3,8 64M 1G nan inf -1 0x10 1e308 welch mann-whitney json markdown; do
		echo "\"$v\""
	done
} >"$W/cli.dict"
if command -v jq >/dev/null 2>&1 && ls "$seed"/result-json/*.json >/dev/null 2>&1; then
	cat "$seed"/result-json/*.json | jq -r '[paths | .[-1] | strings] | unique[]' 2>/dev/null |
		sed 's/.*/"\\"&\\""/' | sort -u >"$W/result-json.dict" || true
fi
# The profile format's keys (the parser's "known:" lists), selectors and YAML's own syntax.
{
	grep -o '(known: [a-z, -]*)' "$S/src/results/profile.c" | sed 's/(known: //; s/)//' | tr ',' '\n' | tr -d ' ' |
		sort -u | sed 's/.*/"&:"/'
	for v in default primary any '5%' selftest/nop '---' '&a' '*a' '!!map' '{' '}' '[' ']' '- ' '"' "'" '|' '>'; do
		printf '"%s"\n' "$(printf '%s' "$v" | sed 's/\\/\\\\/g; s/"/\\"/g')"
	done
} >"$W/profile.dict"

# ---- run ----
# The targets that read files write each input to a scratch directory under TMPDIR and remove it
# after: on a disk file system (ext4) that inode churn is most of an execution (perf: ext4's
# find_get_block and recently_deleted), so the scratch goes to /dev/shm (tmpfs) unless TMPDIR is set.
scratch=${TMPDIR:-}
if [ -z "$scratch" ]; then
	scratch=/tmp
	[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
fi
summary=()
new_crashes=0
for t in $FUZZ_TARGETS; do
	corpus=$W/corpus/$t
	keep=$S/tests/fuzz/regressions/$t
	mkdir -p "$corpus" "$keep" "$seed/$t"
	# Only what failed counts: libFuzzer's crash-, leak-, timeout- and oom- files.
	before=$(find "$keep" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	extra=()
	[ -s "$W/$t.dict" ] && extra=(-dict="$W/$t.dict")
	[ -z "$FUZZ_RUNS" ] || extra+=(-runs="$FUZZ_RUNS")
	# shellcheck disable=SC2206  # libFuzzer flags: words on purpose
	extra+=($FUZZ_ARGS)
	seeds=("$seed/$t")
	[ -d "$S/tests/fuzz/seeds/$t" ] && seeds+=("$S/tests/fuzz/seeds/$t")
	echo "make fuzz: $t for $FUZZ_TIME s${FUZZ_RUNS:+ or $FUZZ_RUNS executions} (log: $W/fuzz-$t.log)"
	status=0
	# Stdout and stderr of the target are closed (usage errors, help texts); libFuzzer keeps its own.
	(cd "$W" && TMPDIR=$scratch "$W/fuzz-$t" -max_total_time="$FUZZ_TIME" -print_final_stats=1 \
		-timeout=25 -report_slow_units=1000000 -rss_limit_mb=2048 -close_fd_mask=3 -artifact_prefix="$keep/" "${extra[@]}" \
		"$corpus" "${seeds[@]}" "$keep") >"$W/fuzz-$t.log" 2>&1 || status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/fuzz-$t.log" | tail -n 1)
	after=$(find "$keep" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	found=$((after - before))
	new_crashes=$((new_crashes + found))
	summary+=("$(printf '%-12s %12s executions  %3d new crasher(s)  %s' "$t" "${execs:-?}" "$found" \
		"$([ "$status" -eq 0 ] || echo "(libFuzzer exit $status; see the log)")")")
	if [ "$found" -gt 0 ]; then
		grep -E 'ERROR: |runtime error:|SUMMARY:|Test unit written' "$W/fuzz-$t.log" | head -n 8 | sed 's/^/    /'
	fi
done
echo
echo "make fuzz: $FUZZ_TIME s per target"
printf '  %s\n' "${summary[@]}"
if [ "$new_crashes" -gt 0 ]; then
	echo "make fuzz: $new_crashes new crasher(s) kept in tests/fuzz/regressions/; fix them, then 'make check' replays them"
	exit 1
fi
