/* svg.c: small inline-SVG charts for the HTML report; every text goes through the HTML escaper. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kb.h"
#include "svg.h"
#include "writers.h"

#define FONT "font-family=\"sans-serif\" font-size=\"11\""
#define OUTLIER_COLOR "#d62728"

struct axis {
	double lo, hi, step;
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
	a->step = nice_step(hi - lo, target);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	if (a->hi <= a->lo)
		a->hi = a->lo + a->step;
}

/* Map v on the axis onto [p0, p1] (pixels). */
static double scale(const struct axis *a, double v, double p0, double p1)
{
	return p0 + (v - a->lo) / (a->hi - a->lo) * (p1 - p0);
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
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", w, h, w, h);
	kb_html_escape(f, title);
	fputs("\"><title>", f);
	kb_html_escape(f, title);
	fprintf(f, "</title><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
		   "<text x=\"8\" y=\"16\" " FONT " font-weight=\"bold\">", w, h);
	kb_html_escape(f, title);
	fputs("</text>", f);
}

static void legend(FILE *f, const struct kb_svg_series *s, size_t ns, double x, double y)
{
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" " FONT ">", x, y - 9, s[i].color, x + 14, y);
		kb_html_escape(f, s[i].name);
		fputs("</text>", f);
		x += 24 + 7 * (double)strlen(s[i].name ? s[i].name : "");
	}
}

static void label(FILE *f, double x, double y, const char *anchor, const char *text)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" " FONT " fill=\"#444\">", x, y, anchor);
	kb_html_escape(f, text);
	fputs("</text>", f);
}

/* Grid lines and labels of a value axis; vertical says whether values run along y. */
static void value_axis(FILE *f, const struct axis *a, double p0, double p1, double c0, double c1, bool vertical,
		       const char *unit)
{
	char buf[32];

	for (double v = a->lo; v <= a->hi + a->step / 2; v += a->step) {
		double p = scale(a, v, p0, p1);

		kb_format_si(fabs(v) < a->step * 1e-9 ? 0 : v, buf, sizeof(buf));
		if (vertical) {
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>", c0, p, c1, p);
			label(f, c0 - 4, p + 4, "end", buf);
		} else {
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>", p, c0, p, c1);
			label(f, p, c1 + 14, "middle", buf);
		}
	}
	if (unit && vertical) {
		fprintf(f, "<text transform=\"translate(12,%.1f) rotate(-90)\" text-anchor=\"middle\" " FONT " fill=\"#444\">",
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
		fprintf(f, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"#222\" fill=\"none\"/>",
			a, at, b, a, at - 4, at + 4, b, at - 4, at + 4);
	else
		fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"#222\" fill=\"none\"/>",
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
	snprintf(buf, size, "%.*s…", (int)(max - 1), s);
}

void kb_svg_bars(FILE *f, const char *title, const char *unit, const char *const *cats, size_t ncats,
		 const struct kb_svg_series *s, size_t ns)
{
	const double left = 230, right = 80, top = 44, row = 16 * (double)ns + 12, w = 760;
	double h = top + row * (double)ncats + 40, lo = 0, hi = 0;
	struct axis ax;
	char buf[64];

	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n && i < ncats; i++) {
			range_update(s[k].pts[i].y, &lo, &hi);
			range_update(s[k].pts[i].lo, &lo, &hi);
			range_update(s[k].pts[i].hi, &lo, &hi);
		}
	axis_fit(&ax, lo, hi, 5);
	open_svg(f, (int)w, (int)h, title);
	legend(f, s, ns, left, 34);
	value_axis(f, &ax, left, w - right, top - 4, h - 40, false, unit);
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
			double x0 = scale(&ax, 0, left, w - right), y = y0 + 16 * (double)k, x1, end;

			if (!p || !isfinite(p->y))
				continue;
			x1 = scale(&ax, p->y, left, w - right);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" fill=\"%s\"><title>",
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
	struct axis ax, ay;
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
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>", px, top, px,
			h - bottom);
		label(f, px, h - bottom + 14, "middle", buf);
	}
	label(f, (left + w - right) / 2, h - bottom + 30, "middle", xlabel);
	for (size_t k = 0; k < ns; k++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s[k].color);
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].pts[i].x) && isfinite(s[k].pts[i].y))
				fprintf(f, "%.1f,%.1f ", scale(&ax, s[k].pts[i].x, left + 20, w - right - 20),
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
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%g: %s</title></circle>",
				px, py, s[k].color, p->x, buf);
		}
	}
	fputs("</svg>\n", f);
	free(xs);
}

void kb_svg_scatter(FILE *f, const char *title, const char *unit, const struct kb_svg_series *s, size_t ns)
{
	const double left = 70, right = 20, top = 44, bottom = 40, w = 460, h = 260;
	double ylo = INFINITY, yhi = -INFINITY, pad;
	size_t nmax = 1;
	struct axis ax, ay;

	for (size_t k = 0; k < ns; k++) {
		for (size_t i = 0; i < s[k].n; i++)
			range_update(s[k].pts[i].y, &ylo, &yhi);
		range_update(s[k].band_lo, &ylo, &yhi);
		range_update(s[k].band_hi, &ylo, &yhi);
		if (s[k].n > nmax)
			nmax = s[k].n;
	}
	pad = isfinite(ylo) ? (yhi - ylo) * 0.05 : 0;
	axis_fit(&ay, ylo - pad, yhi + pad, 4);
	ax.lo = -0.5;
	ax.hi = (double)nmax - 0.5;
	ax.step = 1;
	open_svg(f, (int)w, (int)h, title);
	legend(f, s, ns, left, 34);
	value_axis(f, &ay, h - bottom, top, left, w - right, true, unit);
	label(f, (left + w - right) / 2, h - bottom + 16, "middle", "sample");
	for (size_t k = 0; k < ns; k++) {
		if (isfinite(s[k].band_lo) && isfinite(s[k].band_hi)) {
			double y1 = scale(&ay, s[k].band_hi, h - bottom, top), y0 = scale(&ay, s[k].band_lo, h - bottom, top);

			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.15\"/>",
				left, y1, w - right - left, fmax(y0 - y1, 0.5), s[k].color);
		}
		if (isfinite(s[k].line))
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>",
				left, w - right, scale(&ay, s[k].line, h - bottom, top), scale(&ay, s[k].line, h - bottom, top),
				s[k].color);
	}
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			const struct kb_svg_point *p = &s[k].pts[i];
			char buf[32];

			if (!isfinite(p->y))
				continue;
			kb_format_si(p->y, buf, sizeof(buf));
			/* An outlier keeps its series' colour, ringed: both sides can have them. */
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"%s><title>",
				scale(&ax, p->x, left, w - right), scale(&ay, p->y, h - bottom, top), p->flagged ? "5" : "3",
				s[k].color, p->flagged ? " stroke=\"" OUTLIER_COLOR "\" stroke-width=\"2.5\"" : "");
			kb_html_escape(f, s[k].name);
			fprintf(f, " #%zu: %s%s</title></circle>", i, buf, p->flagged ? " (outlier)" : "");
		}
	fputs("</svg>\n", f);
}
