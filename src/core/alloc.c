/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alloc.c: allocation that cannot fail: out of memory ends the program with a message. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"

void *kb_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		kb_die("out of memory allocating %zu bytes", n * size);
	return p;
}

char *kb_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		kb_die("out of memory");
	return p;
}

void *kb_xrealloc(void *p, size_t n, size_t size)
{
	size_t total;
	void *q;

	if (size && n > SIZE_MAX / size)
		kb_die("out of memory: %zu elements of %zu bytes do not fit in memory", n, size);
	total = n * size;
	q = realloc(p, total ? total : 1);
	if (!q)
		kb_die("out of memory allocating %zu bytes", n * size);
	return q;
}

void *kb_xgrow(void *arr, size_t n, size_t *cap, size_t elem)
{
	size_t ncap;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 8;
	while (ncap <= n)
		ncap *= 2;
	arr = kb_xrealloc(arr, ncap, elem);
	memset((char *)arr + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
	return arr;
}

char *kb_xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		kb_die("out of memory");
	return s;
}

char *kb_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = kb_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
