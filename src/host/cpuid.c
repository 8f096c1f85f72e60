/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid.c: the raw CPUID set: per-CPU blocks of leaves, and looking a leaf up in one. */
#include <stdlib.h>
#include <string.h>

#include "host/cpuid.h"
#include "core/kb.h"

struct kb_cpuid_cpu *kb_cpuid_add_cpu(struct kb_cpuid_set *s, int os_index)
{
	struct kb_cpuid_cpu *c;

	s->cpu = kb_xgrow(s->cpu, s->ncpus, &s->cap, sizeof(*s->cpu));
	c = &s->cpu[s->ncpus++];
	memset(c, 0, sizeof(*c));
	c->os_index = os_index;
	return c;
}

void kb_cpuid_add_entry(struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub, const uint32_t r[4])
{
	struct kb_cpuid_entry *e;

	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].leaf == leaf && c->e[i].subleaf == sub) {
			memcpy(c->e[i].r, r, sizeof(c->e[i].r));
			return;
		}
	c->e = kb_xgrow(c->e, c->n, &c->cap, sizeof(*c->e));
	e = &c->e[c->n++];
	e->leaf = leaf;
	e->subleaf = sub;
	memcpy(e->r, r, sizeof(e->r));
}

const struct kb_cpuid_entry *kb_cpuid_find(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].leaf == leaf && c->e[i].subleaf == sub)
			return &c->e[i];
	return NULL;
}

bool kb_cpuid_get(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	uint32_t range = leaf & 0xffff0000u;
	const struct kb_cpuid_entry *max = kb_cpuid_find(c, range == 0x40000000u ? leaf & 0xffffff00u : range, 0);
	const struct kb_cpuid_entry *e;

	/* Past the maximum leaf a CPU answers with unrelated data, which a dump may have recorded. */
	if (!max || (leaf != max->leaf && leaf > max->r[0]))
		return false;
	e = kb_cpuid_find(c, leaf, subleaf);
	if (!e)
		return false;
	memcpy(r, e->r, sizeof(e->r));
	return true;
}

void kb_cpuid_free(struct kb_cpuid_set *s)
{
	for (size_t i = 0; i < s->ncpus; i++)
		free(s->cpu[i].e);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}
