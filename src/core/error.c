/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.c: the error contract (a -errno and a sentence in a per-thread buffer) and the CLI's
 * messages: warnings, fatal errors, debug lines. */
#include <errno.h>
#include <stdlib.h>

#include "core/kb.h"

static __thread char last_error[1024];
int kb_verbose;
int kb_quiet;

int kb_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : err;
}

const char *kb_last_error(void)
{
	return last_error[0] ? last_error : "unknown error";
}

void kb_clear_error(void)
{
	last_error[0] = 0;
}

void kb_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("kvmbench: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void kb_die(const char *fmt, ...)
{
	va_list ap;

	fputs("kvmbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void kb_debug(const char *fmt, ...)
{
	va_list ap;

	if (!kb_verbose)
		return;
	fputs("kvmbench: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
