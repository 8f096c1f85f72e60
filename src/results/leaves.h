/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leaves.h: a JSON object flattened into sorted leaves ("cpu.brand" = "AMD EPYC"); arrays are leaves. */
#ifndef KB_LEAVES_H
#define KB_LEAVES_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct kb_leaf {
	char *path;
	char *value;          /* strings as they are, the rest as JSON text */
	bool is_number;       /* then number holds it: 1 and 1.0 are the same value */
	double number;
};
/* Flatten o under prefix (may be NULL or "") into a list sorted by path. */
size_t kb_json_leaves(json_object *o, const char *prefix, struct kb_leaf **out);
void kb_leaves_free(struct kb_leaf *l, size_t n);
/* A value as a leaf shows it: strings as they are, the rest as JSON text; valid while v lives. */
const char *kb_leaf_text(json_object *v);

#endif
