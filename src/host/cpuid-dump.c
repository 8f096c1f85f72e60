/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid-dump.c: reading raw CPUID dumps: libcpuid, AIDA64 and InstLatX64 formats. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpuid.h"
#include "host/datafile.h"
#include "core/kb.h"

/* libcpuid's own serialisation: NAME[INDEX]=EAX EBX ECX EDX, one array per leaf family. */
static const struct {
	const char *name;
	uint32_t leaf;      /* the index is added to the leaf ... */
	bool index_is_sub;  /* ... or is the subleaf */
} libcpuid_arrays[] = {
	{ "basic_cpuid", 0x0, false },
	{ "ext_cpuid", 0x80000000u, false },
	{ "intel_fn4", 0x4, true },
	{ "intel_fn11", 0xb, true },
	{ "intel_fn12h", 0x12, true },
	{ "intel_fn14h", 0x14, true },
	{ "amd_fn8000001dh", 0x8000001du, true },
};

static bool parse_libcpuid_line(struct kb_cpuid_set *s, struct kb_cpuid_cpu **cur, const char *line)
{
	char name[32];
	unsigned int idx;
	uint32_t r[4];

	if (sscanf(line, "%31[a-z0-9_][%u]=%x %x %x %x", name, &idx, &r[0], &r[1], &r[2], &r[3]) != 6)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(libcpuid_arrays); i++) {
		if (strcmp(name, libcpuid_arrays[i].name))
			continue;
		if (!*cur)
			*cur = kb_cpuid_add_cpu(s, 0);
		if (libcpuid_arrays[i].index_is_sub)
			kb_cpuid_add_entry(*cur, libcpuid_arrays[i].leaf, idx, r);
		else
			kb_cpuid_add_entry(*cur, libcpuid_arrays[i].leaf + idx, 0, r);
		return true;
	}
	return false;
}

/* AIDA64 and InstLatX64: "CPUID 0000000B: 00000001-00000002-00000100-00000000 [SL 00]". */
static bool parse_aida_line(struct kb_cpuid_set *s, struct kb_cpuid_cpu **cur, const char *line)
{
	uint32_t leaf, sub = 0, r[4];
	const char *sl;

	if (sscanf(line, "CPUID %x: %x-%x-%x-%x", &leaf, &r[0], &r[1], &r[2], &r[3]) != 5)
		return false;
	if (!*cur)
		*cur = kb_cpuid_add_cpu(s, 0);
	sl = strstr(line, "[SL ");
	if (sl)
		sub = (uint32_t)strtoul(sl + 4, NULL, 16);
	else if ((*cur)->n && (*cur)->e[(*cur)->n - 1].leaf == leaf)
		/* Older AIDA64 dumps list a leaf's subleaves in order, without "[SL nn]". */
		sub = (*cur)->e[(*cur)->n - 1].subleaf + 1;
	kb_cpuid_add_entry(*cur, leaf, sub, r);
	return true;
}

static bool is_dash_line(const char *line, size_t len)
{
	if (len < 40)
		return false;
	for (size_t i = 0; i < len; i++)
		if (line[i] != '-')
			return false;
	return true;
}

/*
 * Every dump format lists each CPU's leaves up to the maximum that leaf 0 (and 0x80000000) reports;
 * libcpuid's own keeps at most KB_LIBCPUID_DUMP_LEVELS of each range.  A block that stops short was cut:
 * its CPU would be decoded without the leaves it lacks (counted as 0 cores, its PMU called
 * hidden), so the dump is refused, naming the CPU and the leaf.
 */
int kb_cpuid_check_whole(const struct kb_cpuid_set *s)
{
	static const uint32_t ranges[] = { 0, 0x80000000u };

	for (size_t i = 0; i < s->ncpus; i++) {
		const struct kb_cpuid_cpu *c = &s->cpu[i];

		for (size_t k = 0; k < ARRAY_SIZE(ranges); k++) {
			const struct kb_cpuid_entry *max = kb_cpuid_find(c, ranges[k], 0);
			uint32_t last;

			if (!max && (k == 0 || kb_cpuid_find(&s->cpu[0], ranges[k], 0)))
				return kb_fail(EINVAL, "logical CPU #%d (block %zu of %zu) has no leaf %#x, which the first "
					       "block has: the dump is truncated or damaged", c->os_index, i + 1,
					       s->ncpus, ranges[k]);
			if (!max || max->r[0] < ranges[k] || max->r[0] > ranges[k] + 0xff)
				continue;
			last = max->r[0];
			if (s->libcpuid_format && last - ranges[k] >= KB_LIBCPUID_DUMP_LEVELS)
				last = ranges[k] + KB_LIBCPUID_DUMP_LEVELS - 1;
			if (!kb_cpuid_find(c, last, 0)) {
				uint32_t have = 0;

				for (size_t e = 0; e < c->n; e++)
					if ((c->e[e].leaf & 0xffff0000u) == ranges[k] && c->e[e].leaf > have && c->e[e].leaf < last)
						have = c->e[e].leaf;
				return kb_fail(EINVAL, "logical CPU #%d (block %zu of %zu) ends at leaf %#x, before leaf %#x, "
					       "the maximum its leaf %#x reports: the dump is truncated or damaged", c->os_index,
					       i + 1, s->ncpus, have, last, ranges[k]);
			}
		}
	}
	return 0;
}

int kb_cpuid_parse(struct kb_cpuid_set *s, const char *text)
{
	struct kb_cpuid_cpu *cur = NULL;
	const char *p = text;
	char line[512];
	bool blocks = false, libcpuid_format = false;

	memset(s, 0, sizeof(*s));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *hash;

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = 0;
		p = nl ? nl + 1 : p + strlen(p);

		/* The dumps carry expected decodings after a line of dashes: not CPUID data. */
		if (is_dash_line(line, len))
			break;
		if ((hash = strstr(line, "Logical CPU #")) || (!strncmp(line, "CPU#", 4) && strstr(line, "AffMask"))) {
			int idx = atoi(hash ? hash + strlen("Logical CPU #") : line + 4);

			cur = kb_cpuid_add_cpu(s, idx);
			blocks = true;
			continue;
		}
		if (!parse_aida_line(s, &cur, line) && parse_libcpuid_line(s, &cur, line))
			libcpuid_format = true;
	}
	if (!s->ncpus || !kb_cpuid_find(&s->cpu[0], 0, 0)) {
		kb_cpuid_free(s);
		return kb_fail(EINVAL, "no CPUID leaf 0 found: not a raw CPUID dump in a known format "
			       "(libcpuid 'basic_cpuid[N]=', AIDA64 'CPUID xxxxxxxx:' blocks, InstLatX64 'CPU#000 AffMask')");
	}
	s->per_cpu = blocks;
	s->libcpuid_format = libcpuid_format;
	return 0;
}

int kb_cpuid_read_file(struct kb_cpuid_set *s, const char *path)
{
	char *buf;
	size_t len;
	int err = kb_read_file(path, &buf, &len);

	if (err)
		return err;
	err = kb_cpuid_parse(s, buf);
	free(buf);
	if (!err && (err = kb_cpuid_check_whole(s)))
		kb_cpuid_free(s);
	if (err) {
		char why[512];

		snprintf(why, sizeof(why), "%s", kb_last_error());
		return kb_fail(err, "%s: %s", path, why);
	}
	snprintf(s->source, sizeof(s->source), "%s", path);
	return 0;
}
