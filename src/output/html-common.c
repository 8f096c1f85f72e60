/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html-common.c: what every part of the HTML report uses: units for people, test labels, which
 * tests are exit paths, and raw JSON as nested tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/kb.h"
#include "output/html.h"
#include "results/leaves.h"

/* A time in seconds in the unit that gives 1 to 999 of it. */
static void seconds(double s, char *buf, size_t size, const char *per)
{
	static const struct { double scale; const char *name; } units[] = {
		{ 1, "s" }, { 1e-3, "ms" }, { 1e-6, "µs" }, { 1e-9, "ns" },
	};
	size_t i = 0;

	while (i + 1 < ARRAY_SIZE(units) && fabs(s) < units[i].scale * 0.9995)
		i++;
	snprintf(buf, size, "%.3g %s%s", s / units[i].scale, units[i].name, per);
}

void kb_html_quantity(double v, const char *unit, char *buf, size_t size)
{
	const char *slash = unit ? strchr(unit, '/') : NULL;
	size_t base = slash ? (size_t)(slash - unit) : unit ? strlen(unit) : 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "–");
	} else if (unit && base == 2 && !strncmp(unit, "ns", 2)) {
		seconds(v * 1e-9, buf, size, slash ? slash : "");
	} else if (unit && base == 1 && unit[0] == 's') {
		seconds(v, buf, size, slash ? slash : "");
	} else {
		char num[48];

		if (fabs(v) >= 10000)
			kb_format_si(v, num, sizeof(num));
		else
			snprintf(num, sizeof(num), "%.3g", v);
		snprintf(buf, size, "%s%s%s", num, unit && *unit ? " " : "", unit ? unit : "");
	}
}

void kb_html_test_label(const struct kb_test_result *t, char *buf, size_t size)
{
	if (t->vcpus != 1)
		snprintf(buf, size, "%s ×%d vCPUs", t->test, t->vcpus);
	else
		snprintf(buf, size, "%s", t->test);
}

const struct kb_metric *kb_html_exit_cost(const struct kb_test_result *t)
{
	const struct kb_metric *m = kb_test_find_metric(t, "ns");

	return m && m->unit && !strcmp(m->unit, "ns/iter") ? m : NULL;
}

bool kb_html_is_exit_path(const struct kb_test_result *t)
{
	const struct kb_metric *m = kb_html_exit_cost(t);

	return t->status == KB_STATUS_OK && m && m->n;
}

const struct kb_metric *kb_html_chart_metric(const struct kb_test_result *t)
{
	const struct kb_metric *m = kb_html_exit_cost(t);

	return m ? m : kb_test_primary_metric(t);
}

void kb_html_json_table(FILE *f, json_object *o)
{
	if (!o || !json_object_is_type(o, json_type_object)) {
		kb_html_escape(f, kb_leaf_text(o));
		return;
	}
	fputs("<table class=\"kv\">", f);
	json_object_object_foreach(o, key, val) {
		fputs("<tr><th>", f);
		kb_html_escape(f, key);
		fputs("</th><td>", f);
		if (val && json_object_is_type(val, json_type_object))
			kb_html_json_table(f, val);
		else
			kb_html_escape(f, kb_leaf_text(val));
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
}
