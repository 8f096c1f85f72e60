/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c: whether a guest's CPUID reaches this KVM, counted: a one-vCPU guest runs CPUID(0) a few
 * hundred times and KVM's own 'exits' stat says how many of them exited. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "host/advice.h"
#include "kb_loops.h"
#include "run/crew.h"
#include "run/probe.h"
#include "vmm/cpuarch.h"
#include "vmm/kvm.h"
#include "vmm/machine.h"

int kb_cpuid_probe_judge(uint64_t cpuids, uint64_t exits)
{
	if (!cpuids)
		return KB_GUEST_CPUID_UNKNOWN;
	if (2 * exits >= cpuids)
		return KB_GUEST_CPUID_EXITS;
	if (10 * exits <= cpuids)
		return KB_GUEST_CPUID_BELOW;
	return KB_GUEST_CPUID_UNKNOWN;
}

/* CPUID(0, 0): the leaf every CPU answers.  The parameters start at 0. */
static void leaf0(int vcpu, uint64_t param[6], void *arg)
{
	(void)vcpu;
	(void)arg;
	param[0] = param[1] = 0;
}

/* The guest's loop once on a fresh one-vCPU machine; its exits into p (or, where KVM cannot count them,
 * the reason into p->why), or -errno with the message. */
static int count(const struct kb_run_ctx *ctx, struct kb_cpuid_probe *p)
{
	struct kb_machine_cfg cfg = { .nvcpus = 1, .mem_node = -1, .label = "the CPUID probe" };
	struct kb_crew_phase ph = { KB_LOOP_CPUID, KB_PROBE_CPUIDS, leaf0, NULL };
	struct kb_crew_result res = { 0 };
	struct kb_crew *crew = NULL;
	struct kb_machine m;
	uint64_t wall_ns;
	int i_exits, i_irq, err;

	/* Every KVM_RUN bounded, in info too: the watchdog's handler is installed before any vCPU runs. */
	err = kb_watchdog_init();
	if (!err)
		err = kb_machine_create(ctx->kvm, &cfg, &m);
	if (err)
		return err;
	i_exits = kb_stats_find(&m.vcpus[0].stats, "exits");
	i_irq = kb_stats_find(&m.vcpus[0].stats, "irq_exits");
	if (i_exits < 0) {
		/* Not a failure of the guest: the count cannot be taken, and the verdict is unknown. */
		snprintf(p->why, sizeof(p->why), "this kernel's KVM stats lack 'exits'");
		goto out;
	}
	res.stats = kb_xcalloc(m.vcpus[0].stats.nvals + 1, sizeof(uint64_t));
	err = kb_crew_start(&crew, &m, ctx);
	if (!err)
		err = kb_crew_run(crew, &ph, &res, &wall_ns);
	if (!err) {
		double exits = kb_crew_loop_exits(&res, i_exits, i_irq);

		p->cpuids = res.iters;
		p->exits = exits > 0 ? (uint64_t)exits : 0;
	}
out:
	kb_crew_stop(crew);
	free(res.stats);
	kb_machine_destroy(&m);
	return err;
}

int kb_probe_guest_cpuid(const struct kb_run_ctx *ctx, struct kb_cpuid_probe *p)
{
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (!ctx->kvm)
		snprintf(p->why, sizeof(p->why), "no usable /dev/kvm");
	else if (!(kb_arch_self() & KB_ARCH_X86))
		snprintf(p->why, sizeof(p->why), "CPUID is an x86 instruction");
	else if ((err = count(ctx, p)))
		snprintf(p->why, sizeof(p->why), "the CPUID probe's guest failed: %s", kb_last_error());
	p->verdict = kb_cpuid_probe_judge(p->cpuids, p->exits);
	if (p->verdict == KB_GUEST_CPUID_UNKNOWN && !p->why[0])
		snprintf(p->why, sizeof(p->why), "%llu exits for %llu CPUIDs: neither about one each nor about none",
			 (unsigned long long)p->exits, (unsigned long long)p->cpuids);
	if (ctx->kvm)
		ctx->kvm->guest_cpuid = p->verdict;
	return err ? kb_fail(-err, "%s", p->why) : 0;
}

static const char *verdict_name(int v)
{
	return v == KB_GUEST_CPUID_EXITS ? "exits" : v == KB_GUEST_CPUID_BELOW ? "answered_below" : "unknown";
}

json_object *kb_cpuid_probe_json(const struct kb_cpuid_probe *p)
{
	json_object *j = json_object_new_object();

	kb_json_set_str(j, "verdict", verdict_name(p->verdict));
	kb_json_set_u64(j, "cpuids", p->cpuids);
	kb_json_set_u64(j, "exits", p->exits);
	kb_json_set_str(j, "reason", p->why[0] ? p->why : NULL);
	return j;
}

void kb_cpuid_probe_record(const struct kb_cpuid_probe *p, const char *backend, json_object *kvm_facts,
			   json_object *advice)
{
	if (kvm_facts)
		kb_json_set(kvm_facts, "guest_cpuid", kb_cpuid_probe_json(p));
	if (advice)
		kb_advice_add_probed(advice, backend, p->verdict);
}

void kb_cpuid_probe_describe(const struct kb_cpuid_probe *p, const char *backend, char *buf, size_t size)
{
	if (p->verdict == KB_GUEST_CPUID_EXITS)
		snprintf(buf, size, "exits to %s (%llu exits for %llu CPUIDs)", backend, (unsigned long long)p->exits,
			 (unsigned long long)p->cpuids);
	else if (p->verdict == KB_GUEST_CPUID_BELOW)
		snprintf(buf, size, "answered underneath %s, which never sees it (%llu exits for %llu CPUIDs)", backend,
			 (unsigned long long)p->exits, (unsigned long long)p->cpuids);
	else
		snprintf(buf, size, "not known: %s", p->why);
}
