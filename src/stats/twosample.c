/* SPDX-License-Identifier: GPL-2.0-or-later */
/* twosample.c: two-sample tests on raw samples: Welch's t-test and the Mann-Whitney U test
 * (exact for small samples without ties, else the normal approximation with tie correction). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "core/kb.h"
#include "stats/twosample.h"

int kb_welch_test(const double *a, size_t na, const double *b, size_t nb, struct kb_welch *w)
{
	double ma, mb, qa, qb;

	memset(w, 0, sizeof(*w));
	w->t = w->df = w->p = NAN;
	if (na < 2 || nb < 2)
		return kb_fail(EDOM, "Welch's t-test needs at least 2 samples on each side (have %zu and %zu)", na, nb);
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	qa = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	qb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	w->diff = mb - ma;
	w->se = sqrt(qa + qb);
	if (w->se == 0) {
		/* No spread at all: any difference is certain, none is none. */
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->df = (double)(na + nb - 2);
		w->p = w->diff == 0 ? 1 : 0;
		return 0;
	}
	w->t = w->diff / w->se;
	w->df = (qa + qb) * (qa + qb) / (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
	/* Samples near DBL_MAX overflow the variances, tiny spreads underflow their squares: then
	 * there is nothing to test, and GSL would abort the process on the NaN (found by fuzzing). */
	if (isnan(w->t) || !(w->df > 0)) {
		w->t = w->df = w->p = NAN;
		return kb_fail(EDOM, "Welch's t-test: the samples' variance is out of floating-point range");
	}
	w->p = 2 * (isinf(w->df) ? gsl_cdf_ugaussian_Q(fabs(w->t)) : gsl_cdf_tdist_Q(fabs(w->t), w->df));
	if (w->p > 1)
		w->p = 1;
	return 0;
}

struct ranked {
	double v;
	bool from_a;
};

static int ranked_cmp(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return (a > b) - (a < b);
}

/* Sum of a's ranks in the pooled samples (tied values share their average rank); *ties gets
 * the sum of t^3 - t over groups of t equal values, for the variance's tie correction. */
static double rank_sum_a(const double *a, size_t na, const double *b, size_t nb, double *ties)
{
	size_t n = na + nb;
	struct ranked *r = kb_xcalloc(n, sizeof(*r));
	double ra = 0;

	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], true };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], false };
	qsort(r, n, sizeof(*r), ranked_cmp);
	*ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double rank, t;

		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		rank = (double)(i + j) / 2 + 1;
		t = (double)(j - i + 1);
		*ties += t * t * t - t;
		for (size_t k = i; k <= j; k++)
			if (r[k].from_a)
				ra += rank;
		i = j + 1;
	}
	free(r);
	return ra;
}

/*
 * Exact null distribution of U for na and nb samples: counts[u] is the number of orderings
 * with u (a, b) pairs where a is above b.  Built one a at a time for every count of b:
 * the largest element is either an a (above all j b's) or a b (above none).
 */
static double *mwu_counts(size_t na, size_t nb)
{
	size_t w = na * nb + 1;
	double *prev = kb_xcalloc((nb + 1) * w, sizeof(double));
	double *cur = kb_xcalloc((nb + 1) * w, sizeof(double));
	double *out;

	for (size_t j = 0; j <= nb; j++)
		prev[j * w] = 1;
	for (size_t i = 1; i <= na; i++) {
		memset(cur, 0, (nb + 1) * w * sizeof(double));
		cur[0] = 1;
		for (size_t j = 1; j <= nb; j++)
			for (size_t u = 0; u <= i * j; u++)
				cur[j * w + u] = (u >= j ? prev[j * w + u - j] : 0) + cur[(j - 1) * w + u];
		out = prev;
		prev = cur;
		cur = out;
	}
	out = kb_xcalloc(w, sizeof(double));
	memcpy(out, prev + nb * w, w * sizeof(double));
	free(prev);
	free(cur);
	return out;
}

int kb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct kb_mwu *m)
{
	double ties, n = (double)(na + nb), mu, var, dev;

	memset(m, 0, sizeof(*m));
	m->p = NAN;
	if (!na || !nb)
		return kb_fail(EDOM, "the Mann-Whitney U test needs samples on both sides (have %zu and %zu)", na, nb);
	m->u = rank_sum_a(a, na, b, nb, &ties) - (double)na * (double)(na + 1) / 2;
	mu = (double)na * (double)nb / 2;
	if (ties == 0 && na <= 50 && nb <= 50) {
		double *c = mwu_counts(na, nb), total = 0, le = 0, ge = 0;
		size_t u = (size_t)m->u;

		for (size_t k = 0; k <= na * nb; k++) {
			total += c[k];
			if (k <= u)
				le += c[k];
			if (k >= u)
				ge += c[k];
		}
		free(c);
		m->exact = true;
		m->p = fmin(1, 2 * fmin(le, ge) / total);
		return 0;
	}
	var = (double)na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (var <= 0) {
		m->p = 1;       /* every value equal */
		return 0;
	}
	/* Continuity correction: U moves in steps of 1/2 at least. */
	dev = fabs(m->u - mu) - 0.5;
	m->z = dev > 0 ? copysign(dev, m->u - mu) / sqrt(var) : 0;
	m->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(m->z)));
	return 0;
}

int kb_paired_ratio_test(const double *a, const double *b, size_t n, double alpha, struct kb_paired *r)
{
	double *d, sd, half;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->t = r->df = r->p = r->ratio = r->ratio_lo = r->ratio_hi = NAN;
	if (n < 2)
		return kb_fail(EDOM, "the paired test needs at least 2 pairs (have %zu)", n);
	d = kb_xcalloc(n, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		if (!(a[i] > 0) || !(b[i] > 0) || !isfinite(a[i]) || !isfinite(b[i])) {
			free(d);
			return kb_fail(EDOM, "the paired ratio test needs positive values (pair %zu: %g and %g)", i + 1,
				       a[i], b[i]);
		}
		d[i] = log(b[i] / a[i]);
	}
	r->mean_log = gsl_stats_mean(d, 1, n);
	sd = gsl_stats_sd_m(d, 1, n, r->mean_log);
	free(d);
	r->df = (double)(n - 1);
	r->se = sd / sqrt((double)n);
	r->ratio = exp(r->mean_log);
	if (r->se == 0) {
		r->t = r->mean_log == 0 ? 0 : copysign(INFINITY, r->mean_log);
		r->p = r->mean_log == 0 ? 1 : 0;
		r->ratio_lo = r->ratio_hi = r->ratio;
		return 0;
	}
	r->t = r->mean_log / r->se;
	r->p = 2 * gsl_cdf_tdist_Q(fabs(r->t), r->df);
	if (r->p > 1)
		r->p = 1;
	half = gsl_cdf_tdist_Pinv(1 - alpha / 2, r->df) * r->se;
	r->ratio_lo = exp(r->mean_log - half);
	r->ratio_hi = exp(r->mean_log + half);
	return 0;
}
