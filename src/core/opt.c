/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.c: declarative option tables: a value given as text set into a config struct, checked against
 * the option's type and range; defaults; the values as JSON.  The CLI parses argv with these. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "core/opt.h"

int kb_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*bytes = v * mul;
	return 0;
}

/* A size for people: "300 GiB", "2 MiB", "1536 KiB". */
void kb_format_size(double bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && bytes >= 1024 && bytes / 1024 == (double)(uint64_t)(bytes / 1024)) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, size, "%.0f %s", bytes, units[u]);
}

static int check_range(const struct kb_opt *o, double v)
{
	char a[32], lo[32], hi[32];

	if (!(o->max > o->min) || (v >= o->min && v <= o->max))
		return 0;
	if (o->type == KB_OPT_SIZE) {
		kb_format_size(v, a, sizeof(a));
		kb_format_size(o->min, lo, sizeof(lo));
		kb_format_size(o->max, hi, sizeof(hi));
		return kb_fail(ERANGE, "--%s: %s is outside %s..%s", o->name, a, lo, hi);
	}
	return kb_fail(ERANGE, "--%s: %g is outside %g..%g", o->name, v, o->min, o->max);
}

static int parse_int(const struct kb_opt *o, const char *value, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 0);
	if (errno || end == value || *end || v < INT32_MIN || v > INT32_MAX)
		return kb_fail(EINVAL, "--%s: '%s' is not a whole number", o->name, value);
	*out = (int)v;
	return check_range(o, (double)v);
}

/* "1,2,4,8": each element an in-range whole number, none twice. */
static int parse_int_list(const struct kb_opt *o, const char *value, struct kb_int_list *out)
{
	struct kb_int_list l = { 0 };
	char buf[256], *save = NULL, *tok;
	int err;

	if (strlen(value) >= sizeof(buf) || !*value || value[strlen(value) - 1] == ',')
		return kb_fail(EINVAL, "--%s: '%s' is not a number or a comma-separated list of numbers", o->name, value);
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (l.n == KB_INT_LIST_MAX)
			return kb_fail(E2BIG, "--%s: more than %d values in '%s'", o->name, KB_INT_LIST_MAX, value);
		err = parse_int(o, tok, &l.v[l.n]);
		if (err)
			return err;
		for (int i = 0; i < l.n; i++)
			if (l.v[i] == l.v[l.n])
				return kb_fail(EINVAL, "--%s: %d is listed twice in '%s'", o->name, l.v[i], value);
		l.n++;
	}
	*out = l;
	return 0;
}

const char *kb_opt_choice_name(const struct kb_opt *o, int index, char *buf, size_t size)
{
	const char *w = o->choices ? o->choices : "";

	for (int i = 0; i < index && w; i++) {
		w = strchr(w, '|');
		w = w ? w + 1 : NULL;
	}
	if (!w || index < 0 || !size) {
		if (size)
			*buf = 0;
		return buf;
	}
	snprintf(buf, size, "%.*s", (int)strcspn(w, "|"), w);
	return buf;
}

static int parse_choice(const struct kb_opt *o, const char *value, int *out)
{
	char name[64];

	for (int i = 0; *kb_opt_choice_name(o, i, name, sizeof(name)); i++)
		if (!strcmp(name, value)) {
			*out = i;
			return 0;
		}
	return kb_fail(EINVAL, "--%s: '%s' is not one of %s", o->name, value, o->choices ? o->choices : "");
}

int kb_opt_set(const struct kb_opt *o, void *cfg, const char *value)
{
	char *p = (char *)cfg + o->off;
	char *end;
	int err;

	errno = 0;
	switch (o->type) {
	case KB_OPT_FLAG:
		*(bool *)p = value ? (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes")) : true;
		return 0;
	case KB_OPT_INT: {
		int v;

		err = parse_int(o, value, &v);
		if (!err)
			*(int *)p = v;
		return err;
	}
	case KB_OPT_INT_LIST:
		return parse_int_list(o, value, (struct kb_int_list *)p);
	case KB_OPT_CHOICE:
		return parse_choice(o, value, (int *)p);
	case KB_OPT_U64: {
		unsigned long long v = strtoull(value, &end, 0);

		if (errno || end == value || *end || *value == '-')
			return kb_fail(EINVAL, "--%s: '%s' is not a non-negative whole number", o->name, value);
		err = check_range(o, (double)v);
		if (!err)
			*(uint64_t *)p = v;
		return err;
	}
	case KB_OPT_DOUBLE: {
		double v = strtod(value, &end);

		if (errno || end == value || (*end && strcmp(end, "%")))
			return kb_fail(EINVAL, "--%s: '%s' is not a number", o->name, value);
		err = check_range(o, v);
		if (!err)
			*(double *)p = v;
		return err;
	}
	case KB_OPT_STRING:
		*(const char **)p = value;
		return 0;
	case KB_OPT_DURATION: {
		uint64_t ns;

		if (kb_parse_duration(value, &ns))
			return kb_fail(EINVAL, "--%s: '%s' is not a duration (e.g. 500ms, 2s)", o->name, value);
		err = check_range(o, ns / 1e9);
		if (!err)
			*(uint64_t *)p = ns;
		return err;
	}
	case KB_OPT_SIZE: {
		uint64_t b;

		if (kb_parse_size(value, &b))
			return kb_fail(EINVAL, "--%s: '%s' is not a size (e.g. 64M, 1G)", o->name, value);
		err = check_range(o, (double)b);
		if (!err)
			*(uint64_t *)p = b;
		return err;
	}
	}
	return kb_fail(EINVAL, "--%s: unknown option type", o->name);
}

int kb_opt_apply_defaults(const struct kb_opt_group *g)
{
	for (size_t i = 0; i < g->nopts; i++) {
		const struct kb_opt *o = &g->opts[i];

		if (o->def && o->type != KB_OPT_FLAG) {
			int err = kb_opt_set(o, g->cfg, o->def);

			if (err)
				return err;
		}
	}
	return 0;
}

json_object *kb_opt_groups_json(const struct kb_opt_group *groups, size_t ngroups)
{
	json_object *o = json_object_new_object();

	for (size_t g = 0; g < ngroups; g++)
		for (size_t i = 0; i < groups[g].nopts; i++) {
			const struct kb_opt *op = &groups[g].opts[i];
			const char *p = (const char *)groups[g].cfg + op->off;
			json_object *v = NULL;

			switch (op->type) {
			case KB_OPT_FLAG: v = json_object_new_boolean(*(const bool *)p); break;
			case KB_OPT_INT: v = json_object_new_int(*(const int *)p); break;
			case KB_OPT_INT_LIST: {
				const struct kb_int_list *l = (const void *)p;

				/* One value stays a number, as an INT option's would. */
				if (l->n == 1) {
					v = json_object_new_int(l->v[0]);
					break;
				}
				v = json_object_new_array();
				for (int k = 0; k < l->n; k++)
					json_object_array_add(v, json_object_new_int(l->v[k]));
				break;
			}
			case KB_OPT_U64: case KB_OPT_SIZE: case KB_OPT_DURATION:
				v = json_object_new_uint64(*(const uint64_t *)p);
				break;
			case KB_OPT_DOUBLE: v = json_object_new_double(*(const double *)p); break;
			case KB_OPT_STRING:
				v = *(const char *const *)p ? json_object_new_string(*(const char *const *)p) : NULL;
				break;
			case KB_OPT_CHOICE: {
				char name[64];

				v = json_object_new_string(kb_opt_choice_name(op, *(const int *)p, name, sizeof(name)));
				break;
			}
			}
			json_object_object_add(o, op->name, v);
		}
	return o;
}
