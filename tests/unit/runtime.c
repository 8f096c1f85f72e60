/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runtime.c: the vCPU runtime (run/crew.h) on /dev/kvm: two vCPUs run NOP and RDMSR phases for
 * exactly the iterations asked, with per-vCPU KVM stats deltas, and a hung phase hits the watchdog. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kb.h"
#include "run/crew.h"
#include "vmm/kvm.h"
#include "vmm/kvmstats.h"
#include "vmm/machine.h"
#include "tap.h"

#define MSR_IA32_TSC_ADJUST   0x3b
#define MSR_KERNEL_GS_BASE    0xc0000102
#define ITERS 1000

static uint32_t msr;

static void loop_params(int vcpu, uint64_t param[6], void *arg)
{
	param[0] = msr;
}

static void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

/* Each vCPU ran exactly ITERS iterations in guest TSC and host time. */
static void check_parts(const char *what, const struct kb_crew_result *res, int n)
{
	for (int v = 0; v < n; v++)
		ok(res[v].iters == ITERS && res[v].tsc > 0 && res[v].host_ns > 0,
		   "%s: vCPU %d ran %llu iterations (asked %d) in %llu TSC cycles, %llu ns", what, v,
		   (unsigned long long)res[v].iters, ITERS, (unsigned long long)res[v].tsc,
		   (unsigned long long)res[v].host_ns);
}

int main(void)
{
	static volatile sig_atomic_t stop;
	struct kb_run_opts opts = { .timeout_ns = 10000000000ULL };
	struct kb_run_ctx ctx = { .opts = &opts, .stop = &stop, .vcpus = 2 };
	struct kb_machine_cfg mcfg = { .nvcpus = 2, .mem_node = -1 };
	struct kb_crew_result res[2] = { 0 };
	struct kb_crew_phase ph = { KB_LOOP_NOP, ITERS, loop_params, NULL };
	struct kb_machine m;
	struct kb_kvm kvm;
	struct kb_crew *crew;
	uint64_t wall_ns;
	int err;

	if (access("/dev/kvm", F_OK))
		skip_all("/dev/kvm is absent on this host");
	if (access("/dev/kvm", R_OK | W_OK))
		skip_all("/dev/kvm is not accessible to this user (join group kvm)");
	if (kb_kvm_open(&kvm, "/dev/kvm"))
		skip_all(kb_last_error());
	ctx.kvm = &kvm;
	if (kb_watchdog_init() || kb_machine_create(&kvm, &mcfg, &m)) {
		ok(0, "a machine with 2 vCPUs: %s", kb_last_error());
		return tap_done();
	}
	err = kb_crew_start(&crew, &m, &ctx);
	if (!ok(!err, "the crew starts on 2 vCPUs%s%s", err ? ": " : "", err ? kb_last_error() : "")) {
		kb_machine_destroy(&m);
		return tap_done();
	}

	err = kb_crew_run(crew, &ph, res, &wall_ns);
	ok(!err, "a NOP phase runs%s%s", err ? ": " : "", err ? kb_last_error() : "");
	check_parts("NOP", res, 2);
	ok(wall_ns >= res[0].host_ns && wall_ns >= res[1].host_ns, "the phase's wall time holds each vCPU's part");

	/* kvm_pvm traps every RDMSR, KERNEL_GS_BASE too; VMX and SVM pass that one through. */
	msr = kvm.backend == KB_BACKEND_PVM ? MSR_KERNEL_GS_BASE : MSR_IA32_TSC_ADJUST;
	ph.loop = KB_LOOP_RDMSR;
	for (int v = 0; v < 2; v++)
		res[v].stats = kb_xcalloc(m.vcpus[v].stats.nvals, sizeof(uint64_t));
	err = kb_crew_run(crew, &ph, res, &wall_ns);
	ok(!err, "an RDMSR 0x%x phase runs%s%s", msr, err ? ": " : "", err ? kb_last_error() : "");
	check_parts("RDMSR", res, 2);
	for (int v = 0; v < 2; v++) {
		int i = kb_stats_find(&m.vcpus[v].stats, "exits");

		ok(i >= 0 && res[v].stats[i] >= ITERS, "RDMSR: vCPU %d's own KVM stats show %llu exits for %d iterations",
		   v, i >= 0 ? (unsigned long long)res[v].stats[i] : 0ULL, ITERS);
		free(res[v].stats);
		res[v].stats = NULL;
	}

	/* A guest that never exits: the watchdog ends its KVM_RUN after the timeout. */
	opts.timeout_ns = 200000000ULL;
	ph.loop = KB_LOOP_SPIN;
	{
		uint64_t t0 = kb_now_ns();

		err = kb_crew_run(crew, &ph, res, &wall_ns);
		ok(err == -ETIMEDOUT, "a SPIN phase fails with -ETIMEDOUT (%d) after %.2f s", err,
		   (double)(kb_now_ns() - t0) / 1e9);
	}
	ok(strstr(kb_last_error(), "watchdog") != NULL, "and says why: %s", kb_last_error());
	err = kb_crew_run(crew, &ph, res, &wall_ns);
	ok(err == -ETIMEDOUT, "the crew takes no more phases after a failure (%d)", err);

	kb_crew_stop(crew);
	kb_machine_destroy(&m);
	kb_kvm_close(&kvm);
	return tap_done();
}
