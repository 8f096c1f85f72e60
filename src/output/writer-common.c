/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer-common.c: the table of output writers and what they share: escaping, JSON leaves,
 * number formats, merging several results, the report's verdict and atomic file output. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/kb.h"
#include "output/writers.h"

const struct kb_writer *const kb_writers[] = {
	&kb_writer_table,
	&kb_writer_json,
	&kb_writer_csv,
	&kb_writer_csv_samples,
	&kb_writer_markdown,
	&kb_writer_html,
};

const size_t kb_nwriters = ARRAY_SIZE(kb_writers);

const struct kb_writer *kb_find_writer(const char *name)
{
	for (size_t i = 0; name && i < kb_nwriters; i++)
		if (!strcmp(kb_writers[i]->name, name))
			return kb_writers[i];
	return NULL;
}

const char *kb_writer_names(void)
{
	static char names[256];

	if (!names[0])
		for (size_t i = 0; i < kb_nwriters; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 kb_writers[i]->name);
	return names;
}

bool kb_writer_compares(const struct kb_writer *w)
{
	return w == &kb_writer_table || w == &kb_writer_markdown || w == &kb_writer_html;
}

int kb_write_result(const struct kb_writer *w, const struct kb_result *r, const char *name, FILE *f)
{
	const struct kb_result *results[] = { r };
	const char *names[] = { name };
	struct kb_report rep = { .results = results, .names = names, .nresults = 1 };

	kb_compare_opts_init(&rep.cmp);
	return w->write(&rep, f);
}

struct report_job {
	const struct kb_writer *w;
	const struct kb_report *rep;
};

static int fill_report(FILE *f, void *ctx)
{
	const struct report_job *job = ctx;

	return job->w->write(job->rep, f);
}

int kb_write_report_file(const struct kb_writer *w, const struct kb_report *rep, const char *path)
{
	struct report_job job = { w, rep };
	char what[64];

	snprintf(what, sizeof(what), "the %s report", w->name);
	return kb_write_atomic(path, what, fill_report, &job);
}

/* ---- several results as one ---- */

static void report_merge(const struct kb_report *rep, struct kb_result *merged)
{
	size_t n = 0;

	kb_result_init(merged);
	for (size_t i = 0; i < rep->nresults; i++)
		n += rep->results[i]->ntests;
	merged->tests = kb_xcalloc(n + 1, sizeof(*merged->tests));
	for (size_t i = 0; i < rep->nresults; i++) {
		const struct kb_result *r = rep->results[i];

		if (!i) {
			merged->tool_version = r->tool_version;
			merged->started = r->started;
			merged->host = r->host;
			merged->options = r->options;
		}
		/* Shallow copies: the tests' storage stays with their result (none: tests is NULL). */
		if (r->ntests)
			memcpy(merged->tests + merged->ntests, r->tests, r->ntests * sizeof(*r->tests));
		merged->ntests += r->ntests;
	}
	merged->cap = n;
}

/* Does a result's profile pass it?  A verdict other than "pass" (or none) fails. */
static bool profile_passes(json_object *profile)
{
	const char *verdict = kb_json_get_str(profile, "verdict");

	return verdict && !strcmp(verdict, "pass");
}

static void report_judge(const struct kb_report *rep, const struct kb_comparison *cmp, struct kb_report_verdict *v)
{
	bool unjudged_bad = false;

	memset(v, 0, sizeof(*v));
	for (size_t r = 0; r < rep->nresults; r++) {
		const struct kb_result *res = rep->results[r];

		if (res->profile) {
			v->profiles++;
			v->profiles_failed += !profile_passes(res->profile);
		}
		for (size_t i = 0; i < res->ntests; i++)
			switch (res->tests[i].status) {
			case KB_STATUS_OK: v->ok++; break;
			case KB_STATUS_SKIPPED: v->skipped++; break;
			case KB_STATUS_INVALID: v->invalid++; unjudged_bad |= !res->profile; break;
			default: v->error++; unjudged_bad |= !res->profile; break;
			}
	}
	if (cmp) {
		v->compared = true;
		v->regressed = cmp->count[KB_VERDICT_REGRESSED];
		v->improved = cmp->count[KB_VERDICT_IMPROVED];
		v->inconclusive = cmp->count[KB_VERDICT_INCONCLUSIVE];
	}
	v->pass = !unjudged_bad && !v->profiles_failed && !v->regressed;
}

const char *kb_report_name(const struct kb_report *rep, size_t i, char *buf, size_t size)
{
	if (rep->names && rep->names[i])
		return rep->names[i];
	snprintf(buf, size, "result %zu", i + 1);
	return buf;
}

static bool same_json(json_object *a, json_object *b)
{
	const char *sa = a ? json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN) : "null";
	char *copy = kb_xstrdup(sa);
	bool same = !strcmp(copy, b ? json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN) : "null");

	free(copy);
	return same;
}

int kb_report_same_host(const struct kb_report *rep, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_json(rep->results[j]->host, rep->results[i]->host))
			return (int)j;
	return -1;
}

static size_t report_suites(const struct kb_report *rep, const char ***out)
{
	size_t n = 0, max = 0;
	const char **names;

	for (size_t i = 0; i < rep->nresults; i++)
		max += rep->results[i]->ntests;
	names = kb_xcalloc(max + 1, sizeof(*names));
	for (size_t i = 0; i < rep->nresults; i++)
		for (size_t t = 0; t < rep->results[i]->ntests; t++) {
			const char *s = rep->results[i]->tests[t].suite;
			size_t k = 0;

			while (k < n && strcmp(names[k], s))
				k++;
			if (k == n)
				names[n++] = s;
		}
	*out = names;
	return n;
}

void kb_report_suite_rows(const struct kb_report *rep, const char *suite, FILE *f,
			  void (*row)(FILE *f, const struct kb_test_result *t, const struct kb_metric *m,
				      const char *source))
{
	char buf[32];

	for (size_t s = 0; s < rep->nresults; s++)
		for (size_t i = 0; i < rep->results[s]->ntests; i++) {
			const struct kb_test_result *t = &rep->results[s]->tests[i];
			const char *src = rep->nresults > 1 ? kb_report_name(rep, s, buf, sizeof(buf)) : NULL;

			if (strcmp(t->suite, suite))
				continue;
			if (!t->nmetrics)
				row(f, t, NULL, src);
			for (size_t k = 0; k < t->nmetrics; k++)
				row(f, t, t->metrics[k], src);
		}
}

void kb_report_suite_tests(const struct kb_report *rep, const char *suite, FILE *f,
			   void (*fn)(FILE *f, const struct kb_test_result *t))
{
	for (size_t s = 0; s < rep->nresults; s++)
		for (size_t i = 0; i < rep->results[s]->ntests; i++)
			if (!strcmp(rep->results[s]->tests[i].suite, suite))
				fn(f, &rep->results[s]->tests[i]);
}

static bool report_compare(const struct kb_report *rep, const struct kb_result *merged, struct kb_comparison *c)
{
	struct kb_compare_opts o = rep->cmp;

	if (!rep->baseline)
		return false;
	o.base_label = rep->baseline_name;
	if (rep->nresults == 1 && rep->names)
		o.new_label = rep->names[0];
	/* With nothing in common the rows say so; the report still renders. */
	kb_compare_build(rep->baseline, merged, &o, c);
	return true;
}

void kb_report_view_init(const struct kb_report *rep, struct kb_report_view *v)
{
	memset(v, 0, sizeof(*v));
	report_merge(rep, &v->merged);
	v->compared = report_compare(rep, &v->merged, &v->cmp);
	report_judge(rep, v->compared ? &v->cmp : NULL, &v->verdict);
	v->nsuites = report_suites(rep, &v->suites);
	for (size_t i = 0; i < rep->nresults; i++)
		v->nhosts += kb_report_same_host(rep, i) < 0;
}

void kb_report_view_free(struct kb_report_view *v)
{
	if (v->compared)
		kb_comparison_free(&v->cmp);
	/* Only the array: the tests belong to their results. */
	free(v->merged.tests);
	free(v->suites);
	memset(v, 0, sizeof(*v));
}

/* ---- escaping ---- */

/* The length of the control character at s: 1 for C0 or DEL, 2 for a C1 one in UTF-8 (U+0080..
 * U+009F, which terminals may obey), 0 for none.  None reaches a report: a result from elsewhere
 * may carry any. */
static size_t control_len(const char *s)
{
	unsigned char c = (unsigned char)*s;

	if (c < 0x20 || c == 0x7f)
		return 1;
	return c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f ? 2 : 0;
}

void kb_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\n': case '\t': fputc(*s, f); break;
		default:
			/* Control characters are not allowed in HTML text; show them as '?'. */
			if (control_len(s)) {
				s += control_len(s) - 1;
				fputc('?', f);
			} else {
				fputc(*s, f);
			}
		}
}

void kb_markdown_escape(FILE *f, const char *s)
{
	/* Newlines become spaces: the text stays on its line (a table row, a list item), where no
	 * '-', '+' or '#' of it can start a list or a heading. */
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '\n': case '\r': case '\t': fputc(' ', f); break;
		case '\\': case '|': case '*': case '_': case '`': case '[': case ']': case '#':
			fputc('\\', f);
			fputc(*s, f);
			break;
		default:
			if (control_len(s)) {
				s += control_len(s) - 1;
				fputc('?', f);
			} else {
				fputc(*s, f);
			}
		}
}

void kb_markdown_code(FILE *f, const char *s, bool in_table)
{
	if (!s)
		return;
	/* Code spans show '<' and '&' as they are, but not every consumer of Markdown knows that. */
	if (strpbrk(s, "`<>&")) {
		kb_markdown_escape(f, s);
		return;
	}
	fputc('`', f);
	/* Only a table's cell separator needs escaping in a code span. */
	for (; *s; s++)
		if (*s == '|' && in_table) {
			fputs("\\|", f);
		} else if (*s == '\n' || *s == '\r' || *s == '\t') {
			fputc(' ', f);
		} else if (control_len(s)) {
			s += control_len(s) - 1;
			fputc('?', f);
		} else {
			fputc(*s, f);
		}
	fputc('`', f);
}

void kb_csv_field(FILE *f, const char *s)
{
	/* A cell starting with one of these is a formula to a spreadsheet (CSV injection, OWASP): it
	 * is quoted and gets a leading apostrophe, so it stays text. */
	bool formula = s && *s && strchr("=+-@\t\r", *s);
	bool quoted = formula || (s && strpbrk(s, ",\"\r\n"));

	if (!s)
		return;
	if (quoted)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		if (quoted && (*s == '\n' || *s == '\r' || *s == '\t')) {
			fputc(*s, f);
		} else if (control_len(s)) {
			s += control_len(s) - 1;
			fputc('?', f);
		} else {
			fputc(*s, f);
		}
	}
	if (quoted)
		fputc('"', f);
}

/* ---- numbers ---- */

void kb_format_si(double v, char *buf, size_t size)
{
	static const struct { double scale; const char *suffix; } units[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};
	double a = fabs(v);

	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (a >= units[i].scale) {
			snprintf(buf, size, "%.3g%s", v / units[i].scale, units[i].suffix);
			return;
		}
	snprintf(buf, size, "%.3g", v);
}

void kb_format_pct(double rel, char *buf, size_t size)
{
	if (!isfinite(rel))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.1f%%", rel * 100);
}

void kb_format_p(double p, char *buf, size_t size)
{
	if (isnan(p))
		snprintf(buf, size, "-");
	else if (p < 0.001)
		snprintf(buf, size, "<0.001");
	else
		snprintf(buf, size, "%.3f", p);
}
