/* SPDX-License-Identifier: GPL-2.0-or-later */
/* junit.h: a result judged by a profile (run --profile) as JUnit XML, which CI servers show natively. */
#ifndef KB_JUNIT_H
#define KB_JUNIT_H

#include "results/result.h"

/* Write r as JUnit XML to path, atomically: one testsuite (the profile), one testcase per test, a
 * failure for failed criteria, skipped for a test skipped as the profile allows.  wall_s: the run's
 * wall time. */
int kb_junit_write(const struct kb_result *r, const char *path, double wall_s);

#endif
