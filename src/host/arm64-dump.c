/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-dump.c: reading what an arm64 machine says of its CPUs: a dump file (/proc/cpuinfo and/or
 * register lines) or this host's sysfs regs/identification and /proc/cpuinfo. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "host/arm64.h"
#include "host/datafile.h"
#include "core/kb.h"

const char *const kb_arm64_reg_names[KB_A64_NREGS] = {
	"id_aa64pfr0_el1", "id_aa64pfr1_el1", "id_aa64mmfr0_el1", "id_aa64mmfr1_el1", "id_aa64mmfr2_el1",
	"id_aa64dfr0_el1",
};

/* The /proc/cpuinfo fields of one CPU, as arch/arm64/kernel/cpuinfo.c prints them. */
enum field { F_IMPLEMENTER, F_ARCH, F_VARIANT, F_PART, F_REVISION, F_NFIELDS };
static const struct {
	const char *key;
	unsigned long max;
} fields[F_NFIELDS] = {
	{ "CPU implementer", 0xff }, { "CPU architecture", 0xff }, { "CPU variant", 0xf },
	{ "CPU part", 0xfff }, { "CPU revision", 0xf },
};

/* One CPU being read: its fields, and an midr_el1 line if the dump has one for it. */
struct block {
	int line;               /* where it opened */
	int cpu;
	bool have[F_NFIELDS];
	unsigned long val[F_NFIELDS];
	int field_line[F_NFIELDS];
	bool have_midr, have_revidr;
	uint64_t midr, revidr;
	int midr_line;
};

struct parser {
	const char *name;
	struct kb_arm64_cpu *out;
	size_t cap;
	bool open;
	struct block b;
	int reg_line[KB_A64_NREGS];
};

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int parse_num(const struct parser *p, int line, const char *key, const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	if (!*v || *v == '-' || *v == '+')
		goto bad;
	n = strtoull(v, &end, 0);
	if (errno || *end || end == v)
		goto bad;
	if (n > max)
		return kb_fail(EINVAL, "%s:%d: %s %s is out of range (at most %#llx)", p->name, line, key, v,
			       (unsigned long long)max);
	*out = n;
	return 0;
bad:
	return kb_fail(EINVAL, "%s:%d: %s wants a number (hex with 0x), not '%s'", p->name, line, key, v);
}

static int close_block(struct parser *p)
{
	struct block *b = &p->b;
	struct kb_arm64_core core = { .cpu = b->cpu };
	int nfields = 0;

	if (!p->open)
		return 0;
	p->open = false;
	for (int f = 0; f < F_NFIELDS; f++)
		nfields += b->have[f];
	if (nfields && nfields < F_NFIELDS)
		for (int f = 0; f < F_NFIELDS; f++)
			if (!b->have[f])
				return kb_fail(EINVAL, "%s:%d: processor %d has no '%s' line: the dump looks truncated",
					       p->name, b->line, b->cpu, fields[f].key);
	if (!nfields && !b->have_midr)
		return kb_fail(EINVAL, "%s:%d: processor %d has neither 'CPU implementer'/'CPU part' lines nor "
			       "midr_el1: the dump looks truncated, or is not an arm64 machine's", p->name, b->line, b->cpu);
	if (nfields) {
		core.midr = (uint32_t)(b->val[F_IMPLEMENTER] << 24 | b->val[F_VARIANT] << 20 |
				       (b->val[F_ARCH] == 8 ? 0xfu : b->val[F_ARCH] & 0xf) << 16 |
				       b->val[F_PART] << 4 | b->val[F_REVISION]);
		if (b->have_midr && (uint32_t)b->midr != core.midr)
			return kb_fail(EINVAL, "%s:%d: midr_el1 %#llx conflicts with processor %d's CPU lines "
				       "(MIDR %#x): two different cores in one CPU", p->name, b->midr_line,
				       (unsigned long long)b->midr, b->cpu, core.midr);
	} else {
		core.midr = (uint32_t)b->midr;
	}
	core.have_revidr = b->have_revidr;
	core.revidr = (uint32_t)b->revidr;
	for (int i = 0; i < p->out->ncores; i++)
		if (p->out->cores[i].cpu == core.cpu)
			return kb_fail(EINVAL, "%s:%d: processor %d is described twice", p->name, b->line, core.cpu);
	p->out->cores = kb_xgrow(p->out->cores, (size_t)p->out->ncores + 1, &p->cap, sizeof(*p->out->cores));
	p->out->cores[p->out->ncores++] = core;
	return 0;
}

static int open_block(struct parser *p, int line, int cpu)
{
	int err = close_block(p);

	if (err)
		return err;
	memset(&p->b, 0, sizeof(p->b));
	p->b.line = line;
	p->b.cpu = cpu;
	p->open = true;
	return 0;
}

/* midr_el1 / revidr_el1: the open CPU's, or a new CPU's when that one already has its own. */
static int set_id(struct parser *p, int line, bool revidr, uint64_t v)
{
	int err = 0;

	if (!p->open || (revidr ? p->b.have_revidr : p->b.have_midr))
		err = open_block(p, line, p->open ? p->b.cpu + 1 : p->out->ncores);
	if (err)
		return err;
	if (revidr) {
		p->b.have_revidr = true;
		p->b.revidr = v;
	} else {
		p->b.have_midr = true;
		p->b.midr = v;
		p->b.midr_line = line;
	}
	return 0;
}

static int parse_reg(struct parser *p, int line, const char *key, const char *v)
{
	uint64_t n;
	int err;

	if (!strcmp(key, "midr_el1") || !strcmp(key, "revidr_el1")) {
		err = parse_num(p, line, key, v, 0xffffffffu, &n);
		return err ? err : set_id(p, line, key[0] == 'r', n);
	}
	for (int r = 0; r < KB_A64_NREGS; r++) {
		if (strcmp(key, kb_arm64_reg_names[r]))
			continue;
		if ((err = parse_num(p, line, key, v, UINT64_MAX, &n)))
			return err;
		if (p->out->have_reg[r] && p->out->reg[r] != n)
			return kb_fail(EINVAL, "%s:%d: %s %#llx conflicts with line %d's %#llx", p->name, line, key,
				       (unsigned long long)n, p->reg_line[r], (unsigned long long)p->out->reg[r]);
		p->out->have_reg[r] = true;
		p->out->reg[r] = n;
		p->reg_line[r] = line;
		return 0;
	}
	return 1;  /* a register kvmbench does not read (ID_AA64ISAR0_EL1, ...), or not a register line */
}

static int parse_cpuinfo(struct parser *p, int line, const char *key, const char *v)
{
	uint64_t n;
	int err;

	if (!strcmp(key, "processor")) {
		if ((err = parse_num(p, line, key, v, 4095, &n)))
			return err;
		return open_block(p, line, (int)n);
	}
	if (!strcmp(key, "Features")) {
		if (!p->out->hwcaps)
			p->out->hwcaps = kb_xstrdup(v);
		return 0;
	}
	if (!strcmp(key, "cmdline")) {  /* the machine's /proc/cmdline, put in the dump by whoever made it */
		if (p->out->cmdline && strcmp(p->out->cmdline, v))
			return kb_fail(EINVAL, "%s:%d: a second, different cmdline line: one machine has one kernel "
				       "command line", p->name, line);
		if (!p->out->cmdline)
			p->out->cmdline = kb_xstrdup(v);
		return 0;
	}
	for (int f = 0; f < F_NFIELDS; f++) {
		if (strcmp(key, fields[f].key))
			continue;
		if ((err = parse_num(p, line, key, v, fields[f].max, &n)))
			return err;
		if (!p->open && (err = open_block(p, line, p->out->ncores)))
			return err;
		if (p->b.have[f] && p->b.val[f] != n)
			return kb_fail(EINVAL, "%s:%d: processor %d's %s %s conflicts with line %d's %#lx", p->name,
				       line, p->b.cpu, key, v, p->b.field_line[f], p->b.val[f]);
		p->b.have[f] = true;
		p->b.val[f] = (unsigned long)n;
		p->b.field_line[f] = line;
		return 0;
	}
	return 0;  /* BogoMIPS, model name, Hardware, ...: not needed */
}

static bool is_known_key(const char *key)
{
	if (!strcmp(key, "processor") || !strcasecmp(key, "midr_el1") || !strcasecmp(key, "revidr_el1"))
		return true;
	for (int f = 0; f < F_NFIELDS; f++)
		if (!strcmp(key, fields[f].key))
			return true;
	for (int r = 0; r < KB_A64_NREGS; r++)
		if (!strcasecmp(key, kb_arm64_reg_names[r]))
			return true;
	return false;
}

static int parse_line(struct parser *p, int line, char *s)
{
	char *sep, *key, *v;
	int err;

	s = trim(s);
	if (!*s || *s == '#')
		return 0;
	for (char *c = s; *c; c++)
		if (!isprint((unsigned char)*c) && *c != '\t')
			return kb_fail(EINVAL, "%s:%d: not a text line: is this a /proc/cpuinfo or register dump?",
				       p->name, line);
	sep = strpbrk(s, ":=");
	if (!sep)
		sep = s + strcspn(s, " \t");
	v = trim(*sep ? sep + 1 : sep);
	*sep = 0;
	key = trim(s);
	if (!*v) {
		if (is_known_key(key))
			return kb_fail(EINVAL, "%s:%d: '%s' has no value: the dump looks truncated", p->name, line, key);
		return 0;  /* a heading or a table rule of a tool's output */
	}
	/* Register names as ArmCpuInfo.efi prints them (ID_AA64MMFR1_EL1 = 0x...) or in lower case. */
	if (strcasestr(key, "_el1") && strlen(key) < 32) {
		char lower[32];
		size_t i;

		for (i = 0; key[i]; i++)
			lower[i] = (char)tolower((unsigned char)key[i]);
		lower[i] = 0;
		err = parse_reg(p, line, lower, v);
	} else {
		err = 1;
	}
	return err == 1 ? parse_cpuinfo(p, line, key, v) : err;
}

int kb_arm64_parse(const char *name, const char *text, struct kb_arm64_cpu *out)
{
	struct parser p = { .name = name, .out = out };
	const char *s = text;
	int line = 0, err = 0;

	memset(out, 0, sizeof(*out));
	out->source = "dump";
	while (*s && !err) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *l = kb_xcalloc(len + 1, 1);

		line++;
		memcpy(l, s, len);
		if (memchr(s, 0, len) || strlen(l) != len)
			err = kb_fail(EINVAL, "%s:%d: a NUL byte: not a text dump", name, line);
		else if (!nl)
			err = kb_fail(EINVAL, "%s:%d: the last line has no line end: the dump looks truncated", name, line);
		else
			err = parse_line(&p, line, l);
		free(l);
		s = nl ? nl + 1 : s + len;
	}
	if (!err)
		err = close_block(&p);
	if (!err && !out->ncores)
		err = kb_fail(EINVAL, "%s: no arm64 CPU in it: no 'CPU implementer'/'CPU part' lines (a /proc/cpuinfo "
			      "of an arm64 machine) and no midr_el1 line", name);
	if (err)
		kb_arm64_free(out);
	return err;
}

int kb_arm64_read_file(const char *path, struct kb_arm64_cpu *out)
{
	char *buf;
	size_t len;
	int err = kb_read_file(path, &buf, &len);

	if (err)
		return err;
	if (memchr(buf, 0, len))
		err = kb_fail(EINVAL, "%s: has NUL bytes: not a text dump (/proc/cpuinfo or register lines)", path);
	else
		err = kb_arm64_parse(path, buf, out);
	free(buf);
	return err;
}

/* MIDR_EL1/REVIDR_EL1 of each CPU from sysfs, else /proc/cpuinfo's fields; the hwcaps. */
int kb_arm64_collect_at(const char *root, struct kb_arm64_cpu *out)
{
	char *info = NULL, path[4200], val[64];
	size_t len = 0;
	int err;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	err = kb_read_all(path, (size_t)16 << 20, &info, &len);
	if (err)
		return kb_fail(err, "%s: cannot read: %s", path, strerror(-err));
	if (!strstr(info, "CPU implementer")) {
		free(info);
		return kb_fail(ENODEV, "not an arm64 host: %s has no 'CPU implementer' line", path);
	}
	err = kb_arm64_parse(path, info, out);
	free(info);
	if (err)
		return err;
	out->source = "/proc/cpuinfo";
	snprintf(path, sizeof(path), "%s/proc/cmdline", root);
	if (!kb_read_all(path, 1 << 16, &info, &len)) {
		info[strcspn(info, "\n")] = 0;
		out->cmdline = info;
	}
	for (int i = 0; i < out->ncores; i++) {
		uint64_t v;
		char *end;

		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1", root,
			 out->cores[i].cpu);
		if (kb_read_text(path, val, sizeof(val)))
			continue;
		v = strtoull(val, &end, 0);
		if (*end && !isspace((unsigned char)*end))
			continue;
		out->cores[i].midr = (uint32_t)v;
		out->source = "sysfs regs/identification and /proc/cpuinfo";
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/regs/identification/revidr_el1", root,
			 out->cores[i].cpu);
		if (!kb_read_text(path, val, sizeof(val))) {
			out->cores[i].revidr = (uint32_t)strtoull(val, NULL, 0);
			out->cores[i].have_revidr = true;
		}
	}
	return 0;
}

int kb_arm64_collect(struct kb_arm64_cpu *out)
{
	return kb_arm64_collect_at("", out);
}

void kb_arm64_free(struct kb_arm64_cpu *c)
{
	free(c->cores);
	free(c->hwcaps);
	free(c->cmdline);
	c->cores = NULL;
	c->hwcaps = NULL;
	c->cmdline = NULL;
	c->ncores = 0;
}
