/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-view.c: the views of a comparison: the aligned table (optionally coloured), Markdown,
 * JSON, the warning about differing hosts and parameters, and 'compare' in one call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "output/compare-view.h"
#include "output/table.h"
#include "output/writers.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

const char *const kb_compare_col_titles[KB_CMP_NCOLS] = {
	"TEST", "METRIC", "BASE ±95%CI", "NEW ±95%CI", "DELTA", "DELTA CI", "P", "VERDICT",
};

static void mean_ci(const struct kb_metric *m, char *buf, size_t size)
{
	char mean[40], ci[24];

	if (!m || !m->n) {
		snprintf(buf, size, "-");
		return;
	}
	kb_format_number(m->sum.mean, mean, sizeof(mean));
	kb_format_spread("±", m->sum.ci_rel, 1, ci, sizeof(ci));
	snprintf(buf, size, "%s %s", mean, ci);
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
	/* KVM changes are quoted in cycles or ns saved per exit: the absolute change beside the percentage. */
	if (r->bm && r->nm && r->bm->n && r->nm->n && !isnan(r->delta)) {
		char abs[40];
		size_t len = strlen(out->c[KB_CMP_COL_DELTA]);
		double d = r->nm->sum.mean - r->bm->sum.mean;

		kb_format_number(fabs(d), abs, sizeof(abs));
		snprintf(out->c[KB_CMP_COL_DELTA] + len, sizeof(out->c[0]) - len, " (%s%s)", d < 0 ? "-" : "+", abs);
	}
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
	json_object *kernel = kb_json_path(r->host, "kernel_release"), *brand = kb_json_path(r->host, "cpu.brand");
	json_object *backend = kb_json_path(r->host, "kvm.backend");

	/* A member that is not a string shows as its JSON text. */
	fprintf(f, "%s%-4s %s: kvmbench %s, %s, kernel %s, %s, %s\n", prefix, what, label,
		r->tool_version ? r->tool_version : "?", r->started ? r->started : "?",
		kernel ? json_object_get_string(kernel) : "?", brand ? json_object_get_string(brand) : "?",
		backend ? json_object_get_string(backend) : "?");
}

void kb_comparison_print_warning(FILE *f, const struct kb_comparison *c, const char *prefix)
{
	if (!c->ndiffs)
		return;
	if (c->opts.paired) {
		/* An A/B run: the fields that differ are the configurations under test. */
		fprintf(f, "%sA and B differ in %zu field%s, the configurations under test:\n", prefix, c->ndiffs,
			c->ndiffs == 1 ? "" : "s");
		for (size_t i = 0; i < c->ndiffs; i++)
			fprintf(f, "%s  %s: %s -> %s\n", prefix, c->diffs[i].field, c->diffs[i].base, c->diffs[i].cur);
		return;
	}
	fprintf(f, "%sWARNING: BASE and NEW differ in %zu field%s that can change the numbers; a delta may come\n"
		   "%sfrom these rather than from the change under test:\n", prefix, c->ndiffs,
		c->ndiffs == 1 ? "" : "s", prefix);
	for (size_t i = 0; i < c->ndiffs; i++)
		fprintf(f, "%s  %s: %s -> %s\n", prefix, c->diffs[i].field, c->diffs[i].base, c->diffs[i].cur);
}

void kb_comparison_print_rounds_warning(FILE *f, const struct kb_comparison *c, const char *prefix)
{
	if (c->base_one_run || c->new_one_run)
		fprintf(f, "%sWARNING: %s on the rounds of one run: they follow each other within seconds and do not\n"
			   "%ssample the drift between runs, so a change beyond tolerance is inconclusive; compare separate\n"
			   "%sruns of each side ('kvmbench compare A1.json,A2.json,A3.json B1.json,B2.json,B3.json').\n", prefix,
			c->base_one_run && c->new_one_run ? "BASE and NEW each rest" : c->base_one_run ? "BASE rests" : "NEW rests",
			prefix, prefix);
	if (!c->base_single && !c->new_single)
		return;
	fprintf(f, "%sWARNING: %s on one round: its samples say nothing of the drift between runs, so a change\n"
		   "%sbeyond tolerance is inconclusive, not a verdict; compare several separate runs of each side.\n", prefix,
		c->base_single && c->new_single ? "BASE and NEW each rest" : c->base_single ? "BASE rests" : "NEW rests",
		prefix);
}

static void print_settings(FILE *f, const struct kb_comparison *c, const char *prefix)
{
	const struct kb_compare_opts *o = &c->opts;

	if (o->paired_samples) {
		fprintf(f, "%stolerance ±%g%%; Wilcoxon signed-rank test on the pairs of interleaved samples at alpha %g; "
			"Hodges-Lehmann delta, CI %g%%\n", prefix, o->tolerance_pct, o->alpha, (1 - o->alpha) * 100);
		return;
	}
	if (o->paired) {
		fprintf(f, "%stolerance ±%g%%; paired ratio test on interleaved A/B pairs at alpha %g; delta CI %g%%\n",
			prefix, o->tolerance_pct, o->alpha, (1 - o->alpha) * 100);
		return;
	}

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
	if (c->ndiffs || c->base_single || c->new_single || c->base_one_run || c->new_one_run) {
		fputs(o->color ? BOLD YELLOW : "", f);
		kb_comparison_print_warning(f, c, "");
		kb_comparison_print_rounds_warning(f, c, "");
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
	if (c->base_single || c->new_single || c->base_one_run || c->new_one_run) {
		kb_comparison_print_rounds_warning(f, c, "> ");
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

/* [lo, hi], null where not finite. */
static json_object *interval_json(double lo, double hi)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, kb_json_num(lo));
	json_object_array_add(a, kb_json_num(hi));
	return a;
}

static json_object *side_json(const struct kb_metric *m)
{
	json_object *o;

	if (!m)
		return NULL;
	o = json_object_new_object();
	kb_json_set_int(o, "n", (int64_t)m->sum.n);
	kb_json_set_num(o, "mean", m->sum.mean);
	kb_json_set_num(o, "stddev", m->sum.stddev);
	kb_json_set(o, "ci95", interval_json(m->sum.ci_lo, m->sum.ci_hi));
	kb_json_set_int(o, "rounds", m->nrounds > 1 ? (int64_t)m->nrounds : 1);
	return o;
}

static json_object *row_json(const struct kb_compare_row *r)
{
	const struct kb_test_result *t = r->bt ? r->bt : r->nt;
	json_object *o = json_object_new_object(), *w = json_object_new_object(), *u = json_object_new_object();

	kb_json_set_str(o, "id", r->id);
	kb_json_set_str(o, "suite", t->suite);
	kb_json_set_str(o, "test", t->test);
	kb_json_set_int(o, "vcpus", t->vcpus);
	kb_json_set_str(o, "metric", r->metric);
	kb_json_set_str(o, "unit", r->unit);
	kb_json_set_tri(o, "higher_is_better", r->metric ? r->higher_is_better : -1);
	kb_json_set(o, "base", side_json(r->bm));
	kb_json_set(o, "new", side_json(r->nm));
	kb_json_set_num(o, "delta_pct", r->delta * 100);
	kb_json_set_num(o, "delta_abs", r->bm && r->nm && r->bm->n && r->nm->n ? r->nm->sum.mean - r->bm->sum.mean : NAN);
	kb_json_set(o, "delta_ci_pct", interval_json(r->delta_lo * 100, r->delta_hi * 100));
	kb_json_set_num(w, "t", r->welch.t);
	kb_json_set_num(w, "df", r->welch.df);
	kb_json_set_num(w, "p", r->welch.p);
	kb_json_set(o, "welch", w);
	kb_json_set_num(u, "u", r->bm && r->nm && !isnan(r->mwu.p) ? r->mwu.u : NAN);
	kb_json_set_num(u, "p", r->mwu.p);
	kb_json_set_bool(u, "exact", r->mwu.exact);
	kb_json_set(o, "mann_whitney", u);
	if (!strcmp(r->basis ? r->basis : "", "paired")) {
		json_object *pj = json_object_new_object();

		kb_json_set_int(pj, "pairs", (int64_t)r->paired.n);
		kb_json_set_num(pj, "t", r->paired.t);
		kb_json_set_num(pj, "df", r->paired.df);
		kb_json_set_num(pj, "p", r->paired.p);
		kb_json_set_num(pj, "ratio", r->paired.ratio);
		kb_json_set(pj, "ratio_ci", interval_json(r->paired.ratio_lo, r->paired.ratio_hi));
		kb_json_set(o, "paired", pj);
	}
	if (!strcmp(r->basis ? r->basis : "", "paired_samples")) {
		json_object *sj = json_object_new_object();

		kb_json_set_int(sj, "pairs", (int64_t)r->signed_rank.n);
		kb_json_set_int(sj, "nonzero", (int64_t)r->signed_rank.nonzero);
		kb_json_set_num(sj, "w_plus", r->signed_rank.w_plus);
		kb_json_set_num(sj, "z", r->signed_rank.z);
		kb_json_set_num(sj, "p", r->signed_rank.p);
		kb_json_set_num(sj, "ratio", r->signed_rank.ratio);
		kb_json_set(sj, "ratio_ci", interval_json(r->signed_rank.ratio_lo, r->signed_rank.ratio_hi));
		kb_json_set(o, "signed_rank", sj);
	}
	kb_json_set_str(o, "basis", r->basis);
	kb_json_set_num(o, "p", r->p);
	kb_json_set_str(o, "verdict", kb_verdict_name(r->verdict));
	kb_json_set_str(o, "note", r->note[0] ? r->note : NULL);
	return o;
}

static json_object *side_info_json(const struct kb_result *r, const char *label)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "file", label);
	kb_json_set_str(o, "tool_version", r->tool_version);
	kb_json_set_str(o, "started", r->started);
	return o;
}

json_object *kb_comparison_json(const struct kb_comparison *c)
{
	const struct kb_compare_opts *o = &c->opts;
	json_object *j = json_object_new_object(), *tool = json_object_new_object();
	json_object *diffs = json_object_new_array(), *rows = json_object_new_array(), *counts = json_object_new_object();

	kb_json_set_int(j, "compare_schema_version", 1);
	kb_json_set_str(tool, "name", "kvmbench");
	kb_json_set_str(tool, "version", PACKAGE_VERSION);
	kb_json_set(j, "tool", tool);
	kb_json_set(j, "base", side_info_json(c->base, o->base_label));
	kb_json_set(j, "new", side_info_json(c->cur, o->new_label));
	kb_json_set(j, "tolerance_pct", json_object_new_double(o->tolerance_pct));
	kb_json_set(j, "alpha", json_object_new_double(o->alpha));
	kb_json_set_str(j, "test", o->paired_samples ? "signed-rank" : o->paired ? "paired-ratio" : kb_sig_test_name(o->test));
	kb_json_set_bool(j, "paired", o->paired);
	kb_json_set_bool(j, "base_single_round", c->base_single);
	kb_json_set_bool(j, "new_single_round", c->new_single);
	kb_json_set_bool(j, "base_single_run", c->base_one_run);
	kb_json_set_bool(j, "new_single_run", c->new_one_run);
	for (size_t i = 0; i < c->ndiffs; i++) {
		json_object *d = json_object_new_object();

		kb_json_set_str(d, "field", c->diffs[i].field);
		kb_json_set_str(d, "base", c->diffs[i].base);
		kb_json_set_str(d, "new", c->diffs[i].cur);
		json_object_array_add(diffs, d);
	}
	kb_json_set(j, "differences", diffs);
	if (o->extra)
		kb_json_set(j, "ab", json_object_get(o->extra));
	for (size_t i = 0; i < c->nrows; i++)
		json_object_array_add(rows, row_json(&c->rows[i]));
	kb_json_set(j, "rows", rows);
	for (int v = 0; v < KB_NVERDICTS; v++)
		kb_json_set_int(counts, kb_verdict_name((enum kb_verdict)v), (int64_t)c->count[v]);
	kb_json_set(j, "counts", counts);
	kb_json_set_int(j, "exit_status", kb_comparison_status(c));
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
	if (warn && (c.base_single || c.new_single || c.base_one_run || c.new_one_run)) {
		fputs("kvmbench: ", warn);
		kb_comparison_print_rounds_warning(warn, &c, "");
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
