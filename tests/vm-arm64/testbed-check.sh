#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# testbed-check.sh (arm64): host-side check of what came back from the emulated arm64 host.
# Usage: testbed-check.sh OUTDIR   (exit 0 when everything holds; prints what did not, then a summary)
# What it holds, whatever suites this kvmbench has on arm64 (today's and those still to come):
# - the emulated host's KVM: in VHE mode with a vGICv3 (its dmesg; kvmbench info, where it can tell,
#   must agree), kvmbench's backend "kvm (arm64)", and this machine seen as a VM (QEMU's virt machine);
# - the minimal VMM ran its HVC loop, one HVC exit per iteration by KVM's hvc_exit_stat;
# - list, a default run and the guest-side suite: every test ok or skipped with a reason, every check
#   of an ok test that can invalidate it (fatal) and every exit cross-check passed;
# - the guest-side suite on arm64 (in the default run, this machine being a VM, and named): its floor
#   and hackbench measured, seeing the hypervisor underneath; CPUID and RDTSCP skipped as x86's;
# - the memory suites, where this kvmbench has them on arm64: execute-perf on 4 KiB pages, THP and
#   hugetlb-2m pages (command.sh reserves them) measured, with populate's and execute's exits one for each
#   stage-2 mapping as KVM's "exits" counts them; dirty-log's get and clear measured with no page lost or
#   invented, and its ring skipped for the capability Linux 6.1's arm64 KVM lacks;
# - the planted defects (build-planted.sh) caught: the execute loop without its call by execute_exits;
# - patches verify's verdicts on the running arm64 kernel, as its source has the features;
# - info tells the emulated host's GIC (a GICv3 with an ITS, from the device tree);
# - compare and report --html of the arm64 result worked inside the emulated host.
out=$1
fail=0
bad() { echo "arm64 testbed: $*"; fail=1; }
[ -d "$out" ] || { echo "arm64 testbed: no results directory '$out'"; exit 1; }
dmesg=$out/_testbed/dmesg.txt
info=$out/info-json.out

rc() { cat "$out/$1.rc" 2>/dev/null || echo missing; }
for s in minivmm-hvc version info info-json list list-json interrupts dt-compatible patches-verify run guest compare report; do
	[ "$(rc $s)" = 0 ] || bad "step $s exited $(rc $s) (see $s.err)"
done

# --- the emulated host's KVM ---------------------------------------------------------------------
[ -s "$dmesg" ] || bad "no dmesg came back"
grep -q 'kvm \[[0-9]*\]: VHE mode initialized successfully' "$dmesg" 2>/dev/null ||
	bad "KVM did not come up in VHE mode (dmesg: $(grep -o 'kvm \[[0-9]*\]: .*mode initialized.*' "$dmesg" 2>/dev/null | head -n 1))"
grep -Eq 'kvm \[[0-9]*\]: (Protected )?(nVHE|Hyp) mode initialized' "$dmesg" 2>/dev/null &&
	bad "KVM says it runs in nVHE (hyp) mode: $(grep -Eo 'kvm \[[0-9]*\]: [A-Za-z ]*mode initialized' "$dmesg" | head -n 1)"
grep -q 'kvm \[[0-9]*\]: GIC system register CPU interface enabled' "$dmesg" 2>/dev/null ||
	bad "KVM's vGIC has no GICv3 system-register CPU interface (no 'GIC system register CPU interface enabled')"
grep -q '^\[ *[0-9.]*\] GICv3: ' "$dmesg" 2>/dev/null || bad "the emulated host's GIC is not a GICv3"
if [ -s "$info" ] && jq -e . "$info" >/dev/null 2>&1; then
	[ "$(jq -r .kvm.backend "$info")" = "kvm (arm64)" ] || bad "backend is '$(jq -r .kvm.backend "$info")', not 'kvm (arm64)'"
	[ "$(jq -r .cpu.arch "$info")" = arm64 ] || bad "info's CPU is '$(jq -r .cpu.arch "$info")', not arm64"
	mode=$(jq -r '.virtualization.kvm_mode // "unknown"' "$info")
	case $mode in vhe | unknown) ;; *) bad "info says KVM runs in mode '$mode', not vhe" ;; esac
	[ "$(jq -r '.virtualization.vhe // "unknown"' "$info")" != false ] || bad "info says the CPU has no VHE"
	case $(jq -r '.virtualization.gic // "unknown"' "$info") in
	unknown | GICv3*) ;; *) bad "info says the GIC CPU interface is '$(jq -r .virtualization.gic "$info")'" ;;
	esac
	jq -e '.virtualization.under_hypervisor == true and .virtualization.hypervisor == "QEMU (virt machine)"' "$info" >/dev/null ||
		bad "info does not see the emulated host as a VM (under_hypervisor $(jq -c .virtualization.under_hypervisor "$info"), hypervisor $(jq -c .virtualization.hypervisor "$info"))"
else
	bad "no valid info --json came back"
fi

# --- the minimal VMM -------------------------------------------------------------------------------
mini=$out/minivmm-hvc.out
nmini=$(grep -c '^[0-9]' "$mini" 2>/dev/null)
[ "${nmini:-0}" -ge 1 ] || bad "the minimal VMM measured nothing"
grep -q 'hvc_exit_stat read' "$mini" 2>/dev/null || bad "the minimal VMM could not read KVM's hvc_exit_stat"
awk '/^[0-9]/ && ($3 < 0.99 || $3 > 1.01) { bad = 1 } END { exit bad }' "$mini" 2>/dev/null ||
	bad "the minimal VMM's HVCs did not exit once each: $(grep '^[0-9]' "$mini" | cut -d' ' -f3 | tr '\n' ' ')"

# --- list, the default run, the guest-side suite ------------------------------------------------------
jq -e 'type == "array" and length > 0 and
	all(.[]; .unavailable == null or (.hidden and (.unavailable | type == "string" and length > 0)))' \
	"$out/list-json.out" >/dev/null 2>&1 || bad "list --json: not every suite is runnable or hidden with a reason"
judge() {   # judge FILE: every test ok or skipped with a reason; the checks of an ok test passed
	f=$out/$1
	# (jq -e of an empty file is true: it has no value to be false.)
	[ -s "$f" ] && jq -e '.tests | type == "array" and length > 0' "$f" >/dev/null 2>&1 || { bad "$1: no tests in it"; return; }
	jq -r '.tests[] | select(.status != "ok" and .status != "skipped") | "\(.id): \(.status): \(.reason)"' "$f" |
		while read -r line; do echo "arm64 testbed: $1: $line"; done | grep . && fail=1
	jq -r '.tests[] | select(.status == "skipped" and ((.reason // "") | length) == 0) | .id' "$f" |
		while read -r id; do echo "arm64 testbed: $1: $id skipped without a reason"; done | grep . && fail=1
	jq -r '.tests[] | select(.status == "ok") | .id as $id | .checks[]? |
		select(.pass != true and (.fatal == true or (.name | startswith("exits")))) |
		"\($id): check \(.name) failed (measured \(.measured), want \(.min)..\(.max))"' "$f" |
		while read -r line; do echo "arm64 testbed: $1: $line"; done | grep . && fail=1
}
judge result.json
judge guest.json
# --- micro-bench, where this kvmbench has it ----------------------------------------------------------
# The testbed gives it all it needs (2 vCPUs, a vGICv3 with an ITS, the virtual timer): each of its tests
# must be measured, not skipped, with its exits per iteration cross-checked and passed; and its hvc test
# run again beside the minimal VMM (tools/overhead-arm64.sh).
if jq -e 'any(.[]; .name == "micro-bench" and .unavailable == null)' "$out/list-json.out" >/dev/null 2>&1; then
	jq -e '[.tests[] | select(.id | startswith("micro-bench/"))] | length > 0' "$out/result.json" >/dev/null 2>&1 ||
		bad "result.json: micro-bench is runnable here but the default run has none of its tests"
	jq -r '.tests[] | select(.id | startswith("micro-bench/")) |
		select(.status != "ok" or ([.checks[]? | select(.name == "exits_per_iteration" and .pass == true)] | length) == 0) |
		"\(.id): \(.status) without a passed exits_per_iteration check\(if .status == "ok" then "" else " (\(.reason // "no reason"))" end)"' "$out/result.json" 2>/dev/null |
		while read -r line; do echo "arm64 testbed: result.json: $line"; done | grep . && fail=1
	for s in hvc minivmm-hvc-after; do
		[ "$(rc $s)" = 0 ] || bad "step $s exited $(rc $s) (see $s.err)"
	done
	if [ -s "$out/hvc.json" ]; then
		judge hvc.json
		jq -e '[.tests[] | select(.id == "micro-bench/hvc" and .status == "ok")] | length == 1' "$out/hvc.json" >/dev/null 2>&1 ||
			bad "hvc.json: micro-bench/hvc was not measured"
	else
		bad "micro-bench is runnable here but its hvc test did not run beside the minimal VMM (no hvc.json)"
	fi
	awk '/^[0-9]/ && ($3 < 0.99 || $3 > 1.01) { bad = 1 } /^[0-9]/ { n++ } END { exit bad || !n }' \
		"$out/minivmm-hvc-after.out" 2>/dev/null ||
		bad "the minimal VMM's run after kvmbench's hvc measured nothing or its HVCs did not exit once each"
elif [ -s "$out/hvc.json" ]; then
	judge hvc.json
fi
r=$out/result.json
# --- the memory suites, where this kvmbench has them ------------------------------------------------------
runnable() { jq -e --arg s "$1" 'any(.[]; .name == $s and .unavailable == null)' "$out/list-json.out" >/dev/null 2>&1; }
status_of() { jq -r --arg t "$1" '.tests[] | select(.id == $t) | .status' "$r" 2>/dev/null; }
passed() {   # passed TEST CHECK: the check was made on an ok test and passed
	[ -s "$r" ] && jq -e --arg t "$1" --arg c "$2" '.tests[] | select(.id == $t and .status == "ok") | any(.checks[]?; .name == $c and .pass == true)' \
		"$r" >/dev/null 2>&1
}
if runnable execute-perf; then
	for t in anon thp hugetlb-2m; do
		[ "$(status_of "execute-perf/$t")" = ok ] ||
			bad "execute-perf/$t was not measured: $(jq -r --arg t "execute-perf/$t" '.tests[] | select(.id == $t) | .reason' "$r" 2>/dev/null)"
		for c in populate_exits execute_exits pages_populated pages_not_executed page_content_wrong; do
			passed "execute-perf/$t" "$c" || bad "execute-perf/$t: no passed $c check"
		done
	done
	# The guest loop without its call (planted/execute-without-call.mutant): it reports every page called,
	# with the right values, so only KVM's exits can tell; execute_exits must, and make the test invalid.
	pl=$out/planted-execute-without-call.json
	[ -s "$pl" ] && jq -e '.tests[] | select(.id == "execute-perf/anon") | .status == "invalid" and
		any(.checks[]; .name == "execute_exits" and .pass == false) and
		any(.checks[]; .name == "pages_not_executed" and .pass == true)' "$pl" >/dev/null 2>&1 ||
		bad "the planted execute loop without its call was not caught by execute_exits alone: $(jq -c '.tests[]? | [.id, .status, [.checks[]? | select(.pass == false) | .name]]' "$pl" 2>/dev/null || echo "no $(basename "$pl")")"
fi
if runnable dirty-log; then
	for t in get clear; do
		[ "$(status_of "dirty-log/$t")" = ok ] || bad "dirty-log/$t was not measured"
		for c in dirty_pages_missing dirty_pages_unexpected page_content_wrong; do
			passed "dirty-log/$t" "$c" || bad "dirty-log/$t: no passed $c check"
		done
	done
	jq -e '.tests[] | select(.id == "dirty-log/ring") | .status == "skipped" and (.reason | test("KVM_CAP_DIRTY_LOG_RING_ACQ_REL"))' \
		"$r" >/dev/null 2>&1 || bad "dirty-log/ring is not skipped for the dirty ring Linux 6.1's arm64 KVM lacks: $(jq -c '.tests[] | select(.id == "dirty-log/ring") | [.status, .reason]' "$r" 2>/dev/null)"
fi
# --- the kernel features of the running arm64 kernel (patches verify) -----------------------------------
# What the manifest's running-kernel rules must find in Debian's 6.1.192 arm64 kernel, read from its
# source (linux-source-6.1): no kvm_smccc_call_handler (SMCCC filtering is 6.4's); the global LPI
# translation cache (vgic_lpi_translation_cache_init) still there; the MPIDR table only from 6.7 (by
# version); userspace_irqchip_in_use removed by the stable backport, but a data symbol, which
# /proc/kallsyms lists only with CONFIG_KALLSYMS_ALL (not set in Debian's arm64 kernel): unknown, said
# so.  Every x86 feature not applicable.
pv=$out/patches-verify.out
if [ -s "$pv" ] && jq -e . "$pv" >/dev/null 2>&1; then
	for want in arm64-smccc-filter=absent arm64-vgic-its-translation-cache-per-its=absent \
		arm64-vgic-v3-sgi-mpidr-table=absent arm64-remove-userspace-irqchip-in-use=unknown; do
		got=$(jq -r --arg id "${want%=*}" '.features[] | select(.id == $id) | .verdict' "$pv")
		[ "$got" = "${want#*=}" ] || bad "patches verify: ${want%=*} is '$got' on the arm64 kernel, not ${want#*=}"
	done
	jq -e '.features[] | select(.id == "arm64-remove-userspace-irqchip-in-use") | tostring | test("CONFIG_KALLSYMS_ALL")' "$pv" >/dev/null ||
		bad "patches verify: the unknown verdict does not say that data symbols need CONFIG_KALLSYMS_ALL"
	jq -e '[.features[] | select(.id | startswith("arm64-") | not) | .verdict] | length > 0 and all(. == "not-applicable")' "$pv" >/dev/null ||
		bad "patches verify: an x86 feature judged on the arm64 kernel: $(jq -c '[.features[] | select(.id | startswith("arm64-") | not) | [.id, .verdict]]' "$pv")"
else
	bad "no valid patches verify --json came back"
fi
# --- the host's GIC, as info tells it -----------------------------------------------------------------
[ -s "$info" ] && jq -e '.virtualization.host_gic | .version == 3 and .its == true and .found_as == "arm,gic-v3" and .from == "the device tree"' \
	"$info" >/dev/null 2>&1 || bad "info does not tell the emulated host's GICv3 with its ITS from the device tree: $(jq -c .virtualization.host_gic "$info" 2>/dev/null)"
for t in nop hackbench-pipe hackbench-socket; do
	[ "$(jq -r --arg t "guest/$t" '.tests[] | select(.id == $t) | .status' "$r" 2>/dev/null)" = ok ] ||
		bad "the default run did not measure guest/$t: $(jq -r --arg t "guest/$t" '.tests[] | select(.id == $t) | .reason' "$r" 2>/dev/null)"
	jq -e --arg t "guest/$t" '.tests[] | select(.id == $t) | .extra.hypervisor.present == true and
		any(.checks[]; .name == "under_hypervisor" and .pass)' "$r" >/dev/null 2>&1 ||
		bad "guest/$t does not see a hypervisor underneath"
done
for f in result.json guest.json; do
	jq -e '.tests[] | select(.id == "guest/cpuid") | .status == "skipped" and (.reason | test("x86 instruction"))' \
		"$out/$f" >/dev/null 2>&1 || bad "$f: guest/cpuid is not skipped as an x86 instruction: $(jq -c '.tests[] | select(.id == "guest/cpuid") | [.status, .reason]' "$out/$f" 2>/dev/null)"
done
jq -e '.tests[] | select(.id == "guest/rdtscp") | .status == "skipped" and (.reason | test("x86 instruction"))' \
	"$r" >/dev/null 2>&1 || bad "guest/rdtscp is not skipped as an x86 instruction"
jq -e '[.tests[].id] == ["guest/nop", "guest/cpuid"] and (.tests[0].status == "ok")' "$out/guest.json" >/dev/null 2>&1 ||
	bad "run guest/nop guest/cpuid did not run the two tests named, guest/nop measured: $(jq -c '[.tests[] | [.id, .status]]' "$out/guest.json" 2>/dev/null)"

# --- compare and report of the arm64 result, inside ----------------------------------------------------
grep -q 'guest/nop' "$out/compare.out" 2>/dev/null || bad "compare of the arm64 result names no guest/nop"
grep -q '<html' "$out/report.html" 2>/dev/null && grep -q 'guest/hackbench-pipe' "$out/report.html" ||
	bad "report -f html of the arm64 result is not an HTML report of its tests"

n_ok=$(jq -s '[.[].tests[] | select(.status == "ok")] | length' "$out/result.json" "$out/guest.json" 2>/dev/null)
n_skip=$(jq -s '[.[].tests[] | select(.status == "skipped")] | length' "$out/result.json" "$out/guest.json" 2>/dev/null)
n_x=$(jq -s '[.[].tests[]? | select(.status == "ok") | .checks[]? | select(.name | startswith("exits"))] | length' \
	"$out/result.json" "$out/guest.json" $([ -s "$out/hvc.json" ] && echo "$out/hvc.json") 2>/dev/null)
echo "arm64 testbed: summary: minivmm hvc $(grep '^[0-9]' "$mini" 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')ns/iteration;" \
	"default run + guest suite: ${n_ok:-?} ok, ${n_skip:-?} skipped; ${n_x:-?} exit cross-checks made"
exit $fail
