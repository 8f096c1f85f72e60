#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cross-arm64-planted.sh: scripts/cross-arm64.sh must fail on what it guards against, planted one at a
# time in the tree it has just built and passed, and made again there (incremental, KB_CROSS_REUSE):
# a compiler warning in the arm64 code, defects the arm64 tests catch under qemu
# (tests/mutants/arm64-variant-ignored.mutant, arch-suite-always-available.mutant), and an x86 suite
# that list or run of the arm64 kvmbench treats as runnable, list --json's arches claiming every
# architecture, and x86's advice for a missing /dev/kvm (scripts/cross-arm64-program.sh).  Each plant
# is removed again.  TAP output; make check-cross-arm64 runs it after cross-arm64.sh.
# Usage: scripts/cross-arm64-planted.sh SRCDIR BUILDDIR   (the two cross-arm64.sh was given)
set -u
[ $# -eq 2 ] || { echo "usage: $0 SRCDIR BUILDDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
build=$2
n=0 failed=0
mutant=$src/tests/mutants/arm64-variant-ignored.mutant
suite_mutant=$src/tests/mutants/arch-suite-always-available.mutant
# plant NAME PATTERN PLANT UNPLANT: PLANT in SRCDIR, then cross-arm64.sh must fail saying PATTERN; UNPLANT
# (a file put back by mv is touched: with its old time make would keep the planted build of it).
plant() {
	name=$1 pattern=$2
	n=$((n + 1))
	if ! (cd "$src" && eval "$3") >"$build/plant-$name.log" 2>&1; then
		echo "not ok $n - $name: planting failed: $(cat "$build/plant-$name.log")"
		failed=$((failed + 1))
		return
	fi
	KB_CROSS_REUSE=1 sh "$here/cross-arm64.sh" "$src" "$build" >"$build/planted-$name.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q "$pattern" "$build/planted-$name.out"; then
		echo "ok $n - $name: cross-arm64.sh fails (exit $rc): $(grep "$pattern" "$build/planted-$name.out" | head -n 1)"
	else
		echo "not ok $n - $name: cross-arm64.sh exit $rc, no '$pattern' in its output"
		failed=$((failed + 1))
	fi
	(cd "$src" && eval "$4") || { echo "not ok $n - $name: cannot remove the plant"; failed=$((failed + 1)); }
}
plant warning "has warnings" \
	'cp src/host/arm64-parts.c arm64-parts.c.orig && printf "static int kb_planted_unused;\n" >>src/host/arm64-parts.c' \
	'mv arm64-parts.c.orig src/host/arm64-parts.c && touch src/host/arm64-parts.c'
plant variant-ignored "make check of the arm64 build failed" "patch -p1 -s -i '$mutant'" "patch -p1 -R -s -i '$mutant'"
# An x86 suite runnable on arm64: the unit test catches the rule broken (tests/unit/suitearch), the
# program checks catch list and run each dropping it.
plant x86-suite-available "make check of the arm64 build failed" "patch -p1 -s -i '$suite_mutant'" \
	"patch -p1 -R -s -i '$suite_mutant'"
plant list-shows-x86-runnable "checks of the arm64 kvmbench failed" \
	'cp src/cli/cmd-list.c cmd-list.c.orig && sed -i "s/kb_json_set_str(js, \"unavailable\", unavailable);/kb_json_set_str(js, \"unavailable\", NULL);/" src/cli/cmd-list.c && ! cmp -s cmd-list.c.orig src/cli/cmd-list.c' \
	'mv cmd-list.c.orig src/cli/cmd-list.c && touch src/cli/cmd-list.c'
plant run-ignores-arch "checks of the arm64 kvmbench failed" \
	'cp src/cli/cmd-run.c cmd-run.c.orig && sed -i "s/const char \*unmet = kb_suite_unavailable(sel->suite) ?/const char *unmet = 0 ?/" src/cli/cmd-run.c && ! cmp -s cmd-run.c.orig src/cli/cmd-run.c' \
	'mv cmd-run.c.orig src/cli/cmd-run.c && touch src/cli/cmd-run.c'
# list --json's arches claiming every architecture for every suite (tests/mutants/list-arches-all.mutant).
plant list-arches-all "checks of the arm64 kvmbench failed" "patch -p1 -s -i '$src/tests/mutants/list-arches-all.mutant'" \
	"patch -p1 -R -s -i '$src/tests/mutants/list-arches-all.mutant'"
# x86's advice for a missing /dev/kvm (load kvm_intel or kvm_amd) given on arm64, where KVM is built in.
plant nokvm-x86-advice "checks of the arm64 kvmbench failed" \
	'cp src/vmm/arch/arm64/backend.c backend.c.orig && sed -i "s/return \"KVM on arm64 needs/return \"load kvm_intel or kvm_amd; KVM on arm64 needs/" src/vmm/arch/arm64/backend.c && ! cmp -s backend.c.orig src/vmm/arch/arm64/backend.c' \
	'mv backend.c.orig src/vmm/arch/arm64/backend.c && touch src/vmm/arch/arm64/backend.c'
# The minimal VMM's guest code between local labels: its GOT references collapse to one, every size 0.
plant minivmm-local-labels "not ok [0-9]* - the minimal arm64 VMM's guest code is linked whole" \
	'cp tools/arch/arm64/minivmm.c minivmm.c.orig && sed -i -e "s/^#define KB_MINI_SYM(name) .*/#define KB_MINI_SYM(name) #name \":\\\\n\"/" -e "s/ __attribute__((visibility(\"hidden\")))//" tools/arch/arm64/minivmm.c && ! cmp -s minivmm.c.orig tools/arch/arm64/minivmm.c' \
	'mv minivmm.c.orig tools/arch/arm64/minivmm.c && touch tools/arch/arm64/minivmm.c'
echo "1..$n"
[ "$failed" -eq 0 ]
