/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-topo.c: packages, cores and core kinds from the x2APIC IDs and topology levels in the CPUID
 * of each logical CPU of a dump or of this machine, as the Intel SDM and AMD APM describe them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu-topo.h"
#include "core/kb.h"

struct cpu_pos {
	uint32_t apic;              /* x2APIC ID (or the 8-bit initial APIC ID) */
	int smt_shift, pkg_shift;
	int pkg_threads;            /* logical CPUs a package has, as the last level's EBX[15:0] says */
	int kind;                   /* -1: not hybrid; 0: performance; 1: efficiency */
	int rank;
	int block;                  /* index into kb_cpuid_set.cpu */
};

/*
 * Leaf 0xB, 0x1F and AMD's 0x80000026 list one topology level per subleaf, lowest first; a level
 * type of 0 (ECX[15:8]) ends the list.  A level whose shift (EAX[4:0]) or count (EBX[15:0]) is 0
 * is still a level: a CPU with SMT off reports its thread level with no bits.  Type 1 is the
 * thread level (AMD: "core", whose shift is likewise the thread bits); the last level's shift
 * takes the x2APIC ID (EDX) to the package ID.
 */
static bool walk_levels(const struct kb_cpuid_cpu *c, uint32_t leaf, struct cpu_pos *p)
{
	uint32_t r[4];
	bool any = false;

	for (uint32_t sub = 0; sub < 8 && kb_cpuid_get(c, leaf, sub, r); sub++) {
		unsigned int type = (r[2] >> 8) & 0xff;

		if (!type)
			break;
		if (!any)
			p->apic = r[3];
		any = true;
		if (type == 1)
			p->smt_shift = (int)(r[0] & 0x1f);
		p->pkg_shift = (int)(r[0] & 0x1f);
		p->pkg_threads = (int)(r[1] & 0xffff);
	}
	return any;
}

static bool vendor_is(const struct kb_cpuid_cpu *c, const char *v)
{
	uint32_t r[4];
	char name[13];

	if (!kb_cpuid_get(c, 0, 0, r))
		return false;
	memcpy(name, &r[1], 4);
	memcpy(name + 4, &r[3], 4);
	memcpy(name + 8, &r[2], 4);
	name[12] = 0;
	return !strcmp(name, v);
}

/* Hybrid core kinds: AMD 0x80000026 subleaf 0 (EAX[30] heterogeneous cores; EBX[31:28] core type,
 * 0 = performance, 1 = efficiency; EBX[23:16] efficiency ranking), Intel leaf 7 EDX[15] with leaf
 * 0x1A EAX[31:24] (0x40 Core, 0x20 Atom). */
static void core_kind(const struct kb_cpuid_cpu *c, bool amd, struct cpu_pos *p)
{
	uint32_t r[4];

	p->kind = -1;
	p->rank = -1;
	if (amd && kb_cpuid_get(c, 0x80000026u, 0, r) && (r[0] & (1u << 30))) {
		p->kind = (r[1] >> 28) ? 1 : 0;
		p->rank = (int)((r[1] >> 16) & 0xff);
	} else if (!amd && kb_cpuid_get(c, 7, 0, r) && (r[3] & (1u << 15)) && kb_cpuid_get(c, 0x1a, 0, r) &&
		   (r[0] >> 24)) {
		p->kind = (r[0] >> 24) == 0x20 ? 1 : 0;
	}
}

static const char *locate(const struct kb_cpuid_cpu *c, struct cpu_pos *p)
{
	bool amd = vendor_is(c, "AuthenticAMD") || vendor_is(c, "HygonGenuine");
	uint32_t r[4];

	memset(p, 0, sizeof(*p));
	core_kind(c, amd, p);
	if (amd && walk_levels(c, 0x80000026u, p))
		return "0x80000026";
	if (!amd && walk_levels(c, 0x1f, p))
		return "0x1f";
	if (walk_levels(c, 0xb, p))
		return "0xb";
	if (kb_cpuid_get(c, 1, 0, r))
		p->apic = r[1] >> 24;
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The number of distinct values among v[0..n-1] (sorts v). */
static int distinct(uint64_t *v, size_t n)
{
	int d = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	return d;
}

static void warn(struct kb_cpu_topo *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct kb_cpu_topo *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nwarnings >= KB_CPU_TOPO_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(t->warnings[t->nwarnings++], sizeof(t->warnings[0]), fmt, ap);
	va_end(ap);
}

/* Two blocks with one x2APIC ID are one CPU twice: a repeated or concatenated dump. */
static int check_repeats(const struct kb_cpuid_set *s, const struct cpu_pos *pos, uint64_t *key)
{
	for (size_t i = 0; i < s->ncpus; i++)
		key[i] = (uint64_t)pos[i].apic << 32 | i;
	qsort(key, s->ncpus, sizeof(*key), cmp_u64);
	for (size_t i = 1; i < s->ncpus; i++)
		if (key[i] >> 32 == key[i - 1] >> 32)
			return kb_fail(EINVAL, "%s: logical CPUs #%d and #%d both have APIC ID %#x: the dump repeats a CPU "
				       "(damaged, or two dumps in one file)", s->source,
				       s->cpu[(uint32_t)key[i - 1]].os_index, s->cpu[(uint32_t)key[i]].os_index,
				       (unsigned int)(key[i] >> 32));
	return 0;
}

/* Packages of one machine hold equally many logical CPUs; fewer in one means blocks are missing. */
static void check_packages(const struct kb_cpuid_set *s, const struct cpu_pos *pos, struct kb_cpu_topo *t,
			   uint64_t *key)
{
	int min = 0, max = 0, run = 0;

	for (size_t i = 0; i < s->ncpus; i++)
		key[i] = pos[i].apic >> pos[i].pkg_shift;
	qsort(key, s->ncpus, sizeof(*key), cmp_u64);
	for (size_t i = 0; i <= s->ncpus; i++) {
		if (i && (i == s->ncpus || key[i] != key[i - 1])) {
			min = !min || run < min ? run : min;
			max = run > max ? run : max;
			run = 0;
		}
		run++;
	}
	const char *why = s->live ? "CPUs offline or outside this process's cpuset were not read, or SMT is off"
				  : "the dump lacks some: cut short, or CPUs offline or SMT off when it was taken";

	if (min != max)
		warn(t, "%s: its %d packages hold different numbers of logical CPUs (%d to %d): %s", s->source,
		     t->packages, min, max, why);
	else if (pos[0].pkg_threads && max < pos[0].pkg_threads)
		warn(t, "%s: each package holds %d logical CPUs, CPUID %s says a package has %d: %s", s->source, max,
		     t->levels_leaf, pos[0].pkg_threads, why);
}

static void count_kinds(const struct kb_cpuid_set *s, const struct cpu_pos *pos, struct kb_cpu_topo *t,
			uint64_t *key)
{
	static const char *const purpose[] = { "performance", "efficiency" };

	for (int kind = 0; kind < 2; kind++) {
		struct kb_cpu_kind *k = &t->kinds[t->nkinds];
		size_t n = 0;

		k->rank = -1;
		for (size_t i = 0; i < s->ncpus; i++)
			if (pos[i].kind == kind) {
				key[n++] = pos[i].apic >> pos[i].smt_shift;
				if (pos[i].rank > k->rank)
					k->rank = pos[i].rank;
			}
		if (!n)
			continue;
		snprintf(k->purpose, sizeof(k->purpose), "%s", purpose[kind]);
		k->threads = (int)n;
		k->cores = distinct(key, n);
		t->nkinds++;
	}
	if (t->nkinds < 2)
		t->nkinds = 0;
}

int kb_cpu_topo_derive(const struct kb_cpuid_set *s, struct kb_cpu_topo *t)
{
	struct cpu_pos *pos;
	uint64_t *key;
	int err;

	memset(t, 0, sizeof(*t));
	if (!s->ncpus)
		return kb_fail(EINVAL, "%s: no logical CPU to count", s->source);
	pos = kb_xcalloc(s->ncpus, sizeof(*pos));
	key = kb_xcalloc(s->ncpus, sizeof(*key));
	for (size_t i = 0; i < s->ncpus; i++) {
		const char *leaf = locate(&s->cpu[i], &pos[i]);

		pos[i].block = (int)i;
		/* Every block must be counted the same way, or its IDs mean something else. */
		if (!i)
			t->levels_leaf = leaf;
		else if ((leaf == NULL) != (t->levels_leaf == NULL) || (leaf && strcmp(leaf, t->levels_leaf)))
			t->levels_leaf = NULL;
	}
	/* The 8-bit initial APIC IDs of leaf 1 repeat past 255 CPUs: only x2APIC IDs are checked then. */
	err = t->levels_leaf || s->ncpus <= 255 ? check_repeats(s, pos, key) : 0;
	if (err)
		goto out;
	t->threads = (int)s->ncpus;
	t->smt_shift = pos[0].smt_shift;
	t->package_shift = pos[0].pkg_shift;
	if (!t->levels_leaf) {
		t->levels_leaf = "initial APIC ID";
		goto out;
	}
	for (size_t i = 0; i < s->ncpus; i++)
		key[i] = pos[i].apic >> pos[i].smt_shift;
	t->cores = distinct(key, s->ncpus);
	for (size_t i = 0; i < s->ncpus; i++)
		key[i] = pos[i].apic >> pos[i].pkg_shift;
	t->packages = distinct(key, s->ncpus);
	check_packages(s, pos, t, key);
	count_kinds(s, pos, t, key);
out:
	free(pos);
	free(key);
	return err;
}
