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
};

/* Summarise v[0..n).  With n == 1 the spread and CI are 0 and the CI is the value. */
void kb_summarize(const double *v, size_t n, struct kb_summary *s);
/* Two-sided Student t quantile for a 95% interval with df degrees of freedom. */
double kb_t95(double df);
/* Outliers by the MAD-based modified z-score (|z| > 3.5); flags[i] set for each (flags may be NULL). */
#define KB_OUTLIER_Z 3.5
#define KB_MAD_TO_SIGMA 0.6745
size_t kb_outliers(const double *v, size_t n, unsigned char *flags);

#endif
