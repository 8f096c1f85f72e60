/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buf.c: a growing NUL-terminated text buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/kb.h"

void kb_buf_add(struct kb_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = kb_xrealloc(b->p, cap, 1);
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void kb_buf_printf(struct kb_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = kb_xvasprintf(fmt, ap);
	va_end(ap);
	kb_buf_add(b, s, strlen(s));
	free(s);
}
