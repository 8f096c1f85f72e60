/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c: mean, spread and confidence intervals, with GSL's distributions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "core/kb.h"
#include "stats/stats.h"

double kb_t95(double df)
{
	return gsl_cdf_tdist_Pinv(0.975, df);
}

static double median_of(double *sorted, size_t n)
{
	double m = gsl_stats_median_from_sorted_data(sorted, 1, n);

	/* GSL averages the middle two as (a + b) / 2, which overflows for two near the ends of the doubles. */
	if (!isfinite(m) && n && !(n % 2) && isfinite(sorted[n / 2 - 1]) && isfinite(sorted[n / 2]))
		m = sorted[n / 2 - 1] / 2 + sorted[n / 2] / 2;
	return m;
}

/* Median absolute deviation, unscaled. */
static double mad_of(const double *v, size_t n, double med)
{
	double *d = kb_xcalloc(n, sizeof(*d));
	double m;

	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	gsl_sort(d, 1, n);
	m = median_of(d, n);
	free(d);
	return m;
}

size_t kb_outliers(const double *v, size_t n, unsigned char *flags)
{
	double *s, med, mad;
	size_t count = 0;

	if (flags)
		memset(flags, 0, n);
	if (n < 3)
		return 0;
	s = kb_xcalloc(n, sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	gsl_sort(s, 1, n);
	med = median_of(s, n);
	free(s);
	mad = mad_of(v, n, med);
	if (mad <= 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (fabs(KB_MAD_TO_SIGMA * (v[i] - med) / mad) > KB_OUTLIER_Z) {
			count++;
			if (flags)
				flags[i] = 1;
		}
	return count;
}

void kb_summarize(const double *v, size_t n, struct kb_summary *s)
{
	double *sorted;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	sorted = kb_xcalloc(n, sizeof(*sorted));
	memcpy(sorted, v, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	s->mean = gsl_stats_mean(v, 1, n);
	s->median = median_of(sorted, n);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->ci_lo = s->ci_hi = s->mean;
	if (n > 1) {
		double half;

		s->stddev = gsl_stats_sd_m(v, 1, n, s->mean);
		half = kb_t95((double)(n - 1)) * s->stddev / sqrt((double)n);
		s->ci_lo = s->mean - half;
		s->ci_hi = s->mean + half;
		if (s->mean != 0) {
			s->cv = s->stddev / fabs(s->mean);
			s->ci_rel = half / fabs(s->mean);
		}
	}
	s->outliers = kb_outliers(v, n, NULL);
	s->mad = mad_of(v, n, s->median);
	free(sorted);
}

void kb_summarize_rounds(const double *round_means, size_t k, struct kb_summary *s)
{
	double mean, half;

	if (k < 2)
		return;
	mean = gsl_stats_mean(round_means, 1, k);
	half = kb_t95((double)(k - 1)) * gsl_stats_sd_m(round_means, 1, k, mean) / sqrt((double)k);
	s->mean = mean;
	s->ci_lo = mean - half;
	s->ci_hi = mean + half;
	s->ci_rel = mean != 0 ? half / fabs(mean) : 0;
	s->rounds = k;
}
