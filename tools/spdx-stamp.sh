#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# spdx-stamp.sh: put an SPDX-License-Identifier line into every tracked source file that lacks
# one (--check: only say which files lack one or carry a licence not allowed in their folder).
#   tools/spdx-stamp.sh [--check] [-C DIR] [FILE...]   (default: every file git ls-files lists in DIR)
# Exit 0 when every file is (now) stamped right, 1 when one is not, 2 on bad usage.
#
# The rules, one per file kind (the first that matches wins):
#   exempt      data and formats that have no comments; their licence is in debian/copyright:
#               COPYING, m4/.keep, debian/{changelog,control,copyright,source/format}, *.json, *.tsv,
#               tests/testdata/* (other projects' fixtures, their own licences) except README.md,
#               tests/fuzz/seeds/* and tests/fuzz/regressions/* (fuzzer inputs, byte for byte),
#               tests/kernel/testdata/*, tests/vm/testdata/*, tests/vm-arm64/testdata/*, tests/reports/* (results measured here, kept as
#               they came back)
#   patch       kernel/patches/*.patch: GPL-2.0 (or GPL-2.0-only), as the kernel; the line goes
#               after the Kvmbench-Patch header block (whose fields are fixed, kernel/README.md),
#               first in the free text, which git apply and patch skip
#   c           *.c *.h *.S *.ld *.js *.css: /* ... */ on line 1
#   roff        *.1 *.5: .\" ... on line 1
#   markdown    *.md: <!-- ... --> on line 1
#   m4          configure.ac *.m4: dnl ... on line 1 (autoconf input)
#   hash        shell (*.sh *.test .ci/run, any file starting with #!), Makefile.am,
#               *.py *.bash *.mutant *.spec *.toml *.awk *.yml *.yaml ansible.cfg .gitignore .shellcheckrc debian/rules,
#               debian/*.lintian-overrides, tests/allowed-skips: # ... on line 1, or 2 after #!
# Everything else is an error: a new kind of file needs a rule here first.
# Every file but the patches is GPL-2.0-or-later.
set -eu

check=0
dir=.
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1; shift ;;
	-C) [ $# -ge 2 ] || { echo "spdx-stamp.sh: -C needs a directory" >&2; exit 2; }; dir=$2; shift 2 ;;
	-h | --help) sed -n 's/^#   //p' "$0"; exit 0 ;;
	-*) echo "spdx-stamp.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -d "$dir" ] || { echo "spdx-stamp.sh: -C $dir: not a directory" >&2; exit 2; }
cd "$dir"
if [ $# -eq 0 ]; then
	git rev-parse --git-dir >/dev/null 2>&1 ||
		{ echo "spdx-stamp.sh: $dir is not a git checkout: name the files" >&2; exit 2; }
	set -f
	# shellcheck disable=SC2046  # one word per file: no tracked name has a blank
	set -- $(git ls-files)
	set +f
fi

# kind FILE: exempt, patch, c, roff, markdown, m4, hash or unknown.
kind() {
	case $1 in
	COPYING | m4/.keep | debian/changelog | debian/control | debian/copyright | debian/source/format | *.json | *.tsv)
		echo exempt; return ;;
	tests/testdata/README.md) echo markdown; return ;;
	tests/testdata/* | tests/fuzz/seeds/* | tests/fuzz/regressions/*) echo exempt; return ;;
	tests/kernel/testdata/* | tests/vm/testdata/* | tests/vm-arm64/testdata/* | tests/reports/*) echo exempt; return ;;
	kernel/patches/*.patch) echo patch; return ;;
	*.c | *.h | *.S | *.ld | *.js | *.css) echo c; return ;;
	*.1 | *.5) echo roff; return ;;
	*.md) echo markdown; return ;;
	configure.ac | *.m4) echo m4; return ;;
	*.sh | *.test | .ci/run | Makefile.am | *.py | *.bash | *.mutant | *.spec | *.toml | *.awk | \
	*.yml | *.yaml | */ansible.cfg | \
	.gitignore | */.shellcheckrc | debian/rules | debian/*.lintian-overrides | tests/allowed-skips)
		echo hash; return ;;
	esac
	if [ -f "$1" ] && [ "$(head -c 2 "$1")" = '#!' ]; then echo hash; else echo unknown; fi
}

# licence FILE: the licence a file of that folder carries.
licence() {
	case $1 in
	kernel/patches/*.patch) echo GPL-2.0 ;;
	*) echo GPL-2.0-or-later ;;
	esac
}

# allowed FILE ID: is ID a licence allowed for the file's folder?
allowed() {
	case $1 in
	kernel/patches/*.patch) [ "$2" = GPL-2.0 ] || [ "$2" = GPL-2.0-only ] ;;
	*) [ "$2" = GPL-2.0-or-later ] ;;
	esac
}

# found FILE KIND: the identifier where the rule puts it (empty when there is none).
found() {
	if [ "$2" = patch ]; then
		# The free text: after the header block's empty line, before the first diff line.
		awk 'NF == 0 && !body { body = 1; next } /^diff --git / { exit }
		     body && /SPDX-License-Identifier:/ { sub(/.*SPDX-License-Identifier: */, ""); print $1; exit }' "$1"
	else
		head -n 2 "$1" | sed -n 's/.*SPDX-License-Identifier: *\([^ ]*[^ >*/]\).*/\1/p' | head -n 1
	fi
}

# stamp FILE KIND: write the identifier in (the file keeps its inode and mode).
stamp() {
	id=$(licence "$1")
	tmp=$(mktemp)
	case $2 in
	patch) awk -v id="$id" '{ print } NF == 0 && !done { print "SPDX-License-Identifier: " id; print ""; done = 1 }' "$1" >"$tmp" ;;
	c) { echo "/* SPDX-License-Identifier: $id */"; cat "$1"; } >"$tmp" ;;
	roff) { echo ".\\\" SPDX-License-Identifier: $id"; cat "$1"; } >"$tmp" ;;
	markdown) { echo "<!-- SPDX-License-Identifier: $id -->"; cat "$1"; } >"$tmp" ;;
	m4) { echo "dnl SPDX-License-Identifier: $id"; cat "$1"; } >"$tmp" ;;
	hash) awk -v id="$id" 'NR == 1 && /^#!/ { print; print "# SPDX-License-Identifier: " id; next }
			       NR == 1 { print "# SPDX-License-Identifier: " id } { print }' "$1" >"$tmp" ;;
	esac
	cat "$tmp" >"$1"
	rm -f "$tmp"
}

status=0
for f; do
	[ -f "$f" ] || [ ! -e "$f" ] || continue	# a submodule or the like
	[ -e "$f" ] || { echo "$f: no such file" >&2; status=1; continue; }
	k=$(kind "$f")
	case $k in
	exempt) continue ;;
	unknown) echo "$f: no SPDX rule for this kind of file (add one to tools/spdx-stamp.sh)"; status=1; continue ;;
	esac
	id=$(found "$f" "$k")
	if [ -z "$id" ]; then
		if [ "$check" -eq 1 ]; then
			echo "$f: no SPDX-License-Identifier ($k file; expected $(licence "$f"))"
			status=1
		else
			stamp "$f" "$k"
			echo "stamped $f ($(licence "$f"))"
		fi
	elif ! allowed "$f" "$id"; then
		echo "$f: SPDX-License-Identifier is $id; files there are $(licence "$f")"
		status=1
	fi
done
exit $status
