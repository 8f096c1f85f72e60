/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testfs.h: the files the C tests make for themselves: directories with their parents, and a file
 * written whole (its directories made first); a write that fails ends the test (exit 99, an error
 * to automake's TAP driver, not a failed point). */
#ifndef KB_TESTFS_H
#define KB_TESTFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/kb.h"

static inline void testfs_mkdirs(const char *path)
{
	char *d = kb_xstrdup(path);

	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(d, 0755);
			*p = '/';
		}
	mkdir(d, 0755);
	free(d);
}

static inline void testfs_write(const char *path, const void *data, size_t len)
{
	char *dir = kb_xstrdup(path), *slash = strrchr(dir, '/');
	FILE *f;

	if (slash) {
		*slash = 0;
		testfs_mkdirs(dir);
	}
	free(dir);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		printf("# cannot write %s\n", path);
		exit(99);
	}
}

#endif
