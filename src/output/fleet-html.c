/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet-html.c: the fleet report as one self-contained HTML file (no external assets): the verdict
 * and key figures first, then outliers, hosts that failed, per test the fleet's spread as a chart,
 * the groups and the hosts x tests matrix. */
#include <math.h>
#include <stdlib.h>

#include "core/kb.h"
#include "output/fleet-writers.h"
#include "output/svg.h"
#include "output/writers.h"

static const char css[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1180px;color:#222;line-height:1.4}"
	"h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:28px}"
	"table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d4d4d4;padding:3px 8px;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	".verdict{display:inline-block;padding:6px 14px;border-radius:4px;font-weight:bold;color:#fff}"
	".pass{background:#2e7d32}.fail{background:#c62828}"
	".figures{display:flex;gap:24px;margin:12px 0}.figures div{font-size:90%;color:#555}"
	".figures b{display:block;font-size:180%;color:#222}"
	"td.slow{background:#ffcdd2;font-weight:bold}td.fast{background:#c8e6c9}"
	"td.invalid,td.error{color:#c62828;font-weight:bold}td.skipped{color:#a66a00}td.missing{color:#999}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}svg.chart{border:1px solid #e3e3e3}"
	"@media print{details{display:block}details>*{display:block}.charts{display:block}}";

static void esc(FILE *out, const char *s)
{
	kb_html_escape(out, s);
}

static void first_screen(FILE *out, const struct kb_fleet *f, const char *title)
{
	size_t slow = 0, outl = 0;
	char sum[256];

	for (size_t h = 0; h < f->nhosts; h++)
		slow += f->hosts[h].noutliers_worse, outl += f->hosts[h].noutliers_worse + f->hosts[h].noutliers_better;
	kb_fleet_summary(f, sum, sizeof(sum));
	fputs("<h1>", out);
	esc(out, title);
	fprintf(out, "</h1>\n<p><span class=\"verdict %s\">%s</span> ", f->pass ? "pass" : "fail",
		kb_fleet_verdict_word(f->pass));
	esc(out, sum);
	fprintf(out, "</p>\n<div class=\"figures\"><div><b>%zu</b>hosts</div><div><b>%zu</b>failed to run</div>"
		"<div><b>%zu</b>tests</div><div><b>%zu</b>groups</div><div><b>%zu</b>outliers (%zu slow)</div></div>\n",
		f->nhosts, f->nfailed, f->ntests, f->ngroups, outl, slow);
}

static void outliers(FILE *out, const struct kb_fleet *f)
{
	bool any = false;

	fprintf(out, "<h2>Outliers</h2>\n<p>Robust z-score (0.6745 &times; deviation / MAD) beyond %.1f and more than "
		"%.1f%% off the fleet median, with %zu or more hosts measuring the test.</p>\n",
		f->opts.outlier_z, f->opts.min_dev_pct, f->opts.min_hosts);
	for (size_t t = 0; t < f->ntests; t++)
		for (size_t h = 0; h < f->nhosts; h++) {
			const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);
			char v[32], med[32], how[192];

			if (!c->outlier)
				continue;
			if (!any)
				fputs("<table id=\"outliers\"><tr><th>host</th><th>test</th><th>value</th><th>fleet median</th>"
				      "<th>how far off</th></tr>\n", out);
			any = true;
			kb_format_si(c->value, v, sizeof(v));
			kb_format_si(f->tests[t].median, med, sizeof(med));
			kb_fleet_outlier_text(c, how, sizeof(how));
			fputs("<tr><td>", out);
			esc(out, f->hosts[h].name);
			fputs("</td><td>", out);
			esc(out, f->tests[t].id);
			fprintf(out, "</td><td class=\"num\">%s ", v);
			esc(out, f->tests[t].unit);
			fprintf(out, "</td><td class=\"num\">%s</td><td class=\"%s\">", med, c->worse ? "slow" : "fast");
			esc(out, how);
			fputs("</td></tr>\n", out);
		}
	fputs(any ? "</table>\n" : "<p>None.</p>\n", out);
}

static void failed(FILE *out, const struct kb_fleet *f)
{
	if (!f->nfailed)
		return;
	fputs("<h2>Hosts that failed to run</h2>\n<table id=\"failed\"><tr><th>host</th><th>stage</th><th>why</th></tr>\n",
	      out);
	for (size_t h = 0; h < f->nhosts; h++) {
		if (!f->hosts[h].failure)
			continue;
		fputs("<tr><td>", out);
		esc(out, f->hosts[h].name);
		fputs("</td><td>", out);
		esc(out, f->hosts[h].failure_stage);
		fputs("</td><td>", out);
		esc(out, f->hosts[h].failure);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* Every host's figure for test t, the median dashed and the outlier band shaded. */
static void test_chart(FILE *out, const struct kb_fleet *f, size_t t)
{
	const struct kb_fleet_test *x = &f->tests[t];
	struct kb_svg_point *pts = kb_xcalloc(f->nhosts + 1, sizeof(*pts));
	struct kb_svg_series s = { .name = "hosts", .color = "#1f77b4", .pts = pts, .line = x->median,
				   .band_lo = NAN, .band_hi = NAN };
	double sigma = x->mad / KB_MAD_TO_SIGMA;
	char title[256];

	for (size_t h = 0; h < f->nhosts; h++) {
		const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);

		pts[h] = (struct kb_svg_point){ .x = (double)h, .y = c->value, .lo = NAN, .hi = NAN, .flagged = c->outlier };
	}
	s.n = f->nhosts;
	if (isfinite(sigma) && sigma > 0) {
		s.band_lo = x->median - f->opts.outlier_z * sigma;
		s.band_hi = x->median + f->opts.outlier_z * sigma;
	}
	snprintf(title, sizeof(title), "%s: %s per host", x->id, x->metric);
	kb_svg_scatter_x(out, title, "host (in the matrix's order)", x->unit, &s, 1);
	free(pts);
}

static void tests(FILE *out, const struct kb_fleet *f)
{
	fputs("<h2>Tests</h2>\n<p>Spread: 1.4826 &times; MAD / median, the fleet's robust coefficient of variation.</p>\n"
	      "<table id=\"tests\"><tr><th></th><th>test</th><th>metric</th><th>hosts</th><th>median</th><th>spread</th>"
	      "<th>min</th><th>max</th><th>outliers</th></tr>\n", out);
	for (size_t t = 0; t < f->ntests; t++) {
		const struct kb_fleet_test *x = &f->tests[t];
		char med[32], lo[32], hi[32], sp[32];

		kb_format_si(x->median, med, sizeof(med));
		kb_format_si(x->min, lo, sizeof(lo));
		kb_format_si(x->max, hi, sizeof(hi));
		kb_fleet_spread_text(x, sp, sizeof(sp));
		fprintf(out, "<tr><td>T%zu</td><td>", t + 1);
		esc(out, x->id);
		fputs("</td><td>", out);
		esc(out, x->metric);
		fputs(" (", out);
		esc(out, x->unit);
		fprintf(out, ")</td><td class=\"num\">%zu</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%zu</td></tr>\n", x->nvalid,
			isfinite(x->median) ? med : "-", sp, isfinite(x->min) ? lo : "-", isfinite(x->max) ? hi : "-",
			x->noutliers);
	}
	fputs("</table>\n<details><summary>Charts: every host's figure per test (outliers ringed; dashed: the median; "
	      "band: the outlier bound)</summary>\n<div class=\"charts\">\n", out);
	for (size_t t = 0; t < f->ntests; t++)
		if (f->tests[t].nvalid)
			test_chart(out, f, t);
	fputs("</div>\n</details>\n", out);
}

static void groups(FILE *out, const struct kb_fleet *f)
{
	fputs("<h2>Groups</h2>\n<p>Hosts grouped by microarchitecture, kernel, KVM backend and KVM parameters (those that "
	      "differ within the fleet shown); per test the group's median and its distance from the fleet's.</p>\n"
	      "<table id=\"groups\"><tr><th>group</th><th>hosts</th><th>microarchitecture</th><th>kernel</th><th>KVM</th>"
	      "<th>parameters that differ</th>", out);
	for (size_t t = 0; t < f->ntests; t++)
		fprintf(out, "<th>T%zu</th>", t + 1);
	fputs("</tr>\n", out);
	for (size_t g = 0; g < f->ngroups; g++) {
		const struct kb_fleet_group *x = &f->groups[g];

		fprintf(out, "<tr><td>G%zu</td><td class=\"num\">%zu</td><td>", g + 1, x->nhosts);
		esc(out, x->uarch);
		fputs("</td><td>", out);
		esc(out, x->kernel);
		fputs("</td><td>", out);
		esc(out, x->backend);
		fputs("</td><td>", out);
		esc(out, *x->params_differ ? x->params_differ : "-");
		fputs("</td>", out);
		for (size_t t = 0; t < f->ntests; t++) {
			char med[32];
			double d = kb_fleet_group_delta_pct(f, g, t);

			kb_format_si(x->medians[t], med, sizeof(med));
			if (!isfinite(x->medians[t]))
				fputs("<td class=\"missing\">-</td>", out);
			else if (isfinite(d))
				fprintf(out, "<td class=\"num\">%s (%+.1f%%)</td>", med, d);
			else
				fprintf(out, "<td class=\"num\">%s</td>", med);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static const char *cell_class(const struct kb_fleet_cell *c)
{
	if (!c->present)
		return "missing";
	if (!isfinite(c->value))
		return kb_status_name(c->status);
	if (c->outlier)
		return c->worse ? "slow" : "fast";
	return "num";
}

static void matrix(FILE *out, const struct kb_fleet *f)
{
	fputs("<h2>Hosts &times; tests</h2>\n<p>The primary metric's mean per host; an outlier shows its deviation from "
	      "the fleet median (red: slower, green: faster).</p>\n<table id=\"matrix\"><tr><th>host</th><th>group</th>"
	      "<th>CPU</th><th>kernel</th><th>verdict</th>", out);
	for (size_t t = 0; t < f->ntests; t++) {
		fprintf(out, "<th title=\"");
		esc(out, f->tests[t].id);
		fprintf(out, "\">T%zu</th>", t + 1);
	}
	fputs("</tr>\n", out);
	for (size_t h = 0; h < f->nhosts; h++) {
		const struct kb_fleet_host *x = &f->hosts[h];
		char verdict[96];

		kb_fleet_host_verdict(x, verdict, sizeof(verdict));
		fputs("<tr><td>", out);
		esc(out, x->name);
		if (x->nresults)
			fprintf(out, "</td><td>G%zu</td><td>", x->group + 1);
		else
			fputs("</td><td>-</td><td>", out);
		esc(out, x->cpu ? x->cpu : "-");
		fputs("</td><td>", out);
		esc(out, x->kernel ? x->kernel : "-");
		fprintf(out, "</td><td class=\"%s\">", x->pass ? "num" : "invalid");
		esc(out, verdict);
		fputs("</td>", out);
		for (size_t t = 0; t < f->ntests; t++) {
			const struct kb_fleet_cell *c = kb_fleet_cell(f, h, t);
			char text[64];

			kb_fleet_cell_text(c, text, sizeof(text));
			fprintf(out, "<td class=\"%s\"", cell_class(c));
			if (c->reason) {
				fputs(" title=\"", out);
				esc(out, c->reason);
				fputc('"', out);
			}
			fputc('>', out);
			esc(out, text);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static int write_html(const struct kb_fleet *f, const char *title, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", out);
	esc(out, title);
	fprintf(out, "</title>\n<style>%s</style></head><body>\n", css);
	first_screen(out, f, title);
	outliers(out, f);
	failed(out, f);
	tests(out, f);
	groups(out, f);
	matrix(out, f);
	fputs("</body></html>\n", out);
	return 0;
}

const struct kb_fleet_writer kb_fleet_writer_html = {
	.name = "html",
	.write = write_html,
};
