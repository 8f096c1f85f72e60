/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpulist.c: CPU lists ("0-3,8,10", --cpus) parsed in order, with each CPU's duplicate check
 * done in a hash set of the CPUs seen so far (a few probes, not a scan of all before it). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "host/plan.h"
#include "core/kb.h"

/* A bound, or "0-2000000000" takes minutes and gigabytes (found by fuzzing). */
enum { MAX_CPUS = 4096 };

/* The CPUs named so far: open addressing with linear probing, keys CPU + 1 (0: a free slot),
 * kept at most half full. */
struct cpu_set {
	uint32_t *slot;
	unsigned bits;
	int n;
	unsigned long probes;
};

static uint32_t *cpu_set_find(struct cpu_set *s, uint32_t key)
{
	uint32_t mask = (1u << s->bits) - 1;

	/* Fibonacci hashing: the top bits of key * 2^32/phi, which spread ranges and strides. */
	for (uint32_t i = (key * 2654435769u) >> (32 - s->bits);; i = (i + 1) & mask) {
		s->probes++;
		if (!s->slot[i] || s->slot[i] == key)
			return &s->slot[i];
	}
}

/* Adds CPU c; false when it was there already. */
static bool cpu_set_add(struct cpu_set *s, long c)
{
	uint32_t key = (uint32_t)c + 1, *p;

	if ((size_t)(s->n + 1) * 2 > (size_t)1 << s->bits) {
		struct cpu_set bigger = { kb_xcalloc((size_t)1 << (s->bits + 1), sizeof(uint32_t)), s->bits + 1, s->n,
					  s->probes };

		for (size_t i = 0; i < (size_t)1 << s->bits; i++)
			if (s->slot[i])
				*cpu_set_find(&bigger, s->slot[i]) = s->slot[i];
		free(s->slot);
		*s = bigger;
	}
	p = cpu_set_find(s, key);
	if (*p)
		return false;
	*p = key;
	s->n++;
	return true;
}

int kb_parse_cpu_list_counted(const char *s, int **cpus, int *n, unsigned long *probes)
{
	struct cpu_set seen = { kb_xcalloc(32, sizeof(uint32_t)), 5, 0, 0 };
	size_t cap = 16;
	int cnt = 0, err;
	int *v = kb_xcalloc(cap, sizeof(int));
	const char *p = s;

	while (p && *p) {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || errno || lo < 0 || lo > INT_MAX)
			goto bad;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo || hi > INT_MAX)
				goto bad;
		}
		for (long c = lo; c <= hi; c++) {
			if (!cpu_set_add(&seen, c)) {
				err = kb_fail(EINVAL, "CPU list '%s' names CPU %ld twice: give each vCPU its own CPU", s, c);
				goto out;
			}
			if (cnt == MAX_CPUS) {
				err = kb_fail(E2BIG, "CPU list '%.64s' names more than %d CPUs", s, MAX_CPUS);
				goto out;
			}
			v = kb_xgrow(v, (size_t)cnt, &cap, sizeof(int));
			v[cnt++] = (int)c;
		}
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (!cnt)
		goto bad;
	*cpus = v;
	*n = cnt;
	v = NULL;
	err = 0;
	goto out;
bad:
	err = kb_fail(EINVAL, "'%s' is not a CPU list (e.g. 0-3,8,10)", s);
out:
	if (probes)
		*probes = seen.probes;
	free(seen.slot);
	free(v);
	return err;
}

int kb_parse_cpu_list(const char *s, int **cpus, int *n)
{
	return kb_parse_cpu_list_counted(s, cpus, n, NULL);
}
