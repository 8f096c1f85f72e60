/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h: descriptive statistics of a sample set. */
#ifndef KB_STATS_H
#define KB_STATS_H

#include <stddef.h>

struct kb_summary {
	size_t n;
	double mean, median, stddev, cv, min, max;
	double ci_lo, ci_hi;      /* 95% confidence interval of the mean (Student t) */
	double ci_rel;            /* half-width of the CI relative to the mean */
	size_t outliers;          /* modified z-score above 3.5: flagged, never dropped */
	double mad;               /* median absolute deviation, unscaled */
	size_t rounds;            /* rounds the mean and CI rest on (kb_summarize_rounds); 0: one run's samples */
};

/* Summarise v[0..n).  With n == 1 the spread and CI are 0 and the CI is the value. */
void kb_summarize(const double *v, size_t n, struct kb_summary *s);
/* The two-level estimate of a measurement taken in k rounds (each a fresh VM): the mean becomes the
 * mean of the round means, and its 95% CI comes from the spread of the round means (Student t,
 * k - 1 df), which holds the drift between rounds as well as the noise within them.  Sets mean,
 * ci_lo, ci_hi, ci_rel and rounds; the rest of s stays the summary of the pooled samples.  Needs k >= 2. */
void kb_summarize_rounds(const double *round_means, size_t k, struct kb_summary *s);
/* Two-sided Student t quantile for a 95% interval with df degrees of freedom. */
double kb_t95(double df);
/* Outliers by the MAD-based modified z-score (|z| > 3.5); flags[i] set for each (flags may be NULL). */
#define KB_OUTLIER_Z 3.5
#define KB_MAD_TO_SIGMA 0.6745
size_t kb_outliers(const double *v, size_t n, unsigned char *flags);

#endif
