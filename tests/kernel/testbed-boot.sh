# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# testbed-boot.sh: what testbed-ab.sh and testbed-kernels.sh share: the guest's kvmbench command, a watched boot, the per-sample readers (sourced).
#
# The caller sets: top work kvmbench limit guest_limit silence retries bootpid, and n=0 failed=0.

# TAP for the A/B scripts: ok counts points in n and failures in failed; a missing prerequisite
# skips the whole script, or fails it where KB_AB_REQUIRE=1 (CI has every prerequisite).
ok() {	# ok STATUS DESCRIPTION [DIAG-FILE]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; failed=$((failed + 1))
		[ $# -ge 3 ] && [ -s "$3" ] && tail -n 30 "$3" | sed 's/^/# /'
	fi
	return 0
}
diag() { sed 's/^/# /'; }
skip_all() {
	if [ "${KB_AB_REQUIRE:-0}" = 1 ]; then
		echo "not ok 1 - a prerequisite is missing: $1"
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}
need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || skip_all "$1 is missing (apt-get install $2)"
}

# tbk_write_cmd FILE RUNS EXITS: the guest's command (busybox sh, cwd and $TESTBED_OUT = /out).
# The same for every boot.  Each kvmbench run leaves NAME.json, NAME.txt (its table), NAME.rc and
# NAME.splits (kvm_mmu_split_huge_page events: eager splits, and splits on fault); EXITS=1 adds the
# exit suites (cpuid, efer-msr, self-ipi) as "exits".
tbk_write_cmd() {
	printf 'runs=%s\nexits=%s\n' "$2" "$3" >"$1"
	cat >>"$1" <<'EOF'
O=$TESTBED_OUT
K=/sys/module/kvm/parameters
T=/sys/kernel/tracing
bench() {	# bench NAME ARGS...
	name=$1; shift
	echo "testbed-ab: kvmbench run $*" >/dev/console
	kvmbench run "$@" --json "$O/$name.json" >"$O/$name.txt" 2>&1
	echo $? >"$O/$name.rc"
	grep -c "kvm_mmu_split_huge_page:" $T/trace >"$O/$name.splits"
	echo >$T/trace
	echo "kvmbench run $*: exit $(cat "$O/$name.rc"), $(cat "$O/$name.splits") huge page splits traced"
}
grep -wE "kvm_pmu_emulated_event_candidates|tdp_mmu_split_huge_spte_on_fault" /proc/kallsyms >"$O/kallsyms.txt"
kvmbench patches verify --bundle /usr/local/share/kvmbench/kernel --json >"$O/verify.json" 2>"$O/verify.err"
mount -t tracefs nodev $T 2>/dev/null
echo 1 >$T/events/kvmmmu/kvm_mmu_split_huge_page/enable
echo >$T/trace
# The NX huge page mitigation: the first instruction fetch from a huge page needs a 4 KiB mapping.
echo force >$K/nx_huge_pages
# Three separate runs: compare judges a kernel change on their means (one run a side, its rounds too,
# is inconclusive: they do not sample the drift between runs).  The first one's counts are checked.
for n in "" 2 3; do
	bench execute$n execute-perf/hugetlb-2m execute-perf/anon --vcpus 2 --mem 4M --runs $runs --warmup 1
done
echo off >$K/nx_huge_pages
# Dirty logging without eager splitting: the first write to a huge page needs a 4 KiB mapping.
echo N >$K/eager_page_split
bench dirty dirty-log/get --vcpus 2 --dirty-mem 4M --dirty-backing hugetlb-2m --runs $runs --warmup 1
echo Y >$K/eager_page_split
# Every instruction KVM emulates or skips goes through the code patch 0001 changes.  One vCPU: half
# the emulator's work, fewer wedges on a busy host.  Not the three IPI tests between vCPUs: under
# emulation the receiver's wake-up is now and then lost (the sender hangs 10 s), which has nothing
# to do with these patches and makes their counts vary from boot to boot; 'make check-vm' runs them.
if [ "$exits" = 1 ]; then
	ipi=$(kvmbench list | awk '$1 ~ /^self-ipi\// && $1 !~ /^self-ipi\/ipi(_halt|_spin)?$/ { print $1 }')
	bench exits cpuid efer-msr $ipi --vcpus 1 --runs 3 --sample-time 100ms
fi
dmesg >"$O/dmesg-all.txt"
EOF
}

# ---- boots, with one more when the emulated kernel wedged ---------------------------------------
# A boot takes about 40 s.  QEMU 7.2's TCG on a busy host now and then wedges the emulated kernel
# for good (tests/vm/README.md).  The guest prints a heartbeat every 10 s while its command runs
# (the console is copied into the boot's log by --verbose); no heartbeat for $silence s, or no
# command after 120 s, means a wedged kernel: the boot is stopped then rather than at its limit,
# and booted once more.
boot1() {	# boot1 SIDE [RUN-VM ARGS...]: one boot, results in $work/SIDE, log in $work/boot-SIDE.log
	local side=$1 log=$work/boot-$1.log beats last=-1 since rc=0
	shift
	rm -rf "${work:?}/$side" "$work/$side.nobeat"
	"$top/tests/vm/run-vm.sh" -o "$work/$side" --cpu EPYC-Milan --smp 2 -m 2048 -t "$limit" \
		--guest-timeout "$guest_limit" --hugepages 64 "$@" --verbose \
		-p "$kvmbench" --file "$top/kernel:/usr/local/share/kvmbench/kernel" \
		--command-file "$work/cmd.sh" >"$log" 2>&1 &
	bootpid=$!
	since=$(date +%s)
	while kill -0 "$bootpid" 2>/dev/null; do
		sleep 2
		if ! grep -aq '^testbed: running command' "$log"; then
			# Booting and loading the modules takes under 10 s.
			[ $(($(date +%s) - since)) -ge 120 ] || continue
			echo "the guest did not reach its command in 120 s" >"$work/$side.nobeat"
			kill -TERM "$bootpid" 2>/dev/null
			break
		fi
		grep -aq '^testbed: command exit status' "$log" && continue
		beats=$(grep -ac '^testbed: alive at' "$log")
		if [ "$beats" != "$last" ]; then
			last=$beats
			since=$(date +%s)
		elif [ $(($(date +%s) - since)) -ge "$silence" ]; then
			echo "no heartbeat from the guest for $silence s (after $beats)" >"$work/$side.nobeat"
			kill -TERM "$bootpid" 2>/dev/null
			break
		fi
	done
	wait "$bootpid" || rc=$?
	bootpid=""
	return "$rc"
}
wedged() {	# wedged SIDE: why the boot's emulated kernel wedged; fails if it did not
	local c=$work/boot-$1.log
	if [ -f "$work/$1.nobeat" ]; then
		cat "$work/$1.nobeat"
	elif tb_console_stalled "$c"; then
		echo "soft lockups or RCU stalls on its console"
	else
		return 1
	fi
}
boot() {	# boot SIDE [RUN-VM ARGS...]: the exit status of run-vm.sh (0: the command ran and exited 0)
	local side=$1 rc=0 why
	rm -rf "$work/$side.wedged"
	boot1 "$@" || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "${TESTBED_RETRY:-1}" != 0 ] && why=$(wedged "$side"); then
		grep -a '^run-vm.sh:\|^testbed' "$work/boot-$side.log" | tr -d '\r' | tail -n 8 | diag
		echo "# $side: the emulated kernel wedged ($why): booting once more"
		retries="$retries $side"
		mv "$work/$side" "$work/$side.wedged"
		mv "$work/boot-$side.log" "$work/boot-$side.wedged.log"
		rc=0
		boot1 "$@" || rc=$?
		if [ "$rc" != 0 ] && [ "$rc" != 1 ] && why=$(wedged "$side"); then
			grep -a '^run-vm.sh:\|^testbed' "$work/boot-$side.log" | tr -d '\r' | tail -n 8 | diag
			echo "# $side: the emulated kernel wedged again ($why): giving up (is the host overloaded?)"
		fi
	fi
	return "$rc"
}

# vals FILE SUITE TEST JQ-PATH: the value per measured sample (0 when KVM did not report it).
vals() {
	jq -r --arg s "$2" --arg t "$3" ".tests[] | select(.suite == \$s and .test == \$t) |
		[.raw[] | ($4 // 0) | tostring] | join(\" \")" "$1" 2>/dev/null
}
# all_ge LIST N, all_le LIST N: LIST has values, and every one is >= N (<= N).
all_ge() { local v k=0; for v in $1; do [ "$v" -ge "$2" ] || return 1; k=$((k + 1)); done; [ "$k" -gt 0 ]; }
all_le() { local v k=0; for v in $1; do [ "$v" -le "$2" ] || return 1; k=$((k + 1)); done; [ "$k" -gt 0 ]; }

# mmu_counts A B LA LB: the counts emulation leaves exact, A the side without split-on-fault (stock
# 6.1), B the side with it (6.1 with patch 0002, or 6.12), one TAP point each (the caller's ok(),
# $runs measured samples a side): the hugetlb memory mapped by 2 MiB pages; with NX huge pages, A
# zaps the huge page and faults every 4 KiB page in, B splits it (one fault per huge page, no
# remote TLB flush); dirty logging with eager_page_split=N, the first pass: A zaps each write-
# protected huge page on its first write and takes the slow path, B splits it into write-protected
# 4 KiB SPTEs that the fast path makes writable; and the split tracepoint fires on B only.
mmu_counts() {
	local A=$1 B=$2 la=$3 lb=$4 pages huge a b c d t
	pages=$(jq -r '.tests[] | select(.test == "hugetlb-2m") | .params.pages_per_vcpu * .vcpus' "$A/execute.json")
	pages=${pages:-0}
	huge=$((pages / 512))
	echo "# test memory: $pages pages of 4 KiB = $huge pages of 2 MiB; per measured sample ($runs):"
	a=$(vals "$A/execute.json" execute-perf hugetlb-2m .populate.kvm_stats.vm.pages_2m)
	b=$(vals "$B/execute.json" execute-perf hugetlb-2m .populate.kvm_stats.vm.pages_2m)
	c=$(vals "$A/dirty.json" dirty-log get .enable.kvm_stats.vm.pages_2m)
	d=$(vals "$B/dirty.json" dirty-log get .enable.kvm_stats.vm.pages_2m)
	all_ge "$a" "$huge" && all_ge "$b" "$huge" && all_ge "$c" "$huge" && all_ge "$d" "$huge"
	ok $? "hugetlb-2m memory is mapped by 2 MiB pages (pages_2m after populate: $la $a, $lb $b; after enabling dirty logging: $la $c, $lb $d)"
	a=$(vals "$A/execute.json" execute-perf hugetlb-2m .execute.kvm_stats.vcpus.pf_taken)
	b=$(vals "$B/execute.json" execute-perf hugetlb-2m .execute.kvm_stats.vcpus.pf_taken)
	all_ge "$a" "$pages" && all_le "$b" $((2 * huge))
	ok $? "execute-perf/hugetlb-2m, nx_huge_pages=force: execute-phase page faults $la $a (one per 4 KiB page, >= $pages), $lb $b (one per 2 MiB page, <= $((2 * huge)))"
	a=$(vals "$A/execute.json" execute-perf hugetlb-2m .execute.kvm_stats.vm.remote_tlb_flush_requests)
	b=$(vals "$B/execute.json" execute-perf hugetlb-2m .execute.kvm_stats.vm.remote_tlb_flush_requests)
	all_ge "$a" 1 && all_le "$b" 0
	ok $? "execute-perf/hugetlb-2m: remote TLB flushes requested in the execute phase $la $a (zaps), $lb $b (splits need none)"
	a=$(vals "$A/execute.json" execute-perf anon .execute.kvm_stats.vcpus.pf_taken)
	b=$(vals "$B/execute.json" execute-perf anon .execute.kvm_stats.vcpus.pf_taken)
	all_le "$a" 0 && all_le "$b" 0
	ok $? "execute-perf/anon (control, 4 KiB pages): no execute-phase page faults on either side ($la $a, $lb $b)"
	a=$(vals "$A/dirty.json" dirty-log get '.iterations[0].dirty.kvm_stats.vcpus.pf_fast')
	b=$(vals "$B/dirty.json" dirty-log get '.iterations[0].dirty.kvm_stats.vcpus.pf_fast')
	all_le "$a" "$huge" && all_ge "$b" $((pages - 2 * huge))
	ok $? "dirty-log/get, eager_page_split=N: fast page faults in iteration 1 $la $a (<= $huge), $lb $b (>= $((pages - 2 * huge)))"
	a=$(vals "$A/dirty.json" dirty-log get '.iterations[0].dirty.kvm_stats.vm.remote_tlb_flush_requests')
	b=$(vals "$B/dirty.json" dirty-log get '.iterations[0].dirty.kvm_stats.vm.remote_tlb_flush_requests')
	all_ge "$a" 1 && all_le "$b" 0
	ok $? "dirty-log/get: remote TLB flushes requested in iteration 1 $la $a (zaps), $lb $b"
	for t in execute dirty; do
		a=$(cat "$A/$t.splits")
		b=$(cat "$B/$t.splits")
		[ "$a" = 0 ] && [ "$b" -ge $((huge * runs)) ]
		ok $? "kvm_mmu_split_huge_page events during the $t run: $la $a, $lb $b (>= $huge per sample)"
	done
}

