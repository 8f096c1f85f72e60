/* compare.h: A/B comparison of two results: deltas, their confidence intervals, significance, verdicts. */
#ifndef KB_COMPARE_H
#define KB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "result.h"

/* ---- two-sample tests on raw samples; a is the base, b the new side ---- */

struct kb_welch {
	double diff;          /* mean(b) - mean(a) */
	double se;            /* standard error of diff */
	double t, df, p;      /* Welch-Satterthwaite df; p two-sided */
};

/* Returns -EDOM (and NaN t, df, p) with fewer than two samples on a side. */
int kb_welch_test(const double *a, size_t na, const double *b, size_t nb, struct kb_welch *w);

struct kb_mwu {
	double u;             /* U of a: pairs with a above b, ties counted half */
	double z;             /* normal approximation's z (0 when exact) */
	double p;             /* two-sided */
	bool exact;           /* exact distribution (no ties, both sides <= 50) */
};

int kb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct kb_mwu *m);

/* ---- comparing two results ---- */

enum kb_sig_test {
	KB_SIG_WELCH,
	KB_SIG_MANN_WHITNEY,
};

enum kb_verdict {
	KB_VERDICT_WITHIN,        /* |delta| <= tolerance */
	KB_VERDICT_IMPROVED,      /* beyond tolerance, significant, the good way */
	KB_VERDICT_REGRESSED,     /* beyond tolerance, significant, the bad way */
	KB_VERDICT_INCONCLUSIVE,  /* beyond tolerance but not significant: noise could explain it */
	KB_VERDICT_NOT_COMPARED,  /* missing on one side, or not a valid measurement */
	KB_NVERDICTS
};

enum kb_compare_format {
	KB_CMP_TABLE,
	KB_CMP_JSON,
	KB_CMP_MARKDOWN,
};

struct kb_compare_opts {
	double tolerance_pct;     /* 5 means ±5% */
	double alpha;             /* significance level; the delta's CI is at 1 - alpha */
	enum kb_sig_test test;
	enum kb_compare_format format;
	bool color;               /* table only */
	bool all_metrics;         /* also the per-vCPU metrics (names with a '.') */
	const char *base_label;   /* e.g. the file names; NULL: "BASE", "NEW" */
	const char *new_label;
};

/* tolerance 5%, alpha 0.05, Welch, table, no colour. */
void kb_compare_opts_init(struct kb_compare_opts *o);
int kb_sig_test_parse(const char *s, enum kb_sig_test *out);
int kb_compare_format_parse(const char *s, enum kb_compare_format *out);
const char *kb_sig_test_name(enum kb_sig_test t);
/* "within_tolerance", "improved", ...: identifiers for JSON. */
const char *kb_verdict_name(enum kb_verdict v);
/* "within tolerance", ...: for people. */
const char *kb_verdict_label(enum kb_verdict v);

/* One metric of one test, or one test that could not be compared. */
struct kb_compare_row {
	char id[192];                          /* suite/test, with [vcpus=N] when N != 1 */
	const struct kb_test_result *bt, *nt;  /* NULL when absent on that side */
	const struct kb_metric *bm, *nm;
	const char *metric, *unit;             /* NULL for a whole-test row */
	bool higher_is_better;
	double delta, delta_lo, delta_hi;      /* relative to |base mean|: 0.134 is +13.4% */
	struct kb_welch welch;
	struct kb_mwu mwu;
	double p;                              /* of the chosen test */
	enum kb_verdict verdict;
	char note[256];
};

/* A field that differs between the two sides and may change the numbers. */
struct kb_difference {
	char *field;          /* host.cpu.brand, options.runs, tests[cpuid/leaf].params.leaf, ... */
	char *base, *cur;     /* JSON text, or "(absent)" */
};

/* Rows point into the two results: free the comparison before them. */
struct kb_comparison {
	struct kb_compare_opts opts;
	const struct kb_result *base, *cur;
	struct kb_compare_row *rows;
	size_t nrows;
	struct kb_difference *diffs;
	size_t ndiffs;
	size_t count[KB_NVERDICTS];
};

int kb_compare_build(const struct kb_result *base, const struct kb_result *cur, const struct kb_compare_opts *o,
		     struct kb_comparison *c);
void kb_comparison_free(struct kb_comparison *c);
/* 0 nothing regressed, 1 something regressed beyond tolerance, 2 nothing could be compared. */
int kb_comparison_status(const struct kb_comparison *c);

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

/*
 * Compare, write the comparison to out in opts->format, repeat the warnings about differing
 * hosts/parameters on warn (may be NULL) and return the exit status: 0 nothing regressed beyond
 * tolerance, 1 something did, 2 nothing could be compared (kb_last_error() says why).
 */
int kb_compare_results(const struct kb_result *base, const struct kb_result *cur, const struct kb_compare_opts *opts,
		       FILE *out, FILE *warn);

#endif
