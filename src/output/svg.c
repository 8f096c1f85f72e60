/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.c: small inline-SVG charts for the HTML report; every text goes through the HTML escaper. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/svg.h"
#include "output/writers.h"

#define OUTLIER_COLOR "#d62728"

struct axis {
	double lo, hi, step;
	bool log;             /* decades from lo to hi (both powers of ten); step unused */
};

/* A 1, 2 or 5 times a power of ten that cuts range into about target steps. */
static double nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

static void axis_fit(struct axis *a, double lo, double hi, int target)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi <= lo) {
		double d = lo ? fabs(lo) * 0.1 : 1;

		lo -= d;
		hi += d;
	}
	a->log = false;
	a->step = nice_step(hi - lo, target);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	if (a->hi <= a->lo)
		a->hi = a->lo + a->step;
	/* Values near the ends of the doubles (a hostile or broken result): rounded out to the step they
	 * overflow, or their range does; the axis is then the values' own, in four equal parts. */
	if (!isfinite(a->lo) || !isfinite(a->hi) || !isfinite(a->step) || !(a->step > 0) || !isfinite(hi - lo)) {
		a->lo = fmax(lo, -DBL_MAX);
		a->hi = fmin(hi, DBL_MAX);
		a->step = a->hi / 4 - a->lo / 4;
	}
}

/* The grid lines of a linear axis after its start: (hi - lo) / step, or 0 where that is not a small
 * whole number (a step lost in the rounding of lo, or a range of millions of steps): the axis then
 * shows its two ends alone. */
static int axis_steps(const struct axis *a)
{
	double n = a->hi / a->step - a->lo / a->step;

	if (!isfinite(n) || n < 0.5 || n > 1000 || a->lo + a->step == a->lo)
		return 0;
	return (int)(n + 0.5);
}

/* The i-th grid value of a linear axis of n steps (n 0: its two ends). */
static double axis_value(const struct axis *a, int i, int n)
{
	/* In halves (exact in binary): lo + i * step overflows on an axis near the ends of the doubles. */
	return !n ? (i ? a->hi : a->lo) : i == n ? a->hi : 2 * (a->lo / 2 + (double)i * (a->step / 2));
}

/* A log axis: whole decades around the positive values in [lo, hi]. */
static void axis_fit_log(struct axis *a, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi) || lo <= 0 || hi <= 0) {
		lo = 1;
		hi = 10;
	}
	a->log = true;
	a->step = 0;
	a->lo = pow(10, floor(log10(lo)));
	a->hi = pow(10, ceil(log10(hi)));
	if (a->hi <= a->lo)
		a->hi = a->lo * 10;
}

/* Map v on the axis onto [p0, p1] (pixels); on a log axis, nothing falls below its start. */
static double scale(const struct axis *a, double v, double p0, double p1)
{
	if (a->log)
		return p0 + (log10(fmax(v, a->lo)) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) * (p1 - p0);
	/* Halves: the span of two values near the ends of the doubles overflows, half of it does not. */
	return p0 + (v / 2 - a->lo / 2) / (a->hi / 2 - a->lo / 2) * (p1 - p0);
}

static void range_update(double v, double *lo, double *hi)
{
	if (!isfinite(v))
		return;
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

static void open_svg(FILE *f, int w, int h, const char *title)
{
	/* Inline in HTML: no namespace declaration, and the page's CSS gives the background. */
	fprintf(f, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		   "font-size=\"11\" role=\"img\" aria-label=\"", w, h, w, h);
	kb_html_escape(f, title);
	fputs("\"><text x=\"8\" y=\"16\" font-weight=\"bold\">", f);
	kb_html_escape(f, title);
	fputs("</text>", f);
}

static void legend(FILE *f, const struct kb_svg_series *s, size_t ns, double x, double y)
{
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			   "<text x=\"%.0f\" y=\"%.0f\">", x, y - 9, s[i].color, x + 14, y);
		kb_html_escape(f, s[i].name);
		fputs("</text>", f);
		x += 24 + 7 * (double)strlen(s[i].name ? s[i].name : "");
	}
}

static void label(FILE *f, double x, double y, const char *anchor, const char *text)
{
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"%s\" fill=\"#444\">", x, y, anchor);
	kb_html_escape(f, text);
	fputs("</text>", f);
}

/* A horizontal log axis: a labelled line per decade, faint ones at 2 and 5 times it, the unit below. */
static void log_axis(FILE *f, const struct axis *a, double p0, double p1, double c0, double c1, const char *unit)
{
	char buf[32];

	for (double d = a->lo; d <= a->hi * 1.0001; d *= 10)
		for (int k = 1; k <= 5; k += k == 1 ? 1 : 3) {
			double v = d * k, p = scale(a, v, p0, p1);

			if (v > a->hi * 1.0001)
				break;
			fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\"/>", p, c0, p, c1,
				k == 1 ? "#d0d0d0" : "#f0f0f0");
			if (k == 1) {
				kb_format_si(v, buf, sizeof(buf));
				label(f, p, c1 + 14, "middle", buf);
			}
		}
	if (unit) {
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#444\">", (p0 + p1) / 2,
			c1 + 28);
		kb_html_escape(f, unit);
		fputs(" (log scale)</text>", f);
	}
}

/* Grid lines and labels of a value axis; vertical says whether values run along y. */
static void value_axis(FILE *f, const struct axis *a, double p0, double p1, double c0, double c1, bool vertical,
		       const char *unit)
{
	char buf[32];
	int n;

	if (a->log) {
		log_axis(f, a, p0, p1, c0, c1, unit);
		return;
	}
	n = axis_steps(a);
	/* The grid as one path, then the labels: a chart's size is mostly its axes. */
	fputs("<path stroke=\"#e3e3e3\" d=\"", f);
	for (int i = 0; i <= (n ? n : 1); i++) {
		double p = scale(a, axis_value(a, i, n), p0, p1);

		if (vertical)
			fprintf(f, "M%.0f %.0fH%.0f", c0, p, c1);
		else
			fprintf(f, "M%.0f %.0fV%.0f", p, c0, c1);
	}
	fputs("\"/>", f);
	for (int i = 0; i <= (n ? n : 1); i++) {
		double v = axis_value(a, i, n), p = scale(a, v, p0, p1);

		kb_format_si(fabs(v) < a->step * 1e-9 ? 0 : v, buf, sizeof(buf));
		if (vertical)
			label(f, c0 - 4, p + 4, "end", buf);
		else
			label(f, p, c1 + 14, "middle", buf);
	}
	if (unit && vertical) {
		fprintf(f, "<text transform=\"translate(12,%.0f) rotate(-90)\" text-anchor=\"middle\" fill=\"#444\">",
			(p0 + p1) / 2);
		kb_html_escape(f, unit);
		fputs("</text>", f);
	} else if (unit) {
		label(f, (p0 + p1) / 2, c1 + 28, "middle", unit);
	}
}

/* An interval as a line with end caps, along x (horizontal) or y. */
static void error_bar(FILE *f, double a, double b, double at, bool horizontal)
{
	if (horizontal)
		fprintf(f, "<path d=\"M%.0f %.0fH%.0fM%.0f %.0fV%.0fM%.0f %.0fV%.0f\" stroke=\"#222\" fill=\"none\"/>",
			a, at, b, a, at - 4, at + 4, b, at - 4, at + 4);
	else
		fprintf(f, "<path d=\"M%.0f %.0fV%.0fM%.0f %.0fH%.0fM%.0f %.0fH%.0f\" stroke=\"#222\" fill=\"none\"/>",
			at, a, b, at - 4, a, at + 4, at - 4, b, at + 4);
}

/* Category names can be long: keep the chart's left margin by cutting them. */
static void short_name(const char *s, char *buf, size_t size)
{
	const size_t max = 34;

	if (strlen(s) <= max) {
		snprintf(buf, size, "%s", s);
		return;
	}
	size_t cut = max - 1;

	/* Not inside a UTF-8 character: the cut text stays valid UTF-8. */
	while (cut && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	snprintf(buf, size, "%.*s…", (int)cut, s);
}

void kb_svg_bars(FILE *f, const char *title, const char *unit, const char *const *cats, size_t ncats,
		 const struct kb_svg_series *s, size_t ns, bool log)
{
	const double left = 230, right = 80, top = 44, row = 16 * (double)ns + 12, w = 760;
	double h = top + row * (double)ncats + 44, lo = log ? INFINITY : 0, hi = log ? -INFINITY : 0;
	struct axis ax = { 0 };
	char buf[64];

	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n && i < ncats; i++) {
			for (int v = 0; v < 3; v++) {
				double x = v == 0 ? s[k].pts[i].y : v == 1 ? s[k].pts[i].lo : s[k].pts[i].hi;

				if (!log || x > 0)
					range_update(x, &lo, &hi);
			}
		}
	if (log)
		axis_fit_log(&ax, lo, hi);
	else
		axis_fit(&ax, lo, hi, 5);
	open_svg(f, (int)w, (int)h, title);
	legend(f, s, ns, left, 34);
	value_axis(f, &ax, left, w - right, top - 4, h - 44, false, unit);
	for (size_t i = 0; i < ncats; i++) {
		double y0 = top + row * (double)i + 6;

		short_name(cats[i], buf, sizeof(buf));
		fprintf(f, "<g><title>");
		kb_html_escape(f, cats[i]);
		fprintf(f, "</title>");
		label(f, left - 6, y0 + row / 2 - 2, "end", buf);
		fprintf(f, "</g>");
		for (size_t k = 0; k < ns; k++) {
			const struct kb_svg_point *p = i < s[k].n ? &s[k].pts[i] : NULL;
			double x0 = scale(&ax, log ? ax.lo : 0, left, w - right), y = y0 + 16 * (double)k, x1, end;

			/* A value a log axis cannot show gets no bar, rather than a false one. */
			if (!p || !isfinite(p->y) || (log && p->y <= 0))
				continue;
			x1 = scale(&ax, p->y, left, w - right);
			fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"13\" fill=\"%s\"><title>",
				fmin(x0, x1), y, fabs(x1 - x0), s[k].color);
			kb_html_escape(f, s[k].name);
			kb_format_si(p->y, buf, sizeof(buf));
			fprintf(f, ": %s", buf);
			if (isfinite(p->lo) && isfinite(p->hi)) {
				kb_format_si(p->lo, buf, sizeof(buf));
				fprintf(f, " (95%% CI %s", buf);
				kb_format_si(p->hi, buf, sizeof(buf));
				fprintf(f, " to %s)", buf);
			}
			fputs("</title></rect>", f);
			end = x1;
			if (isfinite(p->lo) && isfinite(p->hi)) {
				error_bar(f, scale(&ax, p->lo, left, w - right), scale(&ax, p->hi, left, w - right), y + 6.5, true);
				end = fmax(end, scale(&ax, p->hi, left, w - right));
			}
			kb_format_si(p->y, buf, sizeof(buf));
			label(f, end + 5, y + 10, "start", buf);
		}
	}
	fputs("</svg>\n", f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void kb_svg_lines(FILE *f, const char *title, const char *xlabel, const char *unit,
		  const struct kb_svg_series *s, size_t ns)
{
	const double left = 70, right = 20, top = 44, bottom = 50, w = 560, h = 320;
	double xlo = INFINITY, xhi = -INFINITY, ylo = 0, yhi = 0, *xs;
	size_t nx = 0, total = 0;
	struct axis ax = { 0 }, ay = { 0 };
	char buf[32];

	for (size_t k = 0; k < ns; k++)
		total += s[k].n;
	xs = kb_xcalloc(total + 1, sizeof(*xs));
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			const struct kb_svg_point *p = &s[k].pts[i];

			range_update(p->x, &xlo, &xhi);
			range_update(p->y, &ylo, &yhi);
			range_update(p->hi, &ylo, &yhi);
			if (isfinite(p->x))
				xs[nx++] = p->x;
		}
	ax.lo = isfinite(xlo) ? xlo : 0;
	ax.hi = isfinite(xhi) && xhi > ax.lo ? xhi : ax.lo + 1;
	ax.step = 1;
	axis_fit(&ay, ylo, yhi, 5);
	open_svg(f, (int)w, (int)h, title);
	legend(f, s, ns, left, 34);
	value_axis(f, &ay, h - bottom, top, left, w - right, true, unit);
	/* The measured x values are the ticks: vCPU counts are few and not evenly spread. */
	qsort(xs, nx, sizeof(*xs), cmp_double);
	for (size_t i = 0; i < nx; i++) {
		double px;

		if (i && xs[i] == xs[i - 1])
			continue;
		px = scale(&ax, xs[i], left + 20, w - right - 20);
		snprintf(buf, sizeof(buf), "%g", xs[i]);
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#e3e3e3\"/>", px, top, px,
			h - bottom);
		label(f, px, h - bottom + 14, "middle", buf);
	}
	label(f, (left + w - right) / 2, h - bottom + 30, "middle", xlabel);
	for (size_t k = 0; k < ns; k++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s[k].color);
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].pts[i].x) && isfinite(s[k].pts[i].y))
				fprintf(f, "%.0f,%.0f ", scale(&ax, s[k].pts[i].x, left + 20, w - right - 20),
					scale(&ay, s[k].pts[i].y, h - bottom, top));
		fputs("\"/>", f);
		for (size_t i = 0; i < s[k].n; i++) {
			const struct kb_svg_point *p = &s[k].pts[i];
			double px, py;

			if (!isfinite(p->x) || !isfinite(p->y))
				continue;
			px = scale(&ax, p->x, left + 20, w - right - 20);
			py = scale(&ay, p->y, h - bottom, top);
			if (isfinite(p->lo) && isfinite(p->hi))
				error_bar(f, scale(&ay, p->lo, h - bottom, top), scale(&ay, p->hi, h - bottom, top), px, false);
			kb_format_si(p->y, buf, sizeof(buf));
			fprintf(f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"3.5\" fill=\"%s\"><title>%g: %s</title></circle>",
				px, py, s[k].color, p->x, buf);
		}
	}
	fputs("</svg>\n", f);
	free(xs);
}

void kb_svg_scatter(FILE *f, const char *title, const char *unit, const struct kb_svg_series *s, size_t ns)
{
	kb_svg_scatter_x(f, title, "sample", unit, s, ns);
}

void kb_svg_scatter_x(FILE *f, const char *title, const char *xlabel, const char *unit, const struct kb_svg_series *s,
		      size_t ns)
{
	const double left = 70, right = 20, top = 44, bottom = 40, w = 460, h = 260;
	double ylo = INFINITY, yhi = -INFINITY, pad;
	size_t nmax = 1;
	struct axis ax = { 0 }, ay = { 0 };

	for (size_t k = 0; k < ns; k++) {
		for (size_t i = 0; i < s[k].n; i++)
			range_update(s[k].pts[i].y, &ylo, &yhi);
		range_update(s[k].band_lo, &ylo, &yhi);
		range_update(s[k].band_hi, &ylo, &yhi);
		if (s[k].n > nmax)
			nmax = s[k].n;
	}
	/* 5% of the span each side, clamped to the doubles: samples near their ends (a hostile result) would
	 * otherwise pad the axis to infinity, which axis_fit() takes for no range, and put every point at an
	 * infinite pixel. */
	pad = isfinite(ylo) ? (yhi - ylo) * 0.05 : 0;
	axis_fit(&ay, fmax(ylo - pad, -DBL_MAX), fmin(yhi + pad, DBL_MAX), 3);
	ax.lo = -0.5;
	ax.hi = (double)nmax - 0.5;
	ax.step = 1;
	open_svg(f, (int)w, (int)h, title);
	/* One series needs no legend: the title names it. */
	if (ns > 1)
		legend(f, s, ns, left, 34);
	value_axis(f, &ay, h - bottom, top, left, w - right, true, unit);
	label(f, (left + w - right) / 2, h - bottom + 16, "middle", xlabel);
	for (size_t k = 0; k < ns; k++) {
		if (isfinite(s[k].band_lo) && isfinite(s[k].band_hi)) {
			double y1 = scale(&ay, s[k].band_hi, h - bottom, top), y0 = scale(&ay, s[k].band_lo, h - bottom, top);

			fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.15\"/>",
				left, y1, w - right - left, fmax(y0 - y1, 0.5), s[k].color);
		}
		if (isfinite(s[k].line))
			fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>",
				left, w - right, scale(&ay, s[k].line, h - bottom, top), scale(&ay, s[k].line, h - bottom, top),
				s[k].color);
	}
	for (size_t k = 0; k < ns; k++) {
		/* The plain samples of a series are one path of dots (a round cap on a zero-length line):
		 * a report of a few thousand samples stays small.  Outliers are circles with their value. */
		fprintf(f, "<path stroke=\"%s\" stroke-width=\"6\" stroke-linecap=\"round\" d=\"", s[k].color);
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].pts[i].y) && !s[k].pts[i].flagged)
				fprintf(f, "M%.0f %.0fh0", scale(&ax, s[k].pts[i].x, left, w - right),
					scale(&ay, s[k].pts[i].y, h - bottom, top));
		fputs("\"><title>", f);
		kb_html_escape(f, s[k].name);
		fprintf(f, " (n = %zu)</title></path>", s[k].n);
		for (size_t i = 0; i < s[k].n; i++) {
			const struct kb_svg_point *p = &s[k].pts[i];
			char buf[32];

			if (!isfinite(p->y) || !p->flagged)
				continue;
			kb_format_si(p->y, buf, sizeof(buf));
			/* An outlier keeps its series' colour, ringed: both sides can have them. */
			fprintf(f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"5\" fill=\"%s\" stroke=\"" OUTLIER_COLOR
				   "\" stroke-width=\"2.5\"><title>", scale(&ax, p->x, left, w - right),
				scale(&ay, p->y, h - bottom, top), s[k].color);
			kb_html_escape(f, s[k].name);
			fprintf(f, " #%zu: %s (outlier)</title></circle>", i, buf);
		}
	}
	fputs("</svg>\n", f);
}
