#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stress-patches.sh: does the bundled split-on-fault patch (kernel/patches/0002) corrupt guest memory?
# A stress run in the QEMU/TCG testbed, patched kvm modules against stock ones (TAP; 'make stress-patches').
#
# Both sides boot tests/vm's testbed (EPYC-Milan, 2 CPUs, real kvm_amd) with kvm.nx_huge_pages=force and
# kvm.eager_page_split=N, the side's modules (patched: testbed-modules.sh's cache), side by side at the
# same time, in every mode: TCG single- and multi-threaded, host unloaded and loaded (busy loops beside
# QEMU, at nice 19).  In each boot the guest runs chunk after chunk (stress-lib.sh): dirty-log get,
# clear and ring and execute-perf/hugetlb-2m, 2 vCPUs on the same 2 MiB hugetlb page (--overlap),
# every page's content checked by guest and host; a failing exit is captured by kvmbench --capture
# (registers, page walk), and with it the kvm tracepoints' ring (kvm_mmu_split_huge_page,
# kvm_page_fault, kvm_mmu_spte_requested) and dmesg.  Everything stays in the results directory,
# whose path is printed first and last.
#
#   KB_STRESS_SAMPLES=N    dirty-log samples a side, over all modes (default 13000)
#   KB_STRESS_TIME=SEC     the most the boots may take, over all modes (default 5400)
#   KB_STRESS_MODES=LIST   of single/unloaded single/loaded multi/unloaded multi/loaded (default: all four)
#   KB_STRESS_SIDES=LIST   patched and/or stock (default: both)
#   KB_STRESS_BOOT=SEC     the longest one boot's guest command runs (default 480)
#   KB_STRESS_RUNS=N       dirty-log samples per test and chunk (default 100)
#   KB_STRESS_EXEC=N       execute-perf samples per chunk (default 10)
#   KB_STRESS_ITERATIONS=N dirty-log passes per sample after populate (default 2: get and ring split the
#                          huge page in pass 1, clear (KVM_DIRTY_LOG_INITIALLY_SET) in pass 2)
#   KB_STRESS_LOAD=N       busy loops in the loaded modes (default: the host's CPUs)
#   KB_STRESS_PLANT=triple a planted guest triple fault in each boot's first chunk: shows the capture
#   KB_STRESS_RESULTS=DIR  the results directory (default /var/tmp/kb-stress-patches-DATE)
#   KB_STRESS_REPLAY=DIR   judge the boots kept in an earlier results directory again, without booting
#   KVMBENCH, KB_AB_CACHE, KB_LINUX_SRC, KB_AB_REQUIRE as for testbed-ab.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${KB_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=../vm/testbed-lib.sh
. "$top/tests/vm/testbed-lib.sh"
# shellcheck source=testbed-boot.sh
. "$top/tests/kernel/testbed-boot.sh"
# shellcheck source=testbed-modules.sh
. "$top/tests/kernel/testbed-modules.sh"
# shellcheck source=stress-lib.sh
. "$top/tests/kernel/stress-lib.sh"
tarball=${KB_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
kvmbench=${KVMBENCH:-$PWD/kvmbench}
n=0
failed=0

bad() { echo "stress-patches.sh: $1" >&2; exit 2; }
num() {	# num NAME VALUE MIN: VALUE is a whole number >= MIN, or exit 2 naming NAME
	case $2 in '' | *[!0-9]*) bad "$1=$2: not a whole number" ;; esac
	[ "$2" -ge "$3" ] || bad "$1=$2: at least $3"
}
target=${KB_STRESS_SAMPLES:-13000}
total=${KB_STRESS_TIME:-5400}
modes=${KB_STRESS_MODES:-single/unloaded single/loaded multi/unloaded multi/loaded}
sides=${KB_STRESS_SIDES:-patched stock}
boot_max=${KB_STRESS_BOOT:-480}
runs=${KB_STRESS_RUNS:-100}
exec_runs=${KB_STRESS_EXEC:-10}
iters=${KB_STRESS_ITERATIONS:-2}
load=${KB_STRESS_LOAD:-$(nproc)}
plant=${KB_STRESS_PLANT:-}
num KB_STRESS_SAMPLES "$target" 1
num KB_STRESS_TIME "$total" 60
num KB_STRESS_BOOT "$boot_max" 30
num KB_STRESS_RUNS "$runs" 1
num KB_STRESS_EXEC "$exec_runs" 1
num KB_STRESS_ITERATIONS "$iters" 2
num KB_STRESS_LOAD "$load" 0
for m in $modes; do
	case $m in single/unloaded | single/loaded | multi/unloaded | multi/loaded) ;;
	*) bad "KB_STRESS_MODES: '$m' is not single/unloaded, single/loaded, multi/unloaded or multi/loaded" ;; esac
done
[ -n "$modes" ] || bad "KB_STRESS_MODES is empty"
for s in $sides; do case $s in patched | stock) ;; *) bad "KB_STRESS_SIDES: '$s' is not patched or stock" ;; esac; done
[ -n "$sides" ] || bad "KB_STRESS_SIDES is empty"
case $plant in '' | triple) ;; *) bad "KB_STRESS_PLANT=$plant: only 'triple' can be planted" ;; esac

replay=${KB_STRESS_REPLAY:-}
if [ -n "$replay" ]; then
	[ -d "$replay" ] || bad "KB_STRESS_REPLAY=$replay: not a directory"
	need jq jq
else
	tbk_prerequisites
fi
work=${KB_STRESS_RESULTS:-/var/tmp/kb-stress-patches-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$work" || bad "KB_STRESS_RESULTS=$work: cannot create it"
[ -z "$(ls -A "$work" 2>/dev/null)" ] || bad "KB_STRESS_RESULTS=$work: not empty (results are never overwritten)"
echo "# results directory: $work"
loadpids=""
bootpids=""
cleanup() {
	# Only what this script started, by id: the busy loops and the boots (run-vm.sh stops its QEMU).
	for p in $loadpids $bootpids; do kill -TERM "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
t0=$(date +%s)

if [ -n "$replay" ]; then
	# The boots' results of an earlier run, judged again without booting (stress-planted.test).
	cp -r "$replay"/. "$work/"
	echo "# replaying $replay"
else
	tbk_patched_modules
	[ "$failed" -eq 0 ] || { echo "1..$n"; exit 1; }
fi
echo "# kernel ${KREL:-(replay)}, kvmbench $kvmbench; a side's target: $target dirty-log samples over $(echo $modes | wc -w) modes, in at most $total s"

# ---- the boots: per mode, both sides at once, until the mode has its share or its time ----------
nmodes=$(echo $modes | wc -w)
share=$(((target + nmodes - 1) / nmodes))
mode_time=$((total / nmodes))
# The guest's chunk is timed inside; the boot adds ~40 s, the last chunk up to a few minutes.
silence=60
retries=""
export TESTBED_RETRY=0
busy_start() {
	local i
	for i in $(seq 1 "$1"); do
		nice -n 19 sh -c 'while :; do :; done' &
		loadpids="$loadpids $!"
	done
}
busy_stop() {
	for p in $loadpids; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	loadpids=""
}
side_args() {	# side_args SIDE TCG: run-vm.sh's arguments for the side
	echo --tcg-thread "$2" --param kvm.nx_huge_pages=force --param kvm.eager_page_split=N
	[ "$1" = patched ] && echo --replace-module "$mods/kvm.ko" --replace-module "$mods/kvm-amd.ko"
}
declare -A got
read_boot() {	# read_boot SIDE MODE NAME: count boot NAME's samples into got[SIDE/MODE], and say what it brought
	local s=$1 m=$2 name=$3 c e f why=""
	stress_read "$work/$name" >"$work/$name.lines"
	c=$(stress_sum "$work/$name.lines" samples 'dirty-log/')
	e=$(stress_sum "$work/$name.lines" samples 'execute-perf/')
	f=$(stress_sum "$work/$name.lines" fail)
	got[$s/$m]=$((got[$s/$m] + c))
	if [ ! -f "$work/$name/chunks.txt" ]; then
		why=$(wedged "$name" 2>/dev/null) && why="the emulated kernel wedged ($why)" || why="no result came back"
		why="; $why: $(grep -a '^run-vm.sh:' "$work/boot-$name.log" 2>/dev/null | grep -v booting | tail -n 1)"
	fi
	echo "# $name: $c dirty-log and $e execute-perf samples, $f failures ($(cat "$work/$name/chunks.txt" 2>/dev/null ||
		echo "no chunk count"))$why; ${got[$s/$m]} of $share in this mode"
	grep '^fail\|^capture' "$work/$name.lines" | sed 's/^/#   /'
}
for m in $modes; do for s in $sides; do got[$s/$m]=0; done; done
for m in $modes; do
	tcg=${m%/*}
	mload=${m#*/}
	m0=$(date +%s)
	k=0
	if [ -n "$replay" ]; then
		for s in $sides; do
			for d in "$work/$s-$tcg-$mload"-*/; do [ -d "$d" ] && read_boot "$s" "$m" "$(basename "$d")"; done
		done
		continue
	fi
	while :; do
		short=0
		for s in $sides; do [ "${got[$s/$m]}" -ge "$share" ] || short=1; done
		left=$((mode_time - ($(date +%s) - m0)))
		[ "$short" = 1 ] && [ "$left" -ge 90 ] || break
		k=$((k + 1))
		budget=$((left - 60 < boot_max ? left - 60 : boot_max))
		need_n=0
		for s in $sides; do [ $((share - got[$s/$m])) -gt "$need_n" ] && need_n=$((share - got[$s/$m])); done
		stress_write_cmd "$work/cmd.sh" "$need_n" "$budget" "$runs" "$exec_runs" "$plant" "$iters"
		# The guest command's own limit, then the boot's: the last chunk may take a few minutes.
		guest_limit=$((budget + 240))
		limit=$((guest_limit + 120))
		[ "$mload" = loaded ] && busy_start "$load"
		bootpids=""
		for s in $sides; do
			name=$s-${tcg}-${mload}-$k
			# shellcheck disable=SC2046
			# At nice 10 (QEMU and all), beside the other work on the host.
			(renice -n 10 -p "$BASHPID" >/dev/null; boot "$name" --kernel "$kernel" $(side_args "$s" "$tcg")) &
			bootpids="$bootpids $!"
		done
		for p in $bootpids; do wait "$p"; done
		bootpids=""
		busy_stop
		for s in $sides; do read_boot "$s" "$m" "$s-$tcg-$mload-$k"; done
	done
done
t_boot=$(date +%s)

# ---- the verdict per side -------------------------------------------------------------------------
cat "$work"/*.lines >"$work/all.lines" 2>/dev/null
for s in $sides; do
	cat "$work/$s"-*.lines >"$work/$s.all" 2>/dev/null || : >"$work/$s.all"
	dl=$(stress_sum "$work/$s.all" samples 'dirty-log/')
	per=""
	for t in get clear ring; do per="$per $t $(stress_sum "$work/$s.all" samples "dirty-log/$t\$")"; done
	modes_s=""
	for m in $modes; do modes_s="$modes_s $m ${got[$s/$m]};"; done
	ex=$(stress_sum "$work/$s.all" samples 'execute-perf/')
	hp=$(stress_sum "$work/$s.all" huge)
	# get and ring: pass 1 faults on the write-protected huge page; clear's counts are only reported.
	gr=$(stress_sum "$work/$s.all" samples 'dirty-log/(get|ring)$')
	sp=$(stress_sum "$work/$s.all" splitpath 'dirty-log/(get|ring)$')
	spc=$(stress_sum "$work/$s.all" splitpath 'dirty-log/clear$')
	f=$(stress_sum "$work/$s.all" fail)
	pl=$(stress_sum "$work/$s.all" samples 'selftest/triple')
	boots=$(ls -d "$work/$s"-*/ 2>/dev/null | wc -l)
	lost=$(for d in "$work/$s"-*/; do [ -f "$d/chunks.txt" ] || echo "$d"; done | wc -l)
	echo "# $s: $dl dirty-log samples ($per;$modes_s), $ex execute-perf samples, $boots boots ($lost brought nothing back), $f failures"
	echo "# $s: of the dirty-log samples, $hp had their memory mapped by a 2 MiB page when logging was enabled; of get's and ring's $gr, $sp split it on the first write (a fast page fault on every 4 KiB page); of clear's, $spc in pass 2"
	[ "$dl" -ge "$target" ]
	ok $? "$s: at least $target dirty-log samples ($dl)"
	# What the samples exercised: a huge page under dirty logging in each, split on fault on the patched side only.
	if [ "$s" = patched ]; then [ "$hp" = "$dl" ] && [ "$sp" = "$gr" ]; else [ "$hp" = "$dl" ] && [ "$sp" = 0 ]; fi
	ok $? "$s: every dirty-log sample had a 2 MiB page when logging began ($hp of $dl); get and ring $([ "$s" = patched ] && echo "split it on the first write in every sample" || echo "never took the split path") ($sp of $gr)"
	if [ -n "$plant" ]; then
		# The planted triple faults must be failures, each captured with registers, the page walk (or, on
		# SVM, which resets the vCPU at a SHUTDOWN intercept, the exceptions KVM injected before it),
		# the tracepoints' ring and dmesg.
		caps=$(grep -c '^capture' "$work/$s.all")
		good=0
		for d in $(awk '$1 == "capture" { print $3 }' "$work/$s.all"); do
			grep -qs '^KVM_GET_REGS:' "$d"/capture-*.txt && grep -qs '^KVM_GET_SREGS:' "$d"/capture-*.txt &&
				{ grep -qs '^walk of RIP' "$d"/capture-*.txt || zcat "$d/trace.txt.gz" | grep -q 'kvm_inj_exception:'; } &&
				zcat "$d/trace.txt.gz" | grep -q 'kvm_page_fault:' && [ -s "$d/dmesg.txt" ] && good=$((good + 1))
		done
		[ "$caps" -ge 1 ] && [ "$good" = "$caps" ] && grep -q 'selftest/triple.*triple fault' "$work/$s.all"
		ok $? "$s: the planted triple faults failed and were captured ($good of $caps with registers, page walk or injected exceptions, trace and dmesg)"
	fi
	# Every failure but the planted ones counts.
	planted='^$'
	[ -n "$plant" ] && planted=' selftest/triple after '
	f=$(grep '^fail' "$work/$s.all" | grep -v -- "$planted" | awk '{ s += $2 } END { print s + 0 }')
	[ "$f" = 0 ]
	ok $? "$s: no failure (triple fault, wrong page content, kvmbench error, kernel WARNING/BUG) in $dl dirty-log and $ex execute-perf samples${plant:+ (the planted ones aside)}"
done
t_end=$(date +%s)
echo "# time: $((t_boot - t0)) s boots, $((t_end - t0)) s in all; results in $work"
echo "1..$n"
[ "$failed" -eq 0 ]
