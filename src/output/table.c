/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c: print results for people: the full table, the one-line view of run, units scaled, colour only on a terminal. */
#include <math.h>
#include <string.h>

#include "core/json.h"
#include "output/table.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

void kb_format_number(double v, char *buf, size_t size)
{
	double a = fabs(v);

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	if (a >= 10000) {
		char digits[64], *p = buf;
		int len, lead;

		len = snprintf(digits, sizeof(digits), "%.0f", a);
		lead = len % 3 ? len % 3 : 3;
		if (v < 0 && size > 1) {
			*p++ = '-';
			size--;
		}
		for (int i = 0; i < len && size > 2; i++) {
			if (i && (i - lead) % 3 == 0 && i >= lead) {
				*p++ = ',';
				size--;
			}
			*p++ = digits[i];
			size--;
		}
		*p = 0;
	} else if (a >= 100 || a == 0) {
		snprintf(buf, size, "%.1f", v);
	} else {
		snprintf(buf, size, "%.4g", v);
	}
}

static const char *status_color(enum kb_status s)
{
	switch (s) {
	case KB_STATUS_OK: return GREEN;
	case KB_STATUS_SKIPPED: return YELLOW;
	default: return RED;
	}
}

void kb_table_header(FILE *f, bool color)
{
	(void)color;
	fprintf(f, "%-28s %-8s %-12s %14s %-12s %8s %7s %4s\n", "TEST", "STATUS", "METRIC", "MEAN", "UNIT",
		"±95%CI", "CV", "N");
}

void kb_table_test(FILE *f, const struct kb_test_result *t, bool color)
{
	char id[128], mean[32], ci[16], cv[16];
	bool first = true;

	snprintf(id, sizeof(id), "%s/%s", t->suite, t->test);
	for (size_t i = 0; i < t->nmetrics; i++) {
		const struct kb_metric *m = t->metrics[i];

		/* Per-vCPU breakdowns stay in the JSON. */
		if (strchr(m->name, '.'))
			continue;
		kb_format_number(m->sum.mean, mean, sizeof(mean));
		kb_format_spread("±", m->sum.ci_rel, 2, ci, sizeof(ci));
		kb_format_spread("", m->sum.cv, 2, cv, sizeof(cv));
		fprintf(f, "%-28s %s%-8s%s %-12s %14s %-12s %8s %7s %4zu\n", first ? id : "",
			color && first ? status_color(t->status) : "", first ? kb_status_name(t->status) : "",
			color && first ? RESET : "", m->name, mean, m->unit, ci, cv, m->sum.n);
		first = false;
	}
	if (first)
		fprintf(f, "%-28s %s%-8s%s\n", id, color ? status_color(t->status) : "", kb_status_name(t->status),
			color ? RESET : "");
	if (t->nchecks) {
		fprintf(f, "%-28s checks:", "");
		for (size_t i = 0; i < t->nchecks; i++) {
			const struct kb_check *c = &t->checks[i];

			fprintf(f, " %s=%.4g (want %.4g..%.4g) %s%s", c->name, c->measured, c->min, c->max,
				c->pass ? "ok" : (c->fatal ? "FAIL" : "warn"), i + 1 < t->nchecks ? ";" : "");
		}
		fputc('\n', f);
	}
	if (t->reason)
		fprintf(f, "%-28s %s: %s\n", "", kb_status_name(t->status), t->reason);
}

void kb_table_print(FILE *f, const struct kb_result *r, bool color)
{
	kb_table_header(f, color);
	for (size_t i = 0; i < r->ntests; i++)
		kb_table_test(f, &r->tests[i], color);
}

/* ---- the one-line view of 'kvmbench run' ---- */

/* The metric a test's line shows: the time per iteration (ns) where there is one, else the primary. */
static const struct kb_metric *line_metric(const struct kb_test_result *t)
{
	const struct kb_metric *m = kb_test_find_metric(t, "ns");

	return m ? m : kb_test_primary_metric(t);
}

void kb_format_spread(const char *sign, double rel, int prec, char *buf, size_t size)
{
	if (!isfinite(rel))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%s%.*f%%", sign, prec, rel * 100);
}

void kb_format_scaled(double v, const char *unit, char *buf, size_t size)
{
	static const char *const names[] = { "ns", "µs", "ms", "s" };
	const char *rest = NULL;
	double ns = NAN;
	int k = 0;

	if (!strncmp(unit, "ns", 2) && (!unit[2] || unit[2] == '/')) {
		ns = v;
		rest = unit + 2;
	} else if (unit[0] == 's' && (!unit[1] || unit[1] == '/')) {
		ns = v * 1e9;
		rest = unit + 1;
	}
	if (!rest || !isfinite(ns)) {
		char num[48];

		kb_format_number(v, num, sizeof(num));
		snprintf(buf, size, "%s %s", num, unit);
		return;
	}
	while (k < 3 && fabs(ns) >= 1000) {
		ns /= 1000;
		k++;
	}
	snprintf(buf, size, "%.4g %s%s", ns, names[k], rest);
}

/* Columns count characters, not bytes: "µ" is two bytes of UTF-8. */
static void pad(FILE *f, const char *s, int width, bool left)
{
	int chars = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		chars += (*p & 0xc0) != 0x80;
	if (!left)
		for (int i = chars; i < width; i++)
			fputc(' ', f);
	fputs(s, f);
	if (left)
		for (int i = chars; i < width; i++)
			fputc(' ', f);
}

bool kb_test_warned(const struct kb_test_result *t)
{
	if (t->status != KB_STATUS_OK)
		return false;
	for (size_t i = 0; i < t->nchecks; i++)
		if (!t->checks[i].pass && !t->checks[i].fatal)
			return true;
	return false;
}

void kb_line_header(FILE *f)
{
	fprintf(f, "%-34s %-8s %-8s %16s ", "TEST", "STATUS", "METRIC", "MEAN");
	pad(f, "±95%CI", 9, false);
	fprintf(f, " %8s %5s\n", "CV", "N");
}

/* METRIC, MEAN (scaled), ±95%CI, CV and N of one metric, then the end of the line. */
static void metric_cols(FILE *f, const struct kb_metric *m)
{
	char mean[48], ci[16], cv[16];

	kb_format_scaled(m->sum.mean, m->unit, mean, sizeof(mean));
	kb_format_spread("±", m->sum.ci_rel, 2, ci, sizeof(ci));
	kb_format_spread("", m->sum.cv, 2, cv, sizeof(cv));
	fputc(' ', f);
	pad(f, m->name, 8, true);
	fputc(' ', f);
	pad(f, mean, 16, false);
	fputc(' ', f);
	pad(f, ci, 9, false);
	fprintf(f, " %8s %5zu\n", cv, m->sum.n);
}

static void check_line(FILE *f, const struct kb_check *c)
{
	fprintf(f, "    %-5s %s is %.4g, accepted %.4g..%.4g%s%s\n", c->pass ? "ok" : c->fatal ? "FAIL" : "warn", c->name,
		c->measured, c->min, c->max, c->note && !c->pass ? ": " : "", c->note && !c->pass ? c->note : "");
}

void kb_line_test(FILE *f, const struct kb_test_result *t, bool color, bool verbose)
{
	const struct kb_metric *m = line_metric(t);
	bool warned = kb_test_warned(t);
	const char *status = warned ? "warn" : kb_status_name(t->status);
	char id[160];

	snprintf(id, sizeof(id), "%s/%s", t->suite, t->test);
	pad(f, id, 34, true);
	fprintf(f, " %s", color ? (warned ? YELLOW : status_color(t->status)) : "");
	pad(f, status, 8, true);
	fputs(color ? RESET : "", f);
	if (t->status != KB_STATUS_OK && t->status != KB_STATUS_SKIPPED)
		fputc('\n', f);
	if (m && t->status == KB_STATUS_OK)
		metric_cols(f, m);
	else if (t->status == KB_STATUS_SKIPPED) {
		fprintf(f, " %s\n", t->reason ? t->reason : "");
	}
	if (t->status != KB_STATUS_OK && t->status != KB_STATUS_SKIPPED && t->reason)
		fprintf(f, "    %s: %s\n", kb_status_name(t->status), t->reason);
	if (verbose) {
		for (size_t i = 0; i < t->nmetrics; i++) {
			const struct kb_metric *o = t->metrics[i];

			if ((o == m && t->status == KB_STATUS_OK) || strchr(o->name, '.'))
				continue;
			fprintf(f, "%43s", "");
			metric_cols(f, o);
		}
	}
	for (size_t i = 0; i < t->nchecks; i++)
		if (verbose || (!t->checks[i].pass && (warned || t->status == KB_STATUS_INVALID)))
			check_line(f, &t->checks[i]);
}

void kb_line_summary(FILE *f, const struct kb_result *r, double wall_s, const char *json)
{
	size_t n[4] = { 0 }, warned = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		n[r->tests[i].status < 4 ? r->tests[i].status : KB_STATUS_ERROR]++;
		warned += kb_test_warned(&r->tests[i]);
	}
	fprintf(f, "%zu test%s: %zu ok (%zu warned), %zu skipped, %zu invalid, %zu error; wall time %.1f s; %s%s\n",
		r->ntests, r->ntests == 1 ? "" : "s", n[KB_STATUS_OK], warned, n[KB_STATUS_SKIPPED], n[KB_STATUS_INVALID],
		n[KB_STATUS_ERROR], wall_s, json ? "results in " : "results not saved (no --json)", json ? json : "");
}

static void criterion_line(FILE *f, const struct kb_criterion *c)
{
	fprintf(f, "    %-10s %s%s%s: want %s; %s (%s)\n", c->verdict == KB_JUDGED_FAIL ? "FAIL" :
		c->verdict == KB_JUDGED_PASS ? "pass" : "not judged", c->criterion, c->metric ? " " : "",
		c->metric ? c->metric : "", c->expect ? c->expect : "", c->detail ? c->detail : "",
		c->source ? c->source : "");
}

void kb_table_profile(FILE *f, const struct kb_result *r, bool verbose)
{
	json_object *p = r->profile, *crit = kb_json_get(p, "criteria");
	const char *verdict = kb_json_get_str(p, "verdict");

	for (size_t i = 0; i < r->ntests; i++) {
		const struct kb_test_result *t = &r->tests[i];
		bool failed = kb_test_judgement(t) == KB_JUDGED_FAIL;

		if (!failed && !verbose)
			continue;
		fprintf(f, "%s/%s: %s\n", t->suite, t->test, failed ? "FAILS the profile" : "meets the profile");
		for (size_t k = 0; k < t->ncriteria; k++)
			if (verbose || t->criteria[k].verdict != KB_JUDGED_PASS)
				criterion_line(f, &t->criteria[k]);
	}
	fprintf(f, "profile %s: %s (%.0f criteria: %.0f passed, %.0f failed, %.0f not judged)\n",
		kb_json_get_str(p, "name") ? kb_json_get_str(p, "name") : "?", verdict && !strcmp(verdict, "pass") ? "PASS" : "FAIL",
		kb_json_get_num(crit, "total", 0), kb_json_get_num(crit, "passed", 0), kb_json_get_num(crit, "failed", 0),
		kb_json_get_num(crit, "not_judged", 0));
}
