/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.c: reading files with a bound on their size, replacing files atomically, and finding the build tree. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kb.h"

int kb_read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

int kb_write_atomic_mode(const char *path, const char *what, int mode, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char *dup = kb_xstrdup(path), *base = kb_xstrdup(path), *tmp = NULL;
	mode_t mask = umask(0);
	FILE *f;
	int fd, err;

	umask(mask);
	if (mode < 0)
		mode = (int)(0666 & ~mask);
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dup), basename(base)) < 0)
		kb_die("out of memory");
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = kb_fail(errno, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = kb_fail(errno, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	errno = 0;
	err = fill(f, ctx);
	/* A fill that stopped because a write failed (ENOSPC, EIO) says only that; name the cause. */
	if (err && ferror(f))
		err = kb_fail(errno ? errno : EIO, "%s: writing %s failed: %s (the previous file is untouched)",
			      path, what, strerror(errno ? errno : EIO));
	if (!err && (fflush(f) || ferror(f) || fchmod(fd, (mode_t)mode) || fsync(fd)))
		err = kb_fail(errno ? errno : EIO, "%s: writing %s failed: %s (the previous file is untouched)",
			      path, what, strerror(errno ? errno : EIO));
	if (fclose(f) && !err)
		err = kb_fail(errno, "%s: writing %s failed: %s (the previous file is untouched)", path, what,
			      strerror(errno));
	if (!err && rename(tmp, path))
		err = kb_fail(errno, "%s: %s", path, strerror(errno));
	if (err)
		unlink(tmp);
out:
	free(tmp);
	free(dup);
	free(base);
	return err;
}

int kb_write_atomic(const char *path, const char *what, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	return kb_write_atomic_mode(path, what, -1, fill, ctx);
}

struct data_ctx {
	const char *data;
	size_t len;
};

static int fill_data(FILE *f, void *arg)
{
	const struct data_ctx *d = arg;

	return d->len && fwrite(d->data, 1, d->len, f) != d->len ? -EIO : 0;
}

int kb_write_atomic_data(const char *path, const char *what, const char *data, size_t len, int mode)
{
	struct data_ctx d = { data, len };

	return kb_write_atomic_mode(path, what, mode, fill_data, &d);
}

int kb_read_fd_all(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);

	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap > max) {
				free(b);
				return -EFBIG;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(b);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(b);
		return -EFBIG;
	}
	b[n] = 0;
	*buf = b;
	if (len)
		*len = n;
	return 0;
}

int kb_read_all(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = kb_read_fd_all(fd, max, buf, len);
	close(fd);
	return err;
}

/*
 * The source tree of the build tree this kvmbench runs from, or NULL when it is installed: a build
 * tree has config.status and a Makefile beside the program, and the Makefile names its source
 * (abs_top_srcdir).  Read at run time, so that no build path is baked into the binary.
 */
char *kb_build_tree_srcdir(void)
{
	char exe[PATH_MAX], *slash, *text = NULL, *line, *src = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	strcpy(slash + 1, "config.status");
	if (access(exe, F_OK))
		return NULL;
	strcpy(slash + 1, "Makefile");
	if (kb_read_all(exe, (size_t)16 << 20, &text, NULL))
		return NULL;
	for (line = text; line && !src; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, "abs_top_srcdir = ", 17)) {
			size_t len = strcspn(line + 17, "\n");

			src = kb_xasprintf("%.*s", (int)len, line + 17);
		}
	free(text);
	return src;
}
