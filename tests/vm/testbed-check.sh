#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# testbed-check.sh: host-side check of what kvmbench measured inside the SVM testbed.
# Usage: testbed-check.sh OUTDIR CPU_MODEL   (exit 0 when everything holds; says what did not)
out=$1
model=$2
fail=0
bad() { echo "$model: $*"; fail=1; }

info=$out/info.json
res=$out/result.json
[ -s "$info" ] || { echo "$model: no info.json came back"; exit 1; }
[ -s "$res" ] || { echo "$model: no result.json came back"; exit 1; }

[ "$(jq -r .kvm.backend "$info")" = kvm_amd ] || bad "backend is $(jq -r .kvm.backend "$info"), not kvm_amd"
# A model with model=17 (0x11) is numbered as Genoa (family 0x19 model 0x11: Zen 4, uarch table).
# The PerfMonV2 advice the table gives: Zen 2 and 3 have none; Zen 4 has it on bare metal, and QEMU's
# TCG does not emulate it (no CPUID 0x80000022), so kvmbench must say it is hidden here.
case $model in
*,model=17 | *,model=17,* | *,model=0x11 | *,model=0x11,*) fam=25 uarch=zen4 advice=amd-perfmonv2-hidden ;;
EPYC-Milan*) fam=25 uarch=zen3 advice=amd-no-perfmonv2 ;;
EPYC-Rome*) fam=23 uarch=zen2 advice=amd-no-perfmonv2 ;;
*) fam="" uarch="" advice="" ;;
esac
if [ -n "$fam" ]; then
	[ "$(jq -r .cpu.family "$info")" = "$fam" ] || bad "CPU family $(jq -r .cpu.family "$info"), want $fam"
	ua=$(jq -r '.cpu.microarchitecture // empty' "$info")
	[ "$ua" = "$uarch" ] || bad "microarchitecture '$ua', want $uarch"
	ids=$(jq -r '[.advice[]?.id] | join(" ")' "$info")
	case " $ids " in *" $advice "*) ;; *) bad "advice lacks $advice (has: $ids)" ;; esac
	for other in amd-no-perfmonv2 amd-perfmonv2-hidden amd-perfmonv2; do
		[ "$other" = "$advice" ] && continue
		case " $ids " in *" $other "*) bad "advice $other does not fit $uarch (has: $ids)" ;; esac
	done
fi

# Every host suite: measured and cross-checked, or skipped with a reason.
jq -r '.tests[] | select(.status != "ok" and .status != "skipped") | "\(.id): \(.status): \(.reason)"' "$res" |
	while read -r line; do echo "$model: $line"; done | grep . && fail=1
n=$(jq '[.tests[] | select(.status == "ok")] | length' "$res")
[ "$n" -ge 1 ] || bad "no test was measured"
jq -e '[.tests[] | select(.status == "skipped") | (.reason // "" | length) > 0] | all' "$res" >/dev/null ||
	bad "a skipped test gives no reason"
# Which tests may skip here: hugetlb-1g (the emulated host has no room for a 1 GiB page at the
# testbed's sizes), and the speculation-control MSR tests for the CPU feature they name, which
# QEMU's CPU model under TCG may not offer.  Any other skip is a need that SVM meets going unmet.
others=$(jq -r '[.tests[] | select(.status == "skipped" and .id != "execute-perf/hugetlb-1g") |
	select(((.id | test("^efer-msr/wr_(tsx_ctrl|ibrs|ibpb)_msr$")) and
		(.reason | test("KVM_GET_SUPPORTED_CPUID|KVM_GET_MSRS of /dev/kvm"))) | not) | .id] | join(" ")' "$res")
[ -z "$others" ] || bad "skipped on kvm_amd, which should measure them: $others"
# kvm-unit-tests' vmexit tests: the exits one iteration causes on SVM, against the least disturbed
# sample (tests/scripts/host-exitpath.test knows the same for the other backends).
for tw in vmcall:1 mov_dr:0 wbinvd:1 invd:1 inl_from_pmtimer:1 toggle_cr0_wp:2 toggle_cr4_pge:2 \
	wr_ibrs_msr:0 wr_ibpb_msr:0 pci-mem:1 pci-io:1; do
	got=$(jq -r --arg t "efer-msr/${tw%%:*}" '.tests[] | select(.id == $t and .status == "ok") |
		.checks[] | select(.name == "exits_per_iteration") | .measured' "$res")
	[ -z "$got" ] || awk -v g="$got" -v w="${tw#*:}" 'BEGIN { t = 0.02 * (w > 1 ? w : 1) + 0.01
		exit !(g >= w - t && g <= w + t) }' || bad "efer-msr/${tw%%:*}: $got exits per iteration, want ${tw#*:}"
done
# On SVM CPUID always exits: the CPUID suite must be valid with one exit per iteration
# (it runs by default; a run narrowed with KB_SUITES may leave it out).
epi=$(jq '.tests[] | select(.id == "cpuid/cpuid") | .checks[] | select(.name == "exits_per_iteration") | .measured' "$res")
if [ -z "${KB_SUITES:-}" ] || [ -n "$epi" ]; then
	[ -n "$epi" ] && awk -v e="$epi" 'BEGIN { exit !(e >= 0.99 && e <= 1.01) }' ||
		bad "cpuid exits per iteration is '$epi', want 1.00 +/- 0.01"
fi
# With huge pages reserved in the guest, the hugetlb-2m test must really run (with NPT behind it).
reserved=$(sed -n 's/^hugepages_reserved=//p' "$out/_testbed/testbed.env" 2>/dev/null)
hp=$(jq -r '.tests[] | select(.id == "execute-perf/hugetlb-2m") | "\(.status): \(.reason // "")"' "$res")
if [ "${reserved:-0}" -gt 0 ] && [ -n "$hp" ]; then
	case $hp in ok:*) ;; *) bad "execute-perf/hugetlb-2m with $reserved huge pages reserved: $hp" ;; esac
fi
echo "$model: ${ua:-?}, advice ${advice:-?}; $n tests measured; cpuid exits/iteration ${epi:-not run}; execute-perf/hugetlb-2m ${hp:-not run}"
exit $fail
