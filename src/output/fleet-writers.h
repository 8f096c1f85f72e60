/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet-writers.h: the fleet report's writers (text, Markdown, JSON, HTML) and what they share. */
#ifndef KB_FLEET_WRITERS_H
#define KB_FLEET_WRITERS_H

#include <stddef.h>
#include <stdio.h>

#include "results/fleet.h"

struct kb_fleet_writer {
	const char *name;
	/* Render the finished fleet on out; 0 or -errno with kb_fail(). */
	int (*write)(const struct kb_fleet *f, const char *title, FILE *out);
};

extern const struct kb_fleet_writer kb_fleet_writer_table, kb_fleet_writer_markdown, kb_fleet_writer_json,
	kb_fleet_writer_html;

const struct kb_fleet_writer *kb_find_fleet_writer(const char *name);
/* "table, markdown, json, html" */
const char *kb_fleet_writer_names(void);
/* Write to path atomically. */
int kb_write_fleet_file(const struct kb_fleet_writer *w, const struct kb_fleet *f, const char *title,
			const char *path);

/* ---- what every format says the same way ---- */
/* "PASS" or "FAIL". */
const char *kb_fleet_verdict_word(bool pass);
/* One line: "5 hosts (1 failed to run), 3 tests, 7 files; 1 outlier on the slow side". */
void kb_fleet_summary(const struct kb_fleet *f, char *buf, size_t size);
/* A host's verdict: "pass", "FAIL: 1 invalid, 2 slow outliers", "did not run (stage)". */
void kb_fleet_host_verdict(const struct kb_fleet_host *h, char *buf, size_t size);
/* A cell as the matrix shows it: "1.23M", "1.02M -17.0%" (outlier), "invalid", "skipped", "-". */
void kb_fleet_cell_text(const struct kb_fleet_cell *c, char *buf, size_t size);
/* How far off an outlier is: "-17.0% from the fleet median (slower), robust z -6.3". */
void kb_fleet_outlier_text(const struct kb_fleet_cell *c, char *buf, size_t size);
/* How far group g's median of test t is from the fleet's, in percent; NaN where either is unknown
 * (or the fleet's is 0). */
double kb_fleet_group_delta_pct(const struct kb_fleet *f, size_t g, size_t t);
/* A test's spread: "2.1%" or "-". */
void kb_fleet_spread_text(const struct kb_fleet_test *t, char *buf, size_t size);

#endif
