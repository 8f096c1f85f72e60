# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# command-gicv2.sh: what make check-vm-arm64 runs in its second boot, an emulated host with a GICv2
# (run-vm.sh --gic 2): KVM there can give guests only a vGICv2, so info must tell the host's GIC and
# advise so, and the tests that need kvmbench's vGICv3 machine must be skipped with that reason, not
# fail.  testbed-arm64.test judges what comes back.
out=${TESTBED_OUT:-/out}
kvmbench info --json >"$out/info-json.out" 2>"$out/info.err"
echo $? >"$out/info.rc"
kvmbench run micro-bench/hvc execute-perf/anon dirty-log/get --json "$out/result.json" -q --runs 2 \
	>"$out/run.out" 2>"$out/run.err"
echo $? >"$out/run.rc"
exit 0
