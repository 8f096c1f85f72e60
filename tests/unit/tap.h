/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h: the few TAP helpers kvmbench's C tests use (output read by automake's TAP driver). */
#ifndef KB_TAP_H
#define KB_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

static inline int is_near(double got, double want, double tol, const char *what)
{
	int r = ok(fabs(got - want) <= tol, "%s: %.10g (want %.10g ± %g)", what, got, want, tol);

	return r;
}

static inline int is_str(const char *got, const char *want, const char *what)
{
	return ok(got && want && !strcmp(got, want), "%s: '%s' (want '%s')", what, got ? got : "(null)",
		  want ? want : "(null)");
}

/* n test points not run, with the reason (a TAP skip, which the CI skip check reads). */
static inline void skip(int n, const char *why)
{
	while (n-- > 0)
		printf("ok %d # SKIP %s\n", ++tap_n, why);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
