#!/bin/sh
# verify-6.1.sh: checks kernel/patches and kernel/features.json against Debian's linux-source-6.1 (TAP).
#
# Standalone: needs sh, tar/xz, patch, grep, diff and jq; not the kvmbench binary.
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

n=0
failed=0
skip_reason=

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-verify-6.1.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

result() {	# result STATUS DESCRIPTION [DIAG-FILE]: one TAP line (and diagnostics)
	n=$((n + 1))
	if [ -n "$skip_reason" ]; then
		echo "ok $n - $2 # SKIP $skip_reason"
	elif [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ $# -ge 3 ] && [ -s "$3" ] && sed 's/^/# /' "$3"
	fi
	return 0
}

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
jq -r '.features[] | select(.patch != null) | .patch' "$manifest" | sort >"$tmp/patches"

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
if [ -n "${KB_LINUX_SRC:-}" ] && [ ! -f "$KB_LINUX_SRC/Makefile" ]; then
	skip_reason="KB_LINUX_SRC=$KB_LINUX_SRC is not a kernel tree (no Makefile)"
elif [ -z "${KB_LINUX_SRC:-}" ] && [ ! -r "$tarball" ]; then
	skip_reason="$tarball is absent (apt-get install linux-source-6.1, or set KB_LINUX_SRC)"
fi
{
	echo Makefile
	jq -r '.features[].source_tree | (.applicable_if, .present_if, .bundled_if) // [] | .[].file' "$manifest"
	while read -r p; do sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$kdir/$p"; done <"$tmp/patches"
} | sort -u >"$tmp/files"

mkdir -p "$tmp/pristine"
start=$(date +%s)
if [ -n "$skip_reason" ]; then
	origin="nowhere ($skip_reason)"
elif [ -n "${KB_LINUX_SRC:-}" ]; then
	(cd "$KB_LINUX_SRC" && while read -r f; do [ -e "$f" ] && echo "$f"; done <"$tmp/files" |
		tar -cf - -T -) | tar -xf - -C "$tmp/pristine"
	origin="KB_LINUX_SRC=$KB_LINUX_SRC"
else
	sed 's|^|linux-source-6.1/|' "$tmp/files" >"$tmp/members"
	tar -xJf "$tarball" -C "$tmp" -T "$tmp/members" 2>"$tmp/tar.err"
	[ -d "$tmp/linux-source-6.1" ] && cp -a "$tmp/linux-source-6.1/." "$tmp/pristine/"
	origin=$tarball
fi
echo "# tree from $origin: $(wc -l <"$tmp/files") files, $(($(date +%s) - start)) s"

mk=$tmp/pristine/Makefile
v=$(sed -n 's/^VERSION = //p' "$mk" 2>/dev/null).$(sed -n 's/^PATCHLEVEL = //p' "$mk" 2>/dev/null)
sub=$(sed -n 's/^SUBLEVEL = //p' "$mk" 2>/dev/null)
echo "# kernel version $v.$sub"
[ "$v" = "6.1" ]
result $? "the tree is linux 6.1.y (found $v.$sub)"

# ---- rule evaluation (the semantics kernel/README.md specifies) -----------------------------
rule_holds() {	# rule_holds TREE RULE-JSON: 0 iff the file exists and (pattern found) == match
	file=$(printf '%s' "$2" | jq -r .file)
	want=$(printf '%s' "$2" | jq -r 'if .match == false then "no" else "yes" end')
	[ -f "$1/$file" ] || return 1
	if printf '%s' "$2" | jq -e 'has("fixed")' >/dev/null; then
		grep -qF -e "$(printf '%s' "$2" | jq -r .fixed)" "$1/$file" && found=yes || found=no
	else
		grep -Ezq -e "$(printf '%s' "$2" | jq -r .regex)" "$1/$file" && found=yes || found=no
	fi
	[ "$found" = "$want" ]
}

set_holds() {	# set_holds TREE ID KEY: 0 all rules hold, 1 one fails, 2 the set is not defined
	jq -e --arg id "$2" --arg k "$3" \
		'.features[] | select(.id == $id) | .source_tree[$k] | type == "array" and length > 0' \
		"$manifest" >/dev/null || return 2
	jq -c --arg id "$2" --arg k "$3" '.features[] | select(.id == $id) | .source_tree[$k][]' \
		"$manifest" >"$tmp/rules.$2.$3"
	while read -r r; do
		rule_holds "$1" "$r" || { echo "# rule failed: $r"; return 1; }
	done <"$tmp/rules.$2.$3"
	return 0
}

verdict() {	# verdict TREE ID: the source-tree verdict, without the dry-run step
	st=$(jq -r --arg id "$2" '.features[] | select(.id == $id) | .status' "$manifest")
	set_holds "$1" "$2" applicable_if >/dev/null
	[ $? -eq 1 ] && { echo not-applicable; return; }
	set_holds "$1" "$2" present_if >/dev/null
	if [ $? -eq 0 ]; then
		[ "$st" = known-bad ] && echo known-bad-present || echo present-upstream
		return
	fi
	set_holds "$1" "$2" bundled_if >/dev/null
	[ $? -eq 0 ] && { echo bundled-applied; return; }
	[ "$st" = known-bad ] && echo known-bad-absent || echo absent
}

expect_verdicts() {	# expect_verdicts TREE PHASE: one TAP line per feature
	jq -r '.features[] | "\(.id) \(.status)"' "$manifest" | while read -r id st; do
		got=$(verdict "$1" "$id")
		case "$2:$st" in
		*:upstream) want=present-upstream ;;
		*:known-bad) want=known-bad-absent ;;
		before:bundled) want=absent ;;
		after:bundled) want=bundled-applied ;;
		esac
		echo "$id $want $got"
	done
}

# ---- 6.1 as shipped --------------------------------------------------------------------------
expect_verdicts "$tmp/pristine" before >"$tmp/before" 2>/dev/null
while read -r id want got; do
	echo "expected $want, got $got" >"$tmp/diag"
	[ "$want" = "$got" ]
	result $? "pristine 6.1: $id is $want" "$tmp/diag"
done <"$tmp/before"
[ "$(wc -l <"$tmp/before")" -eq 6 ]
result $? "features.json describes the 6 features this test expects"

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

expect_verdicts "$tmp/work" after >"$tmp/after" 2>/dev/null
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
