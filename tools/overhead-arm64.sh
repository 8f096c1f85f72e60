#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# overhead-arm64.sh: kvmbench's hvc per iteration (micro-bench's HVC loop) against the smallest VMM
# running the same loop (tools/arch/arm64/minivmm.c), the arm64 side of tools/overhead.sh.
# Usage: tools/overhead-arm64.sh [KVMBENCH [MINIVMM [ROUNDS]]]   on an arm64 KVM host, from an arm64 build:
#            both measured in turn ROUNDS times (default 5), so that drift hits both alike
#        tools/overhead-arm64.sh --from DIR   what make check-vm-arm64 brought back (DIR/hvc.json and
#            DIR/minivmm-hvc*.out, measured in one boot of the emulated host)
# Prints both means in ns per iteration and their ratio; exit 0 when it could compare, 2 otherwise.
# Needs jq.  Under QEMU's TCG (the testbed) the speeds are emulated: the ratio there tests the tool, not
# kvmbench's overhead on hardware.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "overhead-arm64.sh: $*" >&2; exit 2; }
command -v jq >/dev/null 2>&1 || die "jq not found (apt-get install jq)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n; else exit 1 }'; }
# kb_samples FILE: the ns per iteration of each sample of FILE's hvc test, one a line.
kb_samples() {
	jq -r '.tests[] | select((.id | endswith("/hvc")) and .status == "ok") | .metrics[] | select(.name == "ns") | .samples[]' "$1"
}

if [ "${1:-}" = --from ]; then
	dir=${2:?--from wants the results directory of the testbed}
	[ -s "$dir/hvc.json" ] || die "$dir/hvc.json: no kvmbench hvc result there (this kvmbench has no arm64 hvc test?)"
	kb_samples "$dir/hvc.json" >"$tmp/kb"
	cat "$dir"/minivmm-hvc*.out 2>/dev/null | awk '/^[0-9]/ { print $1 }' >"$tmp/mini"
	iters=$(jq -r '.tests[] | select(.id | endswith("/hvc")) | .iterations_per_sample' "$dir/hvc.json")
	rounds=1
else
	kvmbench=${1:-$here/../kvmbench}
	minivmm=${2:-$here/arch/arm64/minivmm}
	rounds=${3:-5}
	[ -x "$kvmbench" ] || die "no kvmbench at $kvmbench"
	[ -x "$minivmm" ] || die "no minimal VMM at $minivmm (built by an arm64 build: tools/arch/arm64/minivmm)"
	test=$("$kvmbench" list 2>/dev/null | awk '$1 ~ /^[a-z0-9-]+\/hvc$/ { print $1; exit }')
	[ -n "$test" ] || die "this kvmbench lists no hvc test"
	: >"$tmp/kb"
	: >"$tmp/mini"
	for ((r = 0; r < rounds; r++)); do
		"$kvmbench" run "$test" --runs 10 --sample-time 100ms --json "$tmp/r.json" -q >/dev/null 2>&1 || true
		kb_samples "$tmp/r.json" >>"$tmp/kb"
		iters=$(jq -r '.tests[0].iterations_per_sample' "$tmp/r.json")
		"$minivmm" hvc "$iters" 10 | awk '/^[0-9]/ { print $1 }' >>"$tmp/mini"
	done
fi
kb=$(mean <"$tmp/kb") || die "kvmbench's hvc test measured nothing"
mini=$(mean <"$tmp/mini") || die "the minimal VMM measured nothing"
ratio=$(awk -v a="$kb" -v b="$mini" 'BEGIN { printf "%.4f", a / b }')
printf 'hvc  kvmbench %s ns/iter (%s samples)   minimal VMM %s ns/iter (%s runs)   ratio %s   (%s round(s); kvmbench %s iterations a sample)\n' \
	"$kb" "$(wc -l <"$tmp/kb")" "$mini" "$(wc -l <"$tmp/mini")" "$ratio" "$rounds" "${iters:-?}"
# Load on a shared machine only ever adds time: the fastest of each is the steadier comparison there.
kb_min=$(sort -g "$tmp/kb" | head -n 1)
mini_min=$(sort -g "$tmp/mini" | head -n 1)
printf 'hvc  fastest: kvmbench %.1f ns/iter   minimal VMM %.1f ns/iter   ratio %s\n' "$kb_min" "$mini_min" \
	"$(awk -v a="$kb_min" -v b="$mini_min" 'BEGIN { printf "%.4f", a / b }')"
