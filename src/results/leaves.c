/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leaves.c: flatten a JSON object into leaves sorted by path, for diffs and listings. */
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "results/leaves.h"

struct leaves {
	struct kb_leaf *l;
	size_t n, cap;
};

const char *kb_leaf_text(json_object *v)
{
	if (!v)
		return "null";
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void add_leaf(struct leaves *ls, const char *path, json_object *v)
{
	struct kb_leaf *l;

	ls->l = kb_xgrow(ls->l, ls->n, &ls->cap, sizeof(*ls->l));
	l = &ls->l[ls->n++];
	l->is_number = v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
	l->number = l->is_number ? json_object_get_double(v) : 0;
	l->path = kb_xstrdup(path);
	l->value = kb_xstrdup(kb_leaf_text(v));
}

static void walk(struct leaves *ls, json_object *o, const char *path)
{
	if (!o || !json_object_is_type(o, json_type_object)) {
		add_leaf(ls, path, o);
		return;
	}
	json_object_object_foreach(o, key, val) {
		char *sub = kb_xasprintf("%s%s%s", path, *path ? "." : "", key);

		walk(ls, val, sub);
		free(sub);
	}
}

static int leaf_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kb_leaf *)a)->path, ((const struct kb_leaf *)b)->path);
}

size_t kb_json_leaves(json_object *o, const char *prefix, struct kb_leaf **out)
{
	struct leaves ls = { 0 };

	if (o)
		walk(&ls, o, prefix ? prefix : "");
	if (ls.n)
		qsort(ls.l, ls.n, sizeof(*ls.l), leaf_cmp);
	*out = ls.l;
	return ls.n;
}

void kb_leaves_free(struct kb_leaf *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].path);
		free(l[i].value);
	}
	free(l);
}
