/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet-table.c: the fleet report as plain text: the verdict, per test the fleet's median and
 * spread, the outliers with how far off they are, the groups, the hosts x tests matrix, the failed. */
#include <math.h>
#include <string.h>

#include "core/kb.h"
#include "output/fleet-writers.h"
#include "output/writers.h"

static int name_width(const struct kb_fleet *f)
{
	size_t w = 4;

	for (size_t h = 0; h < f->nhosts; h++)
		if (strlen(f->hosts[h].name) > w)
			w = strlen(f->hosts[h].name);
	return (int)(w > 40 ? 40 : w);
}

static void tests_section(FILE *out, const struct kb_fleet *f)
{
	fprintf(out, "\nTests (T: the matrix column; spread: 1.4826 MAD / median)\n");
	fprintf(out, "%-4s %-40s %-8s %-12s %6s %10s %8s %10s %10s %9s\n", "T", "TEST", "METRIC", "UNIT", "HOSTS",
		"MEDIAN", "SPREAD", "MIN", "MAX", "OUTLIERS");
	for (size_t t = 0; t < f->ntests; t++) {
		const struct kb_fleet_test *x = &f->tests[t];
		char med[32], lo[32], hi[32], sp[32], id[24];

		kb_format_si(x->median, med, sizeof(med));
		kb_format_si(x->min, lo, sizeof(lo));
		kb_format_si(x->max, hi, sizeof(hi));
		kb_fleet_spread_text(x, sp, sizeof(sp));
		snprintf(id, sizeof(id), "T%zu", t + 1);
		fprintf(out, "%-4s %-40s %-8s %-12s %6zu %10s %8s %10s %10s %9zu\n", id, x->id, x->metric, x->unit,
			x->nvalid, isfinite(x->median) ? med : "-", sp, isfinite(x->min) ? lo : "-",
			isfinite(x->max) ? hi : "-", x->noutliers);
	}
}

static void outliers_section(FILE *out, const struct kb_fleet *f)
{
	bool any = false;

	for (size_t t = 0; t < f->ntests; t++)
		for (size_t h = 0; h < f->nhosts; h++) {
			const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);
			char v[32], med[32], how[192];

			if (!c->outlier)
				continue;
			if (!any)
				fprintf(out, "\nOutliers (robust z beyond %.1f and more than %.1f%% off the median)\n",
					f->opts.outlier_z, f->opts.min_dev_pct);
			any = true;
			kb_format_si(c->value, v, sizeof(v));
			kb_format_si(f->tests[t].median, med, sizeof(med));
			kb_fleet_outlier_text(c, how, sizeof(how));
			fprintf(out, "  %s  %s: %s %s against %s: %s\n", f->hosts[h].name, f->tests[t].id, v,
				f->tests[t].unit, med, how);
		}
	if (!any)
		fprintf(out, "\nOutliers: none (robust z beyond %.1f and more than %.1f%% off the median; "
			"called with %zu or more hosts per test)\n", f->opts.outlier_z, f->opts.min_dev_pct,
			f->opts.min_hosts);
}

static void groups_section(FILE *out, const struct kb_fleet *f)
{
	fprintf(out, "\nGroups (microarchitecture, kernel, KVM backend and the parameters that differ)\n");
	for (size_t g = 0; g < f->ngroups; g++) {
		const struct kb_fleet_group *x = &f->groups[g];

		fprintf(out, "  G%zu: %zu host%s: %s, kernel %s, %s%s%s\n", g + 1, x->nhosts, x->nhosts == 1 ? "" : "s",
			x->uarch, x->kernel, x->backend, *x->params_differ ? ", " : "", x->params_differ);
		for (size_t t = 0; t < f->ntests && f->ngroups > 1; t++) {
			char med[32];
			double d = kb_fleet_group_delta_pct(f, g, t);

			if (!isfinite(x->medians[t]))
				continue;
			kb_format_si(x->medians[t], med, sizeof(med));
			fprintf(out, "      T%zu median %s", t + 1, med);
			if (isfinite(d))
				fprintf(out, " (%+.1f%% from the fleet)", d);
			fputc('\n', out);
		}
	}
}

/* Each matrix column as wide as its widest cell. */
static int column_width(const struct kb_fleet *f, size_t t)
{
	size_t w = 3;

	for (size_t h = 0; h < f->nhosts; h++) {
		char cell[64];

		kb_fleet_cell_text(kb_fleet_cell(f, h, t), cell, sizeof(cell));
		if (strlen(cell) > w)
			w = strlen(cell);
	}
	return (int)w;
}

static int verdict_width(const struct kb_fleet *f)
{
	size_t w = 7;

	for (size_t h = 0; h < f->nhosts; h++) {
		char verdict[96];

		kb_fleet_host_verdict(&f->hosts[h], verdict, sizeof(verdict));
		if (strlen(verdict) > w)
			w = strlen(verdict);
	}
	return (int)w;
}

static void matrix_section(FILE *out, const struct kb_fleet *f)
{
	int w = name_width(f), vw = verdict_width(f), *cw = kb_xcalloc(f->ntests + 1, sizeof(*cw));

	fprintf(out, "\nHosts x tests (primary metric; an outlier shows its deviation, '!' on the slow side)\n");
	fprintf(out, "%-*s %-5s %-*s", w, "HOST", "GROUP", vw, "VERDICT");
	for (size_t t = 0; t < f->ntests; t++) {
		char id[24];

		snprintf(id, sizeof(id), "T%zu", t + 1);
		cw[t] = column_width(f, t);
		fprintf(out, " %-*s", cw[t], id);
	}
	fputc('\n', out);
	for (size_t h = 0; h < f->nhosts; h++) {
		const struct kb_fleet_host *x = &f->hosts[h];
		char verdict[96], grp[16];

		kb_fleet_host_verdict(x, verdict, sizeof(verdict));
		if (x->nresults)
			snprintf(grp, sizeof(grp), "G%zu", x->group + 1);
		else
			snprintf(grp, sizeof(grp), "-");
		fprintf(out, "%-*s %-5s %-*s", w, x->name, grp, vw, verdict);
		for (size_t t = 0; t < f->ntests; t++) {
			char cell[64];

			kb_fleet_cell_text(kb_fleet_cell(f, h, t), cell, sizeof(cell));
			fprintf(out, " %-*s", cw[t], cell);
		}
		fputc('\n', out);
	}
	free(cw);
}

static void failed_section(FILE *out, const struct kb_fleet *f)
{
	if (!f->nfailed)
		return;
	fprintf(out, "\nHosts that failed to run\n");
	for (size_t h = 0; h < f->nhosts; h++)
		if (f->hosts[h].failure)
			fprintf(out, "  %s (%s): %s\n", f->hosts[h].name, f->hosts[h].failure_stage, f->hosts[h].failure);
}

static int write_table(const struct kb_fleet *f, const char *title, FILE *out)
{
	char sum[256];

	kb_fleet_summary(f, sum, sizeof(sum));
	fprintf(out, "%s: %s\n%s\n", title, kb_fleet_verdict_word(f->pass), sum);
	tests_section(out, f);
	outliers_section(out, f);
	failed_section(out, f);
	groups_section(out, f);
	matrix_section(out, f);
	return 0;
}

const struct kb_fleet_writer kb_fleet_writer_table = {
	.name = "table",
	.write = write_table,
};
