/* result.c: build, serialise and load the result model (JSON schema version 1). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kb.h"
#include "result.h"

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
		free(t->metrics[i]);
	}
	free(t->metrics);
	for (size_t i = 0; i < t->nchecks; i++) {
		free(t->checks[i].name);
		free(t->checks[i].note);
	}
	free(t->checks);
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
	memset(r, 0, sizeof(*r));
}

struct kb_test_result *kb_result_add_test(struct kb_result *r, const char *suite, const char *test)
{
	struct kb_test_result *t;

	if (r->ntests == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct kb_test_result *n = realloc(r->tests, cap * sizeof(*n));

		if (!n)
			kb_die("out of memory");
		r->tests = n;
		r->cap = cap;
	}
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
	t->metrics = realloc(t->metrics, (t->nmetrics + 1) * sizeof(*t->metrics));
	if (!t->metrics)
		kb_die("out of memory");
	m = kb_xcalloc(1, sizeof(*m));
	t->metrics[t->nmetrics++] = m;
	m->name = kb_xstrdup(name);
	m->unit = kb_xstrdup(unit);
	m->higher_is_better = higher_is_better;
	return m;
}

void kb_metric_push(struct kb_metric *m, double v)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 16;
		m->samples = realloc(m->samples, m->cap * sizeof(double));
		if (!m->samples)
			kb_die("out of memory");
	}
	m->samples[m->n++] = v;
}

void kb_test_check(struct kb_test_result *t, const char *name, double expected, double min, double max,
		   double measured, bool fatal, const char *note)
{
	struct kb_check *c;

	t->checks = realloc(t->checks, (t->nchecks + 1) * sizeof(*t->checks));
	if (!t->checks)
		kb_die("out of memory");
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
		kb_summarize(t->metrics[i]->samples, t->metrics[i]->n, &t->metrics[i]->sum);
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

static json_object *jdouble(double v)
{
	return json_object_new_double(v);
}

static json_object *summary_json(const struct kb_summary *s)
{
	json_object *o = json_object_new_object();
	json_object *ci = json_object_new_array();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)s->n));
	json_object_object_add(o, "mean", jdouble(s->mean));
	json_object_object_add(o, "median", jdouble(s->median));
	json_object_object_add(o, "stddev", jdouble(s->stddev));
	json_object_object_add(o, "cv", jdouble(s->cv));
	json_object_object_add(o, "min", jdouble(s->min));
	json_object_object_add(o, "max", jdouble(s->max));
	json_object_array_add(ci, jdouble(s->ci_lo));
	json_object_array_add(ci, jdouble(s->ci_hi));
	json_object_object_add(o, "ci95", ci);
	json_object_object_add(o, "ci95_rel", jdouble(s->ci_rel));
	json_object_object_add(o, "outliers", json_object_new_int64((int64_t)s->outliers));
	return o;
}

static json_object *test_json(const struct kb_test_result *t)
{
	json_object *o = json_object_new_object();
	json_object *metrics = json_object_new_array();
	json_object *checks = json_object_new_array();
	char id[256];

	snprintf(id, sizeof(id), "%s/%s", t->suite, t->test);
	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "suite", json_object_new_string(t->suite));
	json_object_object_add(o, "test", json_object_new_string(t->test));
	json_object_object_add(o, "status", json_object_new_string(kb_status_name(t->status)));
	json_object_object_add(o, "reason", t->reason ? json_object_new_string(t->reason) : NULL);
	json_object_object_add(o, "vcpus", json_object_new_int(t->vcpus));
	json_object_object_add(o, "iterations_per_sample", json_object_new_uint64(t->iterations));
	json_object_object_add(o, "tsc_khz", json_object_new_int64(t->tsc_khz));
	json_object_object_add(o, "duration_s", jdouble(t->duration_s));
	json_object_object_add(o, "params", json_object_get(t->params));
	for (size_t i = 0; i < t->nmetrics; i++) {
		const struct kb_metric *m = t->metrics[i];
		json_object *jm = json_object_new_object();
		json_object *samples = json_object_new_array_ext((int)m->n);
		unsigned char *flags = kb_xcalloc(m->n, 1);
		json_object *outl = json_object_new_array();

		kb_outliers(m->samples, m->n, flags);
		for (size_t k = 0; k < m->n; k++) {
			json_object_array_add(samples, jdouble(m->samples[k]));
			if (flags[k])
				json_object_array_add(outl, json_object_new_int64((int64_t)k));
		}
		free(flags);
		json_object_object_add(jm, "name", json_object_new_string(m->name));
		json_object_object_add(jm, "unit", json_object_new_string(m->unit));
		json_object_object_add(jm, "higher_is_better", json_object_new_boolean(m->higher_is_better));
		json_object_object_add(jm, "samples", samples);
		json_object_object_add(jm, "outlier_samples", outl);
		json_object_object_add(jm, "summary", summary_json(&m->sum));
		json_object_array_add(metrics, jm);
	}
	json_object_object_add(o, "metrics", metrics);
	for (size_t i = 0; i < t->nchecks; i++) {
		const struct kb_check *c = &t->checks[i];
		json_object *jc = json_object_new_object();

		json_object_object_add(jc, "name", json_object_new_string(c->name));
		json_object_object_add(jc, "expected", jdouble(c->expected));
		json_object_object_add(jc, "measured", jdouble(c->measured));
		json_object_object_add(jc, "min", jdouble(c->min));
		json_object_object_add(jc, "max", jdouble(c->max));
		json_object_object_add(jc, "pass", json_object_new_boolean(c->pass));
		json_object_object_add(jc, "fatal", json_object_new_boolean(c->fatal));
		json_object_object_add(jc, "note", c->note ? json_object_new_string(c->note) : NULL);
		json_object_array_add(checks, jc);
	}
	json_object_object_add(o, "checks", checks);
	json_object_object_add(o, "extra", json_object_get(t->extra));
	json_object_object_add(o, "raw", json_object_get(t->raw));
	return o;
}

json_object *kb_result_to_json(const struct kb_result *r)
{
	json_object *o = json_object_new_object();
	json_object *tool = json_object_new_object();
	json_object *tests = json_object_new_array();

	json_object_object_add(o, "schema_version", json_object_new_int(r->schema_version));
	json_object_object_add(tool, "name", json_object_new_string("kvmbench"));
	json_object_object_add(tool, "version", json_object_new_string(r->tool_version ? r->tool_version : ""));
	json_object_object_add(o, "tool", tool);
	json_object_object_add(o, "started", r->started ? json_object_new_string(r->started) : NULL);
	json_object_object_add(o, "host", json_object_get(r->host));
	json_object_object_add(o, "options", json_object_get(r->options));
	for (size_t i = 0; i < r->ntests; i++)
		json_object_array_add(tests, test_json(&r->tests[i]));
	json_object_object_add(o, "tests", tests);
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

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *jget(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static double jnum(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	return json_object_get_double(v);
}

/* A number member that must fit the integer it is stored in: outside [lo, hi] (or NaN) it is 0,
 * as if absent; converting it would be undefined behaviour (found by fuzzing). */
static double jbounded(json_object *o, const char *key, double lo, double hi)
{
	double v = jnum(o, key);

	return v >= lo && v <= hi ? v : 0;
}

static int load_test(json_object *jt, struct kb_result *r, size_t idx)
{
	const char *suite = jstr(jt, "suite"), *test = jstr(jt, "test"), *status = jstr(jt, "status");
	json_object *metrics = jget(jt, "metrics", json_type_array);
	json_object *checks = jget(jt, "checks", json_type_array);
	struct kb_test_result *t;
	json_object *v;

	if (!suite || !test || !status || !metrics)
		return kb_fail(EINVAL, "tests[%zu]: missing suite, test, status or metrics", idx);
	t = kb_result_add_test(r, suite, test);
	if (kb_status_parse(status, &t->status))
		return kb_fail(EINVAL, "tests[%zu]: unknown status '%s'", idx, status);
	if (jstr(jt, "reason"))
		t->reason = kb_xstrdup(jstr(jt, "reason"));
	t->vcpus = (int)jbounded(jt, "vcpus", 0, INT_MAX);
	t->iterations = (uint64_t)jbounded(jt, "iterations_per_sample", 0, 1.8e19);
	t->tsc_khz = (uint32_t)jbounded(jt, "tsc_khz", 0, UINT32_MAX);
	t->duration_s = jnum(jt, "duration_s");
	if ((v = jget(jt, "params", json_type_object))) {
		json_object_put(t->params);
		t->params = json_object_get(v);
	}
	if ((v = jget(jt, "raw", json_type_array))) {
		json_object_put(t->raw);
		t->raw = json_object_get(v);
	}
	if ((v = jget(jt, "extra", json_type_object))) {
		json_object_put(t->extra);
		t->extra = json_object_get(v);
	}
	for (size_t i = 0; i < json_object_array_length(metrics); i++) {
		json_object *jm = json_object_array_get_idx(metrics, i);
		json_object *samples = jget(jm, "samples", json_type_array);
		const char *name = jstr(jm, "name"), *unit = jstr(jm, "unit");
		struct kb_metric *m;

		if (!name || !unit || !samples || !jget(jm, "higher_is_better", json_type_boolean))
			return kb_fail(EINVAL, "tests[%zu].metrics[%zu]: missing name, unit, higher_is_better or samples",
				       idx, i);
		m = kb_test_metric(t, name, unit, json_object_get_boolean(jget(jm, "higher_is_better", json_type_boolean)));
		for (size_t k = 0; k < json_object_array_length(samples); k++) {
			json_object *s = json_object_array_get_idx(samples, k);

			if (!json_object_is_type(s, json_type_double) && !json_object_is_type(s, json_type_int))
				return kb_fail(EINVAL, "tests[%zu].metrics[%zu].samples[%zu] is not a number", idx, i, k);
			kb_metric_push(m, json_object_get_double(s));
		}
	}
	for (size_t i = 0; checks && i < json_object_array_length(checks); i++) {
		json_object *jc = json_object_array_get_idx(checks, i);
		const char *name = jstr(jc, "name");
		json_object *fatal = jget(jc, "fatal", json_type_boolean);

		if (!name)
			return kb_fail(EINVAL, "tests[%zu].checks[%zu]: missing name", idx, i);
		kb_test_check(t, name, jnum(jc, "expected"), jnum(jc, "min"), jnum(jc, "max"), jnum(jc, "measured"),
			      fatal && json_object_get_boolean(fatal), jstr(jc, "note"));
	}
	/* Summaries are recomputed from the raw samples: the file's copies are only for readers. */
	for (size_t i = 0; i < t->nmetrics; i++)
		kb_summarize(t->metrics[i]->samples, t->metrics[i]->n, &t->metrics[i]->sum);
	return 0;
}

int kb_result_from_json(json_object *j, struct kb_result *r)
{
	json_object *tests, *tool, *v;
	int version, err;

	kb_result_init(r);
	if (!json_object_is_type(j, json_type_object))
		return kb_fail(EINVAL, "not a kvmbench result: the top level is not a JSON object");
	v = jget(j, "schema_version", json_type_int);
	if (!v)
		return kb_fail(EINVAL, "not a kvmbench result: no schema_version");
	version = json_object_get_int(v);
	if (version < 1 || version > KB_SCHEMA_VERSION)
		return kb_fail(EINVAL, "result schema version %d is not supported (this kvmbench reads 1..%d; "
			       "use a kvmbench at least as new as the one that wrote it)", version, KB_SCHEMA_VERSION);
	r->schema_version = version;
	tests = jget(j, "tests", json_type_array);
	if (!tests)
		return kb_fail(EINVAL, "not a kvmbench result: no tests array");
	if ((tool = jget(j, "tool", json_type_object)) && jstr(tool, "version"))
		r->tool_version = kb_xstrdup(jstr(tool, "version"));
	if (jstr(j, "started"))
		r->started = kb_xstrdup(jstr(j, "started"));
	if ((v = jget(j, "host", json_type_object)))
		r->host = json_object_get(v);
	if ((v = jget(j, "options", json_type_object)))
		r->options = json_object_get(v);
	for (size_t i = 0; i < json_object_array_length(tests); i++) {
		err = load_test(json_object_array_get_idx(tests, i), r, i);
		if (err)
			return err;
	}
	return 0;
}

int kb_result_load(const char *path, struct kb_result *r)
{
	struct stat st;
	json_object *j;
	int err;

	kb_result_init(r);
	/* json-c would read a device such as /dev/zero forever. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return kb_fail(EINVAL, "%s: not a regular file (a result is the JSON file 'kvmbench run --json' writes)",
			       path);
	j = json_object_from_file(path);
	if (!j) {
		if (access(path, R_OK))
			return kb_fail(errno, "%s: cannot read: %s", path, strerror(errno));
		return kb_fail(EINVAL, "%s: not valid JSON (%s)", path, json_util_get_last_err());
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
