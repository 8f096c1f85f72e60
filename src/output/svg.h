/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.h: small inline-SVG charts for the HTML report: bars with error bars, lines, sample scatter. */
#ifndef KB_SVG_H
#define KB_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct kb_svg_point {
	double x, y;
	double lo, hi;        /* an interval around y (NaN: none) */
	bool flagged;         /* drawn as an outlier */
};

struct kb_svg_series {
	const char *name;
	const char *color;    /* CSS colour */
	const struct kb_svg_point *pts;
	size_t n;
	double band_lo, band_hi;   /* scatter: a shaded band (the mean's CI); NaN: none */
	double line;               /* scatter: a horizontal line (the mean); NaN: none */
};

/* Horizontal bars, one group per category; series k's pts[i] belongs to category i (NaN y: no bar).
 * With log, the value axis is logarithmic (whole decades) and a value <= 0 gets no bar. */
void kb_svg_bars(FILE *f, const char *title, const char *unit, const char *const *cats, size_t ncats,
		 const struct kb_svg_series *s, size_t ns, bool log);
/* Lines through (x, y) with error bars, y from 0: scaling over vCPU counts. */
void kb_svg_lines(FILE *f, const char *title, const char *xlabel, const char *unit,
		  const struct kb_svg_series *s, size_t ns);
/* Points at (sample index, value), the band and line behind them: the noise of a measurement. */
void kb_svg_scatter(FILE *f, const char *title, const char *unit, const struct kb_svg_series *s, size_t ns);
/* The same with the x axis named xlabel (the points' x being an index: hosts of a fleet). */
void kb_svg_scatter_x(FILE *f, const char *title, const char *xlabel, const char *unit, const struct kb_svg_series *s,
		      size_t ns);

#endif
