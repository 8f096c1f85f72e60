/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c: the A/B comparison model: match the tests of two results, judge each metric's
 * relative delta (its confidence interval, significance, a verdict) and list what differs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#include "core/kb.h"
#include "results/compare.h"
#include "results/leaves.h"

/* ---- names and options ---- */

static const char *const verdict_names[] = {
	[KB_VERDICT_WITHIN] = "within_tolerance",
	[KB_VERDICT_IMPROVED] = "improved",
	[KB_VERDICT_REGRESSED] = "regressed",
	[KB_VERDICT_INCONCLUSIVE] = "inconclusive",
	[KB_VERDICT_NOT_COMPARED] = "not_compared",
};

static const char *const verdict_labels[] = {
	[KB_VERDICT_WITHIN] = "within tolerance",
	[KB_VERDICT_IMPROVED] = "improved",
	[KB_VERDICT_REGRESSED] = "regressed",
	[KB_VERDICT_INCONCLUSIVE] = "inconclusive",
	[KB_VERDICT_NOT_COMPARED] = "not compared",
};

static const char *const sig_test_names[] = {
	[KB_SIG_WELCH] = "welch",
	[KB_SIG_MANN_WHITNEY] = "mann-whitney",
};

static const char *const format_names[] = {
	[KB_CMP_TABLE] = "table",
	[KB_CMP_JSON] = "json",
	[KB_CMP_MARKDOWN] = "markdown",
};

const char *kb_verdict_name(enum kb_verdict v)
{
	return (unsigned int)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

const char *kb_verdict_label(enum kb_verdict v)
{
	return (unsigned int)v < ARRAY_SIZE(verdict_labels) ? verdict_labels[v] : "?";
}

const char *kb_sig_test_name(enum kb_sig_test t)
{
	return (unsigned int)t < ARRAY_SIZE(sig_test_names) ? sig_test_names[t] : "?";
}

static int parse_name(const char *const *names, size_t n, const char *s, int *out)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = (int)i;
			return 0;
		}
	return -EINVAL;
}

int kb_sig_test_parse(const char *s, enum kb_sig_test *out)
{
	int v;

	if (parse_name(sig_test_names, ARRAY_SIZE(sig_test_names), s, &v))
		return kb_fail(EINVAL, "'%s' is not a significance test (use welch or mann-whitney)", s ? s : "");
	*out = (enum kb_sig_test)v;
	return 0;
}

int kb_compare_format_parse(const char *s, enum kb_compare_format *out)
{
	int v;

	if (parse_name(format_names, ARRAY_SIZE(format_names), s, &v))
		return kb_fail(EINVAL, "'%s' is not a comparison format (use table, json or markdown)", s ? s : "");
	*out = (enum kb_compare_format)v;
	return 0;
}

void kb_compare_opts_init(struct kb_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tolerance_pct = 5;
	o->alpha = 0.05;
	o->test = KB_SIG_WELCH;
	o->format = KB_CMP_TABLE;
}

/* ---- what differs between the two sides ---- */

/* Options that only say where output goes: they cannot change a number. */
static const char *const output_only_options[] = {
	"options.json", "options.quiet", "options.verbose", "options.baseline", "options.tolerance",
	"options.alpha", "options.format", "options.output",
};

static bool ignored_field(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(output_only_options); i++)
		if (!strcmp(path, output_only_options[i]))
			return true;
	return false;
}

static void add_difference(struct kb_comparison *c, const char *field, const char *base, const char *cur)
{
	struct kb_difference *d;

	c->diffs = kb_xrealloc(c->diffs, c->ndiffs + 1, sizeof(*c->diffs));
	d = &c->diffs[c->ndiffs++];
	d->field = kb_xstrdup(field);
	d->base = kb_xstrdup(base ? base : "(absent)");
	d->cur = kb_xstrdup(cur ? cur : "(absent)");
}

static bool same_leaf(const struct kb_leaf *a, const struct kb_leaf *b)
{
	if (a->is_number && b->is_number)
		return a->number == b->number;
	return !strcmp(a->value, b->value);
}

/* Both leaf lists are sorted by path: walk them side by side. */
static void diff_json(struct kb_comparison *c, json_object *a, json_object *b, const char *prefix)
{
	struct kb_leaf *la, *lb;
	size_t na = kb_json_leaves(a, prefix, &la), nb = kb_json_leaves(b, prefix, &lb), i = 0, j = 0;

	while (i < na || j < nb) {
		int cmp = i == na ? 1 : j == nb ? -1 : strcmp(la[i].path, lb[j].path);

		if (cmp < 0) {
			if (!ignored_field(la[i].path))
				add_difference(c, la[i].path, la[i].value, NULL);
			i++;
		} else if (cmp > 0) {
			if (!ignored_field(lb[j].path))
				add_difference(c, lb[j].path, NULL, lb[j].value);
			j++;
		} else {
			if (!same_leaf(&la[i], &lb[j]) && !ignored_field(la[i].path))
				add_difference(c, la[i].path, la[i].value, lb[j].value);
			i++;
			j++;
		}
	}
	kb_leaves_free(la, na);
	kb_leaves_free(lb, nb);
}

static void diff_results(struct kb_comparison *c, const struct kb_result *a, const struct kb_result *b)
{
	const char *va = a->tool_version ? a->tool_version : "", *vb = b->tool_version ? b->tool_version : "";

	if (strcmp(va, vb))
		add_difference(c, "tool.version", va, vb);
	diff_json(c, a->host, b->host, "host");
	diff_json(c, a->options, b->options, "options");
}

static void diff_tests(struct kb_comparison *c, const struct kb_test_result *a, const struct kb_test_result *b)
{
	char prefix[256];

	snprintf(prefix, sizeof(prefix), "tests[%s/%s]", a->suite, a->test);
	if (a->vcpus != b->vcpus) {
		char field[300], va[16], vb[16];

		snprintf(field, sizeof(field), "%s.vcpus", prefix);
		snprintf(va, sizeof(va), "%d", a->vcpus);
		snprintf(vb, sizeof(vb), "%d", b->vcpus);
		add_difference(c, field, va, vb);
	}
	strncat(prefix, ".params", sizeof(prefix) - strlen(prefix) - 1);
	diff_json(c, a->params, b->params, prefix);
}

/* ---- matching and judging ---- */

static struct kb_compare_row *add_row(struct kb_comparison *c, const struct kb_test_result *bt,
				      const struct kb_test_result *nt)
{
	const struct kb_test_result *t = bt ? bt : nt;
	struct kb_compare_row *r;

	c->rows = kb_xrealloc(c->rows, c->nrows + 1, sizeof(*c->rows));
	r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	if (t->vcpus != 1)
		snprintf(r->id, sizeof(r->id), "%s/%s[vcpus=%d]", t->suite, t->test, t->vcpus);
	else
		snprintf(r->id, sizeof(r->id), "%s/%s", t->suite, t->test);
	r->bt = bt;
	r->nt = nt;
	r->delta = r->delta_lo = r->delta_hi = r->p = NAN;
	r->welch.t = r->welch.df = r->welch.p = r->mwu.p = NAN;
	r->verdict = KB_VERDICT_NOT_COMPARED;
	return r;
}

static bool same_test(const struct kb_test_result *a, const struct kb_test_result *b)
{
	return !strcmp(a->suite, b->suite) && !strcmp(a->test, b->test);
}

/* The first unused test of NEW with the same name and vCPU count, else with the same name. */
static const struct kb_test_result *match_test(const struct kb_result *cur, bool *used, const struct kb_test_result *bt)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < cur->ntests; i++) {
			const struct kb_test_result *t = &cur->tests[i];

			if (!used[i] && same_test(t, bt) && (pass || t->vcpus == bt->vcpus)) {
				used[i] = true;
				return t;
			}
		}
	return NULL;
}

/* The round means of a metric (its samples when it rests on one round); the caller frees them. */
static double *round_means(const struct kb_metric *m, size_t *n)
{
	double *v;

	if (m->nrounds < 2) {
		*n = m->n;
		v = kb_xcalloc(m->n + 1, sizeof(*v));
		memcpy(v, m->samples, m->n * sizeof(*v));
		return v;
	}
	*n = m->nrounds;
	v = kb_xcalloc(m->nrounds, sizeof(*v));
	for (size_t i = 0; i < m->nrounds; i++)
		v[i] = m->rounds[i].mean;
	return v;
}

/* The delta, its CI and p: Welch (or Mann-Whitney) on the round means when both sides have two or
 * more rounds, the paired ratio test on them for an interleaved A/B run, and otherwise the samples of
 * one run, whose spread says nothing of the drift between runs (the verdict then cannot be decided). */
static void estimate(struct kb_compare_row *r, const struct kb_compare_opts *o)
{
	const struct kb_metric *bm = r->bm, *nm = r->nm;
	double base = bm->sum.mean;
	size_t na, nb;
	double *a = round_means(bm, &na), *b = round_means(nm, &nb);

	r->base_rounds = bm->nrounds > 1 ? bm->nrounds : 1;
	r->new_rounds = nm->nrounds > 1 ? nm->nrounds : 1;
	r->basis = r->base_rounds >= 2 && r->new_rounds >= 2 ? "between_rounds" : "within_run";
	/* Rounds of one run follow each other within seconds and share its process and the host's state:
	 * they do not sample the drift between runs (measured: README, "Comparing results honestly"), and
	 * one such run against separate runs, judged as a new draw from their spread, was no better (3 of
	 * 20 false verdicts against 3 runs): both sides must be separate runs. */
	r->base_runs = r->bt->nruns > 1 ? r->bt->nruns : 1;
	r->new_runs = r->nt->nruns > 1 ? r->nt->nruns : 1;
	if (r->basis[0] == 'b' && !o->paired && (r->base_runs < 2 || r->new_runs < 2))
		r->basis = "one_run_rounds";
	kb_welch_test(a, na, b, nb, &r->welch);
	kb_mann_whitney(a, na, b, nb, &r->mwu);
	r->delta = (nm->sum.mean - base) / fabs(base);
	if (isfinite(r->welch.df)) {
		/* The CI of the difference of means, scaled by the base mean taken as exact. */
		double half = r->welch.se > 0 ? gsl_cdf_tdist_Pinv(1 - o->alpha / 2, r->welch.df) * r->welch.se : 0;

		r->delta_lo = (r->welch.diff - half) / fabs(base);
		r->delta_hi = (r->welch.diff + half) / fabs(base);
	}
	r->p = o->test == KB_SIG_WELCH ? r->welch.p : r->mwu.p;
	if (o->paired_samples && bm->n == nm->n) {
		r->basis = "paired_samples";
		kb_signed_rank_test(bm->samples, nm->samples, bm->n, o->alpha, &r->signed_rank);
		r->delta = r->signed_rank.ratio - 1;
		r->delta_lo = r->signed_rank.ratio_lo - 1;
		r->delta_hi = r->signed_rank.ratio_hi - 1;
		r->p = r->signed_rank.p;
	} else if (o->paired && r->basis[0] == 'b' && na == nb) {
		r->basis = "paired";
		kb_paired_ratio_test(a, b, na, o->alpha, &r->paired);
		r->delta = r->paired.ratio - 1;
		r->delta_lo = r->paired.ratio_lo - 1;
		r->delta_hi = r->paired.ratio_hi - 1;
		r->p = r->paired.p;
	}
	free(a);
	free(b);
}

static void judge(struct kb_compare_row *r, const struct kb_compare_opts *o)
{
	const struct kb_metric *bm = r->bm, *nm = r->nm;
	double base = bm->sum.mean, tol = o->tolerance_pct / 100;
	bool better;

	if (!bm->n || !nm->n) {
		snprintf(r->note, sizeof(r->note), "no samples in %s", !bm->n ? "BASE" : "NEW");
		return;
	}
	if (base == 0 || !isfinite(base)) {
		snprintf(r->note, sizeof(r->note), "the base mean is %g: no relative change to speak of", base);
		return;
	}
	estimate(r, o);
	better = r->higher_is_better ? r->delta > 0 : r->delta < 0;
	/* The slack keeps a change of exactly the tolerance inside it despite rounding. */
	if (fabs(r->delta) <= tol * (1 + 1e-9)) {
		r->verdict = KB_VERDICT_WITHIN;
	} else if (!strcmp(r->basis, "within_run")) {
		r->verdict = KB_VERDICT_INCONCLUSIVE;
		snprintf(r->note, sizeof(r->note), "inconclusive \u2014 needs more rounds (separate runs: compare "
			 "A1.json,A2.json,... B1.json,B2.json,...): %s rests on one round, and one run's samples say "
			 "nothing of the drift between runs",
			 r->base_rounds < 2 && r->new_rounds < 2 ? "each side" : r->base_rounds < 2 ? "BASE" : "NEW");
	} else if (!strcmp(r->basis, "one_run_rounds")) {
		r->verdict = KB_VERDICT_INCONCLUSIVE;
		snprintf(r->note, sizeof(r->note), "inconclusive \u2014 needs separate runs: %s rests on the rounds of one "
			 "run, which do not sample the drift between runs (compare several runs of each side: "
			 "A1.json,A2.json,A3.json B1.json,B2.json,B3.json)",
			 r->base_runs < 2 && r->new_runs < 2 ? "each side" : r->base_runs < 2 ? "BASE" : "NEW");
	} else if (isnan(r->p)) {
		r->verdict = KB_VERDICT_INCONCLUSIVE;
		if (!strcmp(r->basis, "paired_samples"))
			snprintf(r->note, sizeof(r->note), "too few pairs of samples for the signed-rank test (%zu; "
				 "at least %d)", r->signed_rank.n, KB_SIGNED_RANK_MIN);
		else
			snprintf(r->note, sizeof(r->note), "too few rounds for %s (%zu and %zu)",
				 !strcmp(r->basis, "paired") ? "the paired test"
				 : o->test == KB_SIG_WELCH ? "Welch's t-test" : "the Mann-Whitney U test",
				 r->base_rounds, r->new_rounds);
	} else if (r->p < o->alpha) {
		r->verdict = better ? KB_VERDICT_IMPROVED : KB_VERDICT_REGRESSED;
	} else {
		r->verdict = KB_VERDICT_INCONCLUSIVE;
		snprintf(r->note, sizeof(r->note), "beyond tolerance but not significant (p %.3g >= %g): more rounds would tell",
			 r->p, o->alpha);
	}
}

static bool shown_metric(const struct kb_metric *m, const struct kb_compare_opts *o)
{
	return o->all_metrics || !strchr(m->name, '.');
}

static void compare_tests(struct kb_comparison *c, const struct kb_test_result *bt, const struct kb_test_result *nt)
{
	const struct kb_compare_opts *o = &c->opts;
	struct kb_compare_row *r;

	if (bt->status != KB_STATUS_OK || nt->status != KB_STATUS_OK) {
		const struct kb_test_result *bad = bt->status != KB_STATUS_OK ? bt : nt;

		r = add_row(c, bt, nt);
		snprintf(r->note, sizeof(r->note), "%s is %s%s%s", bad == bt ? "BASE" : "NEW", kb_status_name(bad->status),
			 bad->reason ? ": " : "", bad->reason ? bad->reason : "");
		return;
	}
	for (size_t i = 0; i < bt->nmetrics; i++) {
		const struct kb_metric *bm = bt->metrics[i], *nm = kb_test_find_metric(nt, bm->name);

		if (!shown_metric(bm, o))
			continue;
		r = add_row(c, bt, nt);
		r->bm = bm;
		r->nm = nm;
		r->metric = bm->name;
		r->unit = bm->unit;
		r->higher_is_better = bm->higher_is_better;
		if (!nm) {
			snprintf(r->note, sizeof(r->note), "metric not in NEW");
			continue;
		}
		if (strcmp(bm->unit, nm->unit) || bm->higher_is_better != nm->higher_is_better) {
			snprintf(r->note, sizeof(r->note), "the unit or direction differs: %s%s in BASE, %s%s in NEW",
				 bm->unit, bm->higher_is_better ? " (higher is better)" : "", nm->unit,
				 nm->higher_is_better ? " (higher is better)" : "");
			continue;
		}
		judge(r, o);
	}
	for (size_t i = 0; i < nt->nmetrics; i++) {
		const struct kb_metric *nm = nt->metrics[i];

		if (!shown_metric(nm, o) || kb_test_find_metric(bt, nm->name))
			continue;
		r = add_row(c, bt, nt);
		r->nm = nm;
		r->metric = nm->name;
		r->unit = nm->unit;
		r->higher_is_better = nm->higher_is_better;
		snprintf(r->note, sizeof(r->note), "metric not in BASE");
	}
}

int kb_compare_build(const struct kb_result *base, const struct kb_result *cur, const struct kb_compare_opts *o,
		     struct kb_comparison *c)
{
	bool *used = kb_xcalloc(cur->ntests + 1, sizeof(bool));

	memset(c, 0, sizeof(*c));
	c->opts = *o;
	c->base = base;
	c->cur = cur;
	diff_results(c, base, cur);
	for (size_t i = 0; i < base->ntests; i++) {
		const struct kb_test_result *bt = &base->tests[i], *nt = match_test(cur, used, bt);

		if (!nt) {
			snprintf(add_row(c, bt, NULL)->note, sizeof(c->rows[0].note), "test not in NEW");
			continue;
		}
		diff_tests(c, bt, nt);
		compare_tests(c, bt, nt);
	}
	for (size_t i = 0; i < cur->ntests; i++)
		if (!used[i])
			snprintf(add_row(c, NULL, &cur->tests[i])->note, sizeof(c->rows[0].note), "test not in BASE");
	free(used);
	for (size_t i = 0; i < c->nrows; i++) {
		c->count[c->rows[i].verdict]++;
		/* Paired samples rest on pairs, not rounds: each side is one run by design. */
		if (c->rows[i].basis && strcmp(c->rows[i].basis, "paired_samples")) {
			c->base_single |= c->rows[i].base_rounds < 2;
			c->new_single |= c->rows[i].new_rounds < 2;
			bool one_run = !strcmp(c->rows[i].basis, "one_run_rounds");

			c->base_one_run |= one_run && c->rows[i].base_runs < 2;
			c->new_one_run |= one_run && c->rows[i].new_runs < 2;
		}
	}
	if (c->count[KB_VERDICT_NOT_COMPARED] == c->nrows)
		return kb_fail(ENODATA, "no measurement could be compared: the results share no valid test "
			       "(run the same suites on both sides)");
	return 0;
}

void kb_comparison_free(struct kb_comparison *c)
{
	for (size_t i = 0; i < c->ndiffs; i++) {
		free(c->diffs[i].field);
		free(c->diffs[i].base);
		free(c->diffs[i].cur);
	}
	free(c->diffs);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

int kb_comparison_status(const struct kb_comparison *c)
{
	if (c->count[KB_VERDICT_NOT_COMPARED] == c->nrows)
		return 2;
	return c->count[KB_VERDICT_REGRESSED] ? 1 : 0;
}
