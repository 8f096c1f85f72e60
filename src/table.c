/* table.c: print results for people: aligned columns, units, colour only on a terminal. */
#include <math.h>
#include <string.h>

#include "table.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

void kb_format_number(double v, char *buf, size_t size)
{
	double a = fabs(v);

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
		snprintf(ci, sizeof(ci), "±%.2f%%", m->sum.ci_rel * 100);
		snprintf(cv, sizeof(cv), "%.2f%%", m->sum.cv * 100);
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
