#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# verify-6.12.sh: checks kernel/features.json's detection rules against Debian's linux-source-6.12 (TAP).
#
# On 6.12 both bundled features are upstream (the vPMU fast path since v6.9, TDP MMU split-on-fault
# since v6.2) and Debian 6.12.117 carries the REQ_EVENT series' fix bb365a506b1e: every x86
# feature must come out present-upstream (the known-bad one absent), by the rule semantics of
# kernel/README.md (shell) and by 'kvmbench patches verify -k' ($KVMBENCH; make check sets it).
# Planted defects must be caught: a rule reverted to the bundled patch's text, a fix rule that
# matches nothing, and a tree with the fix taken out (a warning).
# Source of the tree, in order:
#   KB_LINUX_SRC=DIR      an unpacked linux-source-6.12 tree (only read)
#   KB_LINUX_TARBALL=F    default /usr/src/linux-source-6.12.tar.xz (apt-get install linux-source-6.12)
# Only the files the rules and patches name are extracted (about 10-30 s, most of it xz).
# Without a tree every test is reported as skipped.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${KB_SRCDIR:-$here/../..}
kdir=$top/kernel
manifest=$kdir/features.json
tarball=${KB_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

if ! command -v jq >/dev/null 2>&1; then
	echo "1..0 # SKIP jq is not installed (apt-get install jq)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-verify-6.12.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck source=verify-lib.sh
. "$here/verify-lib.sh"

kv_tree 6.12 "$tarball"

cat >"$tmp/want" <<'EOF'
kvm-req-event-series present-upstream
kvm-req-event-skip-on-eoi known-bad-absent
kvm-cr8-intercept-on-ppr-update present-upstream
vmx-always-load-ia32-efer present-upstream
vpmu-emulated-event-fastpath present-upstream
tdp-mmu-split-huge-page-on-fault present-upstream
arm64-remove-userspace-irqchip-in-use present-upstream
arm64-smccc-filter present-upstream
arm64-vgic-its-translation-cache-per-its present-upstream
arm64-vgic-v3-sgi-mpidr-table present-upstream
EOF

# ---- the rules, evaluated as kernel/README.md specifies -----------------------------------------
kv_expect "$tmp/pristine" "$tmp/want" >"$tmp/got" 2>/dev/null
while read -r id want got; do
	echo "expected $want, got $got" >"$tmp/diag"
	[ "$want" = "$got" ]
	result $? "6.12: $id is $want" "$tmp/diag"
done <"$tmp/got"
[ "$(wc -l <"$tmp/got")" -eq "$(wc -l <"$tmp/want")" ]
result $? "features.json describes the $(wc -l <"$tmp/want") features this test expects"

# ---- kvmbench patches verify -k on the same tree -------------------------------------------------
have_bin=
[ -z "$skip_reason" ] && [ -x "${KVMBENCH:-}" ] && have_bin=1
nobin=${skip_reason:-KVMBENCH is not set to the kvmbench binary}
sed 's/^\(arm64-[a-z0-9-]*\) .*/\1 not-applicable/' "$tmp/want" >"$tmp/want-x86"
if [ -n "$have_bin" ]; then
	kv_binary "$tmp/pristine" "$kdir" x86_64 "$tmp/bin" && kv_compare "$tmp/want-x86" "$tmp/bin" "$tmp/diag"
	result $? "kvmbench patches verify -k on 6.12 (x86_64): every feature as expected" "$tmp/diag"
	[ ! -s "$tmp/bin.warnings" ]
	result $? "kvmbench patches verify -k on 6.12 warns of no missing fix" "$tmp/bin.warnings"
	sed -e '/^arm64-/!s/ .*/ not-applicable/' "$tmp/want" >"$tmp/want-arm"
	kv_binary "$tmp/pristine" "$kdir" arm64 "$tmp/arm" && kv_compare "$tmp/want-arm" "$tmp/arm" "$tmp/diag"
	result $? "kvmbench patches verify -k --arch arm64 on 6.12: the arm64 changes are present-upstream" "$tmp/diag"
else
	skip_one "kvmbench patches verify -k on 6.12 (x86_64): every feature as expected" "$nobin"
	skip_one "kvmbench patches verify -k on 6.12 warns of no missing fix" "$nobin"
	skip_one "kvmbench patches verify -k --arch arm64 on 6.12: the arm64 changes are present-upstream" "$nobin"
fi

# ---- planted defects: each must make the check above fail ----------------------------------------
# A present_if rule that knows only the bundled patch's text (the upstream form unrecognised).
kv_planted_bundle '(.features[] | select(.id == "tdp-mmu-split-huge-page-on-fault") | .source_tree.present_if) =
	[{"file": "arch/x86/kvm/mmu/tdp_mmu.c", "fixed": "static noinline int tdp_mmu_split_huge_spte_on_fault("}]' patchtext
kv_expect "$tmp/pristine" "$tmp/want" "$tmp/bundle-patchtext/features.json" 2>/dev/null | awk '$2 != $3' >"$tmp/diag"
grep -q '^tdp-mmu-split-huge-page-on-fault present-upstream ' "$tmp/diag"
result $? "planted: a split-on-fault rule with only the patch's text fails the 6.12 check (rules)" "$tmp/diag"
if [ -n "$have_bin" ]; then
	kv_binary "$tmp/pristine" "$tmp/bundle-patchtext" x86_64 "$tmp/bin-pt"
	! kv_compare "$tmp/want-x86" "$tmp/bin-pt" "$tmp/diag"
	result $? "planted: the same wrong rule fails the 6.12 check (kvmbench)" "$tmp/diag"
else
	skip_one "planted: the same wrong rule fails the 6.12 check (kvmbench)" "$nobin"
fi

# An SMCCC filter rule written from 6.1's handler (the name of the old entry point): 6.12 no longer has
# it, so the feature would come out absent on the tree that has it.
kv_planted_bundle '(.features[] | select(.id == "arm64-smccc-filter") | .source_tree.present_if) =
	[{"file": "arch/arm64/kvm/hypercalls.c", "fixed": "kvm_hvc_call_handler"}]' oldsmccc
kv_expect "$tmp/pristine" "$tmp/want" "$tmp/bundle-oldsmccc/features.json" 2>/dev/null | awk '$2 != $3' >"$tmp/diag"
grep -q '^arm64-smccc-filter present-upstream absent$' "$tmp/diag"
result $? "planted: an SMCCC filter rule with 6.1's handler name fails the 6.12 check (rules)" "$tmp/diag"
if [ -n "$have_bin" ]; then
	kv_binary "$tmp/pristine" "$tmp/bundle-oldsmccc" arm64 "$tmp/arm-old"
	! kv_compare "$tmp/want-arm" "$tmp/arm-old" "$tmp/diag"
	result $? "planted: the same wrong rule fails the 6.12 check (kvmbench --arch arm64)" "$tmp/diag"
else
	skip_one "planted: the same wrong rule fails the 6.12 check (kvmbench --arch arm64)" "$nobin"
fi

# The tree with the SGI dispatch put back to a walk over every vCPU: the MPIDR-table feature is absent.
cp -a "$tmp/pristine" "$tmp/sgiwalk"
sed -i 's/c_vcpu = kvm_mpidr_to_vcpu(kvm, mpidr | aff0);/c_vcpu = walk_vcpus(kvm, mpidr | aff0);/' \
	"$tmp/sgiwalk/arch/arm64/kvm/vgic/vgic-mmio-v3.c"
got=$(verdict "$tmp/sgiwalk" arm64-vgic-v3-sgi-mpidr-table)
echo "got $got" >"$tmp/diag"
[ "$got" = absent ]
result $? "planted: 6.12 with the SGI targets found another way has the MPIDR-table feature absent" "$tmp/diag"

# A vPMU rule that only the older series patch satisfies is not enough: drop the pmu.h rule and
# break the pmu.c one (a typo), the feature must no longer be present-upstream.
kv_planted_bundle '(.features[] | select(.id == "vpmu-emulated-event-fastpath") | .source_tree.present_if) |=
	[.[] | select(.file == "arch/x86/kvm/pmu.c") | .regex |= sub("global_ctrl"; "global_ctlr")]' vpmu
kv_expect "$tmp/pristine" "$tmp/want" "$tmp/bundle-vpmu/features.json" 2>/dev/null | awk '$2 != $3' >"$tmp/diag"
grep -q '^vpmu-emulated-event-fastpath present-upstream ' "$tmp/diag"
result $? "planted: a misspelt vPMU fast-path rule fails the 6.12 check" "$tmp/diag"

# A fix rule that can never match.
kv_planted_bundle '(.features[] | select(.id == "kvm-cr8-intercept-on-ppr-update") | .source_tree.present_if[0].regex) |=
	sub("else"; "elsif")' fixrule
kv_expect "$tmp/pristine" "$tmp/want" "$tmp/bundle-fixrule/features.json" 2>/dev/null | awk '$2 != $3' >"$tmp/diag"
grep -q '^kvm-cr8-intercept-on-ppr-update present-upstream absent' "$tmp/diag"
result $? "planted: a fix rule that matches nothing fails the 6.12 check" "$tmp/diag"

# The tree with the fix taken out of apic_update_ppr(): absent, and kvmbench warns.
cp -a "$tmp/pristine" "$tmp/nofix"
sed -i '/^static void apic_update_ppr(/,/^}/{/^\telse$/d;/kvm_lapic_update_cr8_intercept(apic->vcpu);/d}' \
	"$tmp/nofix/arch/x86/kvm/lapic.c"
got=$(verdict "$tmp/nofix" kvm-cr8-intercept-on-ppr-update)
echo "got $got" >"$tmp/diag"
[ "$got" = absent ]
result $? "planted: 6.12 without the else branch of apic_update_ppr() has the fix absent (rules)" "$tmp/diag"
if [ -n "$have_bin" ]; then
	kv_binary "$tmp/nofix" "$kdir" x86_64 "$tmp/bin-nofix"
	grep -q 'has kvm-req-event-series (present-upstream) but not its fix kvm-cr8-intercept-on-ppr-update (bb365a506b1e' \
		"$tmp/bin-nofix.warnings"
	result $? "planted: kvmbench patches verify -k warns that the tree lacks bb365a506b1e" "$tmp/bin-nofix.json"
	"$KVMBENCH" patches verify -k "$tmp/nofix" --bundle "$kdir" --arch x86_64 >"$tmp/nofix.txt" 2>&1
	grep -q '^WARNING: the tree has kvm-req-event-series' "$tmp/nofix.txt"
	result $? "planted: the text output says WARNING for the missing fix" "$tmp/nofix.txt"
else
	skip_one "planted: kvmbench patches verify -k warns that the tree lacks bb365a506b1e" "$nobin"
	skip_one "planted: the text output says WARNING for the missing fix" "$nobin"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
