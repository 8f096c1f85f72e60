/* SPDX-License-Identifier: GPL-2.0-or-later */
/* criterion.c: a profile's criteria judged on a test (struct kb_criterion): building, JSON, loading. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "results/result.h"

static const char *const verdict_names[] = {
	[KB_JUDGED_PASS] = "pass",
	[KB_JUDGED_FAIL] = "fail",
	[KB_JUDGED_NOT] = "not-judged",
};

const char *kb_judgement_name(enum kb_judgement v)
{
	return (unsigned int)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

int kb_judgement_parse(const char *s, enum kb_judgement *out)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(verdict_names); i++)
		if (!strcmp(s, verdict_names[i])) {
			*out = (enum kb_judgement)i;
			return 0;
		}
	return -EINVAL;
}

struct kb_criterion *kb_test_add_criterion(struct kb_test_result *t, const char *criterion, const char *metric,
				       enum kb_judgement verdict)
{
	struct kb_criterion *v;

	t->criteria = kb_xrealloc(t->criteria, t->ncriteria + 1, sizeof(*t->criteria));
	v = &t->criteria[t->ncriteria++];
	memset(v, 0, sizeof(*v));
	v->criterion = kb_xstrdup(criterion);
	v->metric = metric ? kb_xstrdup(metric) : NULL;
	v->bound = v->measured = v->reference = NAN;
	v->verdict = verdict;
	return v;
}

enum kb_judgement kb_test_judgement(const struct kb_test_result *t)
{
	bool judged = false;

	for (size_t i = 0; i < t->ncriteria; i++) {
		if (t->criteria[i].verdict == KB_JUDGED_FAIL)
			return KB_JUDGED_FAIL;
		judged |= t->criteria[i].verdict == KB_JUDGED_PASS;
	}
	return judged ? KB_JUDGED_PASS : KB_JUDGED_NOT;
}

void kb_test_free_criteria(struct kb_test_result *t)
{
	for (size_t i = 0; i < t->ncriteria; i++) {
		struct kb_criterion *v = &t->criteria[i];

		free(v->criterion);
		free(v->metric);
		free(v->expect);
		free(v->detail);
		free(v->source);
	}
	free(t->criteria);
	t->criteria = NULL;
	t->ncriteria = 0;
}

/* tests[].criteria: one object per judged criterion. */
json_object *kb_test_criteria_json(const struct kb_test_result *t)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < t->ncriteria; i++) {
		const struct kb_criterion *v = &t->criteria[i];
		json_object *o = json_object_new_object();

		kb_json_set_str(o, "criterion", v->criterion);
		kb_json_set_str(o, "metric", v->metric);
		kb_json_set_str(o, "expect", v->expect);
		kb_json_set_num(o, "bound", v->bound);
		kb_json_set_num(o, "measured", v->measured);
		kb_json_set_num(o, "reference", v->reference);
		kb_json_set_str(o, "verdict", kb_judgement_name(v->verdict));
		kb_json_set_str(o, "detail", v->detail);
		kb_json_set_str(o, "source", v->source);
		json_object_array_add(a, o);
	}
	return a;
}

static char *dup_or_null(json_object *o, const char *key)
{
	const char *s = kb_json_get_str(o, key);

	return s ? kb_xstrdup(s) : NULL;
}

int kb_test_criteria_load(json_object *a, struct kb_test_result *t, size_t idx)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		const char *crit = json_object_is_type(o, json_type_object) ? kb_json_get_str(o, "criterion") : NULL;
		const char *verdict = crit ? kb_json_get_str(o, "verdict") : NULL;
		enum kb_judgement kind;
		struct kb_criterion *v;

		if (!crit || !verdict || kb_judgement_parse(verdict, &kind))
			return kb_fail(EINVAL, "tests[%zu].criteria[%zu]: missing criterion, or verdict not pass, fail or "
				       "not-judged", idx, i);
		v = kb_test_add_criterion(t, crit, kb_json_get_str(o, "metric"), kind);
		v->expect = dup_or_null(o, "expect");
		v->detail = dup_or_null(o, "detail");
		v->source = dup_or_null(o, "source");
		v->bound = kb_json_get_num(o, "bound", NAN);
		v->measured = kb_json_get_num(o, "measured", NAN);
		v->reference = kb_json_get_num(o, "reference", NAN);
	}
	return 0;
}
