/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.c: build, serialise and load the result model (JSON schema version 1). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json.h"
#include "core/kb.h"
#include "results/result.h"

static const char *const status_names[] = {
	[KB_STATUS_OK] = "ok",
	[KB_STATUS_INVALID] = "invalid",
	[KB_STATUS_SKIPPED] = "skipped",
	[KB_STATUS_ERROR] = "error",
};

const char *kb_status_name(enum kb_status s)
{
	return (unsigned int)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

int kb_status_parse(const char *s, enum kb_status *out)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(status_names); i++)
		if (!strcmp(s, status_names[i])) {
			*out = (enum kb_status)i;
			return 0;
		}
	return -EINVAL;
}

void kb_result_init(struct kb_result *r)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = KB_SCHEMA_VERSION;
}

static void test_free(struct kb_test_result *t)
{
	free(t->suite);
	free(t->test);
	free(t->reason);
	for (size_t i = 0; i < t->nmetrics; i++) {
		free(t->metrics[i]->name);
		free(t->metrics[i]->unit);
		free(t->metrics[i]->samples);
		free(t->metrics[i]->rounds);
		free(t->metrics[i]);
	}
	free(t->metrics);
	for (size_t i = 0; i < t->nchecks; i++) {
		free(t->checks[i].name);
		free(t->checks[i].note);
	}
	free(t->checks);
	kb_test_free_criteria(t);
	json_object_put(t->params);
	json_object_put(t->raw);
	json_object_put(t->extra);
	memset(t, 0, sizeof(*t));
}

void kb_result_free(struct kb_result *r)
{
	for (size_t i = 0; i < r->ntests; i++)
		test_free(&r->tests[i]);
	free(r->tests);
	free(r->tool_version);
	free(r->started);
	json_object_put(r->host);
	json_object_put(r->options);
	json_object_put(r->command);
	json_object_put(r->profile);
	memset(r, 0, sizeof(*r));
}

struct kb_test_result *kb_result_add_test(struct kb_result *r, const char *suite, const char *test)
{
	struct kb_test_result *t;

	r->tests = kb_xgrow(r->tests, r->ntests, &r->cap, sizeof(*r->tests));
	t = &r->tests[r->ntests++];
	memset(t, 0, sizeof(*t));
	t->suite = kb_xstrdup(suite);
	t->test = kb_xstrdup(test);
	t->raw = json_object_new_array();
	t->params = json_object_new_object();
	t->extra = json_object_new_object();
	return t;
}

void kb_result_drop_last(struct kb_result *r)
{
	if (r->ntests)
		test_free(&r->tests[--r->ntests]);
}

struct kb_metric *kb_test_find_metric(const struct kb_test_result *t, const char *name)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		if (!strcmp(t->metrics[i]->name, name))
			return t->metrics[i];
	return NULL;
}

struct kb_metric *kb_test_primary_metric(const struct kb_test_result *t)
{
	struct kb_metric *m = kb_test_find_metric(t, "rate");

	return m ? m : t->nmetrics ? t->metrics[0] : NULL;
}

struct kb_metric *kb_test_metric(struct kb_test_result *t, const char *name, const char *unit,
				 bool higher_is_better)
{
	struct kb_metric *m = kb_test_find_metric(t, name);

	if (m)
		return m;
	t->metrics = kb_xrealloc(t->metrics, t->nmetrics + 1, sizeof(*t->metrics));
	m = kb_xcalloc(1, sizeof(*m));
	t->metrics[t->nmetrics++] = m;
	m->name = kb_xstrdup(name);
	m->unit = kb_xstrdup(unit);
	m->higher_is_better = higher_is_better;
	return m;
}

void kb_metric_push(struct kb_metric *m, double v)
{
	m->samples = kb_xgrow(m->samples, m->n, &m->cap, sizeof(*m->samples));
	m->samples[m->n++] = v;
}

void kb_metric_add_round(struct kb_metric *m, size_t n, double mean, double stddev)
{
	m->rounds = kb_xrealloc(m->rounds, m->nrounds + 1, sizeof(*m->rounds));
	m->rounds[m->nrounds++] = (struct kb_round_sum){ n, mean, stddev };
}

void kb_metric_summarize(struct kb_metric *m)
{
	kb_summarize(m->samples, m->n, &m->sum);
	if (m->nrounds >= 2) {
		double *means = kb_xcalloc(m->nrounds, sizeof(*means));

		for (size_t i = 0; i < m->nrounds; i++)
			means[i] = m->rounds[i].mean;
		kb_summarize_rounds(means, m->nrounds, &m->sum);
		free(means);
	}
}

void kb_test_add_round(struct kb_test_result *t, const struct kb_test_result *round)
{
	if (t->nrounds < 1) {
		for (size_t i = 0; i < t->nmetrics; i++) {
			struct kb_metric *m = t->metrics[i];

			kb_summarize(m->samples, m->n, &m->sum);
			kb_metric_add_round(m, m->sum.n, m->sum.mean, m->sum.stddev);
		}
		t->nrounds = 1;
	}
	t->nrounds++;
	t->duration_s += round->duration_s;
	for (size_t i = 0; i < round->nmetrics; i++) {
		const struct kb_metric *rm = round->metrics[i];
		struct kb_metric *m = kb_test_metric(t, rm->name, rm->unit, rm->higher_is_better);
		struct kb_summary s;

		for (size_t k = 0; k < rm->n; k++)
			kb_metric_push(m, rm->samples[k]);
		kb_summarize(rm->samples, rm->n, &s);
		kb_metric_add_round(m, s.n, s.mean, s.stddev);
		kb_metric_summarize(m);
	}
	for (size_t i = 0; i < json_object_array_length(round->raw); i++)
		json_object_array_add(t->raw, json_object_get(json_object_array_get_idx(round->raw, i)));
	if (round->status != KB_STATUS_OK && t->status == KB_STATUS_OK)
		kb_test_set_status(t, round->status, "round %zu: %s", t->nrounds, round->reason ? round->reason : "");
}

/* A run's rounds taken as one: its samples pooled, the round summaries dropped. */
static void pool_rounds(struct kb_test_result *t)
{
	for (size_t i = 0; i < t->nmetrics; i++) {
		free(t->metrics[i]->rounds);
		t->metrics[i]->rounds = NULL;
		t->metrics[i]->nrounds = 0;
		kb_metric_summarize(t->metrics[i]);
	}
	t->nrounds = 0;
}

void kb_test_add_run(struct kb_test_result *t, const struct kb_test_result *run)
{
	if (t->nruns < 2)
		pool_rounds(t);
	/* kb_test_add_round pools the run's samples into one round. */
	kb_test_add_round(t, run);
	t->nruns = t->nrounds;
}

void kb_result_add_run(struct kb_result *r, const struct kb_result *run)
{
	bool *used = kb_xcalloc(run->ntests + 1, sizeof(bool));

	for (size_t i = 0; i < r->ntests; i++)
		for (size_t j = 0; j < run->ntests; j++) {
			const struct kb_test_result *t = &run->tests[j];

			if (!used[j] && !strcmp(t->suite, r->tests[i].suite) && !strcmp(t->test, r->tests[i].test) &&
			    t->vcpus == r->tests[i].vcpus) {
				used[j] = true;
				kb_test_add_run(&r->tests[i], t);
				break;
			}
		}
	free(used);
}

void kb_test_check(struct kb_test_result *t, const char *name, double expected, double min, double max,
		   double measured, bool fatal, const char *note)
{
	struct kb_check *c;

	t->checks = kb_xrealloc(t->checks, t->nchecks + 1, sizeof(*t->checks));
	c = &t->checks[t->nchecks++];
	c->name = kb_xstrdup(name);
	c->expected = expected;
	c->measured = measured;
	c->min = min;
	c->max = max;
	c->pass = measured >= min && measured <= max;
	c->fatal = fatal;
	c->note = note ? kb_xstrdup(note) : NULL;
}

void kb_test_set_status(struct kb_test_result *t, enum kb_status s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	t->status = s;
	free(t->reason);
	t->reason = NULL;
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->reason = kb_xstrdup(buf);
}

void kb_test_finish(struct kb_test_result *t)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		kb_metric_summarize(t->metrics[i]);
	if (t->status != KB_STATUS_OK)
		return;
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct kb_check *c = &t->checks[i];

		if (c->fatal && !c->pass) {
			kb_test_set_status(t, KB_STATUS_INVALID, "check %s failed: measured %.4g, accepted %.4g..%.4g%s%s",
					   c->name, c->measured, c->min, c->max,
					   c->note ? "; " : "", c->note ? c->note : "");
			return;
		}
	}
}

/* ---- JSON ---- */

/* A measured number as it is: the result file is lossless, NaN and infinity included (json-c
 * writes and reads them), unlike the views, which show them as null. */
static void set_double(json_object *o, const char *key, double v)
{
	kb_json_set(o, key, json_object_new_double(v));
}

static json_object *summary_json(const struct kb_summary *s)
{
	json_object *o = json_object_new_object();
	json_object *ci = json_object_new_array();

	kb_json_set_int(o, "n", (int64_t)s->n);
	set_double(o, "mean", s->mean);
	set_double(o, "median", s->median);
	set_double(o, "stddev", s->stddev);
	set_double(o, "cv", s->cv);
	set_double(o, "min", s->min);
	set_double(o, "max", s->max);
	json_object_array_add(ci, json_object_new_double(s->ci_lo));
	json_object_array_add(ci, json_object_new_double(s->ci_hi));
	kb_json_set(o, "ci95", ci);
	set_double(o, "ci95_rel", s->ci_rel);
	kb_json_set_int(o, "outliers", (int64_t)s->outliers);
	/* Absent: one run's samples (older readers and single-round results look the same). */
	if (s->rounds >= 2) {
		kb_json_set_int(o, "rounds", (int64_t)s->rounds);
		kb_json_set_str(o, "ci95_basis", "between_rounds");
	}
	return o;
}

/* "rounds": [{"round": 1, "metrics": {"rate": {"n": .., "mean": .., "stddev": ..}, ..}}, ..]. */
static json_object *rounds_json(const struct kb_test_result *t)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < t->nrounds; k++) {
		json_object *jr = json_object_new_object(), *jm = json_object_new_object();

		kb_json_set_int(jr, "round", (int64_t)k + 1);
		for (size_t i = 0; i < t->nmetrics; i++) {
			const struct kb_metric *m = t->metrics[i];
			json_object *one;

			if (k >= m->nrounds)
				continue;
			one = json_object_new_object();
			kb_json_set_int(one, "n", (int64_t)m->rounds[k].n);
			set_double(one, "mean", m->rounds[k].mean);
			set_double(one, "stddev", m->rounds[k].stddev);
			kb_json_set(jm, m->name, one);
		}
		kb_json_set(jr, "metrics", jm);
		json_object_array_add(a, jr);
	}
	return a;
}

static json_object *test_json(const struct kb_test_result *t)
{
	json_object *o = json_object_new_object();
	json_object *metrics = json_object_new_array();
	json_object *checks = json_object_new_array();
	char id[256];

	snprintf(id, sizeof(id), "%s/%s", t->suite, t->test);
	kb_json_set_str(o, "id", id);
	kb_json_set_str(o, "suite", t->suite);
	kb_json_set_str(o, "test", t->test);
	kb_json_set_str(o, "status", kb_status_name(t->status));
	kb_json_set_str(o, "reason", t->reason);
	kb_json_set_int(o, "vcpus", t->vcpus);
	kb_json_set_u64(o, "iterations_per_sample", t->iterations);
	kb_json_set_int(o, "tsc_khz", t->tsc_khz);
	set_double(o, "duration_s", t->duration_s);
	kb_json_set(o, "params", json_object_get(t->params));
	for (size_t i = 0; i < t->nmetrics; i++) {
		const struct kb_metric *m = t->metrics[i];
		json_object *jm = json_object_new_object();
		json_object *samples = json_object_new_array_ext((int)m->n);
		unsigned char *flags = kb_xcalloc(m->n, 1);
		json_object *outl = json_object_new_array();

		kb_outliers(m->samples, m->n, flags);
		for (size_t k = 0; k < m->n; k++) {
			json_object_array_add(samples, json_object_new_double(m->samples[k]));
			if (flags[k])
				json_object_array_add(outl, json_object_new_int64((int64_t)k));
		}
		free(flags);
		kb_json_set_str(jm, "name", m->name);
		kb_json_set_str(jm, "unit", m->unit);
		kb_json_set_bool(jm, "higher_is_better", m->higher_is_better);
		kb_json_set(jm, "samples", samples);
		kb_json_set(jm, "outlier_samples", outl);
		kb_json_set(jm, "summary", summary_json(&m->sum));
		json_object_array_add(metrics, jm);
	}
	kb_json_set(o, "metrics", metrics);
	if (t->nrounds >= 2)
		kb_json_set(o, "rounds", rounds_json(t));
	if (t->nruns >= 2)
		kb_json_set_int(o, "runs", (int64_t)t->nruns);
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct kb_check *c = &t->checks[i];
		json_object *jc = json_object_new_object();

		kb_json_set_str(jc, "name", c->name);
		set_double(jc, "expected", c->expected);
		set_double(jc, "measured", c->measured);
		set_double(jc, "min", c->min);
		set_double(jc, "max", c->max);
		kb_json_set_bool(jc, "pass", c->pass);
		kb_json_set_bool(jc, "fatal", c->fatal);
		kb_json_set_str(jc, "note", c->note);
		json_object_array_add(checks, jc);
	}
	kb_json_set(o, "checks", checks);
	/* Judged by a profile (run --profile): its criteria and the test's verdict over them. */
	if (t->ncriteria) {
		kb_json_set(o, "criteria", kb_test_criteria_json(t));
		kb_json_set_str(o, "verdict", kb_judgement_name(kb_test_judgement(t)));
	}
	kb_json_set(o, "extra", json_object_get(t->extra));
	kb_json_set(o, "raw", json_object_get(t->raw));
	return o;
}

json_object *kb_result_to_json(const struct kb_result *r)
{
	json_object *o = json_object_new_object();
	json_object *tool = json_object_new_object();
	json_object *tests = json_object_new_array();

	kb_json_set_int(o, "schema_version", r->schema_version);
	kb_json_set_str(tool, "name", "kvmbench");
	kb_json_set_str(tool, "version", r->tool_version ? r->tool_version : "");
	kb_json_set(o, "tool", tool);
	kb_json_set_str(o, "started", r->started);
	kb_json_set(o, "host", json_object_get(r->host));
	kb_json_set(o, "options", json_object_get(r->options));
	if (r->command)
		kb_json_set(o, "command", json_object_get(r->command));
	if (r->profile)
		kb_json_set(o, "profile", json_object_get(r->profile));
	for (size_t i = 0; i < r->ntests; i++)
		json_object_array_add(tests, test_json(&r->tests[i]));
	kb_json_set(o, "tests", tests);
	return o;
}

static int fill_text(FILE *f, void *text)
{
	return fputs(text, f) < 0 || fputc('\n', f) == EOF ? -EIO : 0;
}

int kb_result_write_json(const struct kb_result *r, const char *path)
{
	json_object *j = kb_result_to_json(r);
	int err = kb_write_atomic(path, "results", fill_text,
				  (void *)json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
									       JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(j);
	return err;
}

/* ---- loading ---- */

/* A number member as json-c converts it, 0 when absent or null.  Not kb_json_get_num: that reads a
 * numeric string ("nan") or a boolean as absent, and results have always been read with them. */
static double read_num(json_object *o, const char *key)
{
	return json_object_get_double(kb_json_get(o, key));
}

/* A number member that must fit the integer it is stored in: outside [lo, hi] (or NaN) it is 0,
 * as if absent; converting it would be undefined behaviour (found by fuzzing). */
static double jbounded(json_object *o, const char *key, double lo, double hi)
{
	double v = read_num(o, key);

	return v >= lo && v <= hi ? v : 0;
}

/* The per-round summaries of a result measured in rounds: each metric's mean in each round. */
static int load_rounds(json_object *rounds, struct kb_test_result *t, size_t idx)
{
	size_t n = json_object_array_length(rounds);

	for (size_t k = 0; k < n; k++) {
		json_object *jm = kb_json_get_type(json_object_array_get_idx(rounds, k), "metrics", json_type_object);

		if (!jm)
			return kb_fail(EINVAL, "tests[%zu].rounds[%zu]: no metrics object", idx, k);
		for (size_t i = 0; i < t->nmetrics; i++) {
			struct kb_metric *m = t->metrics[i];
			json_object *one = kb_json_get_type(jm, m->name, json_type_object);

			if (one)
				kb_metric_add_round(m, (size_t)jbounded(one, "n", 0, 1e15), read_num(one, "mean"),
						    read_num(one, "stddev"));
		}
	}
	t->nrounds = n;
	return 0;
}

static int load_test(json_object *jt, struct kb_result *r, size_t idx)
{
	const char *suite = kb_json_get_str(jt, "suite"), *test = kb_json_get_str(jt, "test");
	const char *status = kb_json_get_str(jt, "status"), *reason = kb_json_get_str(jt, "reason");
	json_object *metrics = kb_json_get_type(jt, "metrics", json_type_array);
	json_object *checks = kb_json_get_type(jt, "checks", json_type_array);
	struct kb_test_result *t;
	json_object *v;

	if (!suite || !test || !status || !metrics)
		return kb_fail(EINVAL, "tests[%zu]: missing suite, test, status or metrics", idx);
	t = kb_result_add_test(r, suite, test);
	if (kb_status_parse(status, &t->status))
		return kb_fail(EINVAL, "tests[%zu]: unknown status '%s'", idx, status);
	if (reason)
		t->reason = kb_xstrdup(reason);
	t->vcpus = (int)jbounded(jt, "vcpus", 0, INT_MAX);
	t->iterations = (uint64_t)jbounded(jt, "iterations_per_sample", 0, 1.8e19);
	t->tsc_khz = (uint32_t)jbounded(jt, "tsc_khz", 0, UINT32_MAX);
	t->duration_s = read_num(jt, "duration_s");
	if ((v = kb_json_get_type(jt, "params", json_type_object))) {
		json_object_put(t->params);
		t->params = json_object_get(v);
	}
	if ((v = kb_json_get_type(jt, "raw", json_type_array))) {
		json_object_put(t->raw);
		t->raw = json_object_get(v);
	}
	if ((v = kb_json_get_type(jt, "extra", json_type_object))) {
		json_object_put(t->extra);
		t->extra = json_object_get(v);
	}
	for (size_t i = 0; i < json_object_array_length(metrics); i++) {
		json_object *jm = json_object_array_get_idx(metrics, i);
		json_object *samples = kb_json_get_type(jm, "samples", json_type_array);
		json_object *better = kb_json_get_type(jm, "higher_is_better", json_type_boolean);
		const char *name = kb_json_get_str(jm, "name"), *unit = kb_json_get_str(jm, "unit");
		struct kb_metric *m;

		if (!name || !unit || !samples || !better)
			return kb_fail(EINVAL, "tests[%zu].metrics[%zu]: missing name, unit, higher_is_better or samples",
				       idx, i);
		m = kb_test_metric(t, name, unit, json_object_get_boolean(better));
		for (size_t k = 0; k < json_object_array_length(samples); k++) {
			json_object *s = json_object_array_get_idx(samples, k);

			if (!json_object_is_type(s, json_type_double) && !json_object_is_type(s, json_type_int))
				return kb_fail(EINVAL, "tests[%zu].metrics[%zu].samples[%zu] is not a number", idx, i, k);
			kb_metric_push(m, json_object_get_double(s));
		}
	}
	for (size_t i = 0; checks && i < json_object_array_length(checks); i++) {
		json_object *jc = json_object_array_get_idx(checks, i);
		const char *name = kb_json_get_str(jc, "name");

		if (!name)
			return kb_fail(EINVAL, "tests[%zu].checks[%zu]: missing name", idx, i);
		kb_test_check(t, name, read_num(jc, "expected"), read_num(jc, "min"), read_num(jc, "max"),
			      read_num(jc, "measured"), kb_json_get_bool(jc, "fatal", false), kb_json_get_str(jc, "note"));
	}
	if ((v = kb_json_get_type(jt, "rounds", json_type_array)) && load_rounds(v, t, idx))
		return -EINVAL;
	t->nruns = (size_t)jbounded(jt, "runs", 0, (double)t->nrounds);
	if ((v = kb_json_get_type(jt, "criteria", json_type_array)) && kb_test_criteria_load(v, t, idx))
		return -EINVAL;
	/* Summaries are recomputed from the raw samples: the file's copies are only for readers. */
	for (size_t i = 0; i < t->nmetrics; i++)
		kb_metric_summarize(t->metrics[i]);
	return 0;
}

int kb_result_from_json(json_object *j, struct kb_result *r)
{
	json_object *tests, *v;
	const char *s;
	int version, err;

	kb_result_init(r);
	if (!json_object_is_type(j, json_type_object))
		return kb_fail(EINVAL, "not a kvmbench result: the top level is not a JSON object");
	v = kb_json_get_type(j, "schema_version", json_type_int);
	if (!v)
		return kb_fail(EINVAL, "not a kvmbench result: no schema_version");
	version = json_object_get_int(v);
	if (version < 1 || version > KB_SCHEMA_VERSION)
		return kb_fail(EINVAL, "result schema version %d is not supported (this kvmbench reads 1..%d; "
			       "use a kvmbench at least as new as the one that wrote it)", version, KB_SCHEMA_VERSION);
	r->schema_version = version;
	tests = kb_json_get_type(j, "tests", json_type_array);
	if (!tests)
		return kb_fail(EINVAL, "not a kvmbench result: no tests array");
	if ((s = kb_json_get_str(kb_json_get(j, "tool"), "version")))
		r->tool_version = kb_xstrdup(s);
	if ((s = kb_json_get_str(j, "started")))
		r->started = kb_xstrdup(s);
	if ((v = kb_json_get_type(j, "host", json_type_object)))
		r->host = json_object_get(v);
	if ((v = kb_json_get_type(j, "options", json_type_object)))
		r->options = json_object_get(v);
	if ((v = kb_json_get_type(j, "command", json_type_array)))
		r->command = json_object_get(v);
	if ((v = kb_json_get_type(j, "profile", json_type_object)))
		r->profile = json_object_get(v);
	for (size_t i = 0; i < json_object_array_length(tests); i++) {
		err = load_test(json_object_array_get_idx(tests, i), r, i);
		if (err)
			return err;
	}
	return 0;
}

/* The largest result file loaded, unless KVMBENCH_MAX_RESULT_MIB says otherwise: a real one holds
 * well under 1 MiB per test. */
#define KB_RESULT_MAX_MIB 64

/* Load a result; lean leaves out every test's raw records, parsed through the pruning reader. */
static int result_load(const char *path, struct kb_result *r, bool lean)
{
	const char *max_env = getenv("KVMBENCH_MAX_RESULT_MIB");
	long long max_mib = max_env ? atoll(max_env) : 0;
	struct stat st;
	json_object *j;
	int err;

	kb_result_init(r);
	/* json-c would read a device such as /dev/zero forever. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return kb_fail(EINVAL, "%s: not a regular file (a result is the JSON file 'kvmbench run --json' writes)",
			       path);
	if (max_mib <= 0 || max_mib >= 1LL << 40)
		max_mib = KB_RESULT_MAX_MIB;
	/* A result from elsewhere may be absurdly large: refused before json-c holds it in memory
	 * (20 to 50 times its size: a 64 MiB file of small numbers takes about 3 GB). */
	if (!stat(path, &st) && st.st_size > max_mib << 20)
		return kb_fail(EFBIG, "%s: %lld bytes, more than the %lld MiB a result file may have "
			       "(KVMBENCH_MAX_RESULT_MIB=N raises the bound)", path, (long long)st.st_size, max_mib);
	if (lean) {
		/* tests[i].raw: a member of an object three containers deep. */
		err = kb_json_load_pruned(path, (size_t)max_mib << 20, "tests", "raw", &j);
		if (err)
			return err;
	} else {
		j = json_object_from_file(path);
		if (!j) {
			if (access(path, R_OK))
				return kb_fail(errno, "%s: cannot read: %s", path, strerror(errno));
			return kb_fail(EINVAL, "%s: not valid JSON (%s)", path, json_util_get_last_err());
		}
	}
	err = kb_result_from_json(j, r);
	json_object_put(j);
	if (err) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", kb_last_error());
		kb_result_free(r);
		return kb_fail(err, "%s: %s", path, msg);
	}
	return 0;
}

int kb_result_load(const char *path, struct kb_result *r)
{
	return result_load(path, r, false);
}

int kb_result_load_lean(const char *path, struct kb_result *r)
{
	return result_load(path, r, true);
}
