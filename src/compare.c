/* compare.c: A/B comparison of two results: relative deltas with confidence intervals, Welch's
 * t-test and Mann-Whitney U on the raw samples, a verdict per metric, and its three views. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "compare.h"
#include "kb.h"
#include "table.h"
#include "writers.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* ---- two-sample tests ---- */

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

	c->diffs = realloc(c->diffs, (c->ndiffs + 1) * sizeof(*c->diffs));
	if (!c->diffs)
		kb_die("out of memory");
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

	c->rows = realloc(c->rows, (c->nrows + 1) * sizeof(*c->rows));
	if (!c->rows)
		kb_die("out of memory");
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
	kb_welch_test(bm->samples, bm->n, nm->samples, nm->n, &r->welch);
	kb_mann_whitney(bm->samples, bm->n, nm->samples, nm->n, &r->mwu);
	r->delta = (nm->sum.mean - base) / fabs(base);
	if (isfinite(r->welch.df)) {
		/* The CI of the difference of means, scaled by the base mean taken as exact. */
		double half = r->welch.se > 0 ? gsl_cdf_tdist_Pinv(1 - o->alpha / 2, r->welch.df) * r->welch.se : 0;

		r->delta_lo = (r->welch.diff - half) / fabs(base);
		r->delta_hi = (r->welch.diff + half) / fabs(base);
	}
	r->p = o->test == KB_SIG_WELCH ? r->welch.p : r->mwu.p;
	better = r->higher_is_better ? r->delta > 0 : r->delta < 0;
	/* The slack keeps a change of exactly the tolerance inside it despite rounding. */
	if (fabs(r->delta) <= tol * (1 + 1e-9)) {
		r->verdict = KB_VERDICT_WITHIN;
	} else if (isnan(r->p)) {
		r->verdict = KB_VERDICT_INCONCLUSIVE;
		snprintf(r->note, sizeof(r->note), "too few samples for %s (%zu and %zu)",
			 o->test == KB_SIG_WELCH ? "Welch's t-test" : "the Mann-Whitney U test", bm->n, nm->n);
	} else if (r->p < o->alpha) {
		r->verdict = better ? KB_VERDICT_IMPROVED : KB_VERDICT_REGRESSED;
	} else {
		r->verdict = KB_VERDICT_INCONCLUSIVE;
		snprintf(r->note, sizeof(r->note), "beyond tolerance but not significant (p %.3g >= %g): more runs would tell",
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
	for (size_t i = 0; i < c->nrows; i++)
		c->count[c->rows[i].verdict]++;
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

/* ---- views ---- */

const char *const kb_compare_col_titles[KB_CMP_NCOLS] = {
	"TEST", "METRIC", "BASE ±95%CI", "NEW ±95%CI", "DELTA", "DELTA CI", "P", "VERDICT",
};

static void mean_ci(const struct kb_metric *m, char *buf, size_t size)
{
	char mean[40];

	if (!m || !m->n) {
		snprintf(buf, size, "-");
		return;
	}
	kb_format_number(m->sum.mean, mean, sizeof(mean));
	snprintf(buf, size, "%s ±%.1f%%", mean, m->sum.ci_rel * 100);
}

void kb_compare_row_cells(const struct kb_compare_row *r, struct kb_compare_cells *out)
{
	char lo[24], hi[24];

	memset(out, 0, sizeof(*out));
	snprintf(out->c[KB_CMP_COL_TEST], sizeof(out->c[0]), "%s", r->id);
	if (r->metric)
		snprintf(out->c[KB_CMP_COL_METRIC], sizeof(out->c[0]), "%s (%s)", r->metric, r->unit);
	else
		snprintf(out->c[KB_CMP_COL_METRIC], sizeof(out->c[0]), "-");
	mean_ci(r->bm, out->c[KB_CMP_COL_BASE], sizeof(out->c[0]));
	mean_ci(r->nm, out->c[KB_CMP_COL_NEW], sizeof(out->c[0]));
	kb_format_pct(r->delta, out->c[KB_CMP_COL_DELTA], sizeof(out->c[0]));
	if (isnan(r->delta_lo)) {
		snprintf(out->c[KB_CMP_COL_CI], sizeof(out->c[0]), "-");
	} else {
		kb_format_pct(r->delta_lo, lo, sizeof(lo));
		kb_format_pct(r->delta_hi, hi, sizeof(hi));
		snprintf(out->c[KB_CMP_COL_CI], sizeof(out->c[0]), "[%s, %s]", lo, hi);
	}
	kb_format_p(r->p, out->c[KB_CMP_COL_P], sizeof(out->c[0]));
	snprintf(out->c[KB_CMP_COL_VERDICT], sizeof(out->c[0]), "%s", kb_verdict_label(r->verdict));
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void pad(FILE *f, const char *s, size_t width, bool right)
{
	size_t w = text_width(s);

	if (right)
		for (size_t i = w; i < width; i++)
			fputc(' ', f);
	fputs(s, f);
	if (!right)
		for (size_t i = w; i < width; i++)
			fputc(' ', f);
}

static bool numeric_column(int k)
{
	return k >= KB_CMP_COL_BASE && k <= KB_CMP_COL_P && k != KB_CMP_COL_CI;
}

static const char *verdict_color(enum kb_verdict v)
{
	switch (v) {
	case KB_VERDICT_IMPROVED: return GREEN;
	case KB_VERDICT_REGRESSED: return RED;
	case KB_VERDICT_INCONCLUSIVE: return YELLOW;
	default: return "";
	}
}

static void side_line(FILE *f, const char *what, const char *label, const struct kb_result *r, const char *prefix)
{
	json_object *cpu = NULL, *kvm = NULL, *v;
	const char *kernel = "?", *brand = "?", *backend = "?";

	if (json_object_object_get_ex(r->host, "kernel_release", &v) && v)
		kernel = json_object_get_string(v);
	if (json_object_object_get_ex(r->host, "cpu", &cpu) && json_object_object_get_ex(cpu, "brand", &v) && v)
		brand = json_object_get_string(v);
	if (json_object_object_get_ex(r->host, "kvm", &kvm) && json_object_object_get_ex(kvm, "backend", &v) && v)
		backend = json_object_get_string(v);
	fprintf(f, "%s%-4s %s: kvmbench %s, %s, kernel %s, %s, %s\n", prefix, what, label,
		r->tool_version ? r->tool_version : "?", r->started ? r->started : "?", kernel, brand, backend);
}

void kb_comparison_print_warning(FILE *f, const struct kb_comparison *c, const char *prefix)
{
	if (!c->ndiffs)
		return;
	fprintf(f, "%sWARNING: BASE and NEW differ in %zu field%s that can change the numbers; a delta may come\n"
		   "%sfrom these rather than from the change under test:\n", prefix, c->ndiffs,
		c->ndiffs == 1 ? "" : "s", prefix);
	for (size_t i = 0; i < c->ndiffs; i++)
		fprintf(f, "%s  %s: %s -> %s\n", prefix, c->diffs[i].field, c->diffs[i].base, c->diffs[i].cur);
}

static void print_settings(FILE *f, const struct kb_comparison *c, const char *prefix)
{
	const struct kb_compare_opts *o = &c->opts;

	fprintf(f, "%stolerance ±%g%%; %s at alpha %g; delta CI %g%%\n", prefix, o->tolerance_pct,
		o->test == KB_SIG_WELCH ? "Welch's t-test" : "Mann-Whitney U test", o->alpha, (1 - o->alpha) * 100);
}

static void print_counts(FILE *f, const struct kb_comparison *c)
{
	static const enum kb_verdict order[] = { KB_VERDICT_REGRESSED, KB_VERDICT_IMPROVED, KB_VERDICT_WITHIN,
						 KB_VERDICT_INCONCLUSIVE, KB_VERDICT_NOT_COMPARED };

	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		fprintf(f, "%s%zu %s", i ? ", " : "", c->count[order[i]], kb_verdict_label(order[i]));
}

void kb_comparison_print_table(FILE *f, const struct kb_comparison *c)
{
	const struct kb_compare_opts *o = &c->opts;
	struct kb_compare_cells *cells = kb_xcalloc(c->nrows + 1, sizeof(*cells));
	size_t width[KB_CMP_NCOLS];

	side_line(f, "BASE", o->base_label ? o->base_label : "-", c->base, "");
	side_line(f, "NEW", o->new_label ? o->new_label : "-", c->cur, "");
	print_settings(f, c, "");
	if (c->ndiffs) {
		fputs(o->color ? BOLD YELLOW : "", f);
		kb_comparison_print_warning(f, c, "");
		fputs(o->color ? RESET : "", f);
	}
	fputc('\n', f);
	for (int k = 0; k < KB_CMP_NCOLS; k++)
		width[k] = text_width(kb_compare_col_titles[k]);
	for (size_t i = 0; i < c->nrows; i++) {
		kb_compare_row_cells(&c->rows[i], &cells[i]);
		for (int k = 0; k < KB_CMP_NCOLS; k++)
			if (text_width(cells[i].c[k]) > width[k])
				width[k] = text_width(cells[i].c[k]);
	}
	for (int k = 0; k < KB_CMP_NCOLS; k++) {
		pad(f, kb_compare_col_titles[k], k == KB_CMP_NCOLS - 1 ? 0 : width[k], numeric_column(k));
		fputs(k == KB_CMP_NCOLS - 1 ? "\n" : "  ", f);
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kb_compare_row *r = &c->rows[i];

		for (int k = 0; k < KB_CMP_NCOLS - 1; k++) {
			/* Repeat the test name only when it changes. */
			const char *s = k == KB_CMP_COL_TEST && i && !strcmp(r->id, c->rows[i - 1].id) ? "" : cells[i].c[k];

			pad(f, s, width[k], numeric_column(k));
			fputs("  ", f);
		}
		fprintf(f, "%s%s%s", o->color ? verdict_color(r->verdict) : "", cells[i].c[KB_CMP_COL_VERDICT],
			o->color && *verdict_color(r->verdict) ? RESET : "");
		if (r->note[0])
			fprintf(f, " (%s)", r->note);
		fputc('\n', f);
	}
	fputc('\n', f);
	print_counts(f, c);
	fprintf(f, "; %s\n", kb_comparison_status(c) == 1 ? "REGRESSED beyond tolerance" : "no regression beyond tolerance");
	free(cells);
}

void kb_comparison_print_markdown(FILE *f, const struct kb_comparison *c)
{
	const struct kb_compare_opts *o = &c->opts;
	struct kb_compare_cells cells;

	fprintf(f, "Base: ");
	kb_markdown_code(f, o->base_label ? o->base_label : "BASE", false);
	fprintf(f, ", new: ");
	kb_markdown_code(f, o->new_label ? o->new_label : "NEW", false);
	fprintf(f, "; ");
	print_settings(f, c, "");
	fputc('\n', f);
	if (c->ndiffs) {
		fprintf(f, "> **Warning:** base and new differ in %zu field%s that can change the numbers:\n>\n",
			c->ndiffs, c->ndiffs == 1 ? "" : "s");
		for (size_t i = 0; i < c->ndiffs; i++) {
			fprintf(f, "> - ");
			kb_markdown_code(f, c->diffs[i].field, false);
			fprintf(f, ": ");
			kb_markdown_escape(f, c->diffs[i].base);
			fprintf(f, " → ");
			kb_markdown_escape(f, c->diffs[i].cur);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "| Test | Metric | Base ± 95%% CI | New ± 95%% CI | Delta | Delta CI | p | Verdict |\n"
		   "|---|---|--:|--:|--:|--:|--:|---|\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kb_compare_row *r = &c->rows[i];
		bool flagged = r->verdict == KB_VERDICT_IMPROVED || r->verdict == KB_VERDICT_REGRESSED;

		kb_compare_row_cells(r, &cells);
		for (int k = 0; k < KB_CMP_NCOLS; k++) {
			fputs("| ", f);
			if (flagged && (k == KB_CMP_COL_DELTA || k == KB_CMP_COL_VERDICT))
				fputs("**", f);
			if (k <= KB_CMP_COL_METRIC)
				kb_markdown_code(f, cells.c[k], true);
			else
				kb_markdown_escape(f, cells.c[k]);
			if (flagged && (k == KB_CMP_COL_DELTA || k == KB_CMP_COL_VERDICT))
				fputs("**", f);
			if (k == KB_CMP_COL_VERDICT && r->note[0]) {
				fputs(" (", f);
				kb_markdown_escape(f, r->note);
				fputc(')', f);
			}
			fputc(' ', f);
		}
		fputs("|\n", f);
	}
	fputc('\n', f);
	print_counts(f, c);
	fprintf(f, ".\n");
}

static json_object *jnum(double v)
{
	/* JSON has no NaN or infinity: absent values are null. */
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *side_json(const struct kb_metric *m)
{
	json_object *o, *ci;

	if (!m)
		return NULL;
	o = json_object_new_object();
	ci = json_object_new_array();
	json_object_object_add(o, "n", json_object_new_int64((int64_t)m->sum.n));
	json_object_object_add(o, "mean", jnum(m->sum.mean));
	json_object_object_add(o, "stddev", jnum(m->sum.stddev));
	json_object_array_add(ci, jnum(m->sum.ci_lo));
	json_object_array_add(ci, jnum(m->sum.ci_hi));
	json_object_object_add(o, "ci95", ci);
	return o;
}

static json_object *row_json(const struct kb_compare_row *r)
{
	const struct kb_test_result *t = r->bt ? r->bt : r->nt;
	json_object *o = json_object_new_object(), *ci = json_object_new_array(), *w, *u;

	json_object_object_add(o, "id", json_object_new_string(r->id));
	json_object_object_add(o, "suite", json_object_new_string(t->suite));
	json_object_object_add(o, "test", json_object_new_string(t->test));
	json_object_object_add(o, "vcpus", json_object_new_int(t->vcpus));
	json_object_object_add(o, "metric", r->metric ? json_object_new_string(r->metric) : NULL);
	json_object_object_add(o, "unit", r->unit ? json_object_new_string(r->unit) : NULL);
	json_object_object_add(o, "higher_is_better", r->metric ? json_object_new_boolean(r->higher_is_better) : NULL);
	json_object_object_add(o, "base", side_json(r->bm));
	json_object_object_add(o, "new", side_json(r->nm));
	json_object_object_add(o, "delta_pct", jnum(r->delta * 100));
	json_object_array_add(ci, jnum(r->delta_lo * 100));
	json_object_array_add(ci, jnum(r->delta_hi * 100));
	json_object_object_add(o, "delta_ci_pct", ci);
	w = json_object_new_object();
	json_object_object_add(w, "t", jnum(r->welch.t));
	json_object_object_add(w, "df", jnum(r->welch.df));
	json_object_object_add(w, "p", jnum(r->welch.p));
	json_object_object_add(o, "welch", w);
	u = json_object_new_object();
	json_object_object_add(u, "u", r->bm && r->nm && !isnan(r->mwu.p) ? jnum(r->mwu.u) : NULL);
	json_object_object_add(u, "p", jnum(r->mwu.p));
	json_object_object_add(u, "exact", json_object_new_boolean(r->mwu.exact));
	json_object_object_add(o, "mann_whitney", u);
	json_object_object_add(o, "p", jnum(r->p));
	json_object_object_add(o, "verdict", json_object_new_string(kb_verdict_name(r->verdict)));
	json_object_object_add(o, "note", r->note[0] ? json_object_new_string(r->note) : NULL);
	return o;
}

static json_object *side_info_json(const struct kb_result *r, const char *label)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", label ? json_object_new_string(label) : NULL);
	json_object_object_add(o, "tool_version", r->tool_version ? json_object_new_string(r->tool_version) : NULL);
	json_object_object_add(o, "started", r->started ? json_object_new_string(r->started) : NULL);
	return o;
}

json_object *kb_comparison_json(const struct kb_comparison *c)
{
	const struct kb_compare_opts *o = &c->opts;
	json_object *j = json_object_new_object(), *tool = json_object_new_object();
	json_object *diffs = json_object_new_array(), *rows = json_object_new_array(), *counts = json_object_new_object();

	json_object_object_add(j, "compare_schema_version", json_object_new_int(1));
	json_object_object_add(tool, "name", json_object_new_string("kvmbench"));
	json_object_object_add(tool, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(j, "tool", tool);
	json_object_object_add(j, "base", side_info_json(c->base, o->base_label));
	json_object_object_add(j, "new", side_info_json(c->cur, o->new_label));
	json_object_object_add(j, "tolerance_pct", json_object_new_double(o->tolerance_pct));
	json_object_object_add(j, "alpha", json_object_new_double(o->alpha));
	json_object_object_add(j, "test", json_object_new_string(kb_sig_test_name(o->test)));
	for (size_t i = 0; i < c->ndiffs; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "field", json_object_new_string(c->diffs[i].field));
		json_object_object_add(d, "base", json_object_new_string(c->diffs[i].base));
		json_object_object_add(d, "new", json_object_new_string(c->diffs[i].cur));
		json_object_array_add(diffs, d);
	}
	json_object_object_add(j, "differences", diffs);
	for (size_t i = 0; i < c->nrows; i++)
		json_object_array_add(rows, row_json(&c->rows[i]));
	json_object_object_add(j, "rows", rows);
	for (int v = 0; v < KB_NVERDICTS; v++)
		json_object_object_add(counts, kb_verdict_name((enum kb_verdict)v), json_object_new_int64((int64_t)c->count[v]));
	json_object_object_add(j, "counts", counts);
	json_object_object_add(j, "exit_status", json_object_new_int(kb_comparison_status(c)));
	return j;
}

int kb_compare_results(const struct kb_result *base, const struct kb_result *cur, const struct kb_compare_opts *opts,
		       FILE *out, FILE *warn)
{
	struct kb_comparison c;
	int err = kb_compare_build(base, cur, opts, &c), status = kb_comparison_status(&c);

	if (warn && c.ndiffs) {
		fputs("kvmbench: ", warn);
		kb_comparison_print_warning(warn, &c, "");
	}
	switch (opts->format) {
	case KB_CMP_JSON: {
		json_object *j = kb_comparison_json(&c);

		fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
		break;
	}
	case KB_CMP_MARKDOWN:
		kb_comparison_print_markdown(out, &c);
		break;
	default:
		kb_comparison_print_table(out, &c);
		break;
	}
	fflush(out);
	kb_comparison_free(&c);
	/* kb_last_error() still holds why nothing could be compared. */
	return err ? 2 : status;
}
