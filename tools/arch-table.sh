#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# arch-table.sh: the table of which suites and tests exist on which architecture, made from the
# program itself ('kvmbench list --json --all': each suite's arches and tests), as the README and
# kvmbench-list(1) show it between their "arch-table: begin" and "arch-table: end" lines.
# tests/scripts/arch-table.test fails when either disagrees with the program.
# Usage: tools/arch-table.sh KVMBENCH md|roff     print the table, Markdown or roff
#        tools/arch-table.sh KVMBENCH --update SRCDIR
#                                               write it into SRCDIR's README.md and man/kvmbench-list.1
set -eu
[ $# -ge 2 ] || { echo "usage: $0 KVMBENCH md|roff | KVMBENCH --update SRCDIR" >&2; exit 2; }
kb=$1
command -v jq >/dev/null 2>&1 || { echo "arch-table.sh: jq not found (apt-get install jq)" >&2; exit 1; }

# The suites as 'list --json --all' gives them, every one whatever this build's architecture: each
# suite's name, its architectures and its tests (hidden ones marked; a suite's own "hidden" is
# left out, since list sets it for every suite of another architecture than the build's).
suites() { "$kb" list --json --all; }

md() {
	echo '| suite | x86 | arm64 | tests |'
	echo '|---|---|---|---|'
	suites | jq -r '.[] | "| `\(.name)`" +
		" | \(if (.arches | index("x86")) then "yes" else "no" end)" +
		" | \(if (.arches | index("arm64")) then "yes" else "no" end)" +
		" | \([.tests[] | "`\(.name)`" + (if .hidden then " (hidden)" else "" end)] | join(", ")) |"'
}
roff() {
	suites | jq -r '.[] | ".TP", ".B \(.name | gsub("-"; "\\-"))",
		"\(.arches | join(" and ")): " +
		"\([.tests[] | .name + (if .hidden then " (hidden)" else "" end)] | join(", ") | gsub("-"; "\\-"))"'
}

# replace FILE BEGIN END TABLE-FILE: the lines between the line starting with BEGIN and the one
# starting with END (fixed strings) become the table.
replace() {
	B=$2 E=$3 awk 'index($0, ENVIRON["B"]) == 1 { b++ } index($0, ENVIRON["E"]) == 1 { e++ }
		END { exit !(b == 1 && e == 1) }' "$1" ||
		{ echo "arch-table.sh: $1 needs one '$2' line and one '$3' line" >&2; exit 1; }
	B=$2 E=$3 awk -v t="$4" '
		index($0, ENVIRON["E"]) == 1 { skip = 0 }
		!skip { print }
		index($0, ENVIRON["B"]) == 1 { while ((getline l < t) > 0) print l; skip = 1 }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

case $2 in
md) md ;;
roff) roff ;;
--update)
	[ $# -eq 3 ] || { echo "usage: $0 KVMBENCH --update SRCDIR" >&2; exit 2; }
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	md >"$tmp"
	replace "$3/README.md" '<!-- arch-table: begin' '<!-- arch-table: end' "$tmp"
	roff >"$tmp"
	replace "$3/man/kvmbench-list.1" '.\" arch-table: begin' '.\" arch-table: end' "$tmp" ;;
*) echo "usage: $0 KVMBENCH md|roff | KVMBENCH --update SRCDIR" >&2; exit 2 ;;
esac
