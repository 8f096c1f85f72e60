/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer-html.c: the qualification report as one self-contained HTML file: a first screen with the
 * verdict, the host in one line and the key figures; every exit path's cost in one chart; the
 * comparison; the host in prose; per suite a short table, the checks, the charts; raw details
 * collapsed; traceability at the end.  A print stylesheet makes print-to-PDF a clean document. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "output/compare-view.h"
#include "output/html.h"
#include "output/table.h"
#include "output/writers.h"
#include "results/leaves.h"

static const char css[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1180px;padding:0 12px;color:#222;line-height:1.4}"
	"h1{margin:0 0 6px}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
	"header{border-bottom:2px solid #333;padding-bottom:8px}section{overflow-x:auto}"
	".verdictline{font-size:115%;margin:6px 0}.hostline{margin:6px 0;color:#333}"
	"table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d4d4d4;padding:3px 8px;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}caption{text-align:left;font-weight:bold;padding:4px 0;white-space:nowrap}.void{color:#999;text-decoration:line-through}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"table.figures th{font-weight:normal;background:#fafafa;white-space:nowrap}table.figures td{min-width:300px}"
	"table.kv{font-size:90%}table.kv table.kv{margin:0}table.kv th{font-weight:normal;background:#fafafa}"
	".verdict{display:inline-block;padding:4px 14px;border-radius:4px;font-weight:bold;color:#fff;"
	"print-color-adjust:exact;-webkit-print-color-adjust:exact}"
	".pass{background:#2e7d32}.fail{background:#c62828}"
	".ok,.improved{color:#2e7d32}.invalid,.error,.regressed{color:#c62828;font-weight:bold}"
	".skipped,.inconclusive{color:#a66a00}.not_compared{color:#777}"
	".warning{border-left:4px solid #e0a000;background:#fff8e1;padding:8px 12px;margin:12px 0}"
	".charts{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}svg.chart{border:1px solid #e3e3e3;background:#fff}"
	"figure{margin:8px 0}figcaption{color:#555;font-size:90%;margin-top:4px}"
	"table.cmp td:nth-child(n+3):nth-child(-n+7){text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"table.pivot{font-size:85%}table.pivot td{text-align:right;white-space:nowrap}"
	"details{margin:8px 0}summary{cursor:pointer;color:#1a4f8b}code.sha{font-size:85%;word-break:break-all}"
	"code.cmd{white-space:pre-wrap;word-break:break-all}"
	"@media print{@page{margin:14mm}body{max-width:none;margin:0;padding:0;font-size:10pt}section{overflow:visible}"
	"h2{break-after:avoid}table,svg,figure,li{break-inside:avoid}svg.chart{border:none;max-width:100%;height:auto}"
	"details.raw{display:none}details.samples>summary{color:#222}"
	"details.samples::details-content{content-visibility:visible;display:block}"
	".noprint{display:none}a{color:inherit;text-decoration:none}}";

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

/* ---- the first screen ---- */

/* The criteria of a result's profile that failed, and how many there are. */
static void criteria_count(const struct kb_result *r, size_t *n, size_t *failed)
{
	*n = *failed = 0;
	for (size_t i = 0; i < r->ntests; i++)
		for (size_t k = 0; k < r->tests[i].ncriteria; k++) {
			(*n)++;
			*failed += r->tests[i].criteria[k].verdict != KB_JUDGED_PASS;
		}
}

static void verdict_line(FILE *f, const struct kb_report *rep, const struct kb_report_verdict *v)
{
	char buf[32];

	fprintf(f, "<p class=\"verdictline\" id=\"verdict\"><span class=\"verdict %s\">%s</span> ", v->pass ? "pass" : "fail",
		v->pass ? "PASS" : "FAIL");
	for (size_t i = 0, shown = 0; i < rep->nresults; i++) {
		json_object *p = rep->results[i]->profile;
		const char *name = kb_json_get_str(p, "name"), *pv = kb_json_get_str(p, "verdict");
		size_t n, failed;

		if (!p)
			continue;
		criteria_count(rep->results[i], &n, &failed);
		fputs(shown++ ? "; profile <strong>" : "profile <strong>", f);
		esc(f, name ? name : "(unnamed)");
		fputs("</strong>", f);
		if (rep->nresults > 1) {
			fputs(" for <code>", f);
			esc(f, kb_report_name(rep, i, buf, sizeof(buf)));
			fputs("</code>", f);
		}
		fputs(": ", f);
		esc(f, pv ? pv : "no verdict");
		fprintf(f, ", %zu of %zu criteria failed", failed, n);
	}
	if (v->profiles < rep->nresults)
		fprintf(f, "%sjudged by the run's own checks%s: %zu test%s ok, %zu skipped, %zu invalid, %zu failed",
			v->profiles ? "; the rest " : "", v->profiles ? "" : " (no qualification profile)", v->ok,
			v->ok == 1 ? "" : "s", v->skipped, v->invalid, v->error);
	if (v->compared)
		fprintf(f, "; against the baseline (tolerance ±%g%%): %zu regressed, %zu improved, %zu inconclusive",
			rep->cmp.tolerance_pct, v->regressed, v->improved, v->inconclusive);
	fputs(".</p>\n", f);
}

/* Well-known exit paths, shown as key figures when they were measured. */
static const struct landmark {
	const char *suite, *test, *what;
} landmarks[] = {
	{ "cpuid", "cpuid", "CPUID, answered by KVM in the kernel" },
	{ "efer-msr", "inl_from_userspace", "Port I/O round trip to userspace" },
	{ "self-ipi", "ipi", "IPI from one vCPU to another" },
	{ "self-ipi", "tscdeadline", "TSC-deadline timer interrupt" },
};

static void mean_ci(FILE *f, const struct kb_metric *m)
{
	char buf[64];

	kb_html_quantity(m->sum.mean, m->unit, buf, sizeof(buf));
	esc(f, buf);
	kb_format_spread("±", m->sum.ci_rel, 1, buf, sizeof(buf));
	fputc(' ', f);
	esc(f, buf);
}

static void landmark_rows(FILE *f, const struct kb_result *m)
{
	for (size_t l = 0; l < ARRAY_SIZE(landmarks); l++)
		for (size_t i = 0; i < m->ntests; i++) {
			const struct kb_test_result *t = &m->tests[i];

			if (strcmp(t->suite, landmarks[l].suite) || strcmp(t->test, landmarks[l].test))
				continue;
			fprintf(f, "<tr><th>%s <small>(<code>%s/%s</code>)</small></th><td>", landmarks[l].what,
				landmarks[l].suite, landmarks[l].test);
			if (kb_html_is_exit_path(t))
				mean_ci(f, kb_html_chart_metric(t));
			else {
				fprintf(f, "<span class=\"%s\">%s</span>: ", kb_status_name(t->status), kb_status_name(t->status));
				esc(f, t->reason ? t->reason : "no cost per iteration recorded");
			}
			fputs("</td></tr>\n", f);
			break;
		}
}

static int cmp_cost(const void *a, const void *b)
{
	const struct kb_test_result *x = *(const struct kb_test_result *const *)a;
	const struct kb_test_result *y = *(const struct kb_test_result *const *)b;
	double u = kb_html_chart_metric(x)->sum.mean, v = kb_html_chart_metric(y)->sum.mean;

	return (u > v) - (u < v);
}

static void exit_range(FILE *f, const struct kb_result *m)
{
	const struct kb_test_result **e = kb_xcalloc(m->ntests + 1, sizeof(*e));
	size_t n = 0;
	char buf[64], label[96];

	for (size_t i = 0; i < m->ntests; i++)
		if (kb_html_is_exit_path(&m->tests[i]))
			e[n++] = &m->tests[i];
	fputs("<tr><th>Exit paths measured</th><td>", f);
	if (!n) {
		fputs("none validly", f);
	} else {
		qsort(e, n, sizeof(*e), cmp_cost);
		fprintf(f, "%zu, from ", n);
		for (size_t k = 0; k < 2; k++) {
			const struct kb_test_result *t = e[k ? n - 1 : 0];

			kb_html_quantity(kb_html_chart_metric(t)->sum.mean, "ns/iter", buf, sizeof(buf));
			kb_html_test_label(t, label, sizeof(label));
			fputs(k ? " to " : "", f);
			esc(f, buf);
			fputs(" (<code>", f);
			esc(f, t->suite);
			fputc('/', f);
			esc(f, label);
			fputs("</code>)", f);
		}
		kb_html_quantity(n % 2 ? kb_html_chart_metric(e[n / 2])->sum.mean
				       : (kb_html_chart_metric(e[n / 2 - 1])->sum.mean + kb_html_chart_metric(e[n / 2])->sum.mean) / 2,
				 "ns/iter", buf, sizeof(buf));
		fputs("; median ", f);
		esc(f, buf);
	}
	fputs("</td></tr>\n", f);
	free(e);
}

/* The largest significant change of one direction, as a key figure. */
static void largest(FILE *f, const struct kb_comparison *c, enum kb_verdict which, const char *what)
{
	const struct kb_compare_row *best = NULL;
	char d[32], lo[32], hi[32];

	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].verdict == which && (!best || fabs(c->rows[i].delta) > fabs(best->delta)))
			best = &c->rows[i];
	if (!best)
		return;
	kb_format_pct(best->delta, d, sizeof(d));
	kb_format_pct(best->delta_lo, lo, sizeof(lo));
	kb_format_pct(best->delta_hi, hi, sizeof(hi));
	fprintf(f, "<tr><th>%s</th><td><code>", what);
	esc(f, best->id);
	fputs("</code> ", f);
	esc(f, best->metric ? best->metric : "");
	fprintf(f, ": <span class=\"%s\">%s</span> (CI %s to %s)</td></tr>\n", kb_verdict_name(which), d, lo, hi);
}

static void key_figures(FILE *f, const struct kb_report_view *v)
{
	const struct kb_report_verdict *vd = &v->verdict;

	fputs("<table class=\"figures\" id=\"figures\"><caption>Key figures</caption>\n", f);
	fprintf(f, "<tr><th>Tests</th><td>%zu measured validly of %zu: %zu skipped, %zu invalid, %zu failed</td></tr>\n",
		vd->ok, vd->ok + vd->skipped + vd->invalid + vd->error, vd->skipped, vd->invalid, vd->error);
	exit_range(f, &v->merged);
	landmark_rows(f, &v->merged);
	if (v->compared) {
		fprintf(f, "<tr><th>Against the baseline</th><td>%zu compared: %zu within tolerance, %zu regressed, "
			   "%zu improved, %zu inconclusive, %zu not compared</td></tr>\n",
			v->cmp.nrows - v->cmp.count[KB_VERDICT_NOT_COMPARED], v->cmp.count[KB_VERDICT_WITHIN], vd->regressed,
			vd->improved, vd->inconclusive, v->cmp.count[KB_VERDICT_NOT_COMPARED]);
		largest(f, &v->cmp, KB_VERDICT_REGRESSED, "Largest regression");
		largest(f, &v->cmp, KB_VERDICT_IMPROVED, "Largest improvement");
	}
	fputs("</table>\n", f);
}

static void first_screen(FILE *f, const struct kb_report *rep, const struct kb_report_view *v)
{
	const char *title = rep->title ? rep->title : "kvmbench qualification report";

	fputs("<header id=\"first-screen\"><h1>", f);
	esc(f, title);
	fputs("</h1>\n", f);
	verdict_line(f, rep, &v->verdict);
	kb_html_host_line(f, rep->nresults ? rep->results[0]->host : NULL);
	if (v->nhosts > 1)
		fprintf(f, "<p class=\"warning\">… and %zu other host%s or host configuration%s: see <a href=\"#host\">Host</a>.</p>\n",
			v->nhosts - 1, v->nhosts == 2 ? "" : "s", v->nhosts == 2 ? "" : "s");
	key_figures(f, v);
	fputs("</header>\n", f);
}

/* ---- comparison and criteria ---- */

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
	kb_html_ab_charts(f, c);
	fputs("<table class=\"cmp\"><tr>", f);
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
		/* The numeric columns are aligned by the stylesheet (table.cmp): 121 rows for a default run. */
		for (int k = 0; k < KB_CMP_NCOLS - 1; k++)
			cell(f, NULL, cells.c[k]);
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

static void criterion_row(FILE *f, const struct kb_test_result *t, const struct kb_criterion *c)
{
	bool pass = c->verdict == KB_JUDGED_PASS;
	char label[96], measured[48] = "", limit[48] = "";

	kb_html_test_label(t, label, sizeof(label));
	fputs("<tr><td><code>", f);
	esc(f, t->suite);
	fputc('/', f);
	esc(f, label);
	fputs("</code></td>", f);
	cell(f, NULL, c->metric ? c->metric : "");
	cell(f, NULL, c->expect ? c->expect : c->criterion ? c->criterion : "");
	if (!isnan(c->measured))
		snprintf(measured, sizeof(measured), "%.4g", c->measured);
	if (!isnan(c->bound))
		snprintf(limit, sizeof(limit), "%.4g", c->bound);
	cell(f, "num", measured);
	cell(f, "num", limit);
	cell(f, pass ? "ok" : "invalid", kb_judgement_name(c->verdict));
	fputs("</tr>\n", f);
}

/* The profile's criteria per test, where a profile judged the run. */
static void criteria(FILE *f, const struct kb_result *m)
{
	bool any = false;

	for (size_t i = 0; i < m->ntests; i++)
		any |= m->tests[i].ncriteria > 0;
	if (!any)
		return;
	fputs("<section id=\"criteria\"><h2>Qualification criteria</h2>\n<table><tr><th>Test</th><th>Metric</th>"
	      "<th>Criterion</th><th>Measured</th><th>Limit</th><th>Verdict</th></tr>\n", f);
	for (size_t i = 0; i < m->ntests; i++)
		for (size_t k = 0; k < m->tests[i].ncriteria; k++)
			criterion_row(f, &m->tests[i], &m->tests[i].criteria[k]);
	fputs("</table></section>\n", f);
}

/* ---- suites ---- */

static void test_row(FILE *f, const struct kb_test_result *t, const char *source)
{
	const struct kb_metric *m = kb_html_chart_metric(t), *exits = kb_test_find_metric(t, "kvm.exits");
	char buf[96];

	fputs("<tr>", f);
	if (source)
		cell(f, NULL, source);
	cell(f, NULL, t->test);
	snprintf(buf, sizeof(buf), "%d", t->vcpus);
	cell(f, "num", buf);
	cell(f, kb_status_name(t->status), kb_status_name(t->status));
	if (m && m->n && t->status != KB_STATUS_SKIPPED) {
		cell(f, NULL, m->name);
		/* An invalid test's numbers are not a result: shown struck through. */
		kb_html_quantity(m->sum.mean, m->unit, buf, sizeof(buf));
		cell(f, t->status == KB_STATUS_OK ? "num" : "num void", buf);
		kb_format_spread("±", m->sum.ci_rel, 2, buf, sizeof(buf));
		cell(f, t->status == KB_STATUS_OK ? "num" : "num void", buf);
		kb_format_spread("", m->sum.cv, 2, buf, sizeof(buf));
		cell(f, "num", buf);
		snprintf(buf, sizeof(buf), "%zu", m->sum.n);
		cell(f, "num", buf);
	} else {
		fputs("<td colspan=\"5\"></td>", f);
	}
	if (exits && exits->n)
		snprintf(buf, sizeof(buf), "%.3g", exits->sum.mean);
	else
		buf[0] = 0;
	cell(f, "num", buf);
	cell(f, NULL, t->reason ? t->reason : "");
	fputs("</tr>\n", f);
}

static void check_table(FILE *f, const struct kb_test_result *t, bool failed_only)
{
	char buf[96];

	fputs("<table><tr><th>Check</th><th>Measured</th><th>Accepted</th><th>Result</th><th>What a failure means</th></tr>", f);
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct kb_check *c = &t->checks[i];

		if (failed_only && c->pass)
			continue;
		fputs("<tr>", f);
		cell(f, NULL, c->name);
		snprintf(buf, sizeof(buf), "%.4g", c->measured);
		cell(f, "num", buf);
		snprintf(buf, sizeof(buf), "%.4g .. %.4g", c->min, c->max);
		cell(f, "num", buf);
		cell(f, c->pass ? "ok" : c->fatal ? "invalid" : "skipped", c->pass ? "pass" : c->fatal ? "FAIL" : "warn");
		cell(f, NULL, !c->pass && c->note ? c->note : "");
		fputs("</tr>", f);
	}
	fputs("</table>\n", f);
}

static bool any_failed_check(const struct kb_test_result *t)
{
	for (size_t i = 0; i < t->nchecks; i++)
		if (!t->checks[i].pass)
			return true;
	return false;
}

/* Calls fn for every test of suite in every result, with the result's name when there are several. */
static size_t each_test(const struct kb_report *rep, const char *suite, FILE *f,
			void (*fn)(FILE *f, const struct kb_test_result *t, const char *source))
{
	char buf[32];
	size_t n = 0;

	for (size_t r = 0; r < rep->nresults; r++)
		for (size_t i = 0; i < rep->results[r]->ntests; i++)
			if (!strcmp(rep->results[r]->tests[i].suite, suite)) {
				if (fn)
					fn(f, &rep->results[r]->tests[i], rep->nresults > 1 ? kb_report_name(rep, r, buf, sizeof(buf)) : NULL);
				n++;
			}
	return n;
}

static void flagged_test(FILE *f, const struct kb_test_result *t, const char *source)
{
	char label[96];

	if (!any_failed_check(t) && t->status == KB_STATUS_OK)
		return;
	kb_html_test_label(t, label, sizeof(label));
	fputs("<li><strong>", f);
	esc(f, label);
	fprintf(f, "</strong>: <span class=\"%s\">%s</span>", kb_status_name(t->status), kb_status_name(t->status));
	if (t->reason) {
		fputs(" — ", f);
		esc(f, t->reason);
	}
	if (any_failed_check(t))
		check_table(f, t, true);
	fputs("</li>\n", f);
}

/* The distinct metric or check names of a suite's tests, in order of first appearance. */
struct names {
	const char **v;
	size_t n;
};

static void suite_names(const struct kb_report *rep, const char *suite, bool checks, struct names *out)
{
	size_t max = 0;

	for (size_t r = 0; r < rep->nresults; r++)
		for (size_t i = 0; i < rep->results[r]->ntests; i++)
			max += checks ? rep->results[r]->tests[i].nchecks : rep->results[r]->tests[i].nmetrics;
	out->v = kb_xcalloc(max + 1, sizeof(*out->v));
	out->n = 0;
	for (size_t r = 0; r < rep->nresults; r++)
		for (size_t i = 0; i < rep->results[r]->ntests; i++) {
			const struct kb_test_result *t = &rep->results[r]->tests[i];
			size_t n = checks ? t->nchecks : t->nmetrics;

			for (size_t k = 0; k < n && !strcmp(t->suite, suite); k++) {
				const char *name = checks ? t->checks[k].name : t->metrics[k]->name;
				size_t j = 0;

				while (j < out->n && strcmp(out->v[j], name))
					j++;
				if (j == out->n)
					out->v[out->n++] = name;
			}
		}
}

static const struct kb_check *find_check(const struct kb_test_result *t, const char *name)
{
	for (size_t i = 0; i < t->nchecks; i++)
		if (!strcmp(t->checks[i].name, name))
			return &t->checks[i];
	return NULL;
}

/* Raw details as one short matrix per suite: a row per test, a column per metric (mean ±CI) or per
 * check (the value measured; the accepted range on hover; failures marked). */
static void pivot(FILE *f, const struct kb_report *rep, const char *suite, bool checks)
{
	struct names names;
	char buf[96];

	suite_names(rep, suite, checks, &names);
	fprintf(f, "<details class=\"raw\"><summary>Every %s of every test</summary><table class=\"pivot\"><tr>%s<th>Test</th>",
		checks ? "check" : "metric", rep->nresults > 1 ? "<th>Result</th>" : "");
	for (size_t k = 0; k < names.n; k++) {
		fputs("<th>", f);
		esc(f, names.v[k]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t r = 0; r < rep->nresults; r++)
		for (size_t i = 0; i < rep->results[r]->ntests; i++) {
			const struct kb_test_result *t = &rep->results[r]->tests[i];

			if (strcmp(t->suite, suite))
				continue;
			fputs("<tr>", f);
			if (rep->nresults > 1)
				cell(f, NULL, kb_report_name(rep, r, buf, sizeof(buf)));
			kb_html_test_label(t, buf, sizeof(buf));
			cell(f, NULL, buf);
			for (size_t k = 0; k < names.n; k++) {
				const struct kb_metric *m = checks ? NULL : kb_test_find_metric(t, names.v[k]);
				const struct kb_check *c = checks ? find_check(t, names.v[k]) : NULL;

				if (m && m->n) {
					kb_format_si(m->sum.mean, buf, sizeof(buf));
					fputs("<td>", f);
					esc(f, buf);
					kb_format_spread("±", m->sum.ci_rel, 1, buf, sizeof(buf));
					fputc(' ', f);
					esc(f, buf);
					fputs("</td>", f);
				} else if (c) {
					fprintf(f, "<td class=\"%s\" title=\"%.4g .. %.4g\">%.4g</td>",
						c->pass ? "ok" : c->fatal ? "invalid" : "skipped", c->min, c->max, c->measured);
				} else {
					fputs("<td></td>", f);
				}
			}
			fputs("</tr>\n", f);
		}
	fputs("</table></details>\n", f);
	free(names.v);
}

/* Tests of suite measured validly with every check, warnings included, passed. */
static size_t count_clean(const struct kb_report *rep, const char *suite)
{
	size_t n = 0;

	for (size_t r = 0; r < rep->nresults; r++)
		for (size_t i = 0; i < rep->results[r]->ntests; i++) {
			const struct kb_test_result *t = &rep->results[r]->tests[i];

			n += !strcmp(t->suite, suite) && t->status == KB_STATUS_OK && !any_failed_check(t);
		}
	return n;
}

static void suite(FILE *f, const struct kb_report *rep, const struct kb_report_view *v, const char *name)
{
	size_t ntests = each_test(rep, name, NULL, NULL), clean = count_clean(rep, name);
	const char *src = rep->nresults > 1 ? "<th>Result</th>" : "";

	fputs("<section class=\"suite\"><h2>Suite <code>", f);
	esc(f, name);
	fprintf(f, "</code></h2>\n<table><tr>%s<th>Test</th><th>vCPUs</th><th>Status</th><th>Metric</th><th>Mean</th>"
		   "<th>95%% CI</th><th>CV</th><th>n</th><th>Exits/iter</th><th>Reason</th></tr>\n", src);
	each_test(rep, name, f, test_row);
	fprintf(f, "</table>\n<p>%zu of %zu test%s measured validly with every check passed.</p>\n<ul class=\"flagged\">\n",
		clean, ntests, ntests == 1 ? "" : "s");
	each_test(rep, name, f, flagged_test);
	fputs("</ul>\n", f);
	pivot(f, rep, name, false);
	pivot(f, rep, name, true);
	kb_html_suite_charts(f, &v->merged, rep->baseline, v->compared ? &v->cmp : NULL, name);
	fputs("</section>\n", f);
}

static void options(FILE *f, const struct kb_report *rep)
{
	char buf[32];

	fputs("<section id=\"options\"><h2>Options</h2>\n", f);
	for (size_t i = 0; i < rep->nresults; i++) {
		fputs("<details class=\"raw\"><summary>Every option of <code>", f);
		esc(f, kb_report_name(rep, i, buf, sizeof(buf)));
		fputs("</code></summary>", f);
		if (rep->results[i]->options)
			kb_html_json_table(f, rep->results[i]->options);
		fputs("</details>\n", f);
	}
	fputs("</section>\n", f);
}

static int write_html(const struct kb_report *rep, FILE *f)
{
	const char *title = rep->title ? rep->title : "kvmbench qualification report";
	struct kb_report_view v;

	kb_report_view_init(rep, &v);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>", f);
	esc(f, title);
	fprintf(f, "</title><style>%s</style></head>\n<body>\n", css);
	first_screen(f, rep, &v);
	/* A comparison is what an A/B report is for: it comes first. */
	if (v.compared)
		comparison(f, &v.cmp);
	fputs("<section id=\"costs\"><h2>Exit-path costs</h2>\n", f);
	kb_html_exit_chart(f, &v.merged);
	fputs("</section>\n", f);
	criteria(f, &v.merged);
	kb_html_host_section(f, rep, v.nhosts);
	for (size_t i = 0; i < v.nsuites; i++)
		suite(f, rep, &v, v.suites[i]);
	options(f, rep);
	kb_html_trace(f, rep);
	fputs("</body></html>\n", f);
	kb_report_view_free(&v);
	return 0;
}

const struct kb_writer kb_writer_html = {
	.name = "html",
	.summary = "the qualification report as one self-contained HTML file with SVG charts",
	.write = write_html,
};
