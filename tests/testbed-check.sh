#!/bin/sh
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
case $model in
EPYC-Milan*) fam=25 uarch=zen3 ;;
EPYC-Rome*) fam=23 uarch=zen2 ;;
*) fam="" uarch="" ;;
esac
if [ -n "$fam" ]; then
	[ "$(jq -r .cpu.family "$info")" = "$fam" ] || bad "CPU family $(jq -r .cpu.family "$info"), want $fam"
	ua=$(jq -r '.cpu.microarchitecture // empty' "$info")
	[ "$ua" = "$uarch" ] || bad "microarchitecture '$ua', want $uarch"
fi

# Every host suite: measured and cross-checked, or skipped with a reason.
jq -r '.tests[] | select(.status != "ok" and .status != "skipped") | "\(.id): \(.status): \(.reason)"' "$res" |
	while read -r line; do echo "$model: $line"; done | grep . && fail=1
n=$(jq '[.tests[] | select(.status == "ok")] | length' "$res")
[ "$n" -ge 1 ] || bad "no test was measured"
jq -e '[.tests[] | select(.status == "skipped") | (.reason // "" | length) > 0] | all' "$res" >/dev/null ||
	bad "a skipped test gives no reason"
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
echo "$model: $n tests measured; cpuid exits/iteration ${epi:-not run}; execute-perf/hugetlb-2m ${hp:-not run}"
exit $fail
