/* writer-html.c: the qualification report as one self-contained HTML file: verdict, host, the
 * comparison with a baseline, every suite's results and checks, and inline SVG charts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kb.h"
#include "svg.h"
#include "table.h"
#include "writers.h"

#define COLOR_NEW "#1f77b4"
#define COLOR_BASE "#9a9a9a"

static const char css[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1180px;color:#222;line-height:1.4}"
	"h1{margin-bottom:4px}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
	".meta{color:#555;margin-top:0}"
	"table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d4d4d4;padding:3px 8px;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"table.kv table.kv{margin:0}table.kv th{font-weight:normal;background:#fafafa}"
	".verdict{display:inline-block;padding:6px 14px;border-radius:4px;font-weight:bold;color:#fff}"
	".pass{background:#2e7d32}.fail{background:#c62828}"
	".ok,.improved{color:#2e7d32}.invalid,.error,.regressed{color:#c62828;font-weight:bold}"
	".skipped,.inconclusive{color:#a66a00}.not_compared{color:#777}"
	".warning{border-left:4px solid #e0a000;background:#fff8e1;padding:8px 12px;margin:12px 0}"
	".charts{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}svg.chart{border:1px solid #e3e3e3}"
	"tr.sub td{color:#666}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(290px,1fr));gap:2px 16px;font-size:90%}"
	".grid code{color:#555}";

static void esc(FILE *f, const char *s)
{
	kb_html_escape(f, s);
}

static void cell(FILE *f, const char *cls, const char *text)
{
	if (cls)
		fprintf(f, "<td class=\"%s\">", cls);
	else
		fputs("<td>", f);
	esc(f, text);
	fputs("</td>", f);
}

static void json_value(FILE *f, json_object *v)
{
	esc(f, !v ? "null" : json_object_is_type(v, json_type_string) ? json_object_get_string(v)
	    : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* Long flat lists (module parameters, capabilities) read better as a grid than as a long table. */
static bool long_flat_object(json_object *o)
{
	if (json_object_object_length(o) <= 8)
		return false;
	json_object_object_foreach(o, key, val) {
		(void)key;
		if (val && json_object_is_type(val, json_type_object))
			return false;
	}
	return true;
}

/* Nested objects become nested tables: whatever the host section grows to, it is shown. */
static void json_table(FILE *f, json_object *o)
{
	if (long_flat_object(o)) {
		fputs("<div class=\"grid\">", f);
		json_object_object_foreach(o, key, val) {
			fputs("<div><code>", f);
			esc(f, key);
			fputs("</code> ", f);
			json_value(f, val);
			fputs("</div>", f);
		}
		fputs("</div>\n", f);
		return;
	}
	fputs("<table class=\"kv\">", f);
	json_object_object_foreach(o, key, val) {
		fputs("<tr><th>", f);
		esc(f, key);
		fputs("</th><td>", f);
		if (val && json_object_is_type(val, json_type_object))
			json_table(f, val);
		else
			json_value(f, val);
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
}

static void header(FILE *f, const struct kb_report *rep, const struct kb_report_verdict *v)
{
	const char *title = rep->title ? rep->title : "kvmbench qualification report";
	char buf[32];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>", f);
	esc(f, title);
	fprintf(f, "</title><style>%s</style></head>\n<body>\n<header><h1>", css);
	esc(f, title);
	fprintf(f, "</h1><p class=\"meta\">kvmbench %s; result%s ", PACKAGE_VERSION, rep->nresults == 1 ? "" : "s");
	for (size_t i = 0; i < rep->nresults; i++) {
		fprintf(f, "%s<code>", i ? ", " : "");
		esc(f, kb_report_name(rep, i, buf, sizeof(buf)));
		fputs("</code> (started ", f);
		esc(f, rep->results[i]->started ? rep->results[i]->started : "?");
		fputs(")", f);
	}
	if (rep->baseline) {
		fputs("; baseline <code>", f);
		esc(f, rep->baseline_name ? rep->baseline_name : "baseline");
		fputs("</code>", f);
	}
	fprintf(f, "</p>\n<p><span class=\"verdict %s\">%s</span> %zu test%s ok, %zu skipped, %zu invalid, %zu failed",
		v->pass ? "pass" : "fail", v->pass ? "PASS" : "FAIL", v->ok, v->ok == 1 ? "" : "s", v->skipped,
		v->invalid, v->error);
	if (v->compared)
		fprintf(f, "; against the baseline (tolerance ±%g%%): %zu regressed, %zu improved, %zu inconclusive",
			rep->cmp.tolerance_pct, v->regressed, v->improved, v->inconclusive);
	fputs(".</p></header>\n", f);
}

static void hosts(FILE *f, const struct kb_report *rep, size_t distinct)
{
	char buf[32];

	fputs("<section id=\"host\"><h2>Host</h2>\n", f);
	if (distinct > 1)
		fprintf(f, "<p class=\"warning\">These results come from %zu different hosts or host configurations; "
			   "their numbers are not directly comparable.</p>\n", distinct);
	for (size_t i = 0; i < rep->nresults; i++) {
		if (kb_report_same_host(rep, i) >= 0)
			continue;
		if (rep->nresults > 1) {
			fputs("<p>Measured in", f);
			for (size_t j = i; j < rep->nresults; j++)
				if (j == i || kb_report_same_host(rep, j) == (int)i) {
					fputs(" <code>", f);
					esc(f, kb_report_name(rep, j, buf, sizeof(buf)));
					fputs("</code>", f);
				}
			fputs(":</p>\n", f);
		}
		if (rep->results[i]->host)
			json_table(f, rep->results[i]->host);
		else
			fputs("<p>No host facts recorded.</p>\n", f);
	}
	fputs("</section>\n", f);
}

static void comparison(FILE *f, const struct kb_comparison *c)
{
	struct kb_compare_cells cells;
	const struct kb_compare_opts *o = &c->opts;

	fprintf(f, "<section id=\"comparison\"><h2>Comparison with the baseline</h2>\n<p>Tolerance ±%g%%; %s at "
		   "alpha %g; the delta's confidence interval is %g%%. A change beyond the tolerance is a regression "
		   "or an improvement only when the test finds it significant; otherwise it is inconclusive.</p>\n",
		o->tolerance_pct, o->test == KB_SIG_WELCH ? "Welch's t-test" : "Mann-Whitney U test", o->alpha,
		(1 - o->alpha) * 100);
	if (c->ndiffs) {
		fprintf(f, "<div class=\"warning\"><strong>Warning:</strong> base and new differ in %zu field%s that can "
			   "change the numbers:<ul>", c->ndiffs, c->ndiffs == 1 ? "" : "s");
		for (size_t i = 0; i < c->ndiffs; i++) {
			fputs("<li><code>", f);
			esc(f, c->diffs[i].field);
			fputs("</code>: ", f);
			esc(f, c->diffs[i].base);
			fputs(" → ", f);
			esc(f, c->diffs[i].cur);
			fputs("</li>", f);
		}
		fputs("</ul></div>\n", f);
	}
	fputs("<table><tr>", f);
	for (int k = 0; k < KB_CMP_NCOLS; k++) {
		fputs("<th>", f);
		esc(f, kb_compare_col_titles[k]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kb_compare_row *r = &c->rows[i];

		kb_compare_row_cells(r, &cells);
		fputs("<tr>", f);
		for (int k = 0; k < KB_CMP_NCOLS - 1; k++)
			cell(f, k >= KB_CMP_COL_BASE ? "num" : NULL, cells.c[k]);
		fprintf(f, "<td class=\"%s\">", kb_verdict_name(r->verdict));
		esc(f, cells.c[KB_CMP_COL_VERDICT]);
		if (r->note[0]) {
			fputs(" <small>(", f);
			esc(f, r->note);
			fputs(")</small>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

static void metric_row(FILE *f, const struct kb_test_result *t, const struct kb_metric *m, const char *source)
{
	char mean[40], lo[40], hi[40], buf[160];

	fprintf(f, "<tr%s>", m && strchr(m->name, '.') ? " class=\"sub\"" : "");
	if (source)
		cell(f, NULL, source);
	cell(f, NULL, t->test);
	snprintf(buf, sizeof(buf), "%d", t->vcpus);
	cell(f, "num", buf);
	cell(f, kb_status_name(t->status), kb_status_name(t->status));
	if (!m) {
		fputs("<td colspan=\"6\"></td></tr>\n", f);
		return;
	}
	snprintf(buf, sizeof(buf), "%s (%s)", m->name, m->unit);
	cell(f, NULL, buf);
	kb_format_number(m->sum.mean, mean, sizeof(mean));
	cell(f, "num", mean);
	kb_format_number(m->sum.ci_lo, lo, sizeof(lo));
	kb_format_number(m->sum.ci_hi, hi, sizeof(hi));
	snprintf(buf, sizeof(buf), "%s – %s (±%.2f%%)", lo, hi, m->sum.ci_rel * 100);
	cell(f, "num", buf);
	snprintf(buf, sizeof(buf), "%.2f%%", m->sum.cv * 100);
	cell(f, "num", buf);
	fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n", m->sum.n, m->sum.outliers);
}

static void checks(FILE *f, const struct kb_test_result *t)
{
	char buf[96];

	if (!t->reason && !t->nchecks)
		return;
	fputs("<li><strong>", f);
	esc(f, t->test);
	fprintf(f, "</strong> (%d vCPU%s): <span class=\"%s\">%s</span>", t->vcpus, t->vcpus == 1 ? "" : "s",
		kb_status_name(t->status), kb_status_name(t->status));
	if (t->reason) {
		fputs(": ", f);
		esc(f, t->reason);
	}
	if (t->nchecks)
		fputs("<table><tr><th>Check</th><th>Measured</th><th>Accepted</th><th>Result</th><th>Note</th></tr>", f);
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct kb_check *c = &t->checks[i];

		fputs("<tr>", f);
		cell(f, NULL, c->name);
		snprintf(buf, sizeof(buf), "%.4g", c->measured);
		cell(f, "num", buf);
		snprintf(buf, sizeof(buf), "%.4g .. %.4g", c->min, c->max);
		cell(f, "num", buf);
		cell(f, c->pass ? "ok" : c->fatal ? "invalid" : "skipped", c->pass ? "pass" : c->fatal ? "FAIL" : "warn");
		/* A check's note says what a failure means. */
		cell(f, NULL, !c->pass && c->note ? c->note : "");
		fputs("</tr>", f);
	}
	fputs(t->nchecks ? "</table></li>\n" : "</li>\n", f);
}

/* ---- charts ---- */

static bool charted(const struct kb_test_result *t)
{
	return t->status == KB_STATUS_OK;
}

static bool charted_metric(const struct kb_metric *m)
{
	return m->n && !strchr(m->name, '.');
}

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

static void test_label(const struct kb_test_result *t, char *buf, size_t size)
{
	if (t->vcpus != 1)
		snprintf(buf, size, "%s ×%d vCPUs", t->test, t->vcpus);
	else
		snprintf(buf, size, "%s", t->test);
}

/* Is metric mi of test ti the first of its name in the suite's charted tests?  One bar chart per name. */
static bool first_metric_of_suite(const struct kb_result *m, const char *suite, size_t ti, size_t mi)
{
	const char *name = m->tests[ti].metrics[mi]->name;

	for (size_t i = 0; i <= ti; i++) {
		const struct kb_test_result *t = &m->tests[i];

		if (strcmp(t->suite, suite) || !charted(t))
			continue;
		for (size_t k = 0; k < (i == ti ? mi : t->nmetrics); k++)
			if (!strcmp(t->metrics[k]->name, name))
				return false;
	}
	return true;
}

/* One bar per test of the suite, the baseline's beside it. */
static void bar_chart(FILE *f, const struct kb_result *m, const struct kb_comparison *c, const char *suite,
		      const struct kb_metric *proto)
{
	const char **cats = kb_xcalloc(m->ntests + 1, sizeof(*cats));
	char (*labels)[96] = kb_xcalloc(m->ntests + 1, sizeof(*labels));
	struct kb_svg_point *cur = kb_xcalloc(m->ntests + 1, sizeof(*cur)), *base = kb_xcalloc(m->ntests + 1, sizeof(*base));
	struct kb_svg_series s[2];
	size_t n = 0, ns = 0;
	bool any_base = false;
	char title[160];

	for (size_t i = 0; i < m->ntests; i++) {
		const struct kb_test_result *t = &m->tests[i];
		const struct kb_metric *tm = kb_test_find_metric(t, proto->name), *bm;

		if (strcmp(t->suite, suite) || !charted(t) || !tm || !tm->n)
			continue;
		test_label(t, labels[n], sizeof(labels[n]));
		cats[n] = labels[n];
		cur[n] = mean_point(tm, (double)n);
		bm = baseline_metric(c, t, tm->name);
		base[n] = mean_point(bm, (double)n);
		any_base |= bm != NULL;
		n++;
	}
	if (any_base)
		s[ns++] = (struct kb_svg_series){ "baseline", COLOR_BASE, base, n, NAN, NAN, NAN };
	s[ns++] = (struct kb_svg_series){ c ? "new" : "mean", COLOR_NEW, cur, n, NAN, NAN, NAN };
	snprintf(title, sizeof(title), "%s: %s, mean and 95%% CI", suite, proto->name);
	kb_svg_bars(f, title, proto->unit, cats, n, s, ns);
	free(cats);
	free(labels);
	free(cur);
	free(base);
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

		if (!strcmp(t->suite, suite) && !strcmp(t->test, test) && charted(t) && tm && tm->n)
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

/* A vCPU sweep: the same test at different vCPU counts, a line per side. */
static void scaling_charts(FILE *f, const struct kb_result *m, const struct kb_result *baseline, const char *suite)
{
	for (size_t i = 0; i < m->ntests; i++) {
		const struct kb_test_result *t = &m->tests[i];
		bool first = true;

		if (strcmp(t->suite, suite) || !charted(t))
			continue;
		/* One set of charts per test name: at its first valid occurrence. */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->tests[j].suite, suite) && !strcmp(m->tests[j].test, t->test) && charted(&m->tests[j]))
				first = false;
		if (!first)
			continue;
		for (size_t k = 0; k < t->nmetrics; k++) {
			const struct kb_metric *tm = t->metrics[k];
			struct kb_svg_point *cur = kb_xcalloc(m->ntests + 1, sizeof(*cur));
			struct kb_svg_point *base = kb_xcalloc((baseline ? baseline->ntests : 0) + 1, sizeof(*base));
			size_t nc = sweep_points(m, suite, t->test, tm->name, cur);
			size_t nb = sweep_points(baseline, suite, t->test, tm->name, base);
			struct kb_svg_series s[2];
			size_t ns = 0;
			char title[192];

			if (charted_metric(tm) && is_sweep(cur, nc)) {
				if (nb)
					s[ns++] = (struct kb_svg_series){ "baseline", COLOR_BASE, base, nb, NAN, NAN, NAN };
				s[ns++] = (struct kb_svg_series){ baseline ? "new" : "mean", COLOR_NEW, cur, nc, NAN, NAN, NAN };
				snprintf(title, sizeof(title), "%s/%s: %s by vCPU count", suite, t->test, tm->name);
				kb_svg_lines(f, title, "vCPUs", tm->unit, s, ns);
			}
			free(cur);
			free(base);
		}
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
		s[ns++] = sample_series(bm, "baseline", COLOR_BASE, &pb);
	s[ns++] = sample_series(tm, c ? "new" : "samples", COLOR_NEW, &pc);
	test_label(t, label, sizeof(label));
	snprintf(title, sizeof(title), "%s/%s: %s samples", t->suite, label, tm->name);
	kb_svg_scatter(f, title, tm->unit, s, ns);
	free(pb);
	free(pc);
}

static void suite_charts(FILE *f, const struct kb_result *m, const struct kb_report *rep, const struct kb_comparison *c,
			 const char *suite)
{
	fputs("<h3>Means with 95% confidence intervals</h3>\n<div class=\"charts\">\n", f);
	for (size_t i = 0; i < m->ntests; i++)
		for (size_t k = 0; k < m->tests[i].nmetrics; k++)
			if (!strcmp(m->tests[i].suite, suite) && charted(&m->tests[i]) &&
			    charted_metric(m->tests[i].metrics[k]) && first_metric_of_suite(m, suite, i, k))
				bar_chart(f, m, c, suite, m->tests[i].metrics[k]);
	fputs("</div>\n<div class=\"charts\">\n", f);
	scaling_charts(f, m, rep->baseline, suite);
	fputs("</div>\n<h3>Samples (outliers ringed in red, never dropped; dashed: the mean; band: its 95% CI)</h3>\n"
	      "<div class=\"charts\">\n", f);
	for (size_t i = 0; i < m->ntests; i++)
		for (size_t k = 0; k < m->tests[i].nmetrics; k++)
			if (!strcmp(m->tests[i].suite, suite) && charted(&m->tests[i]) && charted_metric(m->tests[i].metrics[k]))
				scatter_chart(f, &m->tests[i], m->tests[i].metrics[k], c);
	fputs("</div>\n", f);
}

static void suite(FILE *f, const struct kb_report *rep, const struct kb_result *merged, const struct kb_comparison *c,
		  const char *name)
{
	fputs("<section class=\"suite\"><h2>Suite <code>", f);
	esc(f, name);
	fprintf(f, "</code></h2>\n<table><tr>%s<th>Test</th><th>vCPUs</th><th>Status</th><th>Metric</th><th>Mean</th>"
		   "<th>95%% CI</th><th>CV</th><th>n</th><th>Outliers</th></tr>\n",
		rep->nresults > 1 ? "<th>Result</th>" : "");
	kb_report_suite_rows(rep, name, f, metric_row);
	fputs("</table>\n<h3>Validity</h3>\n<ul>\n", f);
	kb_report_suite_tests(rep, name, f, checks);
	fputs("</ul>\n", f);
	suite_charts(f, merged, rep, c, name);
	fputs("</section>\n", f);
}

static void options(FILE *f, const struct kb_report *rep)
{
	char buf[32];

	fputs("<section id=\"options\"><h2>Options</h2>\n", f);
	for (size_t i = 0; i < rep->nresults; i++) {
		fputs("<details open><summary><code>", f);
		esc(f, kb_report_name(rep, i, buf, sizeof(buf)));
		fputs("</code></summary>", f);
		if (rep->results[i]->options)
			json_table(f, rep->results[i]->options);
		fputs("</details>\n", f);
	}
	fputs("</section>\n", f);
}

static int write_html(const struct kb_report *rep, FILE *f)
{
	struct kb_report_view v;

	kb_report_view_init(rep, &v);
	header(f, rep, &v.verdict);
	hosts(f, rep, v.nhosts);
	if (v.compared)
		comparison(f, &v.cmp);
	for (size_t i = 0; i < v.nsuites; i++)
		suite(f, rep, &v.merged, v.compared ? &v.cmp : NULL, v.suites[i]);
	options(f, rep);
	fputs("</body></html>\n", f);
	kb_report_view_free(&v);
	return 0;
}

const struct kb_writer kb_writer_html = {
	.name = "html",
	.summary = "the qualification report as one self-contained HTML file with SVG charts",
	.write = write_html,
};
