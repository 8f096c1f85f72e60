#!/bin/bash
# testbed-ab.sh: A/B of the bundled kernel patches on the real kvm_amd in the QEMU/TCG testbed (TAP, opt-in, ~5 min).
#
# Builds kvm.ko/kvm-amd.ko from Debian's linux-source-6.1 with kernel/patches applied
# (the machines.md section 3 recipe), builds four of the kernel's own KVM selftests
# from the same tree, then boots tests/vm's testbed twice: stock modules and patched
# modules. Checks that the patched modules load and expose their kallsyms evidence,
# that the selftests pass on both (nx_huge_pages_test, dirty_log_test in dirty-log and
# clear-log modes, dirty_log_perf_test on hugetlb, kvm_binary_stats_test), and that
# only the patched kvm splits huge pages on fault (tracepoint kvm_mmu_split_huge_page
# with kvm.eager_page_split=N). Timings under TCG mean nothing and are not checked.
# Does not need the kvmbench binary.
#
# Needs: linux-source-6.1, linux-headers-$KREL, linux-libc-dev, gcc-12, qemu-system-x86, linux-image-amd64,
# busybox-static, cpio, kmod (see tests/vm/README.md); skips what it cannot do.
#   KB_LINUX_SRC=DIR   unpacked pristine linux-source-6.1 (copied, never modified)
#   KB_AB_WORKDIR=DIR  where to build (default: a new directory under /var/tmp; ~2.3 GB)
#   KB_KEEP=1          keep the work directory
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${KB_SRCDIR:-$here/../..}
tarball=${KB_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
n=0
failed=0

ok() {	# ok STATUS DESCRIPTION [DIAG-FILE]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; failed=$((failed + 1))
		[ $# -ge 3 ] && [ -s "$3" ] && tail -n 30 "$3" | sed 's/^/# /'
	fi
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; }

kernel=$(ls /boot/vmlinuz-6.1.0-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || skip_all "no /boot/vmlinuz-6.1.0-*-amd64 (apt-get install linux-image-amd64)"
KREL=${kernel#/boot/vmlinuz-}
H=/usr/src/linux-headers-$KREL
[ -f "$H/.config" ] && [ -f "$H/Module.symvers" ] || skip_all "$H is missing (apt-get install linux-headers-$KREL)"
command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 is missing (see tests/vm/README.md)"
command -v gcc-12 >/dev/null || skip_all "gcc-12 is missing"
[ -n "${KB_LINUX_SRC:-}" ] || [ -r "$tarball" ] || skip_all "$tarball is absent (apt-get install linux-source-6.1)"

work=${KB_AB_WORKDIR:-$(mktemp -d /var/tmp/kb-testbed-ab.XXXXXX)}
mkdir -p "$work" || exit 1
[ "${KB_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT INT TERM
echo "# kernel $KREL, work directory $work"

# ---- build -----------------------------------------------------------------------------------
build() {
	set -e
	cd "$work"
	rm -rf linux-source-6.1
	if [ -n "${KB_LINUX_SRC:-}" ]; then cp -a "$KB_LINUX_SRC" linux-source-6.1
	else tar -xf "$tarball"; fi
	cd linux-source-6.1
	for p in "$top"/kernel/patches/*.patch; do patch -p1 -N -F0 -s --no-backup-if-mismatch -r - <"$p"; done
	cp "$H/.config" .config
	make -s CC=gcc-12 KERNELRELEASE="$KREL" olddefconfig
	cmp .config "$H/.config"
	make -s -j"$(nproc)" CC=gcc-12 KERNELRELEASE="$KREL" modules_prepare
	cp "$H/Module.symvers" .
	make -s -j"$(nproc)" CC=gcc-12 KERNELRELEASE="$KREL" M=arch/x86/kvm modules
	mkdir -p "$work/bin"
	strip --strip-debug -o "$work/bin/kvm.ko" arch/x86/kvm/kvm.ko
	strip --strip-debug -o "$work/bin/kvm-amd.ko" arch/x86/kvm/kvm-amd.ko
}
s=$(date +%s)
(build) >"$work/build.log" 2>&1
ok $? "patched kvm.ko and kvm-amd.ko build for $KREL ($(($(date +%s) - s)) s)" "$work/build.log"

selftests() {
	set -e
	cd "$work/linux-source-6.1"
	# The UAPI headers come from the system (linux-libc-dev, 6.1 on Debian 12): the tree's
	# headers_install would need rsync.
	# Debian's 6.1.192 dirty_log_test uses TEST_ASSERT_EQ, which its test_util.h lacks.
	printf '#ifndef TEST_ASSERT_EQ\n#define TEST_ASSERT_EQ(a, b) TEST_ASSERT((a) == (b), "%%s == %%s", #a, #b)\n#endif\n' \
		>"$work/assert_eq.h"
	cd tools/testing/selftests/kvm
	d=$(pwd)
	make -s CC=gcc-12 LDFLAGS="-static -pthread" EXTRA_CFLAGS="-include $work/assert_eq.h" \
		"$d/x86_64/nx_huge_pages_test" "$d/dirty_log_test" "$d/dirty_log_perf_test" "$d/kvm_binary_stats_test"
	cp x86_64/nx_huge_pages_test dirty_log_test dirty_log_perf_test kvm_binary_stats_test "$work/bin/"
}
(selftests) >"$work/selftests.log" 2>&1
ok $? "KVM selftests (nx_huge_pages_test, dirty_log_test, dirty_log_perf_test, kvm_binary_stats_test) build" \
	"$work/selftests.log"

# ---- the guest's command ---------------------------------------------------------------------
cat >"$work/cmd.sh" <<'EOF'
O=$TESTBED_OUT
run() {	# run NAME PROGRAM ARGS...: output to $O/NAME.txt, last line "rc=N"
	name=$1; shift
	p=$(command -v "$1"); shift
	"$p" "$@" >"$O/$name.txt" 2>&1
	echo "rc=$?" >>"$O/$name.txt"
}
splits() { grep -c "kvm_mmu_split_huge_page:" $T/trace >"$O/$1"; echo >$T/trace; }
grep -wE "kvm_pmu_emulated_event_candidates|tdp_mmu_split_huge_spte_on_fault" /proc/kallsyms >"$O/kallsyms.txt"
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
T=/sys/kernel/tracing
echo 1 >$T/events/kvmmmu/kvm_mmu_split_huge_page/enable
echo >$T/trace
echo 1 >/sys/module/kvm/parameters/nx_huge_pages
echo 1 >/sys/module/kvm/parameters/nx_huge_pages_recovery_ratio
echo 100 >/sys/module/kvm/parameters/nx_huge_pages_recovery_period_ms
run nx nx_huge_pages_test -t 887563923 -p 100 -r
splits nx-splits.txt
echo N >/sys/module/kvm/parameters/eager_page_split
run dirty-log dirty_log_test -M dirty-log -i 3
run clear-log dirty_log_test -M clear-log -i 3
echo >$T/trace
run dirty-perf dirty_log_perf_test -s anonymous_hugetlb -b 32M -i 3
splits dirty-perf-splits.txt
run stats kvm_binary_stats_test
dmesg >"$O/dmesg-all.txt"
EOF

boot() {	# boot NAME [--replace-module FILE]...
	name=$1; shift
	rm -rf "$work/out-$name"
	timeout 900 "$top/tests/vm/run-vm.sh" -o "$work/out-$name" --cpu EPYC-Milan -m 2048 -t 600 \
		--hugepages 64 "$@" \
		-p "$work/bin/nx_huge_pages_test" -p "$work/bin/dirty_log_test" \
		-p "$work/bin/dirty_log_perf_test" -p "$work/bin/kvm_binary_stats_test" \
		--command-file "$work/cmd.sh" >"$work/boot-$name.log" 2>&1
}
passed() { [ -f "$1" ] && [ "$(tail -n 1 "$1")" = "rc=0" ]; }
count() { cat "$1" 2>/dev/null || echo missing; }

for side in stock patched; do
	if [ "$side" = patched ]; then
		boot patched --replace-module "$work/bin/kvm.ko" --replace-module "$work/bin/kvm-amd.ko"
	else
		boot stock
	fi
	ok $? "$side: the testbed boots, loads kvm_amd and runs the selftests" "$work/boot-$side.log"
	o=$work/out-$side
	for t in nx dirty-log clear-log dirty-perf stats; do
		passed "$o/$t.txt"
		ok $? "$side: selftest '$t' passes" "$o/$t.txt"
	done
	if [ "$side" = patched ]; then
		[ "$(grep -c . "$o/kallsyms.txt" 2>/dev/null)" = 2 ]
		ok $? "patched: kallsyms shows kvm_pmu_emulated_event_candidates and tdp_mmu_split_huge_spte_on_fault" \
			"$o/kallsyms.txt"
		c=$(count "$o/dirty-perf-splits.txt")
		[ "$c" != missing ] && [ "$c" -gt 0 ]
		ok $? "patched: dirty logging with eager_page_split=N splits huge pages on fault ($c splits)"
		c=$(count "$o/nx-splits.txt")
		[ "$c" != missing ] && [ "$c" -gt 0 ]
		ok $? "patched: an instruction fetch under nx_huge_pages splits the huge page ($c splits)"
	else
		[ -f "$o/kallsyms.txt" ] && [ ! -s "$o/kallsyms.txt" ]
		ok $? "stock: kallsyms shows neither patch's function" "$o/kallsyms.txt"
		c=$(count "$o/dirty-perf-splits.txt")
		[ "$c" = 0 ]
		ok $? "stock: no huge page is split on fault with eager_page_split=N ($c splits)"
	fi
	grep -E "WARNING:|BUG:|Oops|Call Trace" "$o/dmesg-all.txt" >"$work/warn-$side" 2>/dev/null
	[ -f "$o/dmesg-all.txt" ] && [ ! -s "$work/warn-$side" ]
	ok $? "$side: no WARNING/BUG/Oops in the guest kernel log" "$work/warn-$side"
done

echo "1..$n"
[ "$failed" -eq 0 ]
