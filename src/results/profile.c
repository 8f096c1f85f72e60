/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c: read a qualification profile (kvmbench-profile(5)) from YAML with libyaml. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/kb.h"
#include "results/profile.h"

/* The parse of one file: its name for messages and the loaded document. */
struct ctx {
	const char *path;
	yaml_document_t *doc;
};

static struct kb_profile_pos pos_of(const yaml_node_t *n)
{
	return (struct kb_profile_pos){ (int)n->start_mark.line + 1, (int)n->start_mark.column + 1 };
}

static int bad(const struct ctx *c, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kb_fail(EINVAL, "%s:%d:%d: %s", c->path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A scalar's text, or an error naming what was expected. */
static int want_scalar(const struct ctx *c, const yaml_node_t *n, const char *what, const char **out)
{
	*out = scalar(n);
	if (!*out)
		return bad(c, n, "%s must be a single value, not a %s", what,
			   n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (strlen(*out) != n->data.scalar.length)
		return bad(c, n, "%s holds a NUL character", what);
	return 0;
}

static bool empty_node(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!n->data.scalar.length || !strcmp((const char *)n->data.scalar.value, "~") ||
		!strcmp((const char *)n->data.scalar.value, "null"));
}

typedef int (*pair_fn)(const struct ctx *c, const yaml_node_t *key, const char *name, const yaml_node_t *value,
		       void *arg);

/* Every key: value pair of a mapping, in order; keys must be single values and appear once.  An
 * empty value (key:) counts as an empty mapping when allow_empty. */
static int each_pair(const struct ctx *c, const yaml_node_t *map, const char *what, bool allow_empty, pair_fn fn,
		     void *arg)
{
	if (allow_empty && empty_node(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return bad(c, map, "%s must be a mapping (key: value lines)", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
		const char *name;
		int err;

		if ((err = want_scalar(c, k, "a key", &name)))
			return err;
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			const char *prev = scalar(yaml_document_get_node(c->doc, q->key));

			if (prev && !strcmp(prev, name))
				return bad(c, k, "'%s' is given twice in %s", name, what);
		}
		if ((err = fn(c, k, name, v, arg)))
			return err;
	}
	return 0;
}

static int parse_number(const struct ctx *c, const yaml_node_t *n, const char *what, double *out)
{
	const char *s;
	char *end;
	int err;

	if ((err = want_scalar(c, n, what, &s)))
		return err;
	errno = 0;
	*out = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(*out))
		return bad(c, n, "%s must be a number in the metric's unit, not '%s'", what, s);
	return 0;
}

/* "5%": a percentage (the sign is required, so that 0.05 and 5 cannot be confused). */
static int parse_percent(const struct ctx *c, const yaml_node_t *n, const char *what, double *out)
{
	const char *s;
	char *end;
	int err;

	if ((err = want_scalar(c, n, what, &s)))
		return err;
	errno = 0;
	*out = strtod(s, &end);
	if (!*s || end == s || strcmp(end, "%") || errno || !isfinite(*out) || *out < 0)
		return bad(c, n, "%s must be a percentage such as '5%%', not '%s'", what, s);
	return 0;
}

static int metric_key(const struct ctx *c, const yaml_node_t *k, const char *name, const yaml_node_t *v, void *arg)
{
	struct kb_metric_crit *m = arg;
	char what[160];

	snprintf(what, sizeof(what), "%s of metric %s", name, m->metric);
	if (!strcmp(name, "min")) {
		m->has_min = true;
		return parse_number(c, v, what, &m->min);
	}
	if (!strcmp(name, "max")) {
		m->has_max = true;
		return parse_number(c, v, what, &m->max);
	}
	if (!strcmp(name, "max-cv")) {
		m->has_max_cv = true;
		return parse_percent(c, v, what, &m->max_cv_pct);
	}
	if (!strcmp(name, "tolerance")) {
		m->has_tolerance = true;
		return parse_percent(c, v, what, &m->tolerance_pct);
	}
	return bad(c, k, "unknown criterion '%s' for metric %s (known: min, max, max-cv, tolerance)", name, m->metric);
}

static int metric_entry(const struct ctx *c, const yaml_node_t *k, const char *name, const yaml_node_t *v, void *arg)
{
	struct kb_profile_entry *e = arg;
	struct kb_metric_crit *m;
	char what[160];
	int err;

	e->metrics = kb_xrealloc(e->metrics, e->nmetrics + 1, sizeof(*e->metrics));
	m = &e->metrics[e->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->metric = kb_xstrdup(name);
	m->pos = pos_of(k);
	snprintf(what, sizeof(what), "the criteria of metric %s", name);
	if ((err = each_pair(c, v, what, false, metric_key, m)))
		return err;
	if (!m->has_min && !m->has_max && !m->has_max_cv && !m->has_tolerance)
		return bad(c, v, "metric %s has no criterion (min, max, max-cv or tolerance)", name);
	if (m->has_min && m->has_max && m->min > m->max)
		return bad(c, v, "metric %s: min %g is above max %g: nothing could pass", name, m->min, m->max);
	return 0;
}

/* may-skip-for / may-be-invalid-for: 'any', one reason, or a list of them. */
static int parse_reasons(const struct ctx *c, const yaml_node_t *v, const char *what, struct kb_reasons *r)
{
	const char *s;

	if (v->type == YAML_SCALAR_NODE) {
		if (want_scalar(c, v, what, &s))
			return -EINVAL;
		if (!*s)
			return bad(c, v, "%s is empty: give 'any', a reason, or a list of reasons", what);
		if (!strcmp(s, "any") && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			r->any = true;
			return 0;
		}
		r->v = kb_xrealloc(r->v, r->n + 1, sizeof(*r->v));
		r->v[r->n++] = kb_xstrdup(s);
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return bad(c, v, "%s must be 'any', a reason, or a list of reasons", what);
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		yaml_node_t *n = yaml_document_get_node(c->doc, *i);

		if (want_scalar(c, n, what, &s))
			return -EINVAL;
		if (!*s)
			return bad(c, n, "%s: an empty reason would match every reason (write 'any' for that)", what);
		r->v = kb_xrealloc(r->v, r->n + 1, sizeof(*r->v));
		r->v[r->n++] = kb_xstrdup(s);
	}
	if (!r->n)
		return bad(c, v, "%s is an empty list", what);
	return 0;
}

static int entry_key(const struct ctx *c, const yaml_node_t *k, const char *name, const yaml_node_t *v, void *arg)
{
	struct kb_profile_entry *e = arg;
	char what[192];

	snprintf(what, sizeof(what), "%s of %s", name, e->select);
	if (!strcmp(name, "may-skip-for"))
		return parse_reasons(c, v, what, &e->may_skip);
	if (!strcmp(name, "may-be-invalid-for"))
		return parse_reasons(c, v, what, &e->may_be_invalid);
	if (!strcmp(name, "metrics")) {
		snprintf(what, sizeof(what), "the metrics of %s", e->select);
		return each_pair(c, v, what, false, metric_entry, e);
	}
	return bad(c, k, "unknown key '%s' in the entry of %s (known: may-skip-for, may-be-invalid-for, metrics)",
		   name, e->select);
}

static int test_entry(const struct ctx *c, const yaml_node_t *k, const char *name, const yaml_node_t *v, void *arg)
{
	struct kb_profile *p = arg;
	struct kb_profile_entry *e;
	char what[192];

	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") != strlen(name))
		return bad(c, k, "'%s' is not a test selector: write SUITE, SUITE/TEST or default", name);
	p->entries = kb_xrealloc(p->entries, p->nentries + 1, sizeof(*p->entries));
	e = &p->entries[p->nentries++];
	memset(e, 0, sizeof(*e));
	e->select = kb_xstrdup(name);
	e->pos = pos_of(k);
	snprintf(what, sizeof(what), "the entry of %s", name);
	return each_pair(c, v, what, true, entry_key, e);
}

static int option_entry(const struct ctx *c, const yaml_node_t *k, const char *name, const yaml_node_t *v, void *arg)
{
	struct kb_profile *p = arg;
	struct kb_profile_opt *o;
	const char *value;
	char what[160];
	int err;

	snprintf(what, sizeof(what), "option %s", name);
	if ((err = want_scalar(c, v, what, &value)))
		return err;
	p->opts = kb_xrealloc(p->opts, p->nopts + 1, sizeof(*p->opts));
	o = &p->opts[p->nopts++];
	o->name = kb_xstrdup(name);
	o->value = kb_xstrdup(value);
	o->pos = pos_of(k);
	return 0;
}

static int top_key(const struct ctx *c, const yaml_node_t *k, const char *name, const yaml_node_t *v, void *arg)
{
	struct kb_profile *p = arg;
	const char *s;
	int err;

	if (!strcmp(name, "profile") || !strcmp(name, "description")) {
		if ((err = want_scalar(c, v, name, &s)))
			return err;
		if (!*s)
			return bad(c, v, "%s is empty", name);
		*(!strcmp(name, "profile") ? &p->name : &p->description) = kb_xstrdup(s);
		return 0;
	}
	if (!strcmp(name, "options"))
		return each_pair(c, v, "options", true, option_entry, p);
	if (!strcmp(name, "tests")) {
		if ((err = each_pair(c, v, "tests", false, test_entry, p)))
			return err;
		return p->nentries ? 0 : bad(c, v, "tests is empty: name at least one SUITE, SUITE/TEST or default");
	}
	return bad(c, k, "unknown key '%s' (known: profile, description, options, tests)", name);
}

static int parse_doc(struct ctx *c, struct kb_profile *p)
{
	yaml_node_t *root = yaml_document_get_root_node(c->doc);
	int err;

	if (!root)
		return kb_fail(EINVAL, "%s: empty profile: it needs at least 'profile: NAME' and 'tests:'", c->path);
	if (root->type != YAML_MAPPING_NODE)
		return bad(c, root, "a profile is a mapping of profile, description, options and tests");
	if ((err = each_pair(c, root, "the profile", false, top_key, p)))
		return err;
	if (!p->name)
		return bad(c, root, "no 'profile: NAME' line: a profile names itself");
	if (!p->nentries)
		return bad(c, root, "no 'tests:' mapping: a profile says which tests it runs");
	return 0;
}

int kb_profile_parse(const char *path, const char *text, size_t len, struct kb_profile *p)
{
	yaml_parser_t parser;
	yaml_document_t doc, more;
	struct ctx c = { path, &doc };
	int err;

	memset(p, 0, sizeof(*p));
	p->path = kb_xstrdup(path);
	if (!yaml_parser_initialize(&parser))
		return kb_fail(ENOMEM, "%s: cannot start the YAML parser", path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err = kb_fail(EINVAL, "%s:%zu:%zu: not valid YAML: %s%s%s", path, parser.problem_mark.line + 1,
			      parser.problem_mark.column + 1, parser.problem ? parser.problem : "parse error",
			      parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		kb_profile_free(p);
		return err;
	}
	err = parse_doc(&c, p);
	/* One profile per file: a second document would be silently ignored otherwise. */
	if (!err) {
		if (!yaml_parser_load(&parser, &more))
			err = kb_fail(EINVAL, "%s:%zu:%zu: not valid YAML: %s", path, parser.problem_mark.line + 1,
				      parser.problem_mark.column + 1, parser.problem ? parser.problem : "parse error");
		else {
			yaml_node_t *r = yaml_document_get_root_node(&more);

			if (r)
				err = kb_fail(EINVAL, "%s:%zu:%zu: a second YAML document: a profile file holds one", path,
					      r->start_mark.line + 1, r->start_mark.column + 1);
			yaml_document_delete(&more);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (err)
		kb_profile_free(p);
	return err;
}

int kb_profile_load(const char *path, struct kb_profile *p)
{
	char *text;
	size_t len;
	int err = kb_read_all(path, KB_PROFILE_MAX_BYTES, &text, &len);

	memset(p, 0, sizeof(*p));
	if (err == -EFBIG)
		return kb_fail(EFBIG, "%s: more than %u bytes: not a profile", path, KB_PROFILE_MAX_BYTES);
	if (err)
		return kb_fail(-err, "%s: cannot read: %s", path, strerror(-err));
	err = kb_profile_parse(path, text, len, p);
	free(text);
	return err;
}

static void reasons_free(struct kb_reasons *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
}

void kb_profile_free(struct kb_profile *p)
{
	for (size_t i = 0; i < p->nopts; i++) {
		free(p->opts[i].name);
		free(p->opts[i].value);
	}
	free(p->opts);
	for (size_t i = 0; i < p->nentries; i++) {
		struct kb_profile_entry *e = &p->entries[i];

		for (size_t k = 0; k < e->nmetrics; k++)
			free(e->metrics[k].metric);
		free(e->metrics);
		reasons_free(&e->may_skip);
		reasons_free(&e->may_be_invalid);
		free(e->select);
	}
	free(p->entries);
	free(p->path);
	free(p->name);
	free(p->description);
	memset(p, 0, sizeof(*p));
}

bool kb_profile_entry_matches(const struct kb_profile_entry *e, const char *suite, const char *test)
{
	size_t n = strlen(suite);

	if (!strcmp(e->select, "default"))
		return true;
	if (strncmp(e->select, suite, n))
		return false;
	return !e->select[n] || (e->select[n] == '/' && !strcmp(e->select + n + 1, test));
}

bool kb_profile_wants_reference(const struct kb_profile *p)
{
	for (size_t i = 0; i < p->nentries; i++)
		for (size_t k = 0; k < p->entries[i].nmetrics; k++)
			if (p->entries[i].metrics[k].has_tolerance)
				return true;
	return false;
}
