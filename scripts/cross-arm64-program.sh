#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cross-arm64-program.sh: the cross-built arm64 kvmbench, run under qemu-aarch64-static: --version, list
# (every suite the sources declare x86 only hidden with the reason, the others not), info (a real arm64
# dump identified, the backend "kvm (arm64)", an x86 CPUID dump refused), run of an x86 suite (every test skipped with the reason,
# exit 0, valid JSON), and compare and report of that result; and the minimal arm64 VMM's guest code linked whole.  TAP output; scripts/cross-arm64.sh runs it.
# Usage: scripts/cross-arm64-program.sh SRCDIR BUILDDIR
set -u
[ $# -eq 2 ] || { echo "usage: $0 SRCDIR BUILDDIR" >&2; exit 2; }
src=$1 build=$2
kb() { qemu-aarch64-static "$build/kvmbench" "$@"; }
out=$build/program
rm -rf "$out" && mkdir -p "$out" || exit 1
n=0 failed=0
check() {   # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	desc=$1
	shift
	n=$((n + 1))
	if "$@" >"$out/check-$n.log" 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		sed 's/^/# /' "$out/check-$n.log"
		failed=$((failed + 1))
	fi
}
file "$build/kvmbench" | grep -q 'ARM aarch64' || { echo "Bail out! $build/kvmbench is not an aarch64 program"; exit 1; }

check "--version names kvmbench" sh -c "qemu-aarch64-static '$build/kvmbench' --version | grep -q '^kvmbench [0-9]'"

# The suites and the architectures they declare, from the sources (bench/*.c: .name and .arches of each
# struct kb_suite): "NAME arm64" for a suite that runs on arm64, "NAME x86only" otherwise.
awk '/^const struct kb_suite kb_suite_/ { in_s = 1; name = ""; arm = 0; next }
     in_s && /^[ \t]*\.name = "/ { if (name == "") { name = $0; sub(/.*\.name = "/, "", name); sub(/".*/, "", name) } }
     in_s && /^[ \t]*\.arches = / { arm = /KB_ARCH_ARM64/ }
     in_s && /^};/ { print name, (arm ? "arm64" : "x86only"); in_s = 0 }' "$src"/bench/*.c | sort >"$out/declared"
kb list --json >"$out/list.json" 2>"$out/list.err"
check "list --json is valid JSON" jq -e 'type == "array"' "$out/list.json"
jq -r '.[] | .name + " " + (if .unavailable == null then "arm64"
	elif .hidden and (.unavailable | startswith("x86 only")) then "x86only" else "WRONG:" + (.unavailable | tostring) end)' \
	"$out/list.json" | sort >"$out/listed"
check "list shows every suite, the x86-only ones ($(grep -c x86only "$out/declared")) hidden with the reason 'x86 only', the rest runnable" \
	diff "$out/declared" "$out/listed"
check "list --json names each suite's architectures, arm64 exactly for the runnable ones" \
	jq -e 'all(.[]; (.arches | length) > 0 and ((.arches | index("arm64")) != null) == (.unavailable == null))' "$out/list.json"
check "list (text) says why each x86-only suite is hidden" \
	sh -c "qemu-aarch64-static '$build/kvmbench' list >'$out/list.txt' && [ \$(grep -c '(hidden: x86 only' '$out/list.txt') -eq $(grep -c x86only "$out/declared") ]"

dump=$src/tests/testdata/arm64/aws-graviton3-c7g.2xlarge.cpuinfo
kb info --json --arm64-cpu-file "$dump" >"$out/info-dump.json" 2>"$out/info-dump.err"
check "info --arm64-cpu-file identifies Graviton3's Neoverse V1 and names the backend kvm (arm64)" \
	jq -e '.cpu.arch == "arm64" and .cpu.microarchitecture == "neoverse-v1" and .this_host.kvm_backend == "kvm (arm64)"' \
	"$out/info-dump.json"
kb info --json >"$out/info.json" 2>"$out/info.err"
check "info --json of this (emulated) host: valid, backend kvm (arm64), the CPU as arm64" \
	jq -e '.kvm.backend == "kvm (arm64)" and .cpu.arch == "arm64"' "$out/info.json"

cpuid_dump=$(find "$src/tests/testdata/cpuid" -type f ! -name SOURCES | sort | head -n 1)
kb info --cpuid-file "$cpuid_dump" >"$out/info-cpuid.out" 2>&1
echo $? >"$out/info-cpuid.rc"
check "info --cpuid-file (an x86 dump) is refused with exit 2: libcpuid is x86's" \
	sh -c "grep -qx 2 '$out/info-cpuid.rc' && grep -q 'needs libcpuid' '$out/info-cpuid.out'"

kb run --kvm "$out/no-such-kvm" micro-bench >"$out/nokvm.out" 2>&1
echo $? >"$out/nokvm.rc"
check "run with no KVM device: exit 2, and arm64's advice (EL2), not x86's modules" \
	sh -c "grep -qx 2 '$out/nokvm.rc' && grep -q 'no such device.*booted at EL2' '$out/nokvm.out' && ! grep -q kvm_intel '$out/nokvm.out'"
kb run cpuid -o "$out/run.json" >"$out/run.out" 2>&1
echo $? >"$out/run.rc"
check "run cpuid exits 0 (every test skipped)" grep -qx 0 "$out/run.rc"
check "run cpuid: every test skipped with the reason 'x86 only', in valid JSON" \
	jq -e '(.tests | length) > 0 and all(.tests[]; .status == "skipped" and (.reason | startswith("x86 only")))' \
	"$out/run.json"
kb compare "$out/run.json" "$out/run.json" >"$out/compare.out" 2>&1
echo $? >"$out/compare.rc"
check "compare of the result: each test not compared as skipped, exit 2 (nothing comparable)" \
	sh -c "grep -qx 2 '$out/compare.rc' && grep -q 'not compared (BASE is skipped: x86 only' '$out/compare.out'"
check "report -f html of the result" \
	sh -c "qemu-aarch64-static '$build/kvmbench' report -f html -o '$out/report.html' '$out/run.json' && grep -q '<html' '$out/report.html' && grep -q 'x86 only' '$out/report.html'"
# The minimal arm64 VMM (tools/arch/arm64/minivmm) checks its guest code is linked whole before it asks
# for KVM, which qemu-user does not pass on: it must get as far as KVM (once its guest code was 0 bytes).
qemu-aarch64-static "$build/tools/arch/arm64/minivmm" hvc 1 1 1 >"$out/minivmm.out" 2>&1
check "the minimal arm64 VMM's guest code is linked whole (it gets as far as asking for KVM)" \
	sh -c "! grep -q 'mislinked' '$out/minivmm.out' && grep -Eq 'minivmm: (/dev/kvm|KVM_)' '$out/minivmm.out'"
echo "1..$n"
[ "$failed" -eq 0 ] || { echo "cross-arm64-program.sh: $failed of $n checks of the arm64 kvmbench failed" >&2; exit 1; }
