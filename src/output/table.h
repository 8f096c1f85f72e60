/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.h: the human view of a result: an aligned table with units and the checks. */
#ifndef KB_TABLE_H
#define KB_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "results/result.h"

void kb_table_header(FILE *f, bool color);
void kb_table_test(FILE *f, const struct kb_test_result *t, bool color);
void kb_table_print(FILE *f, const struct kb_result *r, bool color);
/* A number with thousands separators or significant digits, whichever reads better; "-" for an
 * infinity or a NaN. */
void kb_format_number(double v, char *buf, size_t size);

/* v in unit, scaled: a time per anything ("ns/iter", "s") in ns, µs, ms or s; other units as they are. */
void kb_format_scaled(double v, const char *unit, char *buf, size_t size);
/* A relative spread, a CI's half-width or a CV, with PREC decimals after SIGN ("±" or ""):
 * "±0.42%", "3.10%"; "-" when it is not a number (a variance that overflowed), never "±-nan%". */
void kb_format_spread(const char *sign, double rel, int prec, char *buf, size_t size);
/* Whether a validly measured test failed a check that does not invalidate it. */
bool kb_test_warned(const struct kb_test_result *t);

/* 'kvmbench run': one line per test (id, status, its time per iteration or primary metric scaled,
 * ±CI, CV, n); the checks only when it failed or warned, or verbose (then every metric too). */
void kb_line_header(FILE *f);
void kb_line_test(FILE *f, const struct kb_test_result *t, bool color, bool verbose);
/* The line after the run: ok, warned, skipped, invalid, error; wall time; where the JSON is. */
void kb_line_summary(FILE *f, const struct kb_result *r, double wall_s, const char *json);
/* A judged result (run --profile): the criteria of failed tests (all with verbose), then the verdict. */
void kb_table_profile(FILE *f, const struct kb_result *r, bool verbose);

#endif
