/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet.c: the fleet model: reads many hosts' results (in parallel, lean) into a hosts x tests matrix,
 * then the fleet's medians and spreads, MAD-based outliers, groups and verdicts (fleet.h). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "results/fleet.h"
#include "stats/stats.h"

/* One file to read: queued while the operands are scanned, read by a worker thread, merged in order. */
struct kb_fleet_job {
	char *path, *host;       /* host NULL: the one the result names */
	int err;
	char *msg;               /* the worker's error message */
	bool failure;            /* a failure record (rec), not a result (r) */
	json_object *rec;
	struct kb_result r;
};

static void job_free(struct kb_fleet_job *j);

static const struct kb_fleet_cell empty_cell = { .value = NAN, .dev_pct = NAN, .z = NAN };

void kb_fleet_opts_init(struct kb_fleet_opts *o)
{
	o->outlier_z = KB_OUTLIER_Z;
	o->min_dev_pct = 5;
	o->min_hosts = 3;
}

void kb_fleet_init(struct kb_fleet *f, const struct kb_fleet_opts *o)
{
	memset(f, 0, sizeof(*f));
	if (o)
		f->opts = *o;
	else
		kb_fleet_opts_init(&f->opts);
}

void kb_fleet_free(struct kb_fleet *f)
{
	for (size_t h = 0; h < f->nhosts; h++) {
		struct kb_fleet_host *x = &f->hosts[h];

		for (size_t t = 0; t < x->ncells; t++) {
			free(x->cells[t].reason);
			free(x->cells[t].values);
		}
		for (size_t p = 0; p < x->nparams; p++) {
			free(x->params[p].key);
			free(x->params[p].value);
		}
		free(x->cells);
		free(x->params);
		free(x->params_key);
		free(x->name);
		free(x->cpu);
		free(x->uarch);
		free(x->kernel);
		free(x->backend);
		free(x->failure_stage);
		free(x->failure);
		free(x->profile);
	}
	for (size_t t = 0; t < f->ntests; t++) {
		free(f->tests[t].id);
		free(f->tests[t].metric);
		free(f->tests[t].unit);
	}
	for (size_t g = 0; g < f->ngroups; g++) {
		free(f->groups[g].params_differ);
		free(f->groups[g].medians);
	}
	for (size_t j = 0; j < f->njobs; j++)
		job_free(&f->jobs[j]);
	free(f->jobs);
	free(f->hosts);
	free(f->tests);
	free(f->groups);
	memset(f, 0, sizeof(*f));
}

const struct kb_fleet_cell *kb_fleet_cell(const struct kb_fleet *f, size_t h, size_t t)
{
	if (h >= f->nhosts || t >= f->hosts[h].ncells)
		return &empty_cell;
	return &f->hosts[h].cells[t];
}

/* ---- loading ---- */

static struct kb_fleet_host *host_get(struct kb_fleet *f, const char *name)
{
	struct kb_fleet_host *h;

	for (size_t i = 0; i < f->nhosts; i++)
		if (!strcmp(f->hosts[i].name, name))
			return &f->hosts[i];
	f->hosts = kb_xgrow(f->hosts, f->nhosts, &f->caphosts, sizeof(*f->hosts));
	h = &f->hosts[f->nhosts++];
	h->name = kb_xstrdup(name);
	return h;
}

static size_t test_get(struct kb_fleet *f, const char *id, const struct kb_metric *m)
{
	struct kb_fleet_test *t;

	for (size_t i = 0; i < f->ntests; i++)
		if (!strcmp(f->tests[i].id, id)) {
			t = &f->tests[i];
			/* First seen skipped, without metrics: the first result that measured it names the metric. */
			if (m && !strcmp(t->metric, "-")) {
				free(t->metric);
				free(t->unit);
				t->metric = kb_xstrdup(m->name);
				t->unit = kb_xstrdup(m->unit ? m->unit : "");
				t->higher_is_better = m->higher_is_better;
			}
			return i;
		}
	f->tests = kb_xgrow(f->tests, f->ntests, &f->captests, sizeof(*f->tests));
	t = &f->tests[f->ntests];
	t->id = kb_xstrdup(id);
	t->metric = kb_xstrdup(m ? m->name : "-");
	t->unit = kb_xstrdup(m && m->unit ? m->unit : "");
	t->higher_is_better = m ? m->higher_is_better : true;
	return f->ntests++;
}

static struct kb_fleet_cell *cell_get(struct kb_fleet_host *h, size_t t)
{
	if (t >= h->ncells) {
		h->cells = kb_xrealloc(h->cells, t + 1, sizeof(*h->cells));
		for (size_t i = h->ncells; i <= t; i++)
			h->cells[i] = empty_cell;
		h->ncells = t + 1;
	}
	return &h->cells[t];
}

/* ok < skipped < invalid < error: a cell shows the worst of its results. */
static int status_rank(enum kb_status s)
{
	switch (s) {
	case KB_STATUS_OK: return 0;
	case KB_STATUS_SKIPPED: return 1;
	case KB_STATUS_INVALID: return 2;
	default: return 3;
	}
}

static int param_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kb_fleet_param *)a)->key, ((const struct kb_fleet_param *)b)->key);
}

static char *fact(json_object *host, const char *path)
{
	const char *s = json_object_get_string(kb_json_path(host, path));

	return kb_xstrdup(s && *s ? s : "?");
}

/* The host's facts from its first result: CPU, microarchitecture, kernel, KVM backend and parameters. */
static void host_facts(struct kb_fleet_host *h, json_object *host)
{
	json_object *params = kb_json_get_type(host, "kvm", json_type_object);
	struct kb_buf key = { 0 };
	size_t n = 0;

	h->cpu = fact(host, "cpu.brand");
	h->uarch = fact(host, "cpu.microarchitecture");
	h->kernel = fact(host, "kernel_release");
	h->backend = fact(host, "kvm.backend");
	params = params ? kb_json_get_type(params, "params", json_type_object) : NULL;
	if (params) {
		h->params = kb_xcalloc((size_t)json_object_object_length(params) + 1, sizeof(*h->params));
		json_object_object_foreach(params, k, v) {
			h->params[n].key = kb_xstrdup(k);
			h->params[n++].value = kb_xstrdup(json_object_get_string(v) ? json_object_get_string(v) : "null");
		}
		qsort(h->params, n, sizeof(*h->params), param_cmp);
	}
	h->nparams = n;
	for (size_t i = 0; i < n; i++)
		kb_buf_printf(&key, "%s%s=%s", i ? "," : "", h->params[i].key, h->params[i].value);
	h->params_key = key.p ? key.p : kb_xstrdup("");
}

static void add_result(struct kb_fleet *f, struct kb_fleet_host *h, const struct kb_result *r)
{
	if (!h->nresults++)
		host_facts(h, r->host);
	/* A profile's verdict decides the host's tests (its criteria allow what the host cannot do). */
	if (r->profile) {
		const char *name = kb_json_get_str(r->profile, "name"), *verdict = kb_json_get_str(r->profile, "verdict");

		if (!h->profile)
			h->profile = kb_xstrdup(name ? name : "?");
		h->nprofiled++;
		h->profile_failed |= !verdict || strcmp(verdict, "pass");
	}
	for (size_t i = 0; i < r->ntests; i++) {
		const struct kb_test_result *t = &r->tests[i];
		const struct kb_metric *m = kb_test_primary_metric(t);
		char *id = t->vcpus > 1 ? kb_xasprintf("%s/%s (%d vCPUs)", t->suite, t->test, t->vcpus)
					: kb_xasprintf("%s/%s", t->suite, t->test);
		struct kb_fleet_cell *c = cell_get(h, test_get(f, id, m));

		free(id);
		if (!c->present || status_rank(t->status) > status_rank(c->status)) {
			c->status = t->status;
			free(c->reason);
			c->reason = t->reason ? kb_xstrdup(t->reason) : NULL;
		}
		c->present = true;
		if (t->status == KB_STATUS_OK && m && m->sum.n && isfinite(m->sum.mean)) {
			c->values = kb_xgrow(c->values, c->nvalues, &c->cap, sizeof(*c->values));
			c->values[c->nvalues++] = m->sum.mean;
		}
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void queue_file(struct kb_fleet *f, const char *path, const char *host)
{
	struct kb_fleet_job *j;

	f->jobs = kb_xgrow(f->jobs, f->njobs, &f->capjobs, sizeof(*f->jobs));
	j = &f->jobs[f->njobs++];
	j->path = kb_xstrdup(path);
	j->host = host ? kb_xstrdup(host) : NULL;
	j->failure = ends_with(path, KB_FLEET_FAILURE_SUFFIX);
}

/* In a worker thread: read the file, nothing shared touched. */
static void job_read(struct kb_fleet_job *j)
{
	char *text;

	if (!j->failure) {
		j->err = kb_result_load_lean(j->path, &j->r);
	} else if (!(j->err = kb_read_all(j->path, 1 << 20, &text, NULL))) {
		j->rec = json_tokener_parse(text);
		free(text);
	} else {
		j->err = kb_fail(j->err, "%s: cannot read the failure record: %s", j->path, strerror(-j->err));
	}
	if (j->err)
		j->msg = kb_xstrdup(kb_last_error());
}

/* {"fleet_failure": {"host", "stage", "reason"}}: a host that did not produce results. */
static int merge_failure(struct kb_fleet *f, const struct kb_fleet_job *j)
{
	json_object *rec = j->rec && json_object_is_type(j->rec, json_type_object)
				   ? kb_json_get_type(j->rec, "fleet_failure", json_type_object) : NULL;
	const char *name = j->host ? j->host : kb_json_get_str(rec, "host"), *reason = kb_json_get_str(rec, "reason");
	struct kb_fleet_host *h;

	if (!rec || !name || !reason)
		return kb_fail(EINVAL, "%s: not a failure record (want {\"fleet_failure\": {\"host\": ..., "
			       "\"stage\": ..., \"reason\": ...}})", j->path);
	h = host_get(f, name);
	h->nfiles++;
	if (!h->failure) {
		const char *stage = kb_json_get_str(rec, "stage");

		h->failure = kb_xstrdup(reason);
		h->failure_stage = kb_xstrdup(stage ? stage : "run");
	}
	f->nfiles++;
	return 0;
}

static int merge_job(struct kb_fleet *f, const struct kb_fleet_job *j)
{
	const char *name;
	struct kb_fleet_host *h;

	if (j->err)
		return kb_fail(j->err, "%s", j->msg);
	if (j->failure)
		return merge_failure(f, j);
	name = j->host ? j->host : kb_json_get_str(j->r.host, "hostname");
	h = host_get(f, name && *name ? name : j->path);
	h->nfiles++;
	add_result(f, h, &j->r);
	f->nfiles++;
	return 0;
}

static void job_free(struct kb_fleet_job *j)
{
	if (!j->failure && !j->err)
		kb_result_free(&j->r);
	json_object_put(j->rec);
	free(j->path);
	free(j->host);
	free(j->msg);
}

struct job_batch {
	struct kb_fleet_job *jobs;
	size_t n;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct job_batch *b = arg;
	size_t i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->n)
		job_read(&b->jobs[i]);
	return NULL;
}

/* Read the queued files, as many at once as there are CPUs, a batch at a time so that only a batch's
 * results are ever in memory; merged in the order they were queued, so the report never depends on
 * which thread finished first. */
int kb_fleet_load(struct kb_fleet *f)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (size_t)ncpu, batch = 8 * nthreads;
	pthread_t tids[16];
	int err = 0;

	for (size_t start = 0; start < f->njobs; start += batch) {
		struct job_batch b = { .jobs = f->jobs + start, .n = f->njobs - start < batch ? f->njobs - start : batch };
		size_t started = 0;

		atomic_init(&b.next, 0);
		/* This thread reads too: one file (a fuzz input, a one-host report) starts no thread. */
		for (; started + 1 < nthreads && started + 1 < b.n; started++)
			if (pthread_create(&tids[started], NULL, worker, &b))
				break;
		worker(&b);
		for (size_t t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
		for (size_t i = 0; i < b.n; i++) {
			if (!err)
				err = merge_job(f, &b.jobs[i]);
			job_free(&b.jobs[i]);
		}
	}
	free(f->jobs);
	f->jobs = NULL;
	f->njobs = f->capjobs = 0;
	return err;
}

static int no_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Every *.json below dir, in name order, for host (NULL: each subdirectory of dir is a host). */
static int add_dir(struct kb_fleet *f, const char *dir, const char *host, size_t *found)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, no_hidden, alphasort), err = 0;

	if (n < 0)
		return kb_fail(-errno, "%s: cannot read the directory: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *path = kb_xasprintf("%s/%s", dir, ents[i]->d_name);
		struct stat st;

		if (!err && stat(path, &st))
			err = kb_fail(-errno, "%s: %s", path, strerror(errno));
		else if (!err && S_ISDIR(st.st_mode)) {
			size_t before = *found;

			err = add_dir(f, path, host ? host : ents[i]->d_name, found);
			if (!err && !host && *found == before) {
				struct kb_fleet_host *h = host_get(f, ents[i]->d_name);

				if (!h->failure) {
					h->failure_stage = kb_xstrdup("fetch");
					h->failure = kb_xasprintf("no result file in %s", path);
				}
			}
		} else if (!err && S_ISREG(st.st_mode) && ends_with(ents[i]->d_name, ".json")) {
			queue_file(f, path, host);
			++*found;
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	return err;
}

int kb_fleet_add_path(struct kb_fleet *f, const char *path)
{
	struct stat st;
	size_t found = 0;

	if (stat(path, &st))
		return kb_fail(-errno, "%s: cannot read: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		queue_file(f, path, NULL);
		return 0;
	}
	return add_dir(f, path, NULL, &found);
}

/* ---- the fleet's figures ---- */

static int host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kb_fleet_host *)a)->name, ((const struct kb_fleet_host *)b)->name);
}

static double median_of(const double *v, size_t n)
{
	struct kb_summary s;

	if (!n)
		return NAN;
	kb_summarize(v, n, &s);
	return s.median;
}

static const char *param_value(const struct kb_fleet_host *h, const char *key)
{
	struct kb_fleet_param k = { .key = (char *)key }, *p;

	p = h->nparams ? bsearch(&k, h->params, h->nparams, sizeof(k), param_cmp) : NULL;
	return p ? p->value : NULL;
}

/* A parameter differs within the fleet when two hosts that ran give it different values (or one lacks it). */
static bool param_differs(const struct kb_fleet *f, const char *key)
{
	const char *first = NULL;
	bool seen = false;

	for (size_t h = 0; h < f->nhosts; h++) {
		const char *v;

		if (!f->hosts[h].nresults)
			continue;
		v = param_value(&f->hosts[h], key);
		if (!seen) {
			first = v;
			seen = true;
		} else if (!v != !first || (v && strcmp(v, first))) {
			return true;
		}
	}
	return false;
}

static void make_groups(struct kb_fleet *f)
{
	for (size_t h = 0; h < f->nhosts; h++) {
		struct kb_fleet_host *x = &f->hosts[h];
		struct kb_fleet_group *g = NULL;
		struct kb_buf differ = { 0 };

		if (!x->nresults)
			continue;
		for (size_t i = 0; i < f->ngroups && !g; i++)
			if (!strcmp(f->groups[i].uarch, x->uarch) && !strcmp(f->groups[i].kernel, x->kernel) &&
			    !strcmp(f->groups[i].backend, x->backend) && !strcmp(f->groups[i].params_key, x->params_key))
				g = &f->groups[i];
		if (!g) {
			f->groups = kb_xrealloc(f->groups, f->ngroups + 1, sizeof(*f->groups));
			g = &f->groups[f->ngroups++];
			memset(g, 0, sizeof(*g));
			g->uarch = x->uarch;
			g->kernel = x->kernel;
			g->backend = x->backend;
			g->params_key = x->params_key;
			for (size_t p = 0; p < x->nparams; p++)
				if (param_differs(f, x->params[p].key))
					kb_buf_printf(&differ, "%s%s=%s", differ.len ? ", " : "", x->params[p].key,
						      x->params[p].value);
			g->params_differ = differ.p ? differ.p : kb_xstrdup("");
		}
		x->group = (size_t)(g - f->groups);
		g->nhosts++;
	}
	for (size_t i = 0; i < f->ngroups; i++) {
		struct kb_fleet_group *g = &f->groups[i];
		double *v = kb_xcalloc(f->nhosts + 1, sizeof(*v));

		g->medians = kb_xcalloc(f->ntests + 1, sizeof(*g->medians));
		for (size_t t = 0; t < f->ntests; t++) {
			size_t n = 0;

			for (size_t h = 0; h < f->nhosts; h++) {
				const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);

				if (f->hosts[h].nresults && f->hosts[h].group == i && isfinite(c->value))
					v[n++] = c->value;
			}
			g->medians[t] = median_of(v, n);
		}
		free(v);
	}
}

static void judge_test(struct kb_fleet *f, size_t t, double *v)
{
	struct kb_fleet_test *ft = &f->tests[t];
	struct kb_summary s;
	size_t n = 0;

	for (size_t h = 0; h < f->nhosts; h++)
		if (isfinite(kb_fleet_cell(f, h, t)->value))
			v[n++] = kb_fleet_cell(f, h, t)->value;
	ft->nvalid = n;
	ft->median = ft->mad = ft->min = ft->max = ft->spread_pct = NAN;
	if (!n)
		return;
	kb_summarize(v, n, &s);
	ft->median = s.median;
	ft->mad = s.mad;
	ft->min = s.min;
	ft->max = s.max;
	ft->spread_pct = ft->median ? 100 * s.mad / KB_MAD_TO_SIGMA / fabs(ft->median) : NAN;
	for (size_t h = 0; h < f->nhosts; h++) {
		struct kb_fleet_cell *c;
		double d;

		if (t >= f->hosts[h].ncells || !isfinite(f->hosts[h].cells[t].value))
			continue;
		c = &f->hosts[h].cells[t];
		d = c->value - ft->median;
		c->dev_pct = ft->median ? 100 * d / fabs(ft->median) : NAN;
		/* With no spread at all (identical hosts), any host off the median is infinitely far. */
		c->z = s.mad > 0 ? KB_MAD_TO_SIGMA * d / s.mad : (d == 0 ? 0 : copysign(INFINITY, d));
		c->worse = ft->higher_is_better ? d < 0 : d > 0;
		c->outlier = n >= f->opts.min_hosts && fabs(c->z) > f->opts.outlier_z &&
			     fabs(c->dev_pct) > f->opts.min_dev_pct;
		if (c->outlier)
			ft->noutliers++;
	}
}

void kb_fleet_finish(struct kb_fleet *f)
{
	double *v = kb_xcalloc(f->nhosts + 1, sizeof(*v));

	qsort(f->hosts, f->nhosts, sizeof(*f->hosts), host_cmp);
	for (size_t h = 0; h < f->nhosts; h++) {
		struct kb_fleet_host *x = &f->hosts[h];

		for (size_t t = 0; t < x->ncells; t++)
			x->cells[t].value = median_of(x->cells[t].values, x->cells[t].nvalues);
		if (!x->nresults && !x->failure) {
			x->failure_stage = kb_xstrdup("fetch");
			x->failure = kb_xstrdup("no result file");
		}
	}
	for (size_t t = 0; t < f->ntests; t++)
		judge_test(f, t, v);
	free(v);
	make_groups(f);
	f->pass = f->nhosts > 0;
	f->nfailed = 0;
	for (size_t h = 0; h < f->nhosts; h++) {
		struct kb_fleet_host *x = &f->hosts[h];

		for (size_t t = 0; t < f->ntests; t++) {
			const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);

			if (!c->present)
				x->nmissing++;
			else if (c->status == KB_STATUS_OK)
				x->nok++;
			else if (c->status == KB_STATUS_SKIPPED)
				x->nskipped++;
			else if (c->status == KB_STATUS_INVALID)
				x->ninvalid++;
			else
				x->nerror++;
			if (c->outlier && c->worse)
				x->noutliers_worse++;
			else if (c->outlier)
				x->noutliers_better++;
		}
		/* A failure record wins over results: the run did not complete. */
		x->pass = !x->failure && !x->noutliers_worse &&
			  (x->nprofiled ? !x->profile_failed : !x->ninvalid && !x->nerror);
		if (x->failure)
			f->nfailed++;
		f->pass = f->pass && x->pass;
	}
}
