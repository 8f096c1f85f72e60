/* SPDX-License-Identifier: GPL-2.0-or-later */
/* path.c: directories, existence, and relative paths that cannot leave a tree. */
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "patches/internal.h"

bool kbp_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool kbp_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* A path relative to a tree top that cannot leave it: no leading '/', no '.' or '..' parts. */
bool kbp_safe_relpath(const char *p)
{
	if (!*p || *p == '/')
		return false;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20)
				return false;
		p += n + (slash ? 1 : 0);
		if (slash && !*p)
			return false;
	}
	return true;
}
