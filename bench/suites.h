/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suites.h: the one table of suites (bench/suites.c) and lookups in it. */
#ifndef KB_BENCH_SUITES_H
#define KB_BENCH_SUITES_H

#include "run/suite.h"

extern const struct kb_suite *const kb_suites[];
extern const size_t kb_nsuites;

const struct kb_suite *kb_find_suite(const char *name);
const struct kb_test_def *kb_find_test(const struct kb_suite *s, const char *name);
/* Every suite entry complete, names unique, options not clashing: checked at start-up. */
int kb_suites_validate(void);
#endif
