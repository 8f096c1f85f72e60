/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet-markdown.c: the fleet report in Markdown: verdict, tests, outliers, failed hosts, groups and
 * the hosts x tests matrix as tables. */
#include <math.h>

#include "core/kb.h"
#include "output/fleet-writers.h"
#include "output/writers.h"

static void md(FILE *out, const char *s)
{
	kb_markdown_escape(out, s);
}

static void tests_table(FILE *out, const struct kb_fleet *f)
{
	fputs("\n## Tests\n\nSpread: 1.4826 × MAD / median, the fleet's robust coefficient of variation.\n\n"
	      "| | test | metric | hosts | median | spread | min | max | outliers |\n"
	      "|---|---|---|---:|---:|---:|---:|---:|---:|\n", out);
	for (size_t t = 0; t < f->ntests; t++) {
		const struct kb_fleet_test *x = &f->tests[t];
		char med[32], lo[32], hi[32], sp[32];

		kb_format_si(x->median, med, sizeof(med));
		kb_format_si(x->min, lo, sizeof(lo));
		kb_format_si(x->max, hi, sizeof(hi));
		kb_fleet_spread_text(x, sp, sizeof(sp));
		fprintf(out, "| T%zu | ", t + 1);
		kb_markdown_code(out, x->id, true);
		fputs(" | ", out);
		md(out, x->metric);
		fprintf(out, " (");
		md(out, x->unit);
		fprintf(out, ") | %zu | %s | %s | %s | %s | %zu |\n", x->nvalid, isfinite(x->median) ? med : "-", sp,
			isfinite(x->min) ? lo : "-", isfinite(x->max) ? hi : "-", x->noutliers);
	}
}

static void outliers_table(FILE *out, const struct kb_fleet *f)
{
	bool any = false;

	fprintf(out, "\n## Outliers\n\nA host is an outlier on a test when its robust z-score (0.6745 × deviation / MAD) "
		"is beyond %.1f and it is more than %.1f%% off the fleet's median, with %zu or more hosts measuring it.\n\n",
		f->opts.outlier_z, f->opts.min_dev_pct, f->opts.min_hosts);
	for (size_t t = 0; t < f->ntests; t++)
		for (size_t h = 0; h < f->nhosts; h++) {
			const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);
			char v[32], how[192];

			if (!c->outlier)
				continue;
			if (!any)
				fputs("| host | test | value | how far off |\n|---|---|---:|---|\n", out);
			any = true;
			kb_format_si(c->value, v, sizeof(v));
			kb_fleet_outlier_text(c, how, sizeof(how));
			fputs("| ", out);
			md(out, f->hosts[h].name);
			fputs(" | ", out);
			kb_markdown_code(out, f->tests[t].id, true);
			fprintf(out, " | %s | %s |\n", v, how);
		}
	if (!any)
		fputs("None.\n", out);
}

static void failed_table(FILE *out, const struct kb_fleet *f)
{
	if (!f->nfailed)
		return;
	fputs("\n## Hosts that failed to run\n\n| host | stage | why |\n|---|---|---|\n", out);
	for (size_t h = 0; h < f->nhosts; h++) {
		if (!f->hosts[h].failure)
			continue;
		fputs("| ", out);
		md(out, f->hosts[h].name);
		fputs(" | ", out);
		md(out, f->hosts[h].failure_stage);
		fputs(" | ", out);
		md(out, f->hosts[h].failure);
		fputs(" |\n", out);
	}
}

static void groups_table(FILE *out, const struct kb_fleet *f)
{
	fputs("\n## Groups\n\nHosts grouped by microarchitecture, kernel, KVM backend and KVM parameters (those that "
	      "differ within the fleet shown); per test the group's median against the fleet's.\n\n"
	      "| group | hosts | microarchitecture | kernel | KVM | parameters that differ |", out);
	for (size_t t = 0; t < f->ntests; t++)
		fprintf(out, " T%zu |", t + 1);
	fputs("\n|---|---:|---|---|---|---|", out);
	for (size_t t = 0; t < f->ntests; t++)
		fputs("---:|", out);
	fputc('\n', out);
	for (size_t g = 0; g < f->ngroups; g++) {
		const struct kb_fleet_group *x = &f->groups[g];

		fprintf(out, "| G%zu | %zu | ", g + 1, x->nhosts);
		md(out, x->uarch);
		fputs(" | ", out);
		md(out, x->kernel);
		fputs(" | ", out);
		md(out, x->backend);
		fputs(" | ", out);
		md(out, *x->params_differ ? x->params_differ : "-");
		fputs(" |", out);
		for (size_t t = 0; t < f->ntests; t++) {
			char med[32];
			double d = kb_fleet_group_delta_pct(f, g, t);

			kb_format_si(x->medians[t], med, sizeof(med));
			if (!isfinite(x->medians[t]))
				fputs(" - |", out);
			else if (isfinite(d))
				fprintf(out, " %s (%+.1f%%) |", med, d);
			else
				fprintf(out, " %s |", med);
		}
		fputc('\n', out);
	}
}

static void matrix_table(FILE *out, const struct kb_fleet *f)
{
	fputs("\n## Hosts × tests\n\nThe primary metric's mean per host; an outlier shows its deviation from the fleet "
	      "median, with `!` on the slow side.\n\n| host | group | verdict |", out);
	for (size_t t = 0; t < f->ntests; t++)
		fprintf(out, " T%zu |", t + 1);
	fputs("\n|---|---|---|", out);
	for (size_t t = 0; t < f->ntests; t++)
		fputs("---:|", out);
	fputc('\n', out);
	for (size_t h = 0; h < f->nhosts; h++) {
		const struct kb_fleet_host *x = &f->hosts[h];
		char verdict[96];

		kb_fleet_host_verdict(x, verdict, sizeof(verdict));
		fputs("| ", out);
		md(out, x->name);
		if (x->nresults)
			fprintf(out, " | G%zu | ", x->group + 1);
		else
			fputs(" | - | ", out);
		md(out, verdict);
		fputs(" |", out);
		for (size_t t = 0; t < f->ntests; t++) {
			char cell[64];

			kb_fleet_cell_text(kb_fleet_cell(f, h, t), cell, sizeof(cell));
			fputc(' ', out);
			md(out, cell);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
}

static int write_markdown(const struct kb_fleet *f, const char *title, FILE *out)
{
	char sum[256];

	fputs("# ", out);
	md(out, title);
	kb_fleet_summary(f, sum, sizeof(sum));
	fprintf(out, "\n\n**%s**: %s.\n", kb_fleet_verdict_word(f->pass), sum);
	tests_table(out, f);
	outliers_table(out, f);
	failed_table(out, f);
	groups_table(out, f);
	matrix_table(out, f);
	return 0;
}

const struct kb_fleet_writer kb_fleet_writer_markdown = {
	.name = "markdown",
	.write = write_markdown,
};
