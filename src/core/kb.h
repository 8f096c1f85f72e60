/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kb.h: what every host-side file uses: the error contract and messages (error.c), allocation
 * (alloc.c), bounded reads and atomic writes (file.c), clocks and durations (time.c). */
#ifndef KB_H
#define KB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Library code returns -errno and leaves a sentence in a per-thread buffer
 * naming what failed and what to do; only the CLI layer prints it.
 */
int kb_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *kb_last_error(void);
void kb_clear_error(void);

/* CLI-layer reporting. */
void kb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kb_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
extern int kb_verbose;
extern int kb_quiet;
void kb_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *kb_xcalloc(size_t n, size_t size);
char *kb_xstrdup(const char *s);
/* realloc of n elements of 'size' bytes, the product checked for overflow. */
void *kb_xrealloc(void *p, size_t n, size_t size);
/* Room for element n in a growing array of *cap elements (doubled, new room zeroed); returns it. */
void *kb_xgrow(void *arr, size_t n, size_t *cap, size_t elem);
char *kb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *kb_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static inline uint64_t kb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read a small text file (sysfs, procfs) into buf, trailing newline removed. */
int kb_read_text(const char *path, char *buf, size_t size);
/* A whole file (or fd) into a malloc()ed, NUL-terminated *buf (*len without the NUL; len may be
 * NULL): -errno, and -EFBIG past 'max' bytes, so that a device such as /dev/zero cannot be endless. */
int kb_read_all(const char *path, size_t max, char **buf, size_t *len);
int kb_read_fd_all(int fd, size_t max, char **buf, size_t *len);
/* The SHA-256 of a whole file (at most max bytes) as 64 lowercase hex digits and a NUL (core/digest.c). */
int kb_sha256_file(const char *path, size_t max, char hex[65]);

/*
 * Replace 'path' atomically: fill() writes the content to a temporary file beside it,
 * which is synced and renamed over 'path'.  On any failure 'path' is left as it was.
 * 'what' names the content in error messages ("results", "HTML report").
 */
int kb_write_atomic(const char *path, const char *what, int (*fill)(FILE *f, void *ctx), void *ctx);
/* The same with the file's mode given (mode < 0: 0666 less the umask, as above). */
int kb_write_atomic_mode(const char *path, const char *what, int mode, int (*fill)(FILE *f, void *ctx), void *ctx);
/* Replace 'path' atomically with len bytes of data and the given mode. */
int kb_write_atomic_data(const char *path, const char *what, const char *data, size_t len, int mode);

/* The source tree of the build tree this executable runs from (config.status and a Makefile beside
 * it, whose abs_top_srcdir names it), malloc()ed; NULL when kvmbench is installed. */
char *kb_build_tree_srcdir(void);

/* Parse "1.5s", "200ms", "10" (seconds) into nanoseconds. */
int kb_parse_duration(const char *s, uint64_t *ns);
/* Now, UTC, as "2026-12-01T20:15:00Z". */
void kb_iso_now(char *buf, size_t size);

#endif
