/* kb.h: small helpers every host-side file uses: errors, memory, clocks. */
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

static inline uint64_t kb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read a small text file (sysfs, procfs) into buf, trailing newline removed. */
int kb_read_text(const char *path, char *buf, size_t size);

/*
 * Replace 'path' atomically: fill() writes the content to a temporary file beside it,
 * which is synced and renamed over 'path'.  On any failure 'path' is left as it was.
 * 'what' names the content in error messages ("results", "HTML report").
 */
int kb_write_atomic(const char *path, const char *what, int (*fill)(FILE *f, void *ctx), void *ctx);

/* Parse "1.5s", "200ms", "10" (seconds) into nanoseconds. */
int kb_parse_duration(const char *s, uint64_t *ns);

#endif
