/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid-live.c: executing CPUID (through libcpuid) on every CPU this process may run on. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libcpuid/libcpuid.h>

#include "host/cpuid.h"
#include "core/kb.h"

_Static_assert(KB_LIBCPUID_DUMP_LEVELS == MAX_CPUID_LEVEL && KB_LIBCPUID_DUMP_LEVELS == MAX_EXT_CPUID_LEVEL,
	       "the dump reader's limit (host/cpuid.h) is not this libcpuid's");

static void exec_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	uint32_t regs[4] = { leaf, 0, sub, 0 };

	cpu_exec_cpuid_ext(regs);
	memcpy(r, regs, sizeof(regs));
}

/* Leaves with subleaves, how many at most, and whether an empty subleaf ends the list. */
static const struct {
	uint32_t leaf;
	uint32_t max_sub;
	enum { SUB_FIXED, SUB_CACHE_TYPE, SUB_TOPO_LEVEL } end;
} subleaf_leaves[] = {
	{ 0x4, 16, SUB_CACHE_TYPE },
	{ 0x7, 3, SUB_FIXED },
	{ 0xb, 8, SUB_TOPO_LEVEL },
	{ 0xd, 20, SUB_FIXED },
	{ 0xf, 4, SUB_FIXED },
	{ 0x10, 4, SUB_FIXED },
	{ 0x12, 4, SUB_FIXED },
	{ 0x14, 2, SUB_FIXED },
	{ 0x18, 8, SUB_FIXED },
	{ 0x1f, 8, SUB_TOPO_LEVEL },
	{ 0x23, 4, SUB_FIXED },
	{ 0x8000001du, 8, SUB_CACHE_TYPE },
	{ 0x80000020u, 4, SUB_FIXED },
	{ 0x80000026u, 4, SUB_TOPO_LEVEL },
};

static void collect_leaf(struct kb_cpuid_cpu *c, uint32_t leaf)
{
	uint32_t r[4];

	for (size_t i = 0; i < ARRAY_SIZE(subleaf_leaves); i++) {
		if (subleaf_leaves[i].leaf != leaf)
			continue;
		for (uint32_t sub = 0; sub < subleaf_leaves[i].max_sub; sub++) {
			exec_cpuid(leaf, sub, r);
			if (sub && subleaf_leaves[i].end == SUB_CACHE_TYPE && !(r[0] & 0x1f))
				break;
			if (sub && subleaf_leaves[i].end == SUB_TOPO_LEVEL && !(r[2] & 0xff00))
				break;
			kb_cpuid_add_entry(c, leaf, sub, r);
		}
		return;
	}
	exec_cpuid(leaf, 0, r);
	kb_cpuid_add_entry(c, leaf, 0, r);
}

static void collect_range(struct kb_cpuid_cpu *c, uint32_t base, uint32_t limit)
{
	uint32_t r[4], max;

	exec_cpuid(base, 0, r);
	max = r[0];
	if (max < base || max > base + limit)
		max = max < base ? base : base + limit;
	for (uint32_t leaf = base; leaf <= max; leaf++)
		collect_leaf(c, leaf);
}

static void collect_this_cpu(struct kb_cpuid_cpu *c)
{
	uint32_t r[4];

	collect_range(c, 0, 0x3f);
	exec_cpuid(1, 0, r);
	if (r[2] & (1u << 31)) {
		collect_range(c, 0x40000000u, 0x20);
		/* A hypervisor offering Hyper-V's interface names itself in the second range. */
		collect_range(c, 0x40000100u, 0x20);
	}
	collect_range(c, 0x80000000u, 0x40);
}

int kb_cpuid_collect(struct kb_cpuid_set *s)
{
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	int nvisit = nconf > 0 ? (int)nconf : 1, ncpu = nvisit;
	size_t size;
	cpu_set_t *orig, *one;

	memset(s, 0, sizeof(*s));
	if (!cpuid_present())
		return kb_fail(ENODEV, "this CPU has no CPUID instruction: kvmbench needs an x86-64 host");
	if (ncpu < CPU_SETSIZE)
		ncpu = CPU_SETSIZE;
	size = CPU_ALLOC_SIZE(ncpu);
	orig = CPU_ALLOC(ncpu);
	one = CPU_ALLOC(ncpu);
	if (!orig || !one)
		kb_die("out of memory");
	if (sched_getaffinity(0, size, orig)) {
		int err = errno;

		CPU_FREE(orig);
		CPU_FREE(one);
		return kb_fail(err, "reading this thread's CPU affinity: %s", strerror(err));
	}
	/* CPUID answers for the CPU it runs on (APIC IDs, hybrid core types): visit each one this process
	 * may use, even when this thread is pinned; offline CPUs and CPUs outside its cpuset refuse. */
	for (int cpu = 0; cpu < nvisit; cpu++) {
		CPU_ZERO_S(size, one);
		CPU_SET_S(cpu, size, one);
		if (sched_setaffinity(0, size, one))
			continue;
		collect_this_cpu(kb_cpuid_add_cpu(s, cpu));
	}
	sched_setaffinity(0, size, orig);
	CPU_FREE(orig);
	CPU_FREE(one);
	if (!s->ncpus)
		collect_this_cpu(kb_cpuid_add_cpu(s, -1));
	s->per_cpu = true;
	s->live = true;
	snprintf(s->source, sizeof(s->source), "this machine");
	return 0;
}
