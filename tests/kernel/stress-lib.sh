# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# stress-lib.sh: what stress-patches.sh and its planted test share: the guest's stress command, and the reading of one boot's results into samples and failures (sourced).

# stress_write_cmd FILE TARGET BUDGET RUNS EXEC PLANT ITERS: the guest's command (busybox sh, $TESTBED_OUT = /out).
# Chunk after chunk until TARGET dirty-log samples or BUDGET seconds: one kvmbench run of dirty-log
# get, clear and ring (RUNS samples each of ITERS passes after populate, 2 vCPUs on the same 2 MiB of hugetlb memory, 50 samples per
# VM) and one of execute-perf/hugetlb-2m (EXEC samples), every page's content checked by kvmbench.
# After each chunk, a kvmbench failure or a new WARNING/BUG/Oops in dmesg keeps fail-NNNN/: kvmbench's
# captures (registers and page walk of a failing exit), its table, the kvm tracepoints' ring (with
# kvm_inj_exception: on SVM a SHUTDOWN intercept resets the vCPU before userspace sees it, so the
# exceptions injected before it are what says where the guest was) and
# dmesg.  PLANT=triple adds selftest/triple to the first chunk: a guest triple fault on purpose.
stress_write_cmd() {
	printf 'target=%s\nbudget=%s\nruns=%s\nexec=%s\nplant=%s\niters=%s\n' "$2" "$3" "$4" "$5" "$6" "$7" >"$1"
	cat >>"$1" <<'EOF'
O=$TESTBED_OUT
T=/sys/kernel/tracing
K=/sys/module/kvm/parameters
mount -t tracefs nodev $T 2>/dev/null
echo 4096 >$T/buffer_size_kb
for e in kvmmmu/kvm_mmu_split_huge_page kvm/kvm_page_fault kvmmmu/kvm_mmu_spte_requested kvm/kvm_inj_exception; do
	echo 1 >$T/events/$e/enable || echo "tracepoint $e: cannot enable" >>"$O/notes.txt"
done
echo >$T/trace
for p in nx_huge_pages eager_page_split tdp_mmu; do echo "$p=$(cat $K/$p)"; done >"$O/kvm-params.txt"
now() { cut -d. -f1 /proc/uptime; }
warns() { dmesg | grep -cE "WARNING:|BUG:|Oops"; }
start=$(now)
w0=$(warns)
i=0
dl=0
while [ "$dl" -lt "$target" ] && [ $(($(now) - start)) -lt "$budget" ]; do
	i=$((i + 1))
	c=$(printf %04d $i)
	extra=""
	[ "$plant" = triple ] && [ $i = 1 ] && extra=selftest/triple
	F=$O/fail-$c
	kvmbench run dirty-log/get dirty-log/clear dirty-log/ring $extra --vcpus 2 --overlap --dirty-mem 2M \
		--dirty-backing hugetlb-2m --dirty-iterations "$iters" --samples-per-vm 50 --runs "$runs" --warmup 0 \
		--allow-concurrent -q --capture "$F" --json "$O/dl-$c.json" >"$O/dl-$c.txt" 2>&1
	echo $? >"$O/dl-$c.rc"
	kvmbench run execute-perf/hugetlb-2m --vcpus 2 --overlap --mem 2M --runs "$exec" --warmup 0 \
		--allow-concurrent -q --capture "$F" --json "$O/ex-$c.json" >"$O/ex-$c.txt" 2>&1
	echo $? >"$O/ex-$c.rc"
	n=$(grep -o '"sample_in_vm"' "$O/dl-$c.json" 2>/dev/null | wc -l)
	dl=$((dl + n))
	w=$(warns)
	if [ "$(cat "$O/dl-$c.rc")" != 0 ] || [ "$(cat "$O/ex-$c.rc")" != 0 ] || [ "$w" != "$w0" ]; then
		mkdir -p "$F"
		tail -n 100000 $T/trace | gzip >"$F/trace.txt.gz"
		dmesg >"$F/dmesg.txt"
		cp "$O/dl-$c.txt" "$O/ex-$c.txt" "$F/"
		echo "stress: chunk $i: a failure, kept in fail-$c" >/dev/console
		w0=$w
	else
		rmdir "$F" 2>/dev/null
	fi
	echo >$T/trace
	gzip "$O/dl-$c.json" "$O/ex-$c.json" 2>/dev/null
	echo "stress: chunk $i done, $dl dirty-log samples in $(($(now) - start)) s" >/dev/console
done
echo "$i chunks, $dl dirty-log samples, $(($(now) - start)) s" >"$O/chunks.txt"
dmesg >"$O/dmesg-all.txt"
EOF
}

# stress_read DIR: one boot's results as lines "KIND COUNT WHAT": "samples N suite/test" per test
# and chunk; for dirty-log "huge N" (samples whose memory was mapped by a 2 MiB page when logging was
# enabled) and "splitpath N" (samples whose first pass after the huge page was write-protected took a
# fast page fault on (nearly) every 4 KiB page: the huge page was split, not zapped, as only patch 0002
# does with eager_page_split=N; that is pass 1, or with clear's KVM_DIRTY_LOG_INITIALLY_SET, which
# protects nothing until the first KVM_CLEAR_DIRTY_LOG, pass 2);
# "fail 1 what" per failure (a test not ok, a kvmbench run that did not exit 0 or left
# no result, wrong page content, a kernel WARNING/BUG/Oops), "capture 1 PATH" per kept failure.
stress_read() {
	local d=$1 f j rc c
	for f in "$d"/dl-*.rc "$d"/ex-*.rc; do
		[ -f "$f" ] || continue
		c=${f%.rc}
		rc=$(cat "$f")
		j=$c.json.gz
		[ -f "$j" ] || j=$c.json
		if [ ! -s "$j" ]; then
			echo "fail 1 ${c##*/}: kvmbench exited $rc and left no result"
			continue
		fi
		zcat -f "$j" | jq -r --arg c "${c##*/}" '.tests[] |
			"samples \(.raw | length) \(.suite)/\(.test)",
			(select(.suite == "dirty-log") | (.params.mem_per_vcpu / 4096) as $p |
				"huge \([.raw[] | select((.enable.kvm_stats.vm.pages_2m // 0) >= 1)] | length) \(.suite)/\(.test)",
				(if .params.initially_set then 1 else 0 end) as $k |
				"splitpath \([.raw[] | select((.iterations[$k].dirty.kvm_stats.vcpus.pf_fast // 0) >= $p - 2)] | length) \(.suite)/\(.test)"),
			(select(.status != "ok") | "fail 1 \($c) \(.suite)/\(.test) after \(.raw | length) samples: \(.status): \(.reason // "")"),
			(select((.extra.content.pages_wrong // 0) > 0) |
				"fail 0 \($c) \(.suite)/\(.test): \(.extra.content.pages_wrong) wrong pages, first: \(.extra.content.first)")'
		# A failure kvmbench saw itself has a test not ok; an exit status without one is a failure too.
		if [ "$rc" != 0 ] && ! zcat -f "$j" | jq -e '[.tests[] | select(.status != "ok")] | length > 0' >/dev/null; then
			echo "fail 1 ${c##*/}: kvmbench exited $rc with every test ok"
		fi
	done
	[ -f "$d/dmesg-all.txt" ] && grep -E "WARNING:|BUG:|Oops" "$d/dmesg-all.txt" | sed 's/^/fail 1 dmesg: /'
	for f in "$d"/fail-*; do [ -d "$f" ] && echo "capture 1 $f"; done
	return 0
}

# stress_sum LINES-FILE KIND [WHAT-REGEX]: the sum of the COUNT column of KIND lines (matching WHAT).
stress_sum() {
	awk -v k="$2" -v re="${3:-.}" '$1 == k && substr($0, index($0, $3)) ~ re { s += $2 } END { print s + 0 }' "$1"
}
