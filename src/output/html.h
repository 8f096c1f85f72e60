/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html.h: the parts of the HTML report that writer-html.c assembles: the host, the charts, traceability. */
#ifndef KB_HTML_H
#define KB_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "output/writers.h"

#define KB_HTML_COLOR_NEW "#1f77b4"
#define KB_HTML_COLOR_BASE "#9a9a9a"

/* ---- html-common.c: what every part uses ---- */
/* A value with its unit scaled for people: 95.1 ns, 4.52 µs, 12.3 ms, 1.20 s; other units as they are. */
void kb_html_quantity(double v, const char *unit, char *buf, size_t size);
/* "test" or "test ×N vCPUs". */
void kb_html_test_label(const struct kb_test_result *t, char *buf, size_t size);
/* A test's cost per iteration ("ns", ns/iter), valid or not: what makes it an exit-path test; or NULL. */
const struct kb_metric *kb_html_exit_cost(const struct kb_test_result *t);
/* Whether the test measured one exit path: valid, with a cost per iteration ("ns", ns/iter). */
bool kb_html_is_exit_path(const struct kb_test_result *t);
/* The metric a test is charted and summed up by: its cost per iteration where it has one, else its primary. */
const struct kb_metric *kb_html_chart_metric(const struct kb_test_result *t);
/* Raw JSON as nested tables, for the collapsed raw-details sections. */
void kb_html_json_table(FILE *f, json_object *o);

/* ---- html-host.c ---- */
/* The host in one line: CPU and microarchitecture, topology, kernel, KVM backend and key parameters. */
void kb_html_host_line(FILE *f, json_object *host);
/* The host section: prose, key parameters, "what matters on this host", and the raw facts collapsed. */
void kb_html_host_section(FILE *f, const struct kb_report *rep, size_t distinct);

/* ---- html-charts.c ---- */
/* Every exit path's cost side by side, one bar each with its 95% CI, on a log scale. */
void kb_html_exit_chart(FILE *f, const struct kb_result *m);
/* Per test, baseline (A) against new (B) with their 95% CIs; one chart per unit. */
void kb_html_ab_charts(FILE *f, const struct kb_comparison *c);
/* A suite's own charts: non-exit suites' means, vCPU sweeps, and every test's samples (collapsed). */
void kb_html_suite_charts(FILE *f, const struct kb_result *m, const struct kb_result *baseline,
			  const struct kb_comparison *c, const char *suite);

/* ---- html-trace.c ---- */
/* Traceability: kvmbench versions, the exact command lines, the inputs' SHA-256. */
void kb_html_trace(FILE *f, const struct kb_report *rep);

#endif
