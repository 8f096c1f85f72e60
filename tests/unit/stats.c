/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c: the statistics against reference values computed independently (R, tables), and
 * the stability warnings built on them. */
#include <string.h>

#include "run/stability.h"
#include "stats/stats.h"
#include "tap.h"

static const struct kb_check *find_check(const struct kb_test_result *t, const char *name)
{
	for (size_t i = 0; i < t->nchecks; i++)
		if (!strcmp(t->checks[i].name, name))
			return &t->checks[i];
	return NULL;
}

/* A measured test with these rate samples, judged with these clocks around it. */
static const struct kb_check *judge(struct kb_result *r, const double *rates, size_t n, const char *check,
				    double tsc_ghz_begin, double tsc_ghz_end, double mhz_begin, double mhz_end)
{
	struct kb_test_result *t = kb_result_add_test(r, "selftest", "nop");
	struct kb_metric *m = kb_test_metric(t, "rate", "iter/s", true);
	/* One second at tsc_ghz_begin, then one at tsc_ghz_end: the mean rate over two seconds. */
	struct kb_stab_snap b = { 1000000000000ULL, 5000000000ULL, mhz_begin };
	struct kb_stab_snap e = { b.tsc + (uint64_t)((tsc_ghz_begin + tsc_ghz_end) * 1e9), b.raw_ns + 2000000000ULL,
				  mhz_end };

	for (size_t i = 0; i < n; i++)
		kb_metric_push(m, rates[i]);
	kb_test_finish(t);
	kb_stab_judge(t, &b, &e, 2.6e6);
	return find_check(t, check);
}

int main(void)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	const double noisy[] = { 10, 10.1, 9.9, 10, 10.05, 50 };
	const double one[] = { 3.5 };
	unsigned char flags[6];
	struct kb_summary s;

	/* Student t quantiles, two-sided 95%: standard table values. */
	is_near(kb_t95(1), 12.7062047361747, 1e-9, "t95(df=1)");
	is_near(kb_t95(7), 2.36462425159278, 1e-9, "t95(df=7)");
	is_near(kb_t95(30), 2.04227245630124, 1e-9, "t95(df=30)");

	kb_summarize(v, 8, &s);
	ok(s.n == 8, "n is 8");
	is_near(s.mean, 5.0, 1e-12, "mean");
	is_near(s.median, 4.5, 1e-12, "median of an even count");
	{
		/* The middle two near the ends of the doubles: their sum overflows, their median does not. */
		const double big[] = { -1.7e308, 1.7e308, 1.7e308, 1.6e308 };
		struct kb_summary b;

		kb_summarize(big, 4, &b);
		is_near(b.median, 1.65e308, 1e293, "median of two near the largest double, not inf");
	}
	is_near(s.stddev, 2.13808993529939, 1e-9, "sample standard deviation");
	is_near(s.cv, 2.13808993529939 / 5.0, 1e-9, "coefficient of variation");
	is_near(s.min, 2, 0, "min");
	is_near(s.max, 9, 0, "max");
	/* mean -/+ t(0.975, 7) * sd / sqrt(8) = 5 -/+ 2.364624251592785 * sqrt(4/7) */
	is_near(s.ci_lo, 5 - 1.787487918, 1e-8, "95% CI low");
	is_near(s.ci_hi, 5 + 1.787487918, 1e-8, "95% CI high");
	/* median 4.5, MAD 0.5: the 9 has modified z = 0.6745 * 4.5 / 0.5 = 6.07 > 3.5 */
	ok(s.outliers == 1, "the 9 is flagged by the modified z-score (got %zu)", s.outliers);
	{
		const double tame[] = { 10, 11, 12, 13, 14 };

		kb_summarize(tame, 5, &s);
		ok(s.outliers == 0, "no outliers in an evenly spread set (got %zu)", s.outliers);
	}

	kb_summarize(noisy, 6, &s);
	ok(s.outliers == 1, "one outlier flagged by the modified z-score (got %zu)", s.outliers);
	ok(s.n == 6, "the outlier is kept, never dropped");
	ok(kb_outliers(noisy, 6, flags) == 1 && flags[5] && !flags[0], "the flagged sample is the 50");

	/* { 9.9, 10, 10, 10.1, 10.05 }: median 10, deviations 0.1 0 0 0.1 0.05, their median 0.05. */
	kb_summarize((const double[]){ 9.9, 10, 10, 10.1, 10.05 }, 5, &s);
	is_near(s.mad, 0.05, 1e-12, "median absolute deviation");
	{
		const double steady[] = { 100, 101, 99, 100.5, 99.5, 100 };
		const double slow_first[] = { 80, 101, 99, 100.5, 99.5, 100 };
		const double spread[] = { 100, 120, 80, 110, 90, 100 };
		const struct kb_check *c;
		struct kb_result r;

		kb_result_init(&r);
		c = judge(&r, steady, 6, KB_STAB_CV, 2.6, 2.6, 0, 0);
		ok(c && c->pass && !c->fatal, "steady samples: CV %.2f%% passes, and the check is never fatal",
		   c ? c->measured : -1);
		c = judge(&r, spread, 6, KB_STAB_CV, 2.6, 2.6, 0, 0);
		ok(c && !c->pass && c->measured > KB_STAB_CV_MAX, "a 14%% CV is warned about (%.1f%%)", c ? c->measured : -1);
		c = judge(&r, steady, 6, KB_STAB_FIRST, 2.6, 2.6, 0, 0);
		ok(c && c->pass, "a first sample like the others passes (%.2f%% slower)", c ? c->measured : -1);
		c = judge(&r, slow_first, 6, KB_STAB_FIRST, 2.6, 2.6, 0, 0);
		ok(c && !c->pass && c->measured > 19.7 && c->measured < 19.9,
		   "a first rate 19.8%% below the median (99.75) is a slow first sample (%.2f%%)",
		   c ? c->measured : -1);
		c = judge(&r, steady, 4, KB_STAB_FIRST, 2.6, 2.6, 0, 0);
		ok(!c, "four samples are too few to judge the first");
		c = judge(&r, steady, 6, KB_STAB_TSC, 2.6, 2.6, 0, 0);
		ok(c && c->pass && c->measured > -1e-6 && c->measured < 1e-6, "a TSC at KVM's rate passes (%.3g%%)",
		   c ? c->measured : -1);
		c = judge(&r, steady, 6, KB_STAB_TSC, 2.6, 2.5, 0, 0);
		ok(c && !c->pass && c->measured < -1.9 && c->measured > -2.0,
		   "a TSC that slowed to 2.5 GHz for half the test is warned about (%.3f%%)", c ? c->measured : -1);
		c = judge(&r, steady, 6, KB_STAB_FREQ, 2.6, 2.6, 0, 0);
		ok(!c, "no cpufreq: the frequency is not judged");
		c = judge(&r, steady, 6, KB_STAB_FREQ, 2.6, 2.6, 3000, 2400);
		ok(c && !c->pass && c->measured < -19.9 && c->measured > -20.1,
		   "a CPU that dropped from 3.0 to 2.4 GHz is warned about (%.1f%%)", c ? c->measured : -1);
		kb_result_free(&r);
	}

	{
		/* The three run means of one configuration (ns per CPUID); references by mpmath
		 * (Student t quantile by root-finding on the regularised incomplete beta function). */
		const double rounds[] = { 37.2, 37.7, 39.5 };
		const double pooled[] = { 37.1, 37.3, 37.6, 37.8, 39.4, 39.6 };
		struct kb_summary r;

		kb_summarize(pooled, 6, &r);
		kb_summarize_rounds(rounds, 3, &r);
		is_near(r.mean, 38.1333333333333333, 1e-12, "rounds: the mean of the round means");
		is_near(r.ci_lo, 35.1283137909438915, 1e-9, "rounds: CI low from the spread of the round means, 2 df");
		is_near(r.ci_hi, 41.1383528757227751, 1e-9, "rounds: CI high");
		is_near(r.ci_rel, 0.0788029600276951518, 1e-11, "rounds: relative half-width 7.9 percent");
		ok(r.rounds == 3 && r.n == 6, "rounds: says it rests on 3 rounds, keeps the pooled sample count");
		kb_summarize(pooled, 6, &s);
		ok(s.rounds == 0 && s.ci_rel < 0.03, "pooled as if independent: a far narrower CI (%.3g)", s.ci_rel);
		kb_summarize_rounds(rounds, 1, &s);
		ok(s.rounds == 0, "one round: the within-run summary stays");
	}

	kb_summarize(one, 1, &s);
	ok(s.n == 1 && s.mean == 3.5 && s.stddev == 0 && s.ci_lo == 3.5 && s.ci_hi == 3.5,
	   "a single sample has no spread");
	return tap_done();
}
