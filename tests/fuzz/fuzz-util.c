/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-util.c: helpers the fuzz targets share: the input as a string, a scratch directory. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

char *kb_fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

static char scratch[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	/* The directory itself stays; everything in it goes. */
	if (ftw->level > 0)
		remove(path);
	return 0;
}

void kb_fuzz_dir_clear(void)
{
	if (scratch[0])
		nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_scratch(void)
{
	kb_fuzz_dir_clear();
	rmdir(scratch);
}

const char *kb_fuzz_dir(void)
{
	if (!scratch[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(scratch, sizeof(scratch), "%s/kvmbench-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(scratch)) {
			perror("kvmbench fuzz: mkdtemp");
			abort();
		}
		atexit(remove_scratch);
	}
	return scratch;
}

int kb_fuzz_write(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	const char *base = kb_fuzz_dir();
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", base, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* Make the parents, one component at a time. */
	for (char *p = path + strlen(base) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(path, 0700) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, (const char *)data + done, len - done);

		if (n < 0) {
			int err = errno;

			close(fd);
			return -err;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

/*
 * Leaks that are not kvmbench's, left out of LeakSanitizer's report (libFuzzer and the sanitizer
 * build of 'make check' both read this):
 * - hwloc 2.9 does not free the objects it has made when hwloc_topology_load() fails on a bad
 *   XML file; hwloc_topology_destroy() after the failed load cannot reach them either (a plain C
 *   program doing init, set_xml, load, destroy leaks the same under valgrind).
 */
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libhwloc.so\n";
}
