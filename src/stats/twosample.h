/* SPDX-License-Identifier: GPL-2.0-or-later */
/* twosample.h: two-sample tests on raw samples; a is the base, b the new side. */
#ifndef KB_TWOSAMPLE_H
#define KB_TWOSAMPLE_H

#include <stdbool.h>
#include <stddef.h>

struct kb_welch {
	double diff;          /* mean(b) - mean(a) */
	double se;            /* standard error of diff */
	double t, df, p;      /* Welch-Satterthwaite df; p two-sided */
};

/* Returns -EDOM (and NaN t, df, p) with fewer than two samples on a side. */
int kb_welch_test(const double *a, size_t na, const double *b, size_t nb, struct kb_welch *w);

struct kb_mwu {
	double u;             /* U of a: pairs with a above b, ties counted half */
	double z;             /* normal approximation's z (0 when exact) */
	double p;             /* two-sided */
	bool exact;           /* exact distribution (no ties, both sides <= 50) */
};

int kb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct kb_mwu *m);

/* The paired test of an interleaved A/B run: pair i is a[i] and b[i], measured next to each other,
 * so the drift both saw cancels in their ratio.  A paired t-test on the log ratios ln(b[i]/a[i]):
 * ratio is the geometric mean of b/a, [ratio_lo, ratio_hi] its CI at 1 - alpha. */
struct kb_paired {
	size_t n;
	double mean_log, se;  /* mean of ln(b/a) and its standard error */
	double t, df, p;      /* df = n - 1; p two-sided */
	double ratio, ratio_lo, ratio_hi;
};

/* Returns -EDOM (NaN t, p) with fewer than two pairs or a value that is not positive. */
int kb_paired_ratio_test(const double *a, const double *b, size_t n, double alpha, struct kb_paired *r);

#endif
