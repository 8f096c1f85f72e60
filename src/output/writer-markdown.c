/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer-markdown.c: the qualification report as Markdown: verdict, host, every suite's results
 * with confidence intervals and validity checks, the comparison with a baseline, the options. */
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/table.h"
#include "output/compare-view.h"
#include "output/writers.h"
#include "results/leaves.h"

static void md(FILE *f, const char *s)
{
	kb_markdown_escape(f, s);
}

static void verdict(FILE *f, const struct kb_report *rep, const struct kb_report_verdict *v)
{
	fprintf(f, "**Verdict: %s**: %zu test%s ok, %zu skipped, %zu invalid, %zu failed", v->pass ? "PASS" : "FAIL",
		v->ok, v->ok == 1 ? "" : "s", v->skipped, v->invalid, v->error);
	if (v->compared)
		fprintf(f, "; against the baseline (tolerance ±%g%%): %zu regressed, %zu improved, %zu inconclusive",
			rep->cmp.tolerance_pct, v->regressed, v->improved, v->inconclusive);
	fputs(".\n\n", f);
}

static void leaves_table(FILE *f, json_object *o, const char *what)
{
	struct kb_leaf *l;
	size_t n = kb_json_leaves(o, NULL, &l);

	if (!n) {
		fprintf(f, "No %s recorded.\n\n", what);
		return;
	}
	fprintf(f, "| Field | Value |\n|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		fputs("| ", f);
		kb_markdown_code(f, l[i].path, true);
		fputs(" | ", f);
		md(f, l[i].value);
		fputs(" |\n", f);
	}
	fputc('\n', f);
	kb_leaves_free(l, n);
}

/* "`a.json`, `b.json`": the results sharing result i's host. */
static void sharing(FILE *f, const struct kb_report *rep, size_t i)
{
	char buf[32];
	bool first = true;

	for (size_t j = i; j < rep->nresults; j++)
		if (j == i || kb_report_same_host(rep, j) == (int)i) {
			fputs(first ? "" : ", ", f);
			kb_markdown_code(f, kb_report_name(rep, j, buf, sizeof(buf)), false);
			first = false;
		}
}

static void hosts(FILE *f, const struct kb_report *rep, size_t distinct)
{
	fprintf(f, "## Host\n\n");
	if (distinct > 1)
		fprintf(f, "> **Warning:** these results come from %zu different hosts or host configurations; "
			   "their numbers are not directly comparable.\n\n", distinct);
	for (size_t i = 0; i < rep->nresults; i++) {
		if (kb_report_same_host(rep, i) >= 0)
			continue;
		if (rep->nresults > 1) {
			fprintf(f, "Measured in ");
			sharing(f, rep, i);
			fprintf(f, ":\n\n");
		}
		leaves_table(f, rep->results[i]->host, "host facts");
	}
}

static void metric_row(FILE *f, const struct kb_test_result *t, const struct kb_metric *m, const char *source)
{
	char mean[40], lo[40], hi[40], ci[24], cv[24];

	fputs("| ", f);
	if (source) {
		kb_markdown_code(f, source, true);
		fputs(" | ", f);
	}
	kb_markdown_code(f, t->test, true);
	fprintf(f, " | %d | %s | ", t->vcpus, kb_status_name(t->status));
	if (!m) {
		fputs("- | - | - | - | - | - |\n", f);
		return;
	}
	kb_format_number(m->sum.mean, mean, sizeof(mean));
	kb_format_number(m->sum.ci_lo, lo, sizeof(lo));
	kb_format_number(m->sum.ci_hi, hi, sizeof(hi));
	kb_markdown_code(f, m->name, true);
	fputs(" (", f);
	md(f, m->unit);
	kb_format_spread("±", m->sum.ci_rel, 2, ci, sizeof(ci));
	kb_format_spread("", m->sum.cv, 2, cv, sizeof(cv));
	fprintf(f, ") | %s | %s – %s (%s) | %s | %zu | %zu |\n", mean, lo, hi, ci, cv, m->sum.n, m->sum.outliers);
}

static void checks(FILE *f, const struct kb_test_result *t)
{
	if (!t->reason && !t->nchecks)
		return;
	fputs("- ", f);
	kb_markdown_code(f, t->test, false);
	fprintf(f, " (%d vCPU%s): %s", t->vcpus, t->vcpus == 1 ? "" : "s", kb_status_name(t->status));
	if (t->reason) {
		fputs(": ", f);
		md(f, t->reason);
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct kb_check *c = &t->checks[i];

		fputs("  - ", f);
		kb_markdown_code(f, c->name, false);
		fprintf(f, ": %.4g, accepted %.4g..%.4g: %s", c->measured, c->min, c->max,
			c->pass ? "pass" : c->fatal ? "**FAIL**" : "warn");
		/* A check's note says what a failure means. */
		if (!c->pass && c->note) {
			fputs("; ", f);
			md(f, c->note);
		}
		fputc('\n', f);
	}
}

static void suite(FILE *f, const struct kb_report *rep, const char *name)
{
	bool many = rep->nresults > 1;

	fprintf(f, "## Suite ");
	kb_markdown_code(f, name, false);
	fprintf(f, "\n\n%s| Test | vCPUs | Status | Metric | Mean | 95%% CI | CV | n | Outliers |\n"
		   "%s|---|--:|---|---|--:|--:|--:|--:|--:|\n", many ? "| Result " : "", many ? "|---" : "");
	kb_report_suite_rows(rep, name, f, metric_row);
	fprintf(f, "\nValidity:\n\n");
	kb_report_suite_tests(rep, name, f, checks);
	fputc('\n', f);
}

static int write_markdown(const struct kb_report *rep, FILE *f)
{
	struct kb_report_view v;
	char buf[32];

	kb_report_view_init(rep, &v);
	fputs("# ", f);
	md(f, rep->title ? rep->title : "kvmbench qualification report");
	fprintf(f, "\n\nkvmbench %s; result%s ", PACKAGE_VERSION, rep->nresults == 1 ? "" : "s");
	for (size_t i = 0; i < rep->nresults; i++) {
		fputs(i ? ", " : "", f);
		kb_markdown_code(f, kb_report_name(rep, i, buf, sizeof(buf)), false);
		fputs(" (started ", f);
		md(f, rep->results[i]->started ? rep->results[i]->started : "?");
		fputc(')', f);
	}
	if (rep->baseline) {
		fputs("; baseline ", f);
		kb_markdown_code(f, rep->baseline_name ? rep->baseline_name : "baseline", false);
	}
	fputs(".\n\n", f);
	verdict(f, rep, &v.verdict);
	hosts(f, rep, v.nhosts);
	if (v.compared) {
		fprintf(f, "## Comparison with the baseline\n\n");
		kb_comparison_print_markdown(f, &v.cmp);
		fputc('\n', f);
	}
	for (size_t i = 0; i < v.nsuites; i++)
		suite(f, rep, v.suites[i]);
	fprintf(f, "## Options\n\n");
	for (size_t i = 0; i < rep->nresults; i++) {
		if (rep->nresults > 1) {
			kb_markdown_code(f, kb_report_name(rep, i, buf, sizeof(buf)), false);
			fputs(":\n\n", f);
		}
		leaves_table(f, rep->results[i]->options, "options");
	}
	kb_report_view_free(&v);
	return 0;
}

const struct kb_writer kb_writer_markdown = {
	.name = "markdown",
	.summary = "the qualification report as Markdown (host, results, checks, comparison)",
	.write = write_markdown,
};
