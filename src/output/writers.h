/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writers.h: one writer per output format behind one interface, and the helpers they share. */
#ifndef KB_WRITERS_H
#define KB_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "results/compare.h"
#include "results/result.h"

/* What a writer renders: one or more results, optionally against a baseline. */
struct kb_report {
	const struct kb_result *const *results;
	const char *const *names;          /* where each result came from (file names); may be NULL */
	size_t nresults;
	const struct kb_result *baseline;  /* NULL: no comparison */
	const char *baseline_name;
	struct kb_compare_opts cmp;        /* tolerance, alpha and test for the comparison */
	const char *title;                 /* NULL: a default */
	bool color;                        /* terminal colour (table only) */
	/* Traceability (the HTML report's last section); each may be NULL. */
	const char *const *sha256;         /* per result: the SHA-256 of its file, hex */
	const char *baseline_sha256;
	json_object *command;              /* the report's own command line, an array of strings */
};

struct kb_writer {
	const char *name;
	const char *summary;
	/* Render rep on f; 0 or -errno with kb_fail(). */
	int (*write)(const struct kb_report *rep, FILE *f);
};

extern const struct kb_writer kb_writer_table, kb_writer_json, kb_writer_csv, kb_writer_csv_samples,
	kb_writer_markdown, kb_writer_html;
extern const struct kb_writer *const kb_writers[];
extern const size_t kb_nwriters;

const struct kb_writer *kb_find_writer(const char *name);
/* "table, json, csv, ..." for help texts and error messages. */
const char *kb_writer_names(void);
/* One result, no baseline: what 'run' needs. */
int kb_write_result(const struct kb_writer *w, const struct kb_result *r, const char *name, FILE *f);
/* Write to path atomically (temporary file beside it, then rename). */
int kb_write_report_file(const struct kb_writer *w, const struct kb_report *rep, const char *path);
/* True when the writer uses rep->baseline. */
bool kb_writer_compares(const struct kb_writer *w);

/* Overall verdict of a report: a result judged by a qualification profile (its top-level
 * "profile": {"name", "verdict": "pass"|"fail"}) passes by that verdict, any other by having no
 * invalid or failed test; and nothing may have regressed against the baseline. */
struct kb_report_verdict {
	size_t ok, skipped, invalid, error;
	size_t regressed, improved, inconclusive;
	size_t profiles, profiles_failed;   /* results judged by a profile, and those it failed */
	bool compared;
	bool pass;
};

/* What every report format derives from a kb_report before rendering it. */
struct kb_report_view {
	struct kb_result merged;       /* all results' tests, sharing their storage */
	struct kb_comparison cmp;      /* against the baseline, when compared */
	bool compared;
	struct kb_report_verdict verdict;
	const char **suites;           /* in order of first appearance */
	size_t nsuites;
	size_t nhosts;                 /* distinct hosts among the results */
};
void kb_report_view_init(const struct kb_report *rep, struct kb_report_view *v);
void kb_report_view_free(struct kb_report_view *v);
/* Result i's name, or "result N". */
const char *kb_report_name(const struct kb_report *rep, size_t i, char *buf, size_t size);
/* The first result before i measured on an identical host, or -1: hosts are shown once. */
int kb_report_same_host(const struct kb_report *rep, size_t i);
/* For every test of suite in every result, in order: row() per metric (m NULL for a test
 * without metrics) with its result's name when there are several (else NULL). */
void kb_report_suite_rows(const struct kb_report *rep, const char *suite, FILE *f,
			  void (*row)(FILE *f, const struct kb_test_result *t, const struct kb_metric *m,
				      const char *source));
/* For every test of suite in every result, in order. */
void kb_report_suite_tests(const struct kb_report *rep, const char *suite, FILE *f,
			   void (*fn)(FILE *f, const struct kb_test_result *t));

/* ---- escaping ---- */
void kb_html_escape(FILE *f, const char *s);
void kb_markdown_escape(FILE *f, const char *s);
/* An identifier as a code span (text with ` < > & falls back to escaped text); in_table escapes '|'. */
void kb_markdown_code(FILE *f, const char *s, bool in_table);
void kb_csv_field(FILE *f, const char *s);

/* ---- number formats ---- */
/* "2.51G", "13.4k", "0.431": short labels for chart axes. */
void kb_format_si(double v, char *buf, size_t size);
/* "+13.4%" */
void kb_format_pct(double rel, char *buf, size_t size);
/* "0.0321", "<0.001", "-" for NaN */
void kb_format_p(double p, char *buf, size_t size);

#endif
