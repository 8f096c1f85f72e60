# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# command.sh: what make check-vm-arm64 runs inside the emulated arm64 host (busybox sh, cwd and
# $TESTBED_OUT = /out; everything left there comes back).  The minimal VMM first (it proves KVM runs a
# guest here), then kvmbench: info, list, a default run, the guest-side suite; each step's exit status
# in STEP.rc and its times (guest uptime, s) in steps.txt.  The host judges it all (testbed-check.sh).
# Samples per test and their length: kbtb.runs=N and kbtb.sample=TIME on the kernel command line
# (run-vm.sh --append), else 5 of 500 ms: micro-bench's ipi, lpi and timer_10ms take tens of
# microseconds to milliseconds an iteration under TCG, and a sample must hold enough of them for its
# exit counts to be judged (testbed-arm64.test passes the same by default).
out=${TESTBED_OUT:-/out}
runs=5
sample=500ms
for word in $(cat /proc/cmdline); do
	case $word in
	kbtb.runs=*) runs=${word#kbtb.runs=} ;;
	kbtb.sample=*) sample=${word#kbtb.sample=} ;;
	esac
done
: >"$out/steps.txt"

# step NAME COMMAND...: run it with stdout in NAME.out, stderr in NAME.err, status in NAME.rc.
step() {
	name=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" >"$out/$name.out" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "$name $t0 $t1" >>"$out/steps.txt"
	# Progress on the console, for a run that does not finish in time.
	echo "testbed: step $name: exit $(cat "$out/$name.rc"), $t0-$t1 s" >/dev/console
	[ "$(cat "$out/$name.rc")" = 0 ] || tail -n 3 "$out/$name.err" | sed "s/^/testbed: $name: /" >/dev/console
}

# micro-bench's hvc loop in the smallest VMM: 500 HVCs a run, 5 runs, each KVM_RUN bounded to 60 s
# (an HVC exit of the emulated host takes milliseconds under TCG on a loaded machine).
step minivmm-hvc minivmm hvc 500 5 60
step version kvmbench --version
step info kvmbench info
step info-json kvmbench info --json
step list kvmbench list
step list-json kvmbench list --json
# What info reads the host's GIC from (src/host/arm64-gic.c), kept as the data of its tests
# (tests/unit/testdata/arm64-gic/): /proc/interrupts, and each device-tree node's compatible list
# ("PATH<tab>STRING|STRING|", the NULs as '|').
step interrupts cat /proc/interrupts
step dt-compatible sh -c 'for f in $(find /proc/device-tree/ -maxdepth 3 -name compatible | sort); do
	printf "%s\t" "${f#/proc/device-tree}"; tr "\000" "|" <"$f"; echo; done'
# The kernel features of the running arm64 kernel, by the manifest's running-kernel rules (kallsyms,
# version, KVM stats): the bundle testbed-arm64.test put in the initramfs.
step patches-verify kvmbench patches verify --json --bundle /usr/local/share/kvmbench/kernel
# 2 MiB hugetlb pages for execute-perf/hugetlb-2m: 2 vCPUs of 8 MiB (its default --mem), and 4 to spare.
echo 20 >/proc/sys/vm/nr_hugepages
# The default run: the host suites that exist on arm64 (skipped with the reason otherwise) and, this
# machine being a VM, the guest-side suite.
step run kvmbench run --json "$out/result.json" -q --runs "$runs" --sample-time "$sample" \
	--hackbench-loops 5 --hackbench-fds 4
# Guest-side tests named, as a user selects them: one that runs on arm64, one that is x86's.
step guest kvmbench run guest/nop guest/cpuid --json "$out/guest.json" -q --runs "$runs" --sample-time "$sample"
# compare and report read the arm64 result like any other.
step compare kvmbench compare "$out/result.json" "$out/result.json"
step report kvmbench report -f html -o "$out/report.html" "$out/result.json"
# The builds with a defect planted (build-planted.sh; tests/vm-arm64/planted/): each runs the test whose
# checks must catch it, and testbed-check.sh holds them to that.
if [ -x /usr/local/bin/kvmbench-planted-execute-without-call ]; then
	step planted-execute-without-call kvmbench-planted-execute-without-call run execute-perf/anon \
		--json "$out/planted-execute-without-call.json" -q --runs 2 --sample-time "$sample"
fi
# Once kvmbench has micro-bench's hvc test on arm64, it runs beside the minimal VMM again, so that
# tools/overhead-arm64.sh can set the two side by side.
hvc=$(kvmbench list 2>/dev/null | awk '$1 ~ /^[a-z0-9-]+\/hvc$/ { print $1; exit }')
if [ -n "$hvc" ]; then
	step hvc kvmbench run "$hvc" --json "$out/hvc.json" -q --runs 10 --sample-time "$sample"
	step minivmm-hvc-after minivmm hvc 500 5 60
fi
exit 0
