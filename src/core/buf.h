/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buf.h: a growing NUL-terminated text buffer, for building messages and file contents. */
#ifndef KB_BUF_H
#define KB_BUF_H

#include <stddef.h>

struct kb_buf {
	char *p;          /* NUL-terminated once anything was added; free() it */
	size_t len, cap;
};

void kb_buf_add(struct kb_buf *b, const char *s, size_t n);
void kb_buf_printf(struct kb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
