/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-prune.c: a JSON file into a json-c tree through yajl's streaming parser, leaving out the
 * members a caller does not need (every test's raw records, for the fleet report): they are scanned
 * and checked, but never built, which is most of the time and memory of reading a result.  json-c
 * writes NaN, Infinity and -Infinity as bare words, which yajl refuses: they are read as numbers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "core/json.h"
#include "core/kb.h"

#define PRUNE_MAX_DEPTH 32   /* as json-c's own parser */

struct prune {
	const char *skip_in;     /* the top level's member, an array, whose objects lose skip_key */
	const char *skip_key;
	json_object **stack;     /* the open containers, outermost first */
	char **keys;             /* per open object: the member being read (NULL in arrays) */
	size_t depth, cap;
	int skipping;            /* > 0: inside a left-out value, this many containers deep */
	bool skip_next;          /* the next value is a left-out member */
	json_object *root;
	bool too_deep;
	const char *text;        /* the whole file: yajl hands numbers out as pointers into it */
	size_t *nans;            /* offsets of the NaN words, rewritten to "0.0" */
	size_t nnans, capnans;
};

/* A finished value goes into the innermost open container, or becomes the root. */
static int put(struct prune *p, json_object *v)
{
	json_object *top;

	if (!p->depth) {
		p->root = v;
		return 1;
	}
	top = p->stack[p->depth - 1];
	if (json_object_is_type(top, json_type_array)) {
		json_object_array_add(top, v);
	} else {
		json_object_object_add(top, p->keys[p->depth - 1] ? p->keys[p->depth - 1] : "", v);
		free(p->keys[p->depth - 1]);
		p->keys[p->depth - 1] = NULL;
	}
	return 1;
}

/* A scalar: dropped inside a left-out value, else put. */
static int scalar(struct prune *p, json_object *(*make)(const void *, size_t), const void *s, size_t n)
{
	if (p->skipping)
		return 1;
	if (p->skip_next) {
		p->skip_next = false;
		return 1;
	}
	return put(p, make(s, n));
}

static json_object *make_null(const void *s, size_t n)
{
	return NULL;
}

static json_object *make_string(const void *s, size_t n)
{
	return json_object_new_string_len(s, (int)n);
}

/* As json-c reads numbers: an integer without fraction or exponent is an int64 (or a uint64 past its
 * range), anything else a double. */
static json_object *make_number(const void *s, size_t n)
{
	char small[64], *buf = n < sizeof(small) ? small : kb_xcalloc(n + 1, 1);
	json_object *o;

	/* All of it, however long: a mantissa of a hundred digits still has its exponent after them. */
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!strpbrk(buf, ".eE")) {
		long long v;

		/* json-c makes a positive integer past INT64_MAX a uint64 (saturated at UINT64_MAX). */
		errno = 0;
		v = strtoll(buf, NULL, 10);
		o = errno == ERANGE && buf[0] != '-' ? json_object_new_uint64(strtoull(buf, NULL, 10)) : json_object_new_int64(v);
	} else
		o = json_object_new_double(strtod(buf, NULL));
	if (buf != small)
		free(buf);
	return o;
}

static int on_null(void *ctx)
{
	return scalar(ctx, make_null, NULL, 0);
}

static int on_boolean(void *ctx, int b)
{
	struct prune *p = ctx;

	if (p->skipping || p->skip_next) {
		p->skip_next = false;
		return 1;
	}
	return put(p, json_object_new_boolean(b));
}

static int on_number(void *ctx, const char *s, size_t n)
{
	struct prune *p = ctx;
	size_t off = (size_t)(s - p->text);

	/* The NaN offsets are in file order: a binary search finds a rewritten one. */
	for (size_t lo = 0, hi = p->nnans; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (p->nans[mid] == off) {
			if (p->skipping || p->skip_next) {
				p->skip_next = false;
				return 1;
			}
			return put(p, json_object_new_double(NAN));
		}
		if (p->nans[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return scalar(ctx, make_number, s, n);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
	return scalar(ctx, make_string, s, n);
}

static int open_container(struct prune *p, json_object *c)
{
	if (p->skipping || p->skip_next) {
		p->skip_next = false;
		p->skipping++;
		return 1;
	}
	if (p->depth >= PRUNE_MAX_DEPTH) {
		json_object_put(c);
		p->too_deep = true;
		return 0;
	}
	p->stack = kb_xgrow(p->stack, p->depth, &p->cap, sizeof(*p->stack));
	p->keys = kb_xrealloc(p->keys, p->cap, sizeof(*p->keys));
	p->stack[p->depth] = c;
	p->keys[p->depth++] = NULL;
	return 1;
}

static int close_container(struct prune *p)
{
	json_object *c;

	if (p->skipping) {
		p->skipping--;
		return 1;
	}
	c = p->stack[--p->depth];
	free(p->keys[p->depth]);
	return put(p, c);
}

static int on_start_map(void *ctx)
{
	struct prune *p = ctx;

	return open_container(p, p->skipping || p->skip_next ? NULL : json_object_new_object());
}

static int on_start_array(void *ctx)
{
	struct prune *p = ctx;

	return open_container(p, p->skipping || p->skip_next ? NULL : json_object_new_array());
}

static int on_end(void *ctx)
{
	return close_container(ctx);
}

static int on_map_key(void *ctx, const unsigned char *key, size_t n)
{
	struct prune *p = ctx;

	if (p->skipping)
		return 1;
	/* Only in the objects of that array: a member of the same name anywhere else is kept (the full
	 * reader keeps it, and fleet reports show what the full one would). */
	if (p->skip_key && p->depth == 3 && p->keys[0] && !strcmp(p->keys[0], p->skip_in) &&
	    json_object_is_type(p->stack[1], json_type_array) && strlen(p->skip_key) == n && !memcmp(key, p->skip_key, n)) {
		p->skip_next = true;
		return 1;
	}
	free(p->keys[p->depth - 1]);
	p->keys[p->depth - 1] = kb_xcalloc(n + 1, 1);
	memcpy(p->keys[p->depth - 1], key, n);
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

static void prune_free(struct prune *p)
{
	while (p->depth) {
		json_object_put(p->stack[--p->depth]);
		free(p->keys[p->depth]);
	}
	free(p->stack);
	free(p->keys);
	json_object_put(p->root);
}

/* json-c's words for the numbers JSON lacks, outside strings, made numbers of the same length:
 * Infinity and -Infinity overflow to infinities as strtod reads them, NaN is noted by offset. */
static void rewrite_words(struct prune *p, char *t, size_t len)
{
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		if (in_string) {
			if (t[i] == '\\')
				i++;
			else if (t[i] == '"')
				in_string = false;
		} else if (t[i] == '"') {
			in_string = true;
		} else if (t[i] == 'I' && len - i >= 8 && !memcmp(t + i, "Infinity", 8)) {
			memcpy(t + i, "1e999999", 8);
			i += 7;
		} else if (t[i] == 'N' && len - i >= 3 && !memcmp(t + i, "NaN", 3)) {
			memcpy(t + i, "0.0", 3);
			p->nans = kb_xgrow(p->nans, p->nnans, &p->capnans, sizeof(*p->nans));
			p->nans[p->nnans++] = i;
			i += 2;
		}
	}
}

int kb_json_load_pruned(const char *path, size_t max, const char *skip_in, const char *skip_key, json_object **out)
{
	struct prune p = { .skip_in = skip_in, .skip_key = skip_key };
	yajl_status st;
	yajl_handle h;
	size_t len;
	char *text;
	int err = kb_read_all(path, max, &text, &len);

	*out = NULL;
	if (err)
		return kb_fail(err, "%s: cannot read: %s", path, strerror(-err));
	rewrite_words(&p, text, len);
	p.text = text;
	h = yajl_alloc(&callbacks, NULL, &p);
	if (!h)
		kb_die("out of memory");
	st = yajl_parse(h, (const unsigned char *)text, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	if (st != yajl_status_ok || !p.root) {
		unsigned char *msg = p.too_deep ? NULL : yajl_get_error(h, 0, NULL, 0);
		size_t n = msg ? strlen((char *)msg) : 0;

		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = 0;
		err = kb_fail(EINVAL, "%s: not valid JSON (%s)", path,
			      p.too_deep ? "nested too deeply" : msg ? (const char *)msg : "empty");
		if (msg)
			yajl_free_error(h, msg);
	}
	yajl_free(h);
	free(text);
	free(p.nans);
	p.nans = NULL;
	if (err) {
		prune_free(&p);
		return err;
	}
	*out = p.root;
	p.root = NULL;
	prune_free(&p);
	return 0;
}
