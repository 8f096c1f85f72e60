/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-view.h: the views of a comparison: its row cells, the table, Markdown and JSON, the warning. */
#ifndef KB_COMPARE_VIEW_H
#define KB_COMPARE_VIEW_H

#include <stdio.h>
#include <json-c/json.h>

#include "results/compare.h"

/* A row as text cells, as every view shows it. */
enum {
	KB_CMP_COL_TEST, KB_CMP_COL_METRIC, KB_CMP_COL_BASE, KB_CMP_COL_NEW, KB_CMP_COL_DELTA, KB_CMP_COL_CI,
	KB_CMP_COL_P, KB_CMP_COL_VERDICT, KB_CMP_NCOLS
};
struct kb_compare_cells {
	char c[KB_CMP_NCOLS][200];
};
extern const char *const kb_compare_col_titles[KB_CMP_NCOLS];
void kb_compare_row_cells(const struct kb_compare_row *r, struct kb_compare_cells *out);

void kb_comparison_print_table(FILE *f, const struct kb_comparison *c);
void kb_comparison_print_markdown(FILE *f, const struct kb_comparison *c);
json_object *kb_comparison_json(const struct kb_comparison *c);
/* The loud warning about differing hosts or parameters, one line per field; nothing when they agree. */
void kb_comparison_print_warning(FILE *f, const struct kb_comparison *c, const char *line_prefix);
/* The warning that a side rests on one round, so that beyond tolerance means inconclusive. */
void kb_comparison_print_rounds_warning(FILE *f, const struct kb_comparison *c, const char *line_prefix);

/*
 * Compare, write the comparison to out in opts->format, repeat the warnings about differing
 * hosts/parameters on warn (may be NULL) and return the exit status: 0 nothing regressed beyond
 * tolerance, 1 something did, 2 nothing could be compared (kb_last_error() says why).
 */
int kb_compare_results(const struct kb_result *base, const struct kb_result *cur, const struct kb_compare_opts *opts,
		       FILE *out, FILE *warn);

#endif
