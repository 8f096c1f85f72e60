#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# testbed-kernels.sh: cross-kernel A/B, stock Debian 6.1 against stock Debian 6.12 on the real kvm_amd in the testbed, measured with kvmbench (TAP; make check-kernels).
#
# Boots tests/vm's testbed (EPYC-Milan, 2 CPUs, 64 huge pages of 2 MiB) on each kernel with its own
# stock kvm/kvm_amd modules and runs the memory measurements of testbed-ab.sh (testbed-boot.sh's
# command): execute-perf/hugetlb-2m and /anon with kvm.nx_huge_pages=force, dirty-log/get on
# hugetlb-2m with kvm.eager_page_split=N, and 'kvmbench patches verify' of the running kernel.
# 'kvmbench compare' prints 6.1 against 6.12; the assertions use only what emulation leaves exact:
# the per-phase KVM statistics (page faults, fast page faults, remote TLB flushes, 2 MiB mappings)
# and the kvm_mmu_split_huge_page tracepoint.  6.12 has TDP MMU split-on-fault upstream (v6.2), so
# its execute phase must fault once per huge page, as the patched 6.1 side of testbed-ab.sh does.
#
#   KVMBENCH=FILE       the kvmbench run in the guest and on the host (default: ./kvmbench)
#   KB_KERNELS_A=DIR    the 6.1 side already measured with the same command (testbed-ab.sh's stock
#                       boot, which 'make check-patches' keeps): reused instead of a second 6.1 boot
#   KB_KERNELS_B=DIR    the same for the 6.12 side (e.g. to check kept results again without booting)
#   KB_KERNELS_RESULTS=DIR  keep the results (6.1/, 6.12/, compare-*.txt)
#   KB_AB_REQUIRE=1     a missing prerequisite fails instead of skipping (.ci/run sets it)
#   KB_KEEP=1           keep the work directory
#   TESTBED_RETRY=0     no second boot when the emulated kernel wedged (tests/vm/README.md)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${KB_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=../vm/testbed-lib.sh
. "$top/tests/vm/testbed-lib.sh"
# shellcheck source=testbed-boot.sh
. "$top/tests/kernel/testbed-boot.sh"
kvmbench=${KVMBENCH:-$PWD/kvmbench}
n=0
failed=0


# ---- prerequisites -------------------------------------------------------------------------
k61=$(tb_default_kernel 6.1)
k612=$(tb_default_kernel 6.12)
[ -n "$k61" ] || skip_all "no /boot/vmlinuz-6.1.*-amd64 (apt-get install linux-image-amd64)"
[ -n "$k612" ] || skip_all "no /boot/vmlinuz-6.12.*-amd64 (apt-get install linux-image-6.12-amd64)"
need qemu-system-x86_64 qemu-system-x86
need busybox busybox-static
need cpio cpio
need modinfo kmod
need xz xz-utils
need jq jq
[ -x "$kvmbench" ] || skip_all "no kvmbench binary at $kvmbench (build it, or set KVMBENCH)"
if ldd "$kvmbench" 2>/dev/null | grep -q 'libasan\|libubsan'; then skip_all "$kvmbench is a sanitizer build"; fi

work=$(mktemp -d /var/tmp/kb-testbed-kernels.XXXXXX) || exit 1
bootpid=""
cleanup() {
	# Only the boot this script started, by its id (run-vm.sh then stops its QEMU).
	[ -z "$bootpid" ] || kill -TERM "$bootpid" 2>/dev/null
	[ "${KB_KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
t0=$(date +%s)
echo "# kernels $(basename "$k61") and $(basename "$k612"), kvmbench $kvmbench, work directory $work"

# ---- boots ----------------------------------------------------------------------------------------
runs=5
tbk_write_cmd "$work/cmd.sh" "$runs" 0
limit=360
guest_limit=240
silence=45
retries=""
A=$work/6.1
B=$work/6.12
reuse_or_boot() {	# reuse_or_boot SIDE KERNEL DIR: DIR (results of an earlier boot) when given, else boot KERNEL
	local side=$1 k=$2 dir=$3 rc=0 s
	if [ -n "$dir" ]; then
		[ -s "$dir/execute.json" ] && [ -s "$dir/dirty.json" ] && cp -r "$dir" "$work/$side" &&
			tb_release_in_series "$(jq -r .host.kernel_release "$work/$side/execute.json")" "$side"
		ok $? "$side: results of an earlier boot reused ($dir, kernel $(jq -r .host.kernel_release "$work/$side/execute.json" 2>/dev/null))"
		return
	fi
	s=$(date +%s)
	boot "$side" --kernel "$k" || rc=$?
	grep -a '^run-vm.sh:' "$work/boot-$side.log" | grep -v '^run-vm.sh: booting' | diag
	[ "$rc" -eq 0 ]
	ok $? "$side: the testbed boots $(basename "$k"), loads its kvm_amd and runs kvmbench ($(($(date +%s) - s)) s; run-vm.sh exit $rc)" \
		"$work/$side/_testbed/command.log"
}
reuse_or_boot 6.1 "$k61" "${KB_KERNELS_A:-}"
reuse_or_boot 6.12 "$k612" "${KB_KERNELS_B:-}"
t_boot=$(date +%s)

# ---- what came back -------------------------------------------------------------------------------
for side in 6.1 6.12; do
	o=$work/$side
	bad=""
	for b in execute dirty; do
		[ -s "$o/$b.json" ] || { bad="$bad $b.json missing;"; continue; }
		[ "$(cat "$o/$b.rc" 2>/dev/null)" = 0 ] || bad="$bad kvmbench run ($b) exited $(cat "$o/$b.rc" 2>/dev/null);"
		bad="$bad$(jq -r '.tests[] | select(.status != "ok") | " \(.suite)/\(.test): \(.status) \(.reason // "");"' "$o/$b.json")"
	done
	[ -z "$bad" ]
	ok $? "$side: every kvmbench test ran and passed its checks${bad:+:$bad}"
	rel=$(jq -r .host.kernel_release "$o/execute.json" 2>/dev/null)
	p1=$(jq -r '.host.virtualization.kvm_params | "nx_huge_pages=\(.nx_huge_pages) tdp_mmu=\(.tdp_mmu) npt=\(.npt)"' "$o/execute.json" 2>/dev/null)
	p2=$(jq -r '.host.virtualization.kvm_params.eager_page_split' "$o/dirty.json" 2>/dev/null)
	tb_release_in_series "$rel" "$side" && [ "$p1" = "nx_huge_pages=Y tdp_mmu=Y npt=Y" ] && [ "$p2" = N ]
	ok $? "$side: kvmbench recorded kernel $rel, execute-perf with $p1, dirty-log with eager_page_split=$p2"
	v=$(jq -r '[.features[] | select(.id == "vpmu-emulated-event-fastpath" or .id == "tdp-mmu-split-huge-page-on-fault") |
		"\(.id)=\(.verdict)"] | join(" ")' "$o/verify.json" 2>/dev/null)
	if [ "$side" = 6.1 ]; then want="vpmu-emulated-event-fastpath=absent tdp-mmu-split-huge-page-on-fault=absent"
	else want="vpmu-emulated-event-fastpath=present-upstream tdp-mmu-split-huge-page-on-fault=present-upstream"; fi
	[ "$v" = "$want" ]
	ok $? "$side: kvmbench patches verify of the running kernel: ${v:-no verdict}" "$o/verify.err"
	# The REQ_EVENT series' fix matters on VMX only: on this AMD guest it is not-applicable, so no warning.
	w=$(jq -r '"\(.features[] | select(.id == "kvm-cr8-intercept-on-ppr-update") | .verdict) \(.warnings | length)"' "$o/verify.json" 2>/dev/null)
	[ "$w" = "not-applicable 0" ]
	ok $? "$side: the VMX-only fix bb365a506b1e is not-applicable on kvm_amd and warns of nothing (verdict, warnings: ${w:-none})"
	# A kernel WARN()/BUG() or oops; not boot notices such as 6.12's "Speculative Return Stack
	# Overflow: WARNING: See ..." (the emulated CPU has no SRSO mitigation to report).
	grep -E "WARNING: CPU:|BUG:|Oops|Call Trace" "$o/dmesg-all.txt" >"$work/warn-$side" 2>/dev/null
	[ -f "$o/dmesg-all.txt" ] && [ ! -s "$work/warn-$side" ]
	ok $? "$side: no kernel WARNING/BUG/Oops in the guest kernel log" "$work/warn-$side"
done

finish() {	# finish: report the time, keep the results if asked, print the plan and exit
	echo "# time: $((t_boot - t0)) s boots${retries:+ (booted again after a wedged emulator:$retries)}, $(($(date +%s) - t0)) s in all"
	if [ -n "${KB_KERNELS_RESULTS:-}" ]; then
		mkdir -p "$KB_KERNELS_RESULTS" && (cd "$work" && rm -rf "${KB_KERNELS_RESULTS:?}"/6.1* &&
			cp -r 6.1 6.12 ./*.wedged boot-*.log compare-* "$KB_KERNELS_RESULTS/" 2>/dev/null)
		echo "# results kept in $KB_KERNELS_RESULTS"
	fi
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit
}
if [ "$failed" -ne 0 ]; then
	echo "# the kvmbench results are incomplete: no comparison"
	finish
fi

# Emulated times differ between boots by tens of percent: printed, not asserted.
for b in execute dirty; do
	"$kvmbench" compare "$A/$b.json" "$B/$b.json" >"$work/compare-$b.txt" 2>&1
	echo "# kvmbench compare 6.1/$b.json 6.12/$b.json (exit $?; emulated times, not asserted)"
	diag <"$work/compare-$b.txt"
done

mmu_counts "$A" "$B" 6.1 6.12

finish
