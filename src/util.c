/* util.c: error buffer, messages, allocation and small parsing helpers. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kb.h"

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

int kb_write_atomic(const char *path, const char *what, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char *dup = kb_xstrdup(path), *base = kb_xstrdup(path), *tmp = NULL;
	mode_t mask = umask(0);
	FILE *f;
	int fd, err;

	umask(mask);
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
	if (!err && (fflush(f) || ferror(f) || fchmod(fd, 0666 & ~mask) || fsync(fd)))
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
