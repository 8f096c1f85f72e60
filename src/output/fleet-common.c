/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet-common.c: the fleet writers' table, atomic file output and the wording every format shares. */
#include <math.h>
#include <string.h>

#include "core/kb.h"
#include "output/fleet-writers.h"
#include "output/writers.h"

static const struct kb_fleet_writer *const fleet_writers[] = {
	&kb_fleet_writer_table,
	&kb_fleet_writer_markdown,
	&kb_fleet_writer_json,
	&kb_fleet_writer_html,
};

const struct kb_fleet_writer *kb_find_fleet_writer(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(fleet_writers); i++)
		if (!strcmp(fleet_writers[i]->name, name))
			return fleet_writers[i];
	return NULL;
}

const char *kb_fleet_writer_names(void)
{
	static char names[128];

	if (!names[0])
		for (size_t i = 0; i < ARRAY_SIZE(fleet_writers); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 fleet_writers[i]->name);
	return names;
}

struct fleet_job {
	const struct kb_fleet_writer *w;
	const struct kb_fleet *f;
	const char *title;
};

static int fill_fleet(FILE *out, void *ctx)
{
	const struct fleet_job *job = ctx;

	return job->w->write(job->f, job->title, out);
}

int kb_write_fleet_file(const struct kb_fleet_writer *w, const struct kb_fleet *f, const char *title,
			const char *path)
{
	struct fleet_job job = { w, f, title };
	char what[64];

	snprintf(what, sizeof(what), "the %s fleet report", w->name);
	return kb_write_atomic(path, what, fill_fleet, &job);
}

const char *kb_fleet_verdict_word(bool pass)
{
	return pass ? "PASS" : "FAIL";
}

static size_t slow_outliers(const struct kb_fleet *f)
{
	size_t n = 0;

	for (size_t h = 0; h < f->nhosts; h++)
		n += f->hosts[h].noutliers_worse;
	return n;
}

void kb_fleet_summary(const struct kb_fleet *f, char *buf, size_t size)
{
	size_t slow = slow_outliers(f);

	snprintf(buf, size, "%zu host%s (%zu failed to run), %zu test%s, %zu file%s; %zu outlier%s on the slow side",
		 f->nhosts, f->nhosts == 1 ? "" : "s", f->nfailed, f->ntests, f->ntests == 1 ? "" : "s",
		 f->nfiles, f->nfiles == 1 ? "" : "s", slow, slow == 1 ? "" : "s");
}

double kb_fleet_group_delta_pct(const struct kb_fleet *f, size_t g, size_t t)
{
	double m = f->groups[g].medians[t], fleet = f->tests[t].median;

	if (!isfinite(m) || !isfinite(fleet) || !fleet)
		return NAN;
	return 100 * (m - fleet) / fabs(fleet);
}

void kb_fleet_host_verdict(const struct kb_fleet_host *h, char *buf, size_t size)
{
	size_t len = 0;

	if (h->failure) {
		snprintf(buf, size, "did not run (%s)", h->failure_stage);
		return;
	}
	if (h->pass) {
		if (h->profile)
			snprintf(buf, size, "pass (profile %s)", h->profile);
		else
			snprintf(buf, size, "pass");
		return;
	}
	len += (size_t)snprintf(buf, size, "FAIL:");
	if (h->profile && h->profile_failed) {
		len += (size_t)snprintf(buf + len, size - len, " profile %s failed", h->profile);
		if (h->noutliers_worse && len < size)
			snprintf(buf + len, size - len, ", %zu slow outlier%s", h->noutliers_worse,
				 h->noutliers_worse == 1 ? "" : "s");
		return;
	}
	if (h->ninvalid && len < size)
		len += (size_t)snprintf(buf + len, size - len, " %zu invalid", h->ninvalid);
	if (h->nerror && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s %zu error", h->ninvalid ? "," : "", h->nerror);
	if (h->noutliers_worse && len < size)
		snprintf(buf + len, size - len, "%s %zu slow outlier%s", h->ninvalid || h->nerror ? "," : "",
			 h->noutliers_worse, h->noutliers_worse == 1 ? "" : "s");
}

void kb_fleet_cell_text(const struct kb_fleet_cell *c, char *buf, size_t size)
{
	char v[32];

	if (!c->present) {
		snprintf(buf, size, "-");
		return;
	}
	if (!isfinite(c->value)) {
		snprintf(buf, size, "%s", kb_status_name(c->status));
		return;
	}
	kb_format_si(c->value, v, sizeof(v));
	if (c->outlier)
		snprintf(buf, size, "%s %+.1f%%%s", v, c->dev_pct, c->worse ? "!" : "");
	else
		snprintf(buf, size, "%s", v);
}

void kb_fleet_outlier_text(const struct kb_fleet_cell *c, char *buf, size_t size)
{
	char z[64];

	if (isfinite(c->z))
		snprintf(z, sizeof(z), "%+.1f", c->z);
	else
		snprintf(z, sizeof(z), "%s", c->z > 0 ? "+inf (the other hosts agree exactly)" : "-inf (the other hosts agree exactly)");
	snprintf(buf, size, "%+.1f%% from the fleet median (%s), robust z %s", c->dev_pct,
		 c->worse ? "slower" : "faster", z);
}

void kb_fleet_spread_text(const struct kb_fleet_test *t, char *buf, size_t size)
{
	if (isfinite(t->spread_pct))
		snprintf(buf, size, "%.1f%%", t->spread_pct);
	else
		snprintf(buf, size, "-");
}
