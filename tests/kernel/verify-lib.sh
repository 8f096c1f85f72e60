# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# verify-lib.sh: what verify-6.1.sh and verify-6.12.sh share: TAP lines, the tree, the source-rule verdicts (sourced).
#
# The caller sets: here top kdir manifest tmp (a scratch directory it removes), and calls
#   kv_tree SERIES TARBALL   extract the files the rules and patches name into $tmp/pristine
#                            (from $KB_LINUX_SRC when set), or set skip_reason
# then kv_expect / kv_binary / kv_compare on trees and manifests.

n=0
failed=0
skip_reason=

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

# skip_one DESCRIPTION REASON: a TAP line skipped for a reason of its own.
skip_one() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# Patch files named by the manifest, in apply order (file name order).
kv_patches() {
	jq -r '.features[] | select(.patch != null) | .patch' "$manifest" | sort
}

kv_tree() {	# kv_tree SERIES TARBALL: $tmp/pristine holds the needed files of linux-source-SERIES
	if [ -n "${KB_LINUX_SRC:-}" ] && [ ! -f "$KB_LINUX_SRC/Makefile" ]; then
		skip_reason="KB_LINUX_SRC=$KB_LINUX_SRC is not a kernel tree (no Makefile)"
	elif [ -z "${KB_LINUX_SRC:-}" ] && [ ! -r "$2" ]; then
		skip_reason="$2 is absent (apt-get install linux-source-$1, or set KB_LINUX_SRC)"
	fi
	{
		echo Makefile
		jq -r '.features[].source_tree | (.applicable_if, .present_if, .bundled_if) // [] | .[].file' "$manifest"
		kv_patches | while read -r p; do sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$kdir/$p"; done
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
		sed "s|^|linux-source-$1/|" "$tmp/files" >"$tmp/members"
		tar -xJf "$2" -C "$tmp" -T "$tmp/members" 2>"$tmp/tar.err"
		[ -d "$tmp/linux-source-$1" ] && cp -a "$tmp/linux-source-$1/." "$tmp/pristine/"
		origin=$2
	fi
	echo "# tree from $origin: $(wc -l <"$tmp/files") files, $(($(date +%s) - start)) s"
	mk=$tmp/pristine/Makefile
	tree_version=$(sed -n 's/^VERSION = //p' "$mk" 2>/dev/null).$(sed -n 's/^PATCHLEVEL = //p' "$mk" 2>/dev/null)
	tree_sub=$(sed -n 's/^SUBLEVEL = //p' "$mk" 2>/dev/null)
	echo "# kernel version $tree_version.$tree_sub"
	[ "$tree_version" = "$1" ]
	result $? "the tree is linux $1.y (found $tree_version.$tree_sub)"
}

# ---- rule evaluation (the semantics kernel/README.md specifies), on manifest $2 or $manifest ----
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

set_holds() {	# set_holds TREE ID KEY MANIFEST: 0 all rules hold, 1 one fails, 2 the set is not defined
	jq -e --arg id "$2" --arg k "$3" \
		'.features[] | select(.id == $id) | .source_tree[$k] | type == "array" and length > 0' \
		"$4" >/dev/null || return 2
	jq -c --arg id "$2" --arg k "$3" '.features[] | select(.id == $id) | .source_tree[$k][]' \
		"$4" >"$tmp/rules.$2.$3"
	while read -r r; do
		rule_holds "$1" "$r" || { echo "# rule failed: $r"; return 1; }
	done <"$tmp/rules.$2.$3"
	return 0
}

verdict() {	# verdict TREE ID [MANIFEST]: the source-tree verdict, without the dry-run step
	m=${3:-$manifest}
	st=$(jq -r --arg id "$2" '.features[] | select(.id == $id) | .status' "$m")
	set_holds "$1" "$2" applicable_if "$m" >/dev/null
	[ $? -eq 1 ] && { echo not-applicable; return; }
	set_holds "$1" "$2" present_if "$m" >/dev/null
	if [ $? -eq 0 ]; then
		[ "$st" = known-bad ] && echo known-bad-present || echo present-upstream
		return
	fi
	set_holds "$1" "$2" bundled_if "$m" >/dev/null
	[ $? -eq 0 ] && { echo bundled-applied; return; }
	[ "$st" = known-bad ] && echo known-bad-absent || echo absent
}

# kv_expect TREE TABLE [MANIFEST]: "id want got" for every feature of the manifest; an id the table
# (lines "id verdict") does not name wants "unlisted", so a feature added without an expectation fails.
kv_expect() {
	m=${3:-$manifest}
	jq -r '.features[].id' "$m" | while read -r id; do
		want=$(awk -v id="$id" '$1 == id { print $2 }' "$2")
		echo "$id ${want:-unlisted} $(verdict "$1" "$id" "$m")"
	done
}

# kv_binary TREE BUNDLE-DIR ARCH OUT: the verdicts of 'kvmbench patches verify -k TREE --json' as
# "id verdict" lines in OUT, its warnings in OUT.warnings; fails when kvmbench does.
kv_binary() {
	"$KVMBENCH" patches verify -k "$1" --bundle "$2" --arch "$3" --json >"$4.json" 2>"$4.err" || return 1
	jq -r '.features[] | "\(.id) \(.verdict)"' "$4.json" >"$4" &&
		jq -r '.warnings[]?' "$4.json" >"$4.warnings"
}

# kv_compare WANT-TABLE GOT-TABLE DIAG: 0 iff both name the same features with the same verdicts.
kv_compare() {
	sort "$1" >"$3.w"
	sort "$2" >"$3.g"
	diff "$3.w" "$3.g" >"$3" 2>&1
}

# A bundle directory like kernel/ whose manifest jq filter $1 changed: $tmp/bundle-$2.
kv_planted_bundle() {
	rm -rf "$tmp/bundle-$2"
	cp -a "$kdir" "$tmp/bundle-$2"
	jq "$1" "$manifest" >"$tmp/bundle-$2/features.json"
}
