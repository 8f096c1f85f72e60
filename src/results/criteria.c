/* SPDX-License-Identifier: GPL-2.0-or-later */
/* criteria.c: judge a result by a profile's criteria: status, absolute bounds, CV, tolerance. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "results/profile.h"

/* The first of r's reason substrings found in reason, or NULL; "any" matches every reason. */
static const char *reason_match(const struct kb_reasons *r, const char *reason)
{
	if (r->any)
		return "any";
	for (size_t i = 0; i < r->n; i++)
		if (reason && strstr(reason, r->v[i]))
			return r->v[i];
	return NULL;
}

static void reasons_text(struct kb_buf *b, const struct kb_reasons *r, bool *first)
{
	for (size_t i = 0; i < (r->any ? 1 : r->n); i++) {
		kb_buf_printf(b, "%s\"%s\"", *first ? "" : ", ", r->any ? "any reason" : r->v[i]);
		*first = false;
	}
}

static char *pos_text(const struct kb_profile *p, struct kb_profile_pos pos)
{
	return kb_xasprintf("%s:%d:%d", p->path, pos.line, pos.column);
}

/* "ok": the test measured validly, or was skipped / invalid for a reason an entry allows. */
static void judge_status(const struct kb_profile *p, const struct kb_profile_entry *const *es, size_t n,
			 struct kb_test_result *t)
{
	struct kb_buf expect = { 0 };
	const char *match = NULL;
	const struct kb_profile_entry *by = NULL;
	bool first = true;
	struct kb_criterion *v;
	enum kb_judgement verdict = KB_JUDGED_FAIL;

	kb_buf_printf(&expect, "ok");
	for (size_t i = 0; i < n; i++)
		if (es[i]->may_skip.any || es[i]->may_skip.n) {
			kb_buf_printf(&expect, first ? ", or skipped for " : "");
			reasons_text(&expect, &es[i]->may_skip, &first);
		}
	first = true;
	for (size_t i = 0; i < n; i++)
		if (es[i]->may_be_invalid.any || es[i]->may_be_invalid.n) {
			kb_buf_printf(&expect, first ? ", or invalid for " : "");
			reasons_text(&expect, &es[i]->may_be_invalid, &first);
		}
	for (size_t i = 0; i < n && !match; i++) {
		if (t->status == KB_STATUS_SKIPPED)
			match = reason_match(&es[i]->may_skip, t->reason);
		else if (t->status == KB_STATUS_INVALID)
			match = reason_match(&es[i]->may_be_invalid, t->reason);
		by = es[i];
	}
	if (t->status == KB_STATUS_OK || match)
		verdict = KB_JUDGED_PASS;
	v = kb_test_add_criterion(t, "status", NULL, verdict);
	v->expect = expect.p;
	if (t->status == KB_STATUS_OK)
		v->detail = kb_xstrdup("measured validly");
	else if (match)
		v->detail = kb_xasprintf("%s, for a reason the profile allows (%s): %s", kb_status_name(t->status),
					 !strcmp(match, "any") ? "any reason" : match, t->reason ? t->reason : "");
	else
		v->detail = kb_xasprintf("%s: %s", kb_status_name(t->status), t->reason ? t->reason : "no reason given");
	v->source = pos_text(p, (match && by ? by : es[0])->pos);
}

/* The microarchitecture a result was measured on (host.cpu.microarchitecture), or NULL. */
static const char *ref_uarch(const struct kb_result *r)
{
	json_object *u = kb_json_path(r->host, "cpu.microarchitecture");

	return u && json_object_is_type(u, json_type_string) ? json_object_get_string(u) : NULL;
}

static const struct kb_test_result *ref_test(const struct kb_result *ref, const struct kb_test_result *t)
{
	for (size_t i = 0; ref && i < ref->ntests; i++) {
		const struct kb_test_result *r = &ref->tests[i];

		if (!strcmp(r->suite, t->suite) && !strcmp(r->test, t->test) && r->vcpus == t->vcpus)
			return r;
	}
	return NULL;
}

/* One criterion of kind on metric m of t (NULL when t has no such metric). */
static void judge_one(const struct kb_profile *p, const struct kb_metric_crit *mc, const char *kind,
		      struct kb_test_result *t, const struct kb_metric *m, const struct kb_result *ref,
		      const char *ref_name)
{
	const char *name = m ? m->name : mc->metric, *unit = m ? m->unit : "";
	struct kb_criterion *v = kb_test_add_criterion(t, kind, name, KB_JUDGED_NOT);
	double mean = m ? m->sum.mean : NAN;

	v->source = pos_text(p, mc->pos);
	if (!strcmp(kind, "min")) {
		v->bound = mc->min;
		v->expect = kb_xasprintf(">= %g %s", mc->min, unit);
	} else if (!strcmp(kind, "max")) {
		v->bound = mc->max;
		v->expect = kb_xasprintf("<= %g %s", mc->max, unit);
	} else if (!strcmp(kind, "max-cv")) {
		v->bound = mc->max_cv_pct;
		v->expect = kb_xasprintf("CV <= %g%%", mc->max_cv_pct);
	} else {
		v->bound = mc->tolerance_pct;
		v->expect = kb_xasprintf("at most %g%% worse than the reference", mc->tolerance_pct);
	}
	if (t->status != KB_STATUS_OK) {
		v->detail = kb_xasprintf("not measured: the test is %s", kb_status_name(t->status));
		return;
	}
	if (!m) {
		v->verdict = KB_JUDGED_FAIL;
		v->detail = kb_xasprintf("the test has no metric '%s'", mc->metric);
		return;
	}
	v->measured = mean;
	if (!strcmp(kind, "min") || !strcmp(kind, "max")) {
		bool pass = !strcmp(kind, "min") ? mean >= mc->min : mean <= mc->max;

		v->verdict = pass ? KB_JUDGED_PASS : KB_JUDGED_FAIL;
		v->detail = kb_xasprintf("mean %g %s", mean, unit);
	} else if (!strcmp(kind, "max-cv")) {
		v->measured = m->sum.cv * 100;
		v->verdict = v->measured <= mc->max_cv_pct ? KB_JUDGED_PASS : KB_JUDGED_FAIL;
		v->detail = kb_xasprintf("CV %.3g%% over %zu samples", v->measured, m->sum.n);
	} else {
		const struct kb_test_result *rt = ref_test(ref, t);
		const struct kb_metric *rm = rt ? kb_test_find_metric(rt, m->name) : NULL;
		double worse;

		if (!ref) {
			v->detail = kb_xstrdup("no reference result (give one with --reference FILE)");
			return;
		}
		if (!rt || rt->status != KB_STATUS_OK || !rm || !(rm->sum.mean != 0 && isfinite(rm->sum.mean))) {
			v->detail = kb_xasprintf("the reference %s has no valid %s of this test%s", ref_name, m->name,
						 rt && rt->status != KB_STATUS_OK ? " (it is not ok there)" : "");
			return;
		}
		v->reference = rm->sum.mean;
		/* Worse is lower for a rate, higher for a time. */
		worse = (m->higher_is_better ? rm->sum.mean - mean : mean - rm->sum.mean) / fabs(rm->sum.mean) * 100;
		v->verdict = worse <= mc->tolerance_pct ? KB_JUDGED_PASS : KB_JUDGED_FAIL;
		v->detail = kb_xasprintf("mean %g against %g %s in %s: %.2f%% %s", mean, rm->sum.mean, unit, ref_name,
					 fabs(worse), worse > 0 ? "worse" : "better or equal");
	}
}

static void judge_metrics(const struct kb_profile *p, const struct kb_profile_entry *e, struct kb_test_result *t,
			  const struct kb_result *ref, const char *ref_name)
{
	for (size_t k = 0; k < e->nmetrics; k++) {
		const struct kb_metric_crit *mc = &e->metrics[k];
		const struct kb_metric *m = !strcmp(mc->metric, "primary") ? kb_test_primary_metric(t)
									   : kb_test_find_metric(t, mc->metric);

		if (mc->has_min)
			judge_one(p, mc, "min", t, m, ref, ref_name);
		if (mc->has_max)
			judge_one(p, mc, "max", t, m, ref, ref_name);
		if (mc->has_max_cv)
			judge_one(p, mc, "max-cv", t, m, ref, ref_name);
		if (mc->has_tolerance)
			judge_one(p, mc, "tolerance", t, m, ref, ref_name);
	}
}

size_t kb_profile_judge(const struct kb_profile *p, struct kb_result *res, const struct kb_result *ref,
			const char *ref_name)
{
	size_t count[3] = { 0 }, tests_failed = 0;
	const struct kb_profile_entry **es = kb_xcalloc(p->nentries + 1, sizeof(*es));
	json_object *o = json_object_new_object(), *crit = json_object_new_object(), *tests = json_object_new_object();

	for (size_t i = 0; i < res->ntests; i++) {
		struct kb_test_result *t = &res->tests[i];
		size_t n = 0;

		kb_test_free_criteria(t);
		for (size_t k = 0; k < p->nentries; k++)
			if (kb_profile_entry_matches(&p->entries[k], t->suite, t->test))
				es[n++] = &p->entries[k];
		if (!n)
			continue;
		judge_status(p, es, n, t);
		for (size_t k = 0; k < n; k++)
			judge_metrics(p, es[k], t, ref, ref_name);
		for (size_t k = 0; k < t->ncriteria; k++)
			count[t->criteria[k].verdict]++;
		tests_failed += kb_test_judgement(t) == KB_JUDGED_FAIL;
	}
	free(es);
	kb_json_set_str(o, "name", p->name);
	kb_json_set_str(o, "file", p->path);
	kb_json_set_str(o, "description", p->description);
	if (ref) {
		json_object *r = json_object_new_object();

		kb_json_set_str(r, "file", ref_name);
		kb_json_set_str(r, "microarchitecture", ref_uarch(ref));
		kb_json_set_str(r, "started", ref->started);
		kb_json_set(o, "reference", r);
	} else {
		kb_json_set(o, "reference", NULL);
	}
	kb_json_set_str(o, "verdict", count[KB_JUDGED_FAIL] ? "fail" : "pass");
	kb_json_set_int(crit, "total", (int64_t)(count[0] + count[1] + count[2]));
	kb_json_set_int(crit, "passed", (int64_t)count[KB_JUDGED_PASS]);
	kb_json_set_int(crit, "failed", (int64_t)count[KB_JUDGED_FAIL]);
	kb_json_set_int(crit, "not_judged", (int64_t)count[KB_JUDGED_NOT]);
	kb_json_set(o, "criteria", crit);
	kb_json_set_int(tests, "total", (int64_t)res->ntests);
	kb_json_set_int(tests, "failed", (int64_t)tests_failed);
	kb_json_set(o, "tests", tests);
	json_object_put(res->profile);
	res->profile = o;
	return count[KB_JUDGED_FAIL];
}

int kb_reference_pick(const struct kb_result *const *refs, const char *const *names, size_t n, const char *uarch)
{
	struct kb_buf seen = { 0 };
	int err;

	for (size_t i = 0; i < n; i++) {
		const char *u = ref_uarch(refs[i]);

		if ((u && uarch && !strcmp(u, uarch)) || (!u && !uarch))
			return (int)i;
	}
	for (size_t i = 0; i < n; i++) {
		const char *u = ref_uarch(refs[i]);

		kb_buf_printf(&seen, "%s%s: %s", i ? ", " : "", names[i], u ? u : "unknown");
	}
	err = kb_fail(ENOENT, "no --reference was measured on this host's microarchitecture (%s): %s",
		      uarch ? uarch : "unknown", seen.p ? seen.p : "");
	free(seen.p);
	return err;
}
