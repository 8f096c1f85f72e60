/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c: the two-sample tests against independently computed references, the verdicts,
 * the differences named in the warning, the views and the escaping the writers rely on. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "output/compare-view.h"
#include "results/compare.h"
#include "stats/signedrank.h"
#include "stats/twosample.h"
#include "tap.h"
#include "output/writers.h"

/*
 * References: Welch t, df and p computed in closed form with the t distribution's tail integrated
 * numerically (Simpson, 2e5 steps), independent of GSL; the second set is Wikipedia's example 1
 * of Welch's t-test (t = -2.46, df = 24.99, p = 0.021 for A1 vs A2).  Mann-Whitney p by brute-force
 * enumeration of every assignment of ranks; the second set is R's wilcox.test(x, y) example
 * (W = 35).  The tied set by the normal approximation with tie and continuity corrections.
 */
static void test_welch(void)
{
	const double a[] = { 10, 12, 11, 13, 9 }, b[] = { 14, 15, 13, 16, 17, 15 };
	const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	const double same[] = { 5, 5, 5 }, other[] = { 6, 6, 6 };
	struct kb_welch w;

	ok(kb_welch_test(a, 5, b, 6, &w) == 0, "Welch: small sets accepted");
	is_near(w.t, 4.38178046004133, 1e-10, "Welch t (small sets)");
	is_near(w.df, 8.19672131147541, 1e-10, "Welch df (small sets)");
	is_near(w.p, 0.002210474515493388, 1e-9, "Welch p (small sets)");
	is_near(w.diff, 4, 1e-12, "Welch: difference of means, new minus base");
	kb_welch_test(a1, 15, a2, 15, &w);
	is_near(w.t, 2.45535639828601, 1e-10, "Welch t (Wikipedia example 1)");
	is_near(w.df, 24.9885292902314, 1e-9, "Welch df (Wikipedia example 1)");
	is_near(w.p, 0.02137800146286184, 1e-9, "Welch p (Wikipedia example 1)");
	kb_welch_test(a2, 15, a1, 15, &w);
	is_near(w.t, -2.45535639828601, 1e-10, "Welch t changes sign with the sides");
	ok(kb_welch_test(a, 1, b, 6, &w) == -EDOM && isnan(w.p), "Welch: one sample on a side is refused, p is NaN");
	kb_welch_test(same, 3, same, 3, &w);
	ok(w.p == 1 && w.t == 0, "Welch: identical constant samples: p = 1");
	kb_welch_test(same, 3, other, 3, &w);
	ok(w.p == 0 && isinf(w.t) && w.t > 0, "Welch: different constant samples: p = 0, t = +inf");
}

static void test_mann_whitney(void)
{
	const double lo[] = { 1, 2, 3, 4, 5 }, hi[] = { 6, 7, 8, 9, 10 };
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	const double ta[] = { 1, 2, 2, 3, 4, 4, 5 }, tb[] = { 3, 4, 5, 5, 6, 7, 7, 8 };
	const double flat[] = { 3, 3, 3 };
	struct kb_mwu m;

	ok(kb_mann_whitney(lo, 5, hi, 5, &m) == 0, "Mann-Whitney: accepted");
	ok(m.u == 0 && m.exact, "Mann-Whitney U = 0 for separated sets, exact (got %g)", m.u);
	is_near(m.p, 2.0 / 252, 1e-12, "Mann-Whitney exact p, separated 5 vs 5 (2/252)");
	kb_mann_whitney(hi, 5, lo, 5, &m);
	ok(m.u == 25, "Mann-Whitney U = 25 the other way round (got %g)", m.u);
	is_near(m.p, 2.0 / 252, 1e-12, "Mann-Whitney p is two-sided");
	kb_mann_whitney(x, 10, y, 5, &m);
	ok(m.u == 35 && m.exact, "Mann-Whitney U of R's wilcox.test example: 35 (got %g)", m.u);
	is_near(m.p, 0.2544122544122544, 1e-12, "Mann-Whitney exact p of R's example");
	kb_mann_whitney(ta, 7, tb, 8, &m);
	ok(m.u == 6.5 && !m.exact, "Mann-Whitney with ties: U = 6.5, normal approximation (got %g)", m.u);
	is_near(m.z, -2.454504056613968, 1e-12, "Mann-Whitney z with tie and continuity corrections");
	is_near(m.p, 0.014107907274540643, 1e-12, "Mann-Whitney p with ties");
	kb_mann_whitney(flat, 3, flat, 3, &m);
	ok(m.p == 1, "Mann-Whitney: all values equal: p = 1");
	ok(kb_mann_whitney(flat, 0, flat, 3, &m) == -EDOM && isnan(m.p), "Mann-Whitney: an empty side is refused");
}

/* The paired ratio test against mpmath (t distribution by the regularised incomplete beta). */
static void test_paired(void)
{
	const double a[] = { 10, 12, 11, 13, 9 }, b[] = { 10.5, 12.4, 11.8, 13.5, 9.6 };
	const double neg[] = { 1, -1 };
	struct kb_paired p;

	ok(kb_paired_ratio_test(a, b, 5, 0.05, &p) == 0, "paired: accepted");
	is_near(p.mean_log, 0.0508126189572179316, 1e-14, "paired: mean log ratio");
	is_near(p.se, 0.00729462945160385974, 1e-14, "paired: its standard error");
	is_near(p.t, 6.96575738278876300, 1e-10, "paired t");
	ok(p.df == 4, "paired: n - 1 df");
	is_near(p.p, 0.00223277554181089839, 1e-11, "paired p, two-sided");
	is_near(p.ratio, 1.05212572639536249, 1e-13, "paired: geometric mean ratio 1.052");
	is_near(p.ratio_lo, 1.03103121470608380, 1e-10, "paired: ratio CI low");
	is_near(p.ratio_hi, 1.07365182387667364, 1e-10, "paired: ratio CI high");
	kb_paired_ratio_test(b, a, 5, 0.05, &p);
	is_near(p.t, -6.96575738278876300, 1e-10, "paired t changes sign with the sides");
	ok(kb_paired_ratio_test(a, b, 1, 0.05, &p) == -EDOM && isnan(p.p), "paired: one pair is refused");
	ok(kb_paired_ratio_test(neg, a, 2, 0.05, &p) == -EDOM, "paired: a value that is not positive is refused");
	kb_paired_ratio_test(a, a, 5, 0.05, &p);
	ok(p.p == 1 && p.ratio == 1, "paired: identical sides: p = 1, ratio 1");
}

/* A result with one test: rate (higher is better) and ns (lower is better), samples v * factor;
 * each sample stands for one round of its own (a result measured in rounds, as compare wants). */
static void make_result(struct kb_result *r, const char *test, const double *v, size_t n, double factor)
{
	struct kb_test_result *t;
	struct kb_metric *rate, *ns;

	kb_result_init(r);
	r->host = json_object_new_object();
	r->options = json_object_new_object();
	t = kb_result_add_test(r, "suite", test);
	t->vcpus = 1;
	rate = kb_test_metric(t, "rate", "iter/s", true);
	ns = kb_test_metric(t, "ns", "ns/iter", false);
	for (size_t i = 0; i < n; i++) {
		kb_metric_push(rate, v[i] * factor);
		kb_metric_push(ns, 1e3 / v[i] * factor);
		kb_metric_add_round(rate, 1, v[i] * factor, 0);
		kb_metric_add_round(ns, 1, 1e3 / v[i] * factor, 0);
	}
	t->nrounds = n;
	t->nruns = n;
	kb_test_finish(t);
}

static const struct kb_compare_row *row_of(const struct kb_comparison *c, const char *metric)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].metric && !strcmp(c->rows[i].metric, metric))
			return &c->rows[i];
	return NULL;
}

/* A result measured in len(means) separate runs of 5 quiet samples each (±0.3% around the run's
 * mean), as 'compare A1.json,A2.json,...' folds them (one_run: as the rounds of one run --rounds N):
 * the drift is all between them.  rounds 1: one run of those samples. */
static void make_rounds_of(struct kb_result *r, const double *means, size_t rounds, bool one_run)
{
	static const double wiggle[] = { 1, 1.003, 0.997, 1.0015, 0.9985 };
	struct kb_test_result *t;
	struct kb_metric *rate;

	kb_result_init(r);
	r->host = json_object_new_object();
	r->options = json_object_new_object();
	t = kb_result_add_test(r, "suite", "t");
	t->vcpus = 1;
	for (size_t k = 0; k < rounds; k++) {
		struct kb_result one;
		struct kb_test_result *ot;

		kb_result_init(&one);
		ot = kb_result_add_test(&one, "suite", "t");
		rate = kb_test_metric(k ? ot : t, "rate", "iter/s", true);
		for (size_t i = 0; i < 5; i++)
			kb_metric_push(rate, means[k] * wiggle[i]);
		kb_test_finish(k ? ot : t);
		if (k && one_run)
			kb_test_add_round(t, ot);
		else if (k)
			kb_test_add_run(t, ot);
		kb_result_free(&one);
	}
}

static void make_rounds(struct kb_result *r, const double *means, size_t rounds)
{
	make_rounds_of(r, means, rounds, false);
}

/* A/A with drift between runs: each run's samples are tight, the run means move by several percent.
 * Judged on the round means, nothing is flagged; a compare that pooled the samples as if independent
 * (tests/mutants/compare-within-run.mutant) would call the same configuration "improved". */
static void test_rounds(void)
{
	const double base_means[] = { 100, 108, 96 }, new_means[] = { 110, 104, 106 };
	struct kb_compare_opts o;
	struct kb_result base, cur;
	struct kb_comparison c;
	const struct kb_compare_row *r;

	kb_compare_opts_init(&o);
	make_rounds(&base, base_means, 3);
	make_rounds(&cur, new_means, 3);
	ok(base.tests[0].nrounds == 3 && base.tests[0].metrics[0]->n == 15, "3 rounds of 5 samples kept");
	is_near(base.tests[0].metrics[0]->sum.mean, 304.0 / 3, 1e-9, "the mean is the mean of the round means");
	{
		json_object *j = kb_result_to_json(&base);
		json_object *jt = json_object_array_get_idx(json_object_object_get(j, "tests"), 0), *x;
		struct kb_result back;

		ok(json_object_object_get_ex(jt, "rounds", &x) && json_object_array_length(x) == 3,
		   "JSON: a rounds array of 3 per-round summaries");
		ok(kb_result_from_json(j, &back) == 0 && back.tests[0].nrounds == 3 &&
		   back.tests[0].metrics[0]->sum.rounds == 3 &&
		   back.tests[0].metrics[0]->sum.ci_rel == base.tests[0].metrics[0]->sum.ci_rel,
		   "JSON: read back, the CI rests on the 3 rounds again");
		kb_result_free(&back);
		json_object_put(j);
	}
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r && r->delta > 0.05 && !strcmp(r->basis, "between_rounds"), "A/A with drift: +%.1f%% judged between rounds",
	   r ? r->delta * 100 : 0);
	ok(r && r->verdict == KB_VERDICT_INCONCLUSIVE && r->p > 0.05,
	   "A/A with drift: inconclusive, not a false verdict (p %.3g, %s)", r ? r->p : 0, r ? kb_verdict_name(r->verdict) : "-");
	ok(kb_comparison_status(&c) == 0 && !c.base_single && !c.new_single, "A/A with drift: exit 0, no single-round warning");
	kb_comparison_free(&c);
	kb_result_free(&cur);
	kb_result_free(&base);

	/* One round a side: the same drift, significant within each run, is not a verdict. */
	make_rounds(&base, base_means, 1);
	make_rounds(&cur, new_means, 1);
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r && r->welch.p < 0.001 && r->delta > 0.05, "single-round A/A: +10%% and within-run p %.2g", r ? r->welch.p : 1);
	ok(r && r->verdict == KB_VERDICT_INCONCLUSIVE && strstr(r->note, "needs more rounds") &&
	   !strcmp(r->basis, "within_run"), "single-round A/A: inconclusive, needs more rounds (%s)", r ? r->note : "-");
	ok(c.base_single && c.new_single && kb_comparison_status(&c) == 0, "single-round A/A: both sides flagged, exit 0");
	kb_comparison_free(&c);
	kb_result_free(&base);

	/* Three rounds against one: still a side on one round. */
	make_rounds(&base, base_means, 3);
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_INCONCLUSIVE && !c.base_single && c.new_single,
	   "3 rounds against 1: inconclusive, NEW flagged");
	kb_comparison_free(&c);
	kb_result_free(&cur);
	kb_result_free(&base);

	/* The same +10% far beyond tolerance as the rounds of one run a side (run --rounds 3): rounds seconds
	 * apart in one process do not sample the drift between runs, so no verdict
	 * (tests/mutants/compare-one-run-rounds.mutant trusts them). */
	{
		const double tight_a[] = { 100, 100.2, 99.8 }, tight_b[] = { 110, 110.2, 109.8 };

		make_rounds_of(&base, tight_a, 3, true);
		make_rounds_of(&cur, tight_b, 3, true);
		kb_compare_build(&base, &cur, &o, &c);
		r = row_of(&c, "rate");
		ok(r && !strcmp(r->basis, "one_run_rounds") && r->verdict == KB_VERDICT_INCONCLUSIVE &&
		   strstr(r->note, "needs separate runs") && c.base_one_run && c.new_one_run && kb_comparison_status(&c) == 0,
		   "+10%% between the rounds of one run a side: inconclusive, needs separate runs (%s)", r ? r->note : "-");
		kb_comparison_free(&c);
		kb_result_free(&cur);
		kb_result_free(&base);
		make_rounds(&base, tight_a, 3);
		make_rounds(&cur, tight_b, 3);
		kb_compare_build(&base, &cur, &o, &c);
		r = row_of(&c, "rate");
		ok(r && !strcmp(r->basis, "between_rounds") && r->verdict == KB_VERDICT_IMPROVED && base.tests[0].nruns == 3 &&
		   !c.base_one_run, "the same as 3 separate runs a side: improved between runs (p %.2g)", r ? r->p : 1);
		kb_comparison_free(&c);
		kb_result_free(&cur);
		kb_result_free(&base);
	}

	/* Paired (interleaved A/B): each pair drifts together, B is 6% faster in every pair. */
	{
		const double a[] = { 100, 108, 96, 103 }, b[] = { 106, 114.48, 101.76, 109.18 };

		o.paired = true;
		make_rounds(&base, a, 4);
		make_rounds(&cur, b, 4);
		kb_compare_build(&base, &cur, &o, &c);
		r = row_of(&c, "rate");
		ok(r && !strcmp(r->basis, "paired") && r->verdict == KB_VERDICT_IMPROVED && r->p < 0.001,
		   "paired: +6%% in every pair despite the drift: improved (p %.2g)", r ? r->p : 1);
		is_near(r ? r->delta : 0, 0.06, 2e-4, "paired: delta is the geometric mean ratio");
		kb_comparison_free(&c);
		o.paired = false;
		kb_compare_build(&base, &cur, &o, &c);
		ok(row_of(&c, "rate")->verdict == KB_VERDICT_INCONCLUSIVE, "the same rounds unpaired: the drift hides it");
		kb_comparison_free(&c);
		kb_result_free(&cur);
		kb_result_free(&base);
	}
}


/* The signed-rank test against an independent computation (ranks by hand, the normal approximation
 * with continuity correction, the Walsh averages' median and order statistics). */
static void test_signed_rank(void)
{
	const double a[] = { 100, 102, 98, 101, 99, 103, 97, 100.5, 99.5, 101.5, 98.5, 100.2 };
	const double b[] = { 105.0, 106.08, 103.88, 106.555, 101.97, 110.21, 101.365, 99.495, 104.475, 107.793,
			     102.5385, 105.21 };
	struct kb_signed_rank sr;

	ok(kb_signed_rank_test(a, b, 12, 0.05, &sr) == 0 && sr.n == 12 && sr.nonzero == 12, "signed rank: accepted");
	ok(sr.w_plus == 77, "signed rank: W+ 77 (one pair of 12 the other way, the smallest)");
	is_near(sr.z, 2.942874119486064, 1e-9, "signed rank: z with tie (three pairs at 1.05 exactly) and continuity corrections");
	is_near(sr.p, 0.0032518061255122402, 1e-9, "signed rank: p, two-sided");
	is_near(sr.ratio, 1.048892663844554, 1e-9, "signed rank: Hodges-Lehmann ratio");
	is_near(sr.ratio_lo, 1.035485393426677, 1e-9, "signed rank: ratio CI low (15th of 78 Walsh averages)");
	is_near(sr.ratio_hi, 1.0559829544078825, 1e-9, "signed rank: ratio CI high");
	kb_signed_rank_test(b, a, 12, 0.05, &sr);
	ok(sr.w_plus == 1 && sr.z < -2.9, "signed rank: the sides swapped, W+ 1");
	kb_signed_rank_test(a, a, 12, 0.05, &sr);
	ok(sr.p == 1 && sr.ratio == 1 && sr.nonzero == 0, "signed rank: identical sides: p 1, ratio 1");
	ok(kb_signed_rank_test(a, b, 9, 0.05, &sr) == -EDOM && isnan(sr.p), "signed rank: 9 pairs are refused");
}

/* kvmbench ab --mode sample: B 5% faster than A in every pair, the pairs scattered over ±40% by a load
 * both sides share.  Paired sample by sample, it is "regressed"; paired with the wrong sample
 * (tests/mutants/ab-pairs-shifted.mutant) the shared load no longer cancels and it cannot be told. */
static void test_paired_samples(void)
{
	struct kb_compare_opts o;
	struct kb_result base, cur;
	struct kb_comparison c;
	const struct kb_compare_row *r;
	double a[60], b[60];
	uint32_t x = 12345;

	for (int i = 0; i < 60; i++) {
		x = x * 1103515245u + 12345u;
		a[i] = 1000 * exp(0.8 * ((double)(x >> 8) / (double)(1u << 24) - 0.5));
		b[i] = a[i] * 1.05 * (1 + 0.001 * ((i % 3) - 1));
	}
	kb_compare_opts_init(&o);
	o.tolerance_pct = 2;
	o.paired = o.paired_samples = true;
	make_result(&base, "t", a, 60, 1);
	make_result(&cur, "t", b, 60, 1);
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r && !strcmp(r->basis, "paired_samples") && r->verdict == KB_VERDICT_IMPROVED && r->signed_rank.n == 60,
	   "paired samples: +5%% rate in every pair despite ±40%% shared load: improved (%s, p %.2g)",
	   r ? kb_verdict_name(r->verdict) : "-", r ? r->p : 1);
	is_near(r ? r->delta : 0, 0.05, 2e-3, "paired samples: delta is the Hodges-Lehmann ratio");
	ok(!c.base_single && !c.new_single, "paired samples: no single-round warning (each side is one run by design)");
	kb_comparison_free(&c);
	o.tolerance_pct = 5;
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_WITHIN, "paired samples: +5%% within a 5%% tolerance");
	kb_comparison_free(&c);
	kb_result_free(&cur);
	kb_result_free(&base);
}

static void test_verdicts(void)
{
	const double v[] = { 100, 101, 99, 100.5, 99.5 };
	const double noisy[] = { 60, 160, 90, 150, 101.5 };
	struct kb_compare_opts o;
	struct kb_result base, cur;
	struct kb_comparison c;
	const struct kb_compare_row *r;

	kb_compare_opts_init(&o);
	ok(o.tolerance_pct == 5 && o.alpha == 0.05 && o.test == KB_SIG_WELCH, "defaults: 5%%, alpha 0.05, Welch");
	make_result(&base, "t", v, 5, 1);

	make_result(&cur, "t", v, 5, 1.2);
	ok(kb_compare_build(&base, &cur, &o, &c) == 0, "compare scaled by 1.2: built");
	r = row_of(&c, "rate");
	ok(r && r->verdict == KB_VERDICT_IMPROVED, "rate x1.2 (higher is better): improved (%s)",
	   r ? kb_verdict_name(r->verdict) : "-");
	is_near(r ? r->delta : 0, 0.2, 1e-12, "rate delta +20%");
	ok(r && r->delta_lo > 0.05 && r->delta_hi > r->delta && r->delta_lo < r->delta, "the delta's CI brackets +20%% and excludes 5%%");
	r = row_of(&c, "ns");
	ok(r && r->verdict == KB_VERDICT_REGRESSED, "ns x1.2 (lower is better): regressed (%s)",
	   r ? kb_verdict_name(r->verdict) : "-");
	ok(kb_comparison_status(&c) == 1, "a regression: exit status 1");
	ok(c.count[KB_VERDICT_IMPROVED] == 1 && c.count[KB_VERDICT_REGRESSED] == 1, "verdict counts");
	kb_comparison_free(&c);
	kb_result_free(&cur);

	make_result(&cur, "t", v, 5, 1.0 / 1.2);
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_REGRESSED && row_of(&c, "ns")->verdict == KB_VERDICT_IMPROVED,
	   "scaled by 1/1.2: rate regressed, ns improved");
	kb_comparison_free(&c);
	kb_result_free(&cur);

	make_result(&cur, "t", v, 5, 1.02);
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r->verdict == KB_VERDICT_WITHIN && r->p < 0.05, "+2%%, significant: still within tolerance (p %g)", r->p);
	ok(kb_comparison_status(&c) == 0, "nothing beyond tolerance: exit status 0");
	kb_comparison_free(&c);
	kb_result_free(&cur);

	make_result(&cur, "t", v, 5, 1.05);
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_WITHIN, "exactly +5%%: within a 5%% tolerance");
	kb_comparison_free(&c);
	o.tolerance_pct = 4;
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_IMPROVED, "+5%% with a 4%% tolerance: improved");
	kb_comparison_free(&c);
	o.tolerance_pct = 5;
	kb_result_free(&cur);

	make_result(&cur, "t", noisy, 5, 1);
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r->verdict == KB_VERDICT_INCONCLUSIVE && r->p >= 0.05 && strstr(r->note, "not significant"),
	   "+12%% in noise: inconclusive, with the reason (%s)", r->note);
	ok(kb_comparison_status(&c) == 0, "inconclusive is not a regression: exit 0");
	kb_comparison_free(&c);
	o.test = KB_SIG_MANN_WHITNEY;
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r->p == r->mwu.p && r->mwu.exact, "--test mann-whitney: its p decides");
	kb_comparison_free(&c);
	o.test = KB_SIG_WELCH;
	kb_result_free(&cur);

	/* A test missing on one side, one that did not measure, and one that only NEW has. */
	make_result(&cur, "other", v, 5, 1);
	kb_test_set_status(kb_result_add_test(&base, "suite", "broken"), KB_STATUS_INVALID, "check <x> failed");
	kb_test_set_status(kb_result_add_test(&cur, "suite", "broken"), KB_STATUS_OK, NULL);
	ok(kb_compare_build(&base, &cur, &o, &c) != 0, "nothing in common: an error");
	ok(kb_comparison_status(&c) == 2, "nothing in common: exit status 2");
	ok(c.nrows == 3 && c.rows[0].verdict == KB_VERDICT_NOT_COMPARED && !strcmp(c.rows[0].note, "test not in NEW"),
	   "a test only in BASE is named");
	ok(strstr(c.rows[1].note, "BASE is invalid: check <x> failed") != NULL, "an invalid test is not compared: %s",
	   c.rows[1].note);
	ok(!strcmp(c.rows[2].note, "test not in BASE"), "a test only in NEW is named");
	kb_comparison_free(&c);
	kb_result_free(&cur);
	kb_result_free(&base);
}

static const struct kb_difference *diff_of(const struct kb_comparison *c, const char *field)
{
	for (size_t i = 0; i < c->ndiffs; i++)
		if (!strcmp(c->diffs[i].field, field))
			return &c->diffs[i];
	return NULL;
}

static void test_differences(void)
{
	const double v[] = { 100, 101, 99, 100.5, 99.5 };
	struct kb_compare_opts o;
	struct kb_result base, cur;
	struct kb_comparison c;
	const struct kb_difference *d;
	json_object *cpu;

	kb_compare_opts_init(&o);
	make_result(&base, "t", v, 5, 1);
	make_result(&cur, "t", v, 5, 1);
	kb_compare_build(&base, &cur, &o, &c);
	ok(c.ndiffs == 0, "identical sides: no warning");
	kb_comparison_free(&c);

	cpu = json_object_new_object();
	json_object_object_add(cpu, "brand", json_object_new_string("AMD EPYC 7763"));
	json_object_object_add(base.host, "cpu", cpu);
	cpu = json_object_new_object();
	json_object_object_add(cpu, "brand", json_object_new_string("AMD EPYC 9654"));
	json_object_object_add(cur.host, "cpu", cpu);
	json_object_object_add(base.host, "kernel_release", json_object_new_string("6.1.0"));
	json_object_object_add(cur.host, "kernel_release", json_object_new_string("6.1.0"));
	json_object_object_add(base.options, "target-ci", json_object_new_int(1));
	json_object_object_add(cur.options, "target-ci", json_object_new_double(1.0));
	json_object_object_add(base.options, "runs", json_object_new_int(10));
	json_object_object_add(cur.options, "runs", json_object_new_int(5));
	json_object_object_add(base.options, "json", json_object_new_string("a.json"));
	json_object_object_add(cur.options, "json", json_object_new_string("b.json"));
	json_object_object_add(cur.tests[0].params, "leaf", json_object_new_int(7));
	cur.tests[0].vcpus = 2;
	kb_compare_build(&base, &cur, &o, &c);
	d = diff_of(&c, "host.cpu.brand");
	ok(d && !strcmp(d->base, "AMD EPYC 7763") && !strcmp(d->cur, "AMD EPYC 9654"), "host.cpu.brand named with both values");
	ok(!diff_of(&c, "host.kernel_release"), "equal fields are not named");
	d = diff_of(&c, "options.runs");
	ok(d && !strcmp(d->base, "10") && !strcmp(d->cur, "5"), "options.runs named");
	ok(!diff_of(&c, "options.json"), "the output file name is not a difference");
	ok(!diff_of(&c, "options.target-ci"), "1 and 1.0 are the same number");
	d = diff_of(&c, "tests[suite/t].params.leaf");
	ok(d && !strcmp(d->base, "(absent)") && !strcmp(d->cur, "7"), "a test parameter present on one side only");
	ok(diff_of(&c, "tests[suite/t].vcpus") != NULL, "a different vCPU count is named");
	ok(c.ndiffs == 4, "exactly those four differences (%zu)", c.ndiffs);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_WITHIN, "still compared despite the differences");
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		kb_comparison_print_warning(f, &c, "");
		fclose(f);
		ok(strstr(text, "WARNING") && strstr(text, "host.cpu.brand: AMD EPYC 7763 -> AMD EPYC 9654"),
		   "the warning names the field and both values");
		free(text);
	}
	kb_comparison_free(&c);
	kb_result_free(&base);
	kb_result_free(&cur);
}

static char *capture_compare(const struct kb_result *a, const struct kb_result *b, enum kb_compare_format fmt,
			     int *status)
{
	struct kb_compare_opts o;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	kb_compare_opts_init(&o);
	o.format = fmt;
	o.base_label = "base.json";
	o.new_label = "new.json";
	*status = kb_compare_results(a, b, &o, f, NULL);
	fclose(f);
	return text;
}

static void test_views(void)
{
	const double v[] = { 100, 101, 99, 100.5, 99.5 };
	struct kb_result base, cur;
	json_object *j, *rows, *row, *x;
	char *text;
	int status;

	make_result(&base, "t", v, 5, 1.2);
	make_result(&cur, "t", v, 5, 1);
	text = capture_compare(&base, &cur, KB_CMP_TABLE, &status);
	ok(status == 1, "kb_compare_results returns exit status 1 for a regression");
	ok(strstr(text, "regressed") && strstr(text, "-16.7%") && strstr(text, "improved") && !strchr(text, '\033'),
	   "table: the verdicts, the delta, no colour");
	free(text);
	text = capture_compare(&base, &cur, KB_CMP_MARKDOWN, &status);
	ok(strstr(text, "| `suite/t` | `rate (iter/s)` |") && strstr(text, "**-16.7% (-") && strstr(text, "|---|"),
	   "markdown: a pipe table with the flagged delta in bold, its absolute change beside it");
	free(text);
	text = capture_compare(&base, &cur, KB_CMP_JSON, &status);
	j = json_tokener_parse(text);
	ok(j != NULL, "json: parses");
	ok(json_object_object_get_ex(j, "compare_schema_version", &x) && json_object_get_int(x) == 1,
	   "json: compare_schema_version 1");
	json_object_object_get_ex(j, "rows", &rows);
	row = json_object_array_get_idx(rows, 0);
	ok(json_object_object_get_ex(row, "verdict", &x) && !strcmp(json_object_get_string(x), "regressed"),
	   "json: the rate row regressed");
	ok(json_object_object_get_ex(row, "delta_pct", &x) && fabs(json_object_get_double(x) + 100.0 / 6) < 1e-9,
	   "json: delta_pct -16.67");
	ok(json_object_object_get_ex(j, "exit_status", &x) && json_object_get_int(x) == 1, "json: exit_status 1");
	json_object_put(j);
	free(text);
	kb_result_free(&base);
	kb_result_free(&cur);
}

static void test_delta_ci(void)
{
	const double a[] = { 10, 12, 11, 13, 9 }, b[] = { 14, 15, 13, 16, 17, 15 };
	struct kb_result base, cur;
	struct kb_compare_opts o;
	struct kb_comparison c;
	struct kb_metric *m;

	kb_compare_opts_init(&o);
	kb_result_init(&base);
	kb_result_init(&cur);
	m = kb_test_metric(kb_result_add_test(&base, "s", "t"), "x", "u", true);
	for (int i = 0; i < 5; i++)
		kb_metric_push(m, a[i]);
	kb_test_finish(&base.tests[0]);
	m = kb_test_metric(kb_result_add_test(&cur, "s", "t"), "x", "u", true);
	for (int i = 0; i < 6; i++)
		kb_metric_push(m, b[i]);
	kb_test_finish(&cur.tests[0]);
	kb_compare_build(&base, &cur, &o, &c);
	/* (4 -/+ t(0.975, 8.1967) * 0.91287) / 11, the quantile 2.2964062 found by bisection on the reference tail. */
	is_near(c.rows[0].delta_lo, 0.1730615963295346, 1e-8, "delta CI low (Welch, df 8.2)");
	is_near(c.rows[0].delta_hi, 0.5542111309431926, 1e-8, "delta CI high");
	kb_comparison_free(&c);
	kb_result_free(&base);
	kb_result_free(&cur);
}

static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fn(f, s);
	fclose(f);
	return text;
}

static void test_escaping(void)
{
	char *t;

	t = capture(kb_html_escape, "<a href=\"x\">&'");
	is_str(t, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;", "HTML escaping");
	free(t);
	t = capture(kb_markdown_escape, "a|b<c>_d\ne");
	is_str(t, "a\\|b&lt;c&gt;\\_d e", "Markdown escaping: pipes, tags, emphasis, newlines");
	free(t);
	t = capture(kb_csv_field, "say \"hi\", then go");
	is_str(t, "\"say \"\"hi\"\", then go\"", "CSV quoting");
	free(t);
	t = capture(kb_csv_field, "plain");
	is_str(t, "plain", "CSV: plain fields stay bare");
	free(t);
}

static void test_writers(void)
{
	const char *names[] = { "table", "json", "csv", "csv-samples", "markdown", "html" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct kb_writer *w = kb_find_writer(names[i]);

		ok(w && w->write && w->summary && !strcmp(w->name, names[i]), "writer '%s' is registered and complete",
		   names[i]);
	}
	ok(!kb_find_writer("pdf"), "an unknown format is not found");
}

static void test_formats(void)
{
	char buf[32];

	kb_format_si(2510421873.0, buf, sizeof(buf));
	is_str(buf, "2.51G", "SI format, giga");
	kb_format_si(0.4316, buf, sizeof(buf));
	is_str(buf, "0.432", "SI format, below one");
	kb_format_pct(0.134, buf, sizeof(buf));
	is_str(buf, "+13.4%", "percent format");
	kb_format_p(0.0004, buf, sizeof(buf));
	is_str(buf, "<0.001", "tiny p");
	kb_format_p(NAN, buf, sizeof(buf));
	is_str(buf, "-", "no p");
}

int main(void)
{
	test_welch();
	test_mann_whitney();
	test_paired();
	test_signed_rank();
	test_paired_samples();
	test_verdicts();
	test_rounds();
	test_differences();
	test_views();
	test_delta_ci();
	test_escaping();
	test_writers();
	test_formats();
	return tap_done();
}
