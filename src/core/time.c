/* SPDX-License-Identifier: GPL-2.0-or-later */
/* time.c: durations as people write them, and timestamps as results record them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/kb.h"

int kb_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* !(v >= 0) also refuses "nan", which no comparison below would (found by fuzzing). */
	if (errno || end == s || !(v >= 0))
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ns"))
		;
	else
		return -EINVAL;
	if (v > 1e18)
		return -ERANGE;
	*ns = (uint64_t)v;
	return 0;
}

void kb_iso_now(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
