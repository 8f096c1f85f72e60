/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.h: the one result model; the table, JSON and later views all read it. */
#ifndef KB_RESULT_H
#define KB_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "stats/stats.h"

#define KB_SCHEMA_VERSION 1

enum kb_status {
	KB_STATUS_OK = 0,
	KB_STATUS_INVALID,   /* measured, but its sanity checks failed: not a result */
	KB_STATUS_SKIPPED,   /* cannot be measured on this host; reason says why */
	KB_STATUS_ERROR,     /* the measurement failed; reason says how */
};

/* One round of a metric measured in rounds (run --rounds): its samples' count, mean and spread. */
struct kb_round_sum {
	size_t n;
	double mean, stddev;
};

struct kb_metric {
	char *name;
	char *unit;
	bool higher_is_better;
	double *samples;        /* every round's, in round order */
	size_t n, cap;
	struct kb_round_sum *rounds;   /* with two or more: sum's mean and CI are between rounds */
	size_t nrounds;
	struct kb_summary sum;
};

struct kb_check {
	char *name;
	double expected, measured;
	double min, max;     /* accepted range of measured */
	bool pass;
	bool fatal;          /* a failed fatal check makes the test invalid */
	char *note;
};

/* One acceptance criterion of a qualification profile, judged on one test (results/profile.h). */
enum kb_judgement { KB_JUDGED_PASS = 0, KB_JUDGED_FAIL, KB_JUDGED_NOT };

struct kb_criterion {
	char *criterion;      /* "status", "min", "max", "max-cv", "tolerance" */
	char *metric;         /* the metric judged; NULL for "status" */
	char *expect;         /* what passes, for people: "<= 5000 ns/iter", "ok, or skipped for: ..." */
	double bound;         /* the bound in the metric's unit (max-cv, tolerance: percent); NaN for status */
	double measured;      /* the mean (max-cv: the CV in percent); NaN when not measured */
	double reference;     /* tolerance: the reference's mean; NaN otherwise */
	enum kb_judgement verdict;
	char *detail;         /* why it passed, failed or was not judged */
	char *source;         /* "FILE:LINE:COLUMN" of the profile entry that asked for it */
};

struct kb_test_result {
	char *suite;
	char *test;
	enum kb_status status;
	char *reason;
	int vcpus;
	uint64_t iterations;    /* per sample and vCPU */
	uint32_t tsc_khz;
	double duration_s;      /* wall time of the whole test */
	struct kb_metric **metrics;   /* each allocated alone: pointers stay valid as metrics are added */
	size_t nmetrics;
	struct kb_check *checks;
	size_t nchecks;
	json_object *params;    /* what the guest was asked to do */
	json_object *raw;       /* array: per sample, per vCPU raw records */
	json_object *extra;     /* suite-specific facts (VM stats deltas, ...) */
	size_t nrounds;         /* rounds measured (run --rounds); 0 or 1: one */
	size_t nruns;           /* separate kvmbench runs (processes) the rounds are (kb_test_add_run); 0 or 1: one run */
	struct kb_criterion *criteria;  /* a profile's criteria judged on this test (run --profile) */
	size_t ncriteria;
};

struct kb_result {
	int schema_version;
	char *tool_version;
	char *started;          /* ISO 8601 UTC */
	json_object *host;
	json_object *options;
	json_object *command;   /* array of strings: the command line that measured it; NULL: not recorded */
	json_object *profile;   /* run --profile: the profile, its references and the overall verdict; else NULL */
	struct kb_test_result *tests;
	size_t ntests, cap;
};

const char *kb_status_name(enum kb_status s);
int kb_status_parse(const char *s, enum kb_status *out);

void kb_result_init(struct kb_result *r);
void kb_result_free(struct kb_result *r);
struct kb_test_result *kb_result_add_test(struct kb_result *r, const char *suite, const char *test);
/* Drop the last test (an interrupted one). */
void kb_result_drop_last(struct kb_result *r);

struct kb_metric *kb_test_metric(struct kb_test_result *t, const char *name, const char *unit,
				 bool higher_is_better);
void kb_metric_push(struct kb_metric *m, double v);
struct kb_metric *kb_test_find_metric(const struct kb_test_result *t, const char *name);
/* The metric a test is judged by: "rate", or else its first one (NULL if it has none). */
struct kb_metric *kb_test_primary_metric(const struct kb_test_result *t);
/* Add a round to a metric (its samples are pushed separately). */
void kb_metric_add_round(struct kb_metric *m, size_t n, double mean, double stddev);
/* The metric's summary: of its samples, with the mean and CI between rounds when it has two or more. */
void kb_metric_summarize(struct kb_metric *m);
/* Fold a further round of the same test into t: its samples, round summaries and raw records; a
 * round that did not measure validly makes t take its status.  t's first round is its own samples. */
void kb_test_add_round(struct kb_test_result *t, const struct kb_test_result *round);
/* Fold a further separate run of the same test into t: each run becomes one round (its rounds, if it
 * had any, pooled), so that the rounds are the runs, and t->nruns says so. */
void kb_test_add_run(struct kb_test_result *t, const struct kb_test_result *run);
/* The same for every test of r found in run (same suite, test and vCPU count). */
void kb_result_add_run(struct kb_result *r, const struct kb_result *run);
void kb_test_check(struct kb_test_result *t, const char *name, double expected, double min, double max,
		   double measured, bool fatal, const char *note);
void kb_test_set_status(struct kb_test_result *t, enum kb_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Compute the summaries and turn failed fatal checks into an invalid status. */
void kb_test_finish(struct kb_test_result *t);

const char *kb_judgement_name(enum kb_judgement v);
int kb_judgement_parse(const char *s, enum kb_judgement *out);
/* Add a judged criterion to t (the strings are copied; metric, expect, detail and source may be NULL). */
struct kb_criterion *kb_test_add_criterion(struct kb_test_result *t, const char *criterion, const char *metric,
				       enum kb_judgement verdict);
/* A test's verdict over its criteria: fail if any failed, else pass; not judged when it has none. */
enum kb_judgement kb_test_judgement(const struct kb_test_result *t);

/* The verdicts' storage and their JSON (tests[].criteria), for result.c. */
void kb_test_free_criteria(struct kb_test_result *t);
json_object *kb_test_criteria_json(const struct kb_test_result *t);
int kb_test_criteria_load(json_object *criteria, struct kb_test_result *t, size_t idx);

json_object *kb_result_to_json(const struct kb_result *r);
/* Write atomically: a temporary file in the same directory, fsync, rename. */
int kb_result_write_json(const struct kb_result *r, const char *path);
int kb_result_from_json(json_object *j, struct kb_result *r);
int kb_result_load(const char *path, struct kb_result *r);
/* The same without the tests' raw per-sample records (raw stays empty): for readers that need the
 * summaries only (the fleet report), at a fraction of the time and memory. */
int kb_result_load_lean(const char *path, struct kb_result *r);

#endif
