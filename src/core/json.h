/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h: the small JSON helpers every writer and reader uses (json-c underneath): setting members
 * with the value's type in the name, and reading members that may be absent or of another type. */
#ifndef KB_JSON_H
#define KB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

/* ---- building: each sets o[key], replacing what was there ---- */
void kb_json_set(json_object *o, const char *key, json_object *v);   /* takes v; NULL is null */
void kb_json_set_str(json_object *o, const char *key, const char *s); /* NULL is null */
void kb_json_set_int(json_object *o, const char *key, int64_t v);
void kb_json_set_u64(json_object *o, const char *key, uint64_t v);
void kb_json_set_num(json_object *o, const char *key, double v);     /* NaN, inf: null */
void kb_json_set_bool(json_object *o, const char *key, bool v);
void kb_json_set_tri(json_object *o, const char *key, int v);        /* 1 true, 0 false, else null */
/* A number, or NULL (null) when it is not finite: JSON has no NaN or infinity. */
json_object *kb_json_num(double v);

/* ---- reading: NULL, or the default, when absent, null or of another type ---- */
json_object *kb_json_get(json_object *o, const char *key);            /* o must be an object */
json_object *kb_json_get_type(json_object *o, const char *key, json_type type);
const char *kb_json_get_str(json_object *o, const char *key);
double kb_json_get_num(json_object *o, const char *key, double def); /* int or double */
bool kb_json_get_bool(json_object *o, const char *key, bool def);
/* A member by dotted path ("cpu.brand"), or NULL. */
json_object *kb_json_path(json_object *o, const char *path);
bool kb_json_is_null(json_object *v);

/* ---- reading files ---- */
/* The JSON file at path (at most max bytes) into *out, leaving out the member skip_key of each object
 * in the array that is the top level's member skip_in (a result's "tests"/"raw"), parsed but never
 * built.  NaN, Infinity and -Infinity, as json-c writes them, are read as json-c reads them. */
int kb_json_load_pruned(const char *path, size_t max, const char *skip_in, const char *skip_key, json_object **out);

#endif
