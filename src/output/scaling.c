/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scaling.c: print how each suite's results change with the vCPU count, like kernel developers' tables. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/scaling.h"
#include "output/table.h"

#define MAX_COLS 64
#define MAX_ROWS 32
#define CELL 96

/* Seconds shown in the unit that suits the table's largest value. */
struct scale {
	const char *unit;
	double factor;
};

/* The metric a test is judged by in a table: its first one without a breakdown suffix. */
static const struct kb_metric *primary(const struct kb_test_result *t)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		if (!strchr(t->metrics[i]->name, '.'))
			return t->metrics[i];
	return NULL;
}

static void cell_text(const struct kb_test_result *t, const struct scale *sc, char *buf, size_t size)
{
	const struct kb_metric *m = t ? primary(t) : NULL;
	char mean[32], half[32];
	double h;

	if (!t) {
		snprintf(buf, size, "-");
		return;
	}
	if (t->status != KB_STATUS_OK || !m || !m->sum.n) {
		snprintf(buf, size, "%s", kb_status_name(t->status));
		return;
	}
	kb_format_number(m->sum.mean * sc->factor, mean, sizeof(mean));
	/* Two significant digits say how far the mean can be trusted; more would be noise. */
	h = (m->sum.ci_hi - m->sum.mean) * sc->factor;
	snprintf(half, sizeof(half), h >= 10 ? "%.0f" : "%.2g", h);
	snprintf(buf, size, "%s ± %s", mean, half);
}

static struct scale choose_scale(const struct kb_result *r, const char *suite, const struct kb_metric *title)
{
	double top = 0;

	if (!title || strcmp(title->unit, "s"))
		return (struct scale){ title ? title->unit : "", 1 };
	for (size_t i = 0; i < r->ntests; i++) {
		const struct kb_metric *m = primary(&r->tests[i]);

		if (!strcmp(r->tests[i].suite, suite) && r->tests[i].status == KB_STATUS_OK && m && m->sum.mean > top)
			top = m->sum.mean;
	}
	if (top < 1e-3)
		return (struct scale){ "µs", 1e6 };
	if (top < 1)
		return (struct scale){ "ms", 1e3 };
	return (struct scale){ "s", 1 };
}

/* Columns in the table ("±" is two bytes but one column). */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *f, const char *s, int w, bool right)
{
	int n = w - width(s);

	if (right)
		fprintf(f, "%*s%s", n > 0 ? n : 0, "", s);
	else
		fprintf(f, "%s%*s", s, n > 0 ? n : 0, "");
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static const struct kb_test_result *find(const struct kb_result *r, const char *suite, const char *test, int vcpus)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].vcpus == vcpus && !strcmp(r->tests[i].suite, suite) && !strcmp(r->tests[i].test, test))
			return &r->tests[i];
	return NULL;
}

static void print_suite(FILE *f, const struct kb_result *r, const char *suite)
{
	const char *cols[MAX_COLS];
	int rows[MAX_ROWS], ncols = 0, nrows = 0, w[MAX_COLS + 1];
	const struct kb_metric *title = NULL;
	struct scale sc;
	char cell[CELL];

	for (size_t i = 0; i < r->ntests; i++) {
		const struct kb_test_result *t = &r->tests[i];
		bool seen = false;

		if (strcmp(t->suite, suite))
			continue;
		for (int c = 0; c < ncols; c++)
			seen |= !strcmp(cols[c], t->test);
		if (!seen && ncols < MAX_COLS)
			cols[ncols++] = t->test;
		seen = false;
		for (int k = 0; k < nrows; k++)
			seen |= rows[k] == t->vcpus;
		if (!seen && nrows < MAX_ROWS)
			rows[nrows++] = t->vcpus;
		if (!title && t->status == KB_STATUS_OK)
			title = primary(t);
	}
	if (nrows < 2)
		return;
	qsort(rows, (size_t)nrows, sizeof(rows[0]), cmp_int);
	sc = choose_scale(r, suite, title);
	fprintf(f, "\nScaling of %s with the vCPU count: ", suite);
	if (title)
		fprintf(f, "%s in %s (%s is better), mean ± 95%% CI\n", title->name, sc.unit,
			title->higher_is_better ? "higher" : "lower");
	else
		fprintf(f, "no test was measured\n");
	w[0] = width("vCPUs");
	for (int c = 0; c < ncols; c++) {
		w[c + 1] = width(cols[c]);
		for (int k = 0; k < nrows; k++) {
			cell_text(find(r, suite, cols[c], rows[k]), &sc, cell, sizeof(cell));
			if (width(cell) > w[c + 1])
				w[c + 1] = width(cell);
		}
	}
	pad(f, "vCPUs", w[0], true);
	for (int c = 0; c < ncols; c++) {
		fputs("  ", f);
		pad(f, cols[c], c + 1 < ncols ? w[c + 1] : 0, false);
	}
	fputc('\n', f);
	for (int k = 0; k < nrows; k++) {
		snprintf(cell, sizeof(cell), "%d", rows[k]);
		pad(f, cell, w[0], true);
		for (int c = 0; c < ncols; c++) {
			cell_text(find(r, suite, cols[c], rows[k]), &sc, cell, sizeof(cell));
			fputs("  ", f);
			pad(f, cell, c + 1 < ncols ? w[c + 1] : 0, false);
		}
		fputc('\n', f);
	}
}

void kb_scaling_print(FILE *f, const struct kb_result *r)
{
	for (size_t i = 0; i < r->ntests; i++) {
		bool first = true;

		/* Each suite once, where its first result is. */
		for (size_t j = 0; j < i; j++)
			first &= strcmp(r->tests[j].suite, r->tests[i].suite) != 0;
		if (first)
			print_suite(f, r, r->tests[i].suite);
	}
}
