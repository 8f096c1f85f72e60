/* SPDX-License-Identifier: GPL-2.0-or-later */
/* termsafe.c: a filtering stream (fopencookie) for the terminal tables: no control character passes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/termsafe.h"

struct termsafe {
	FILE *out;
	bool color;
	char seq[24];   /* an escape sequence being read (color only), or a UTF-8 lead byte 0xc2 */
	size_t nseq;
};

static void flush_seq(struct termsafe *t, bool valid)
{
	if (t->nseq && !valid) {
		/* Not an SGR sequence, or a C1 control: the introducer becomes '?', the rest stays text. */
		fputc('?', t->out);
		if ((unsigned char)t->seq[0] == 0x1b)
			fwrite(t->seq + 1, 1, t->nseq - 1, t->out);
	} else if (t->nseq) {
		fwrite(t->seq, 1, t->nseq, t->out);
	}
	t->nseq = 0;
}

static void put(struct termsafe *t, unsigned char c)
{
	if (t->nseq && (unsigned char)t->seq[0] == 0xc2) {
		t->nseq = 0;
		if (c >= 0x80 && c <= 0x9f) {   /* U+0080..U+009F: C1 controls (CSI, OSC, ...) */
			fputc('?', t->out);
			return;
		}
		fputc(0xc2, t->out);
	} else if (t->nseq) {
		bool sgr_body = t->nseq >= 2 && ((c >= '0' && c <= '9') || c == ';');

		if (t->nseq == 1 && c == '[') {
			t->seq[t->nseq++] = (char)c;
			return;
		}
		if (sgr_body && t->nseq < sizeof(t->seq) - 1) {
			t->seq[t->nseq++] = (char)c;
			return;
		}
		if (c == 'm' && t->nseq >= 2) {
			t->seq[t->nseq++] = (char)c;
			flush_seq(t, true);
			return;
		}
		flush_seq(t, false);
	}
	if (c == 0x1b && t->color) {
		t->seq[t->nseq++] = (char)c;
	} else if (c == 0xc2) {
		t->seq[t->nseq++] = (char)c;
	} else if ((c < 0x20 && c != '\n') || c == 0x7f) {
		fputc('?', t->out);
	} else {
		fputc(c, t->out);
	}
}

static ssize_t ts_write(void *cookie, const char *buf, size_t size)
{
	struct termsafe *t = cookie;

	for (size_t i = 0; i < size; i++)
		put(t, (unsigned char)buf[i]);
	return ferror(t->out) ? -1 : (ssize_t)size;
}

static int ts_close(void *cookie)
{
	struct termsafe *t = cookie;
	int err;

	flush_seq(t, false);
	err = fflush(t->out);
	free(t);
	return err;
}

FILE *kb_termsafe_open(FILE *out, bool color)
{
	struct termsafe *t = kb_xcalloc(1, sizeof(*t));
	FILE *f;

	t->out = out;
	t->color = color;
	f = fopencookie(t, "w", (cookie_io_functions_t){ .write = ts_write, .close = ts_close });
	if (!f) {
		free(t);
		kb_fail(errno, "cannot make the terminal filter: %s", strerror(errno));
	}
	return f;
}
