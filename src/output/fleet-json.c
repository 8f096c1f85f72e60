/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet-json.c: the fleet report as JSON: the verdict, the outlier rule, per test the fleet's
 * figures, per host its facts, verdict, failure and cells, and the groups (docs/fleet-schema.json). */
#include <math.h>

#include "core/json.h"
#include "core/kb.h"
#include "output/fleet-writers.h"

static json_object *test_json(const struct kb_fleet_test *t)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "id", t->id);
	kb_json_set_str(o, "metric", t->metric);
	kb_json_set_str(o, "unit", t->unit);
	kb_json_set_bool(o, "higher_is_better", t->higher_is_better);
	kb_json_set_u64(o, "hosts", t->nvalid);
	kb_json_set_num(o, "median", t->median);
	kb_json_set_num(o, "mad", t->mad);
	kb_json_set_num(o, "spread_pct", t->spread_pct);
	kb_json_set_num(o, "min", t->min);
	kb_json_set_num(o, "max", t->max);
	kb_json_set_u64(o, "outliers", t->noutliers);
	return o;
}

static json_object *cell_json(const struct kb_fleet *f, size_t t, const struct kb_fleet_cell *c)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "test", f->tests[t].id);
	kb_json_set_str(o, "status", c->present ? kb_status_name(c->status) : "missing");
	kb_json_set_str(o, "reason", c->reason);
	kb_json_set_num(o, "value", c->value);
	kb_json_set_u64(o, "results", c->nvalues);
	kb_json_set_num(o, "deviation_pct", c->dev_pct);
	/* An infinite z (the other hosts agree exactly) is null, with deviation_pct saying how far. */
	kb_json_set_num(o, "robust_z", c->z);
	kb_json_set_bool(o, "outlier", c->outlier);
	kb_json_set_bool(o, "slower", isfinite(c->value) && c->worse);
	return o;
}

static json_object *host_json(const struct kb_fleet *f, size_t h)
{
	const struct kb_fleet_host *x = &f->hosts[h];
	json_object *o = json_object_new_object(), *cells = json_object_new_array(), *params, *fail = NULL;
	char verdict[96];

	kb_fleet_host_verdict(x, verdict, sizeof(verdict));
	kb_json_set_str(o, "name", x->name);
	kb_json_set_bool(o, "pass", x->pass);
	if (x->profile) {
		json_object *pj = json_object_new_object();

		kb_json_set_str(pj, "name", x->profile);
		kb_json_set_str(pj, "verdict", x->profile_failed ? "fail" : "pass");
		kb_json_set_u64(pj, "results", x->nprofiled);
		kb_json_set(o, "profile", pj);
	}
	kb_json_set_str(o, "verdict", verdict);
	kb_json_set_u64(o, "results", x->nresults);
	kb_json_set_u64(o, "files", x->nfiles);
	if (x->failure) {
		fail = json_object_new_object();
		kb_json_set_str(fail, "stage", x->failure_stage);
		kb_json_set_str(fail, "reason", x->failure);
	}
	kb_json_set(o, "failure", fail);
	if (x->nresults) {
		kb_json_set_int(o, "group", (int64_t)x->group + 1);
		kb_json_set_str(o, "cpu", x->cpu);
		kb_json_set_str(o, "microarchitecture", x->uarch);
		kb_json_set_str(o, "kernel", x->kernel);
		kb_json_set_str(o, "kvm_backend", x->backend);
		params = json_object_new_object();
		for (size_t p = 0; p < x->nparams; p++)
			kb_json_set_str(params, x->params[p].key, x->params[p].value);
		kb_json_set(o, "kvm_params", params);
	} else {
		kb_json_set(o, "group", NULL);
	}
	kb_json_set_u64(o, "ok", x->nok);
	kb_json_set_u64(o, "skipped", x->nskipped);
	kb_json_set_u64(o, "invalid", x->ninvalid);
	kb_json_set_u64(o, "error", x->nerror);
	kb_json_set_u64(o, "missing", x->nmissing);
	kb_json_set_u64(o, "slow_outliers", x->noutliers_worse);
	kb_json_set_u64(o, "fast_outliers", x->noutliers_better);
	for (size_t t = 0; t < f->ntests; t++)
		json_object_array_add(cells, cell_json(f, t, kb_fleet_cell(f, h, t)));
	kb_json_set(o, "cells", cells);
	return o;
}

static json_object *group_json(const struct kb_fleet *f, size_t g)
{
	const struct kb_fleet_group *x = &f->groups[g];
	json_object *o = json_object_new_object(), *med = json_object_new_object();

	kb_json_set_int(o, "group", (int64_t)g + 1);
	kb_json_set_u64(o, "hosts", x->nhosts);
	kb_json_set_str(o, "microarchitecture", x->uarch);
	kb_json_set_str(o, "kernel", x->kernel);
	kb_json_set_str(o, "kvm_backend", x->backend);
	kb_json_set_str(o, "params_differ", x->params_differ);
	for (size_t t = 0; t < f->ntests; t++)
		kb_json_set_num(med, f->tests[t].id, x->medians[t]);
	kb_json_set(o, "medians", med);
	return o;
}

static int write_json(const struct kb_fleet *f, const char *title, FILE *out)
{
	json_object *j = json_object_new_object(), *rule = json_object_new_object(), *counts = json_object_new_object(), *a;
	char sum[256];

	kb_fleet_summary(f, sum, sizeof(sum));
	kb_json_set_str(j, "kind", "kvmbench-fleet-report");
	kb_json_set_int(j, "schema_version", 1);
	kb_json_set_str(j, "title", title);
	kb_json_set_bool(j, "pass", f->pass);
	kb_json_set_str(j, "summary", sum);
	kb_json_set_u64(counts, "hosts", f->nhosts);
	kb_json_set_u64(counts, "failed", f->nfailed);
	kb_json_set_u64(counts, "tests", f->ntests);
	kb_json_set_u64(counts, "files", f->nfiles);
	kb_json_set(j, "counts", counts);
	kb_json_set_num(rule, "robust_z", f->opts.outlier_z);
	kb_json_set_num(rule, "min_deviation_pct", f->opts.min_dev_pct);
	kb_json_set_u64(rule, "min_hosts", f->opts.min_hosts);
	kb_json_set(j, "outlier_rule", rule);
	a = json_object_new_array();
	for (size_t t = 0; t < f->ntests; t++)
		json_object_array_add(a, test_json(&f->tests[t]));
	kb_json_set(j, "tests", a);
	a = json_object_new_array();
	for (size_t g = 0; g < f->ngroups; g++)
		json_object_array_add(a, group_json(f, g));
	kb_json_set(j, "groups", a);
	a = json_object_new_array();
	for (size_t h = 0; h < f->nhosts; h++)
		json_object_array_add(a, host_json(f, h));
	kb_json_set(j, "hosts", a);
	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
	return 0;
}

const struct kb_fleet_writer kb_fleet_writer_json = {
	.name = "json",
	.write = write_json,
};
