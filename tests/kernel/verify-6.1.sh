#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# verify-6.1.sh: checks kernel/patches and kernel/features.json against Debian's linux-source-6.1 (TAP).
#
# Standalone: needs sh, tar/xz, patch, grep, diff and jq; with $KVMBENCH (make check sets it) also
# 'kvmbench patches verify -k' on the same tree.  Shares verify-lib.sh with verify-6.12.sh.
# Source of the tree, in order:
#   KB_LINUX_SRC=DIR      an unpacked linux-source-6.1 tree (only read; work is done on a copy)
#   KB_LINUX_TARBALL=F    default /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1)
# Only the files that features.json's rules and the patches name are extracted or
# copied (about 9 s from the tarball, most of it xz; under a second from KB_LINUX_SRC).
# Without a tree every test is reported as skipped.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${KB_SRCDIR:-$here/../..}
kdir=$top/kernel
manifest=$kdir/features.json
tarball=${KB_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-verify-6.1.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck source=verify-lib.sh
. "$here/verify-lib.sh"

# ---- inputs ---------------------------------------------------------------------------------
if ! command -v jq >/dev/null 2>&1; then
	echo "1..0 # SKIP jq is not installed (apt-get install jq)"
	exit 0
fi

jq -e '.schema == "kvmbench-kernel-features" and .schema_version == 1
       and ([.features[].id] | length == (unique | length))
       and all(.features[]; (.status | IN("bundled", "upstream", "known-bad"))
                            and (.arch | IN("x86_64", "arm64", "any"))
                            and ((.status == "bundled") == (.patch != null)))
       and all(.features[].source_tree | (.applicable_if, .present_if, .bundled_if) // [] | .[];
               (has("fixed") != has("regex")) and (.file | type == "string")
               and ((.fixed // "") | test("\n") | not))' \
	"$manifest" >"$tmp/diag" 2>&1
result $? "features.json: schema 1, unique ids, valid status/arch/patch and rule shapes" "$tmp/diag"

# Patch files named by the manifest, in apply order (file name order).
kv_patches >"$tmp/patches"

# ---- patch headers ---------------------------------------------------------------------------
keys="Kvmbench-Patch Feature Title What Why Upstream Measured-By Expected-Effect Base Files"
header_ok() {	# header_ok PATCH-PATH-RELATIVE-TO-kernel/
	f=$kdir/$1
	[ -f "$f" ] || { echo "missing $f"; return 1; }
	# The header block, unfolded: one "Key: value" line per field.
	awk 'NF == 0 { exit } /^[ \t]/ { sub(/^[ \t]+/, ""); v = v " " $0; next }
	     { if (v != "") print v; v = $0 } END { if (v != "") print v }' "$f" >"$tmp/hdr"
	got=$(sed 's/:.*//' "$tmp/hdr" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$keys" ] || { echo "keys: '$got', want '$keys'"; return 1; }
	val() { sed -n "s/^$1: //p" "$tmp/hdr"; }
	[ "$(val Kvmbench-Patch)" = 1 ] || { echo "Kvmbench-Patch is not 1"; return 1; }
	id=$(jq -r --arg p "$1" '.features[] | select(.patch == $p) | .id' "$manifest")
	[ "$(val Feature)" = "$id" ] || { echo "Feature '$(val Feature)' but manifest id '$id'"; return 1; }
	val Upstream | grep -Eq '^([0-9a-f]{12,40}|unknown) \((v[0-9]+\.[0-9]+|none)\)' ||
		{ echo "Upstream: bad form"; return 1; }
	up=$(jq -r --arg p "$1" '.features[] | select(.patch == $p) | .upstream.commit // "unknown"' "$manifest")
	val Upstream | grep -q "^$up " || { echo "Upstream commit differs from manifest ($up)"; return 1; }
	val Measured-By | grep -Eq '^[a-z0-9_-]+/([a-z0-9_-]+|\*)(, [a-z0-9_-]+/([a-z0-9_-]+|\*))*; .' ||
		{ echo "Measured-By: bad form"; return 1; }
	val Base | grep -Eq '^linux [0-9]+\.[0-9]+\.y \(.+\)$' || { echo "Base: bad form"; return 1; }
	want=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$f" | sort | tr '\n' ' ' | sed 's/ $//')
	[ "$(val Files | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" = "$want" ] ||
		{ echo "Files '$(val Files)' but the diff touches '$want'"; return 1; }
}
while read -r p; do
	header_ok "$p" >"$tmp/diag" 2>&1
	result $? "header of $p follows Kvmbench-Patch 1 and matches features.json" "$tmp/diag"
done <"$tmp/patches"

# ---- the tree: only the files the rules and patches name -------------------------------------
# Without a tree the remaining tests still run (on an empty tree) but are reported as skipped.
kv_tree 6.1 "$tarball"

# What Debian 6.1.192 has: the REQ_EVENT series without its fix, neither bundled feature, the
# arm64 userspace_irqchip_in_use removal backported, and none of the later arm64 exit-path changes
# (kernel/features.json notes).  A feature not listed here fails.
cat >"$tmp/want-6.1" <<'EOF'
kvm-req-event-series present-upstream
kvm-req-event-skip-on-eoi known-bad-absent
kvm-cr8-intercept-on-ppr-update absent
vmx-always-load-ia32-efer present-upstream
vpmu-emulated-event-fastpath absent
tdp-mmu-split-huge-page-on-fault absent
arm64-remove-userspace-irqchip-in-use present-upstream
arm64-smccc-filter absent
arm64-vgic-its-translation-cache-per-its absent
arm64-vgic-v3-sgi-mpidr-table absent
EOF

# ---- 6.1 as shipped --------------------------------------------------------------------------
kv_expect "$tmp/pristine" "$tmp/want-6.1" >"$tmp/before" 2>/dev/null
while read -r id want got; do
	echo "expected $want, got $got" >"$tmp/diag"
	[ "$want" = "$got" ]
	result $? "pristine 6.1: $id is $want" "$tmp/diag"
done <"$tmp/before"
[ "$(wc -l <"$tmp/before")" -eq "$(wc -l <"$tmp/want-6.1")" ]
result $? "features.json describes the $(wc -l <"$tmp/want-6.1") features this test expects"

# The program itself on the same tree: the dry run decides the bundled features, the arm64 one is
# not-applicable on x86_64, and the missing fix of the REQ_EVENT series is a warning.
if [ -z "$skip_reason" ] && [ -x "${KVMBENCH:-}" ]; then
	sed -e 's/^\(vpmu-emulated-event-fastpath\|tdp-mmu-split-huge-page-on-fault\) absent$/\1 applies-cleanly/' \
		-e 's/^\(arm64-[a-z0-9-]*\) .*/\1 not-applicable/' "$tmp/want-6.1" >"$tmp/want-bin"
	kv_binary "$tmp/pristine" "$kdir" x86_64 "$tmp/bin" && kv_compare "$tmp/want-bin" "$tmp/bin" "$tmp/diag"
	result $? "kvmbench patches verify -k on pristine 6.1 gives the expected verdicts" "$tmp/diag"
	echo "the tree has kvm-req-event-series (present-upstream) but not its fix kvm-cr8-intercept-on-ppr-update (bb365a506b1e KVM: x86: Unconditionally recompute CR8 intercept on PPR update)" >"$tmp/want-warn"
	diff "$tmp/want-warn" "$tmp/bin.warnings" >"$tmp/diag" 2>&1
	result $? "kvmbench patches verify -k warns that 6.1 has the KVM_REQ_EVENT series without bb365a506b1e" "$tmp/diag"
else
	skip_one "kvmbench patches verify -k on pristine 6.1 gives the expected verdicts" "${skip_reason:-KVMBENCH is not set to the kvmbench binary}"
	skip_one "kvmbench patches verify -k warns that 6.1 has the KVM_REQ_EVENT series without bb365a506b1e" "${skip_reason:-KVMBENCH is not set to the kvmbench binary}"
fi

# The arm64 features as an arm64 host's kvmbench judges this tree (the x86 ones are not-applicable there).
if [ -z "$skip_reason" ] && [ -x "${KVMBENCH:-}" ]; then
	sed -e '/^arm64-/!s/ .*/ not-applicable/' "$tmp/want-6.1" >"$tmp/want-arm"
	kv_binary "$tmp/pristine" "$kdir" arm64 "$tmp/arm" && kv_compare "$tmp/want-arm" "$tmp/arm" "$tmp/diag"
	result $? "kvmbench patches verify -k --arch arm64 on pristine 6.1: the arm64 verdicts as expected" "$tmp/diag"
else
	skip_one "kvmbench patches verify -k --arch arm64 on pristine 6.1: the arm64 verdicts as expected" "${skip_reason:-KVMBENCH is not set to the kvmbench binary}"
fi

# Planted: an ITS cache rule loose enough that 6.1's global list satisfies it too ("translation_cache"
# is a substring of lpi_translation_cache), without the rule that the list is gone: 6.1 would pass as
# having the per-ITS cache, and the check above must say so.
kv_planted_bundle '(.features[] | select(.id == "arm64-vgic-its-translation-cache-per-its") | .source_tree.present_if) =
	[{"file": "arch/arm64/kvm/vgic/vgic-its.c", "fixed": "translation_cache"}]' looseits
kv_expect "$tmp/pristine" "$tmp/want-6.1" "$tmp/bundle-looseits/features.json" 2>/dev/null | awk '$2 != $3' >"$tmp/diag"
grep -q '^arm64-vgic-its-translation-cache-per-its absent present-upstream$' "$tmp/diag"
result $? "planted: an ITS cache rule that 6.1's global list also matches fails the 6.1 check" "$tmp/diag"

# A rule engine that cannot see a change is no test: fake the known-bad change and look again.
cp -a "$tmp/pristine" "$tmp/mutant"
sed -i '/^static int apic_set_eoi/,/^}/{/kvm_make_request(KVM_REQ_EVENT, apic->vcpu);/d}' \
	"$tmp/mutant/arch/x86/kvm/lapic.c"
got=$(verdict "$tmp/mutant" kvm-req-event-skip-on-eoi)
echo "got $got" >"$tmp/diag"
[ "$got" = known-bad-present ]
result $? "a tree without KVM_REQ_EVENT in apic_set_eoi() is reported known-bad-present" "$tmp/diag"

# ---- apply, check, revert --------------------------------------------------------------------
cp -a "$tmp/pristine" "$tmp/work"
while read -r p; do
	(cd "$tmp/work" && patch -p1 -N -F0 --dry-run <"$kdir/$p") >"$tmp/diag" 2>&1
	result $? "$p applies cleanly (patch -p1 --dry-run, no fuzz)" "$tmp/diag"
done <"$tmp/patches"

rc=0
while read -r p; do
	(cd "$tmp/work" && patch -p1 -N -F0 -s --no-backup-if-mismatch -r - <"$kdir/$p") >>"$tmp/diag2" 2>&1 || rc=1
done <"$tmp/patches"
result $rc "both patches apply, in order" "$tmp/diag2"

sed 's/^\(vpmu-emulated-event-fastpath\|tdp-mmu-split-huge-page-on-fault\) absent$/\1 bundled-applied/' \
	"$tmp/want-6.1" >"$tmp/want-after"
kv_expect "$tmp/work" "$tmp/want-after" >"$tmp/after" 2>/dev/null
awk '$2 != $3' "$tmp/after" >"$tmp/diag"
[ ! -s "$tmp/diag" ]
result $? "patched 6.1: bundled features bundled-applied, upstream/known-bad verdicts unchanged" "$tmp/diag"

rc=0
: >"$tmp/diag"
while read -r p; do
	(cd "$tmp/work" && patch -p1 -N -F0 --dry-run <"$kdir/$p") >>"$tmp/diag" 2>&1 && rc=1
done <"$tmp/patches"
result $rc "on the patched tree each patch no longer applies forward (a conflict is detected)" "$tmp/diag"

rc=0
: >"$tmp/diag"
sort -r "$tmp/patches" >"$tmp/patches.rev"
while read -r p; do
	(cd "$tmp/work" && patch -p1 -R -F0 -s --no-backup-if-mismatch -r - <"$kdir/$p") >>"$tmp/diag" 2>&1 || rc=1
done <"$tmp/patches.rev"
result $rc "both patches reverse-apply, in reverse order" "$tmp/diag"

diff -r "$tmp/pristine" "$tmp/work" >"$tmp/diag" 2>&1
result $? "after revert the tree is byte-identical to the pristine one (diff -r)" "$tmp/diag"

find "$tmp/work" \( -name '*.orig' -o -name '*.rej' \) >"$tmp/diag"
[ ! -s "$tmp/diag" ]
result $? "no .orig/.rej files were left behind" "$tmp/diag"

echo "1..$n"
[ "$failed" -eq 0 ]
