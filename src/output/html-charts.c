/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html-charts.c: the HTML report's charts: every exit path's cost side by side, A against B per
 * test, the means of the other suites, vCPU sweeps, and every sample (collapsed by default). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/html.h"
#include "output/svg.h"

static struct kb_svg_point mean_point(const struct kb_metric *m, double x)
{
	if (!m || !m->n)
		return (struct kb_svg_point){ x, NAN, NAN, NAN, false };
	return (struct kb_svg_point){ x, m->sum.mean, m->sum.ci_lo, m->sum.ci_hi, false };
}

/* The baseline's counterpart of a test's metric, as the comparison matched them. */
static const struct kb_metric *baseline_metric(const struct kb_comparison *c, const struct kb_test_result *t,
					       const char *metric)
{
	for (size_t i = 0; c && i < c->nrows; i++)
		if (c->rows[i].nt == t && c->rows[i].metric && !strcmp(c->rows[i].metric, metric))
			return c->rows[i].bm;
	return NULL;
}

/* Categories and points of one bar chart, grown as tests are added. */
struct bars {
	const char **cats;
	char (*labels)[128];
	struct kb_svg_point *a, *b;
	size_t n;
};

static void bars_init(struct bars *g, size_t max)
{
	g->cats = kb_xcalloc(max + 1, sizeof(*g->cats));
	g->labels = kb_xcalloc(max + 1, sizeof(*g->labels));
	g->a = kb_xcalloc(max + 1, sizeof(*g->a));
	g->b = kb_xcalloc(max + 1, sizeof(*g->b));
	g->n = 0;
}

static void bars_add(struct bars *g, const char *label, const struct kb_metric *a, const struct kb_metric *b)
{
	snprintf(g->labels[g->n], sizeof(g->labels[g->n]), "%s", label);
	g->cats[g->n] = g->labels[g->n];
	g->a[g->n] = mean_point(a, (double)g->n);
	g->b[g->n] = mean_point(b, (double)g->n);
	g->n++;
}

static void bars_free(struct bars *g)
{
	free(g->cats);
	free(g->labels);
	free(g->a);
	free(g->b);
}

/* Do the values span more than a factor of 20?  Then a log scale shows the small ones too. */
static bool wide(const struct bars *g, bool two)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < g->n; i++)
		for (int k = 0; k < (two ? 2 : 1); k++) {
			double y = k ? g->b[i].y : g->a[i].y;

			if (isfinite(y) && y > 0) {
				lo = fmin(lo, y);
				hi = fmax(hi, y);
			}
		}
	return hi > lo * 20;
}

static void full_id(const struct kb_test_result *t, char *buf, size_t size)
{
	char label[96];

	kb_html_test_label(t, label, sizeof(label));
	snprintf(buf, size, "%s/%s", t->suite, label);
}

void kb_html_exit_chart(FILE *f, const struct kb_result *m)
{
	struct kb_svg_series s;
	struct bars g;
	char id[192];
	bool first = true;

	bars_init(&g, m->ntests);
	for (size_t i = 0; i < m->ntests; i++)
		if (kb_html_is_exit_path(&m->tests[i])) {
			full_id(&m->tests[i], id, sizeof(id));
			bars_add(&g, id, kb_html_chart_metric(&m->tests[i]), NULL);
		}
	fputs("<figure id=\"exit-paths\">\n", f);
	if (!g.n) {
		fputs("<p>No exit path was measured validly: there is no cost to chart.</p>\n", f);
	} else {
		s = (struct kb_svg_series){ "mean and 95% CI", KB_HTML_COLOR_NEW, g.a, g.n, NAN, NAN, NAN };
		kb_svg_bars(f, "Every exit path's cost: ns per iteration", "ns/iter", g.cats, g.n, &s, 1, true);
	}
	/* What the chart leaves out, and why: a test that was not measured validly has no cost. */
	for (size_t i = 0; i < m->ntests; i++) {
		const struct kb_test_result *t = &m->tests[i];
		bool suite_has_exits = false;

		if (t->status == KB_STATUS_OK)
			continue;
		for (size_t j = 0; j < m->ntests; j++)
			suite_has_exits |= !strcmp(m->tests[j].suite, t->suite) && kb_html_exit_cost(&m->tests[j]);
		if (!suite_has_exits)
			continue;
		full_id(t, id, sizeof(id));
		fputs(first ? "<figcaption>Not in the chart (no valid measurement): " : ", ", f);
		fputs("<code>", f);
		kb_html_escape(f, id);
		fputs("</code> (", f);
		kb_html_escape(f, kb_status_name(t->status));
		fputs(")", f);
		first = false;
	}
	fputs(first ? "" : ".</figcaption>\n", f);
	fputs("</figure>\n", f);
	bars_free(&g);
}

void kb_html_ab_charts(FILE *f, const struct kb_comparison *c)
{
	const char **units = kb_xcalloc(c->nrows + 1, sizeof(*units));
	size_t nunits = 0;

	/* The units of the compared metrics, in order of first appearance: one chart each. */
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kb_compare_row *r = &c->rows[i];
		size_t k = 0;

		if (!r->bm || !r->nm || !r->nt || r->nm != kb_html_chart_metric(r->nt) || !r->unit)
			continue;
		while (k < nunits && strcmp(units[k], r->unit))
			k++;
		if (k == nunits)
			units[nunits++] = r->unit;
	}
	fputs("<figure id=\"ab\">\n", f);
	for (size_t u = 0; u < nunits; u++) {
		struct kb_svg_series s[2];
		struct bars g;
		char title[160];

		bars_init(&g, c->nrows);
		for (size_t i = 0; i < c->nrows; i++) {
			const struct kb_compare_row *r = &c->rows[i];

			if (r->bm && r->nm && r->nt && r->nm == kb_html_chart_metric(r->nt) && r->unit &&
			    !strcmp(r->unit, units[u]))
				bars_add(&g, r->id, r->bm, r->nm);
		}
		s[0] = (struct kb_svg_series){ "A: baseline", KB_HTML_COLOR_BASE, g.a, g.n, NAN, NAN, NAN };
		s[1] = (struct kb_svg_series){ "B: new", KB_HTML_COLOR_NEW, g.b, g.n, NAN, NAN, NAN };
		snprintf(title, sizeof(title), "A vs B: %s, mean and 95%% CI per test", units[u]);
		kb_svg_bars(f, title, units[u], g.cats, g.n, s, 2, wide(&g, true));
		bars_free(&g);
	}
	if (!nunits)
		fputs("<p>No test was measured validly on both sides: nothing to chart.</p>\n", f);
	fputs("<figcaption>A: <code>", f);
	kb_html_escape(f, c->opts.base_label ? c->opts.base_label : "baseline");
	fputs("</code>; B: <code>", f);
	kb_html_escape(f, c->opts.new_label ? c->opts.new_label : "new");
	fputs("</code>.</figcaption>\n</figure>\n", f);
	free(units);
}

/* A suite without exit paths: one chart per charted metric name, the baseline's beside. */
static void means_charts(FILE *f, const struct kb_result *m, const struct kb_comparison *c, const char *suite)
{
	for (size_t i = 0; i < m->ntests; i++) {
		const struct kb_test_result *t = &m->tests[i];
		const struct kb_metric *tm = kb_html_chart_metric(t);
		struct kb_svg_series s[2];
		size_t ns = 0;
		bool first = true, any_base = false;
		struct bars g;
		char title[160], label[96];

		if (strcmp(t->suite, suite) || t->status != KB_STATUS_OK || !tm || !tm->n)
			continue;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->tests[j].suite, suite) && m->tests[j].status == KB_STATUS_OK &&
			    kb_html_chart_metric(&m->tests[j]) && !strcmp(kb_html_chart_metric(&m->tests[j])->name, tm->name))
				first = false;
		if (!first)
			continue;
		bars_init(&g, m->ntests);
		for (size_t j = i; j < m->ntests; j++) {
			const struct kb_test_result *u = &m->tests[j];
			const struct kb_metric *um = kb_html_chart_metric(u), *bm;

			if (strcmp(u->suite, suite) || u->status != KB_STATUS_OK || !um || !um->n || strcmp(um->name, tm->name))
				continue;
			bm = baseline_metric(c, u, um->name);
			any_base |= bm != NULL;
			kb_html_test_label(u, label, sizeof(label));
			bars_add(&g, label, bm, um);
		}
		if (any_base)
			s[ns++] = (struct kb_svg_series){ "A: baseline", KB_HTML_COLOR_BASE, g.a, g.n, NAN, NAN, NAN };
		s[ns++] = (struct kb_svg_series){ c ? "B: new" : "mean", KB_HTML_COLOR_NEW, g.b, g.n, NAN, NAN, NAN };
		snprintf(title, sizeof(title), "%s: %s, mean and 95%% CI", suite, tm->name);
		kb_svg_bars(f, title, tm->unit, g.cats, g.n, s, ns, false);
		bars_free(&g);
	}
}

static int cmp_point_x(const void *a, const void *b)
{
	double x = ((const struct kb_svg_point *)a)->x, y = ((const struct kb_svg_point *)b)->x;

	return (x > y) - (x < y);
}

/* Points (vcpus, mean) of every valid run of suite/test in r; returns their number. */
static size_t sweep_points(const struct kb_result *r, const char *suite, const char *test, const char *metric,
			   struct kb_svg_point *pts)
{
	size_t n = 0;

	for (size_t i = 0; r && i < r->ntests; i++) {
		const struct kb_test_result *t = &r->tests[i];
		const struct kb_metric *tm = kb_test_find_metric(t, metric);

		if (!strcmp(t->suite, suite) && !strcmp(t->test, test) && t->status == KB_STATUS_OK && tm && tm->n)
			pts[n++] = mean_point(tm, t->vcpus);
	}
	qsort(pts, n, sizeof(*pts), cmp_point_x);
	return n;
}

static bool is_sweep(const struct kb_svg_point *pts, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (pts[i].x != pts[0].x)
			return true;
	return false;
}

/* A vCPU sweep: the same test at different vCPU counts, a line per side, for its charted metric. */
static void scaling_charts(FILE *f, const struct kb_result *m, const struct kb_result *baseline, const char *suite)
{
	for (size_t i = 0; i < m->ntests; i++) {
		const struct kb_test_result *t = &m->tests[i];
		const struct kb_metric *tm = kb_html_chart_metric(t);
		struct kb_svg_point *cur, *base;
		struct kb_svg_series s[2];
		size_t nc, nb, ns = 0;
		bool first = true;
		char title[192];

		if (strcmp(t->suite, suite) || t->status != KB_STATUS_OK || !tm)
			continue;
		/* One chart per test name: at its first valid occurrence. */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->tests[j].suite, suite) && !strcmp(m->tests[j].test, t->test) &&
			    m->tests[j].status == KB_STATUS_OK)
				first = false;
		if (!first)
			continue;
		cur = kb_xcalloc(m->ntests + 1, sizeof(*cur));
		base = kb_xcalloc((baseline ? baseline->ntests : 0) + 1, sizeof(*base));
		nc = sweep_points(m, suite, t->test, tm->name, cur);
		nb = sweep_points(baseline, suite, t->test, tm->name, base);
		if (is_sweep(cur, nc)) {
			if (nb)
				s[ns++] = (struct kb_svg_series){ "A: baseline", KB_HTML_COLOR_BASE, base, nb, NAN, NAN, NAN };
			s[ns++] = (struct kb_svg_series){ baseline ? "B: new" : "mean", KB_HTML_COLOR_NEW, cur, nc, NAN, NAN, NAN };
			snprintf(title, sizeof(title), "%s/%s: %s by vCPU count", suite, t->test, tm->name);
			kb_svg_lines(f, title, "vCPUs", tm->unit, s, ns);
		}
		free(cur);
		free(base);
	}
}

static struct kb_svg_series sample_series(const struct kb_metric *m, const char *name, const char *color,
					  struct kb_svg_point **pts)
{
	unsigned char *flags = kb_xcalloc(m->n + 1, 1);

	*pts = kb_xcalloc(m->n + 1, sizeof(**pts));
	kb_outliers(m->samples, m->n, flags);
	for (size_t i = 0; i < m->n; i++)
		(*pts)[i] = (struct kb_svg_point){ (double)i, m->samples[i], NAN, NAN, flags[i] };
	free(flags);
	return (struct kb_svg_series){ name, color, *pts, m->n, m->sum.ci_lo, m->sum.ci_hi, m->sum.mean };
}

/* Every sample of a test's metric, the baseline's behind: how noisy the measurement was. */
static void scatter_chart(FILE *f, const struct kb_test_result *t, const struct kb_metric *tm,
			  const struct kb_comparison *c)
{
	const struct kb_metric *bm = baseline_metric(c, t, tm->name);
	struct kb_svg_point *pb = NULL, *pc = NULL;
	struct kb_svg_series s[2];
	size_t ns = 0;
	char title[192], label[96];

	if (bm && bm->n)
		s[ns++] = sample_series(bm, "A: baseline", KB_HTML_COLOR_BASE, &pb);
	s[ns++] = sample_series(tm, c ? "B: new" : "samples", KB_HTML_COLOR_NEW, &pc);
	kb_html_test_label(t, label, sizeof(label));
	snprintf(title, sizeof(title), "%s/%s: %s samples", t->suite, label, tm->name);
	kb_svg_scatter(f, title, tm->unit, s, ns);
	free(pb);
	free(pc);
}

/* The metrics whose samples are plotted: an exit path's cost (its rate and cycles are the same
 * samples in other units), or every metric of another test but the per-vCPU ones. */
static bool sampled(const struct kb_test_result *t, const struct kb_metric *m)
{
	if (!m->n || strchr(m->name, '.'))
		return false;
	return kb_html_is_exit_path(t) ? m == kb_html_chart_metric(t) : true;
}

void kb_html_suite_charts(FILE *f, const struct kb_result *m, const struct kb_result *baseline,
			  const struct kb_comparison *c, const char *suite)
{
	size_t nplots = 0;
	bool exits = false;

	for (size_t i = 0; i < m->ntests; i++)
		if (!strcmp(m->tests[i].suite, suite)) {
			exits |= kb_html_is_exit_path(&m->tests[i]);
			for (size_t k = 0; k < m->tests[i].nmetrics; k++)
				nplots += m->tests[i].status == KB_STATUS_OK && sampled(&m->tests[i], m->tests[i].metrics[k]);
		}
	fputs("<div class=\"charts\">\n", f);
	/* An exit-path suite's means are in the chart of every exit path. */
	if (!exits)
		means_charts(f, m, c, suite);
	scaling_charts(f, m, baseline, suite);
	fputs("</div>\n", f);
	if (!nplots)
		return;
	fprintf(f, "<details class=\"samples\"><summary>Samples: %zu plot%s (outliers ringed in red, never dropped; "
		   "dashed: the mean; band: its 95%% CI)</summary>\n<div class=\"charts\">\n", nplots,
		nplots == 1 ? "" : "s");
	for (size_t i = 0; i < m->ntests; i++)
		for (size_t k = 0; k < m->tests[i].nmetrics; k++)
			if (!strcmp(m->tests[i].suite, suite) && m->tests[i].status == KB_STATUS_OK &&
			    sampled(&m->tests[i], m->tests[i].metrics[k]))
				scatter_chart(f, &m->tests[i], m->tests[i].metrics[k], c);
	fputs("</div></details>\n", f);
}
