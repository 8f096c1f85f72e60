#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# overhead.sh: kvmbench's per-exit figure against the smallest possible VMM running the same loop,
# side by side in one run, plus kvmbench's VM setup and teardown time.
# Usage: tools/overhead.sh [KVMBENCH] [ROUNDS]   (from a built tree; needs jq, gcc)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kvmbench=${1:-$here/../kvmbench}
rounds=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/minivmm" "$here/minivmm.c"

mean() { awk '{ s += $1; n++ } END { printf "%.1f", s / n }'; }

# kvmbench's test for each loop: CPUID where it exits to KVM, and RDMSR of IA32_TSC_ADJUST.
for loop in cpuid rdmsr; do
	case $loop in
	cpuid) test=cpuid/cpuid ;;
	rdmsr) test=efer-msr/rd_tsc_adjust_msr ;;
	esac
	: >"$tmp/kb.$loop"
	: >"$tmp/mini.$loop"
	for ((r = 0; r < rounds; r++)); do
		# Alternate the two so drift on the host hits both alike.
		"$kvmbench" run "$test" --runs 10 --sample-time 100ms --json "$tmp/r.json" -q >/dev/null 2>&1 || true
		jq -r '.tests[0] | .metrics[] | select(.name == "ns") | .samples[]' "$tmp/r.json" >>"$tmp/kb.$loop"
		iters=$(jq -r '.tests[0].iterations_per_sample' "$tmp/r.json")
		status=$(jq -r '.tests[0].status' "$tmp/r.json")
		"$tmp/minivmm" "$loop" "$iters" 10 >>"$tmp/mini.$loop"
		jq -r '.tests[0].extra | "\(.vm_setup_ns) \(.vm_teardown_ns)"' "$tmp/r.json" >>"$tmp/setup"
	done
	kb=$(mean <"$tmp/kb.$loop")
	mini=$(mean <"$tmp/mini.$loop")
	ratio=$(awk -v a="$kb" -v b="$mini" 'BEGIN { printf "%.4f", a / b }')
	printf '%-6s kvmbench %10s ns/iter   minimal VMM %10s ns/iter   ratio %s   (%s x 10 samples of %s iterations; kvmbench status: %s)\n' \
		"$loop" "$kb" "$mini" "$ratio" "$rounds" "$iters" "$status"
done
awk '{ s += $1; t += $2; n++ } END { printf "VM setup (create VM, memslot, page tables, image, vCPU):  %.2f ms mean over %d\nVM teardown: %.2f ms mean\n", s / n / 1e6, n, t / n / 1e6 }' "$tmp/setup"
