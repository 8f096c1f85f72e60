/* unit-stats.c: the statistics against reference values computed independently (R, tables). */
#include "stats.h"
#include "tap.h"

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

	kb_summarize(one, 1, &s);
	ok(s.n == 1 && s.mean == 3.5 && s.stddev == 0 && s.ci_lo == 3.5 && s.ci_hi == 3.5,
	   "a single sample has no spread");
	return tap_done();
}
