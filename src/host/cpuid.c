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

/* The slot of leaf/sub in c's index: the one holding it, or the free one where it would go. */
static uint32_t *slot_of(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub, size_t *probes)
{
	size_t mask = c->nslot - 1;
	/* Leaf and subleaf as one 64-bit key, mixed by MurmurHash3's finaliser (fmix64): leaves come
	 * in runs at 0, 0x40000000, 0x80000000 with runs of subleaves, which a plain multiplication
	 * maps onto clusters of the same slots. */
	uint64_t k = (uint64_t)leaf << 32 | sub;

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	for (size_t i = (size_t)k & mask;; i = (i + 1) & mask) {
		const struct kb_cpuid_entry *e;

		(*probes)++;
		if (!c->slot[i])
			return &c->slot[i];
		e = &c->e[c->slot[i] - 1];
		if (e->leaf == leaf && e->subleaf == sub)
			return &c->slot[i];
	}
}

static void reindex(struct kb_cpuid_cpu *c, size_t nslot)
{
	size_t unused = 0;

	free(c->slot);
	c->slot = kb_xcalloc(nslot, sizeof(*c->slot));
	c->nslot = nslot;
	for (size_t i = 0; i < c->n; i++)
		*slot_of(c, c->e[i].leaf, c->e[i].subleaf, &unused) = (uint32_t)(i + 1);
}

void kb_cpuid_add_entry(struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub, const uint32_t r[4])
{
	struct kb_cpuid_entry *e;
	uint32_t *slot;

	/* At most half full, so that a probe sequence ends soon at a free slot. */
	if (2 * (c->n + 1) > c->nslot)
		reindex(c, c->nslot ? 2 * c->nslot : 64);
	slot = slot_of(c, leaf, sub, &c->probes);
	if (*slot) {
		memcpy(c->e[*slot - 1].r, r, sizeof(c->e[*slot - 1].r));
		return;
	}
	c->e = kb_xgrow(c->e, c->n, &c->cap, sizeof(*c->e));
	e = &c->e[c->n++];
	e->leaf = leaf;
	e->subleaf = sub;
	memcpy(e->r, r, sizeof(e->r));
	*slot = (uint32_t)c->n;
}

const struct kb_cpuid_entry *kb_cpuid_find(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub)
{
	size_t unused = 0;
	const uint32_t *slot;

	if (!c->nslot)
		return NULL;
	slot = slot_of(c, leaf, sub, &unused);
	return *slot ? &c->e[*slot - 1] : NULL;
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
	for (size_t i = 0; i < s->ncpus; i++) {
		free(s->cpu[i].e);
		free(s->cpu[i].slot);
	}
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}
