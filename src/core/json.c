/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c: the small JSON helpers every writer and reader uses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"

void kb_json_set(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

void kb_json_set_str(json_object *o, const char *key, const char *s)
{
	kb_json_set(o, key, s ? json_object_new_string(s) : NULL);
}

void kb_json_set_int(json_object *o, const char *key, int64_t v)
{
	kb_json_set(o, key, json_object_new_int64(v));
}

void kb_json_set_u64(json_object *o, const char *key, uint64_t v)
{
	kb_json_set(o, key, json_object_new_uint64(v));
}

json_object *kb_json_num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

void kb_json_set_num(json_object *o, const char *key, double v)
{
	kb_json_set(o, key, kb_json_num(v));
}

void kb_json_set_bool(json_object *o, const char *key, bool v)
{
	kb_json_set(o, key, json_object_new_boolean(v));
}

void kb_json_set_tri(json_object *o, const char *key, int v)
{
	kb_json_set(o, key, v == 1 || v == 0 ? json_object_new_boolean(v) : NULL);
}

json_object *kb_json_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

json_object *kb_json_get_type(json_object *o, const char *key, json_type type)
{
	json_object *v = kb_json_get(o, key);

	return v && json_object_is_type(v, type) ? v : NULL;
}

const char *kb_json_get_str(json_object *o, const char *key)
{
	json_object *v = kb_json_get_type(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

double kb_json_get_num(json_object *o, const char *key, double def)
{
	json_object *v = kb_json_get(o, key);

	if (v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return json_object_get_double(v);
	return def;
}

bool kb_json_get_bool(json_object *o, const char *key, bool def)
{
	json_object *v = kb_json_get_type(o, key, json_type_boolean);

	return v ? json_object_get_boolean(v) : def;
}

json_object *kb_json_path(json_object *o, const char *path)
{
	char key[128];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		o = kb_json_get(o, key);
		path += n + (dot ? 1 : 0);
	}
	return o;
}

bool kb_json_is_null(json_object *v)
{
	return !v || json_object_is_type(v, json_type_null);
}
