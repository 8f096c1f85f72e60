/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h: the A/B comparison model of two results: deltas, their confidence intervals, significance, verdicts. */
#ifndef KB_COMPARE_H
#define KB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "results/result.h"
#include "stats/signedrank.h"
#include "stats/twosample.h"

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
	/* An interleaved A/B run (kvmbench ab): round i of BASE and of NEW were measured next to each
	 * other, so they are compared as pairs (the paired ratio test), not as two samples. */
	bool paired;
	/* kvmbench ab --mode sample: sample i of BASE and of NEW were taken next to each other (in one run
	 * of each side, both VMs alive): the signed-rank test on the samples' pairs. */
	bool paired_samples;
	json_object *extra;       /* added to the JSON view as "ab" (the A/B run's configurations); may be NULL */
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
	struct kb_paired paired;               /* with opts.paired */
	struct kb_signed_rank signed_rank;     /* with opts.paired_samples */
	size_t base_rounds, new_rounds;        /* rounds each side rests on (1: one run) */
	size_t base_runs, new_runs;            /* separate runs those rounds are (1: all of one run) */
	const char *basis;                     /* what the p rests on: "between_rounds" (of separate runs),
	                                        * "paired", "paired_samples", "within_run", "one_run_rounds" */
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
	bool base_single, new_single;          /* a compared row of that side rests on one round */
	bool base_one_run, new_one_run;        /* a compared row of that side rests on rounds of one run */
};

int kb_compare_build(const struct kb_result *base, const struct kb_result *cur, const struct kb_compare_opts *o,
		     struct kb_comparison *c);
void kb_comparison_free(struct kb_comparison *c);
/* 0 nothing regressed, 1 something regressed beyond tolerance, 2 nothing could be compared. */
int kb_comparison_status(const struct kb_comparison *c);

#endif
