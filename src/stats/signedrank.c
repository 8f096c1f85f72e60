/* SPDX-License-Identifier: GPL-2.0-or-later */
/* signedrank.c: the Wilcoxon signed-rank test on paired log ratios, and the Hodges-Lehmann ratio with its CI. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#include "core/kb.h"
#include "stats/signedrank.h"

struct absd {
	double v;
	int sign;
};

static int by_value(const void *x, const void *y)
{
	double a = ((const struct absd *)x)->v, b = ((const struct absd *)y)->v;

	return a < b ? -1 : a > b;
}

/* W+ and the tie correction sum(t^3 - t) over the nonzero |d|. */
static double rank_sum(const double *d, size_t n, size_t *nonzero, double *ties)
{
	struct absd *v = kb_xcalloc(n + 1, sizeof(*v));
	size_t m = 0;
	double w = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			v[m++] = (struct absd){ fabs(d[i]), d[i] > 0 ? 1 : -1 };
	qsort(v, m, sizeof(*v), by_value);
	*ties = 0;
	for (size_t i = 0; i < m;) {
		size_t j = i;
		double rank;

		while (j + 1 < m && v[j + 1].v == v[i].v)
			j++;
		rank = ((double)i + (double)j) / 2 + 1;   /* ranks i+1 .. j+1, averaged */
		for (size_t k = i; k <= j; k++)
			if (v[k].sign > 0)
				w += rank;
		*ties += pow((double)(j - i + 1), 3) - (double)(j - i + 1);
		i = j + 1;
	}
	free(v);
	*nonzero = m;
	return w;
}

int kb_signed_rank_test(const double *a, const double *b, size_t n, double alpha, struct kb_signed_rank *r)
{
	double *d, *walsh, mean, var, ties, zc, half, c;
	size_t nw = n * (n + 1) / 2, k = 0, lo;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->z = r->p = r->ratio = r->ratio_lo = r->ratio_hi = NAN;
	if (n < KB_SIGNED_RANK_MIN)
		return kb_fail(EDOM, "the signed-rank test needs at least %d pairs (have %zu)", KB_SIGNED_RANK_MIN, n);
	d = kb_xcalloc(n, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		if (!(a[i] > 0) || !(b[i] > 0) || !isfinite(a[i]) || !isfinite(b[i])) {
			free(d);
			return kb_fail(EDOM, "the signed-rank test needs positive values (pair %zu: %g and %g)", i + 1, a[i], b[i]);
		}
		d[i] = log(b[i] / a[i]);
	}
	r->w_plus = rank_sum(d, n, &r->nonzero, &ties);
	mean = (double)r->nonzero * ((double)r->nonzero + 1) / 4;
	var = (double)r->nonzero * ((double)r->nonzero + 1) * (2.0 * (double)r->nonzero + 1) / 24 - ties / 48;
	if (var > 0) {
		double dev = r->w_plus - mean;

		/* Continuity: W+ moves in steps of one half or more. */
		dev = dev > 0.5 ? dev - 0.5 : dev < -0.5 ? dev + 0.5 : 0;
		r->z = dev / sqrt(var);
		r->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(r->z)));
	} else {
		r->z = 0;
		r->p = 1;
	}
	/* Hodges-Lehmann: the median of the Walsh averages; its CI their order statistics at the signed-rank
	 * distribution's critical value (of all n pairs). */
	walsh = kb_xcalloc(nw, sizeof(*walsh));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			walsh[k++] = (d[i] + d[j]) / 2;
	gsl_sort(walsh, 1, nw);
	r->ratio = exp(nw % 2 ? walsh[nw / 2] : (walsh[nw / 2 - 1] + walsh[nw / 2]) / 2);
	zc = gsl_cdf_ugaussian_Pinv(1 - alpha / 2);
	half = zc * sqrt((double)n * ((double)n + 1) * (2.0 * (double)n + 1) / 24);
	c = floor((double)nw / 2 - half);
	lo = c > 0 ? (size_t)c : 0;
	if (lo >= nw / 2)
		lo = nw / 2 ? nw / 2 - 1 : 0;
	r->ratio_lo = exp(walsh[lo]);
	r->ratio_hi = exp(walsh[nw - 1 - lo]);
	free(walsh);
	free(d);
	return 0;
}
