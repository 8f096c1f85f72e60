/* result.h: the one result model; the table, JSON and later views all read it. */
#ifndef KB_RESULT_H
#define KB_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "stats.h"

#define KB_SCHEMA_VERSION 1

enum kb_status {
	KB_STATUS_OK = 0,
	KB_STATUS_INVALID,   /* measured, but its sanity checks failed: not a result */
	KB_STATUS_SKIPPED,   /* cannot be measured on this host; reason says why */
	KB_STATUS_ERROR,     /* the measurement failed; reason says how */
};

struct kb_metric {
	char *name;
	char *unit;
	bool higher_is_better;
	double *samples;
	size_t n, cap;
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
};

struct kb_result {
	int schema_version;
	char *tool_version;
	char *started;          /* ISO 8601 UTC */
	json_object *host;
	json_object *options;
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
void kb_test_check(struct kb_test_result *t, const char *name, double expected, double min, double max,
		   double measured, bool fatal, const char *note);
void kb_test_set_status(struct kb_test_result *t, enum kb_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Compute the summaries and turn failed fatal checks into an invalid status. */
void kb_test_finish(struct kb_test_result *t);

json_object *kb_result_to_json(const struct kb_result *r);
/* Write atomically: a temporary file in the same directory, fsync, rename. */
int kb_result_write_json(const struct kb_result *r, const char *path);
int kb_result_from_json(json_object *j, struct kb_result *r);
int kb_result_load(const char *path, struct kb_result *r);

#endif
