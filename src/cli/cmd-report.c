/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-report.c: 'kvmbench report RESULT.json...': the results as CSV, JSON, Markdown or a
 * self-contained HTML qualification report, optionally against a baseline; with --fleet, many
 * hosts' results as one fleet report (src/results/fleet.c, src/output/fleet-*.c). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "output/compare-view.h"
#include "core/kb.h"
#include "output/fleet-writers.h"
#include "results/fleet.h"
#include "output/termsafe.h"
#include "output/writers.h"

struct report_cfg {
	const char *format;
	const char *output;
	const char *html;
	const char *markdown;
	const char *baseline;
	double tolerance;
	double alpha;
	const char *test;
	const char *title;
	bool fleet;
	double outlier_z;
	int min_hosts;
};

static const struct kb_opt report_opts[] = {
	{ "format", 'f', KB_OPT_STRING, offsetof(struct report_cfg, format), "FORMAT",
	  "write this format to standard output: table, json, csv, csv-samples, markdown or html "
	  "(default: markdown unless --html or --markdown is given)", NULL, 0, 0 },
	{ "output", 'o', KB_OPT_STRING, offsetof(struct report_cfg, output), "FILE",
	  "write the --format output to FILE instead of standard output", NULL, 0, 0 },
	{ "html", 0, KB_OPT_STRING, offsetof(struct report_cfg, html), "FILE",
	  "write the HTML report (one self-contained file with charts) to FILE", NULL, 0, 0 },
	{ "markdown", 0, KB_OPT_STRING, offsetof(struct report_cfg, markdown), "FILE",
	  "write the Markdown report to FILE", NULL, 0, 0 },
	{ "baseline", 'b', KB_OPT_STRING, offsetof(struct report_cfg, baseline), "FILE",
	  "compare the results with this one: deltas, significance, pass/fail against the tolerance", NULL, 0, 0 },
	{ "tolerance", 't', KB_OPT_DOUBLE, offsetof(struct report_cfg, tolerance), "PCT",
	  "changes within ±PCT percent of the baseline mean count as no change", "5%", 0, 1000 },
	{ "alpha", 'a', KB_OPT_DOUBLE, offsetof(struct report_cfg, alpha), "P",
	  "significance level; the delta's confidence interval is 1-P", "0.05", 0.0001, 0.5 },
	{ "test", 0, KB_OPT_STRING, offsetof(struct report_cfg, test), "NAME",
	  "significance test on the raw samples: welch or mann-whitney", "welch", 0, 0 },
	{ "title", 0, KB_OPT_STRING, offsetof(struct report_cfg, title), "TEXT",
	  "the report's title", "kvmbench qualification report", 0, 0 },
	{ "fleet", 0, KB_OPT_FLAG, offsetof(struct report_cfg, fleet), NULL,
	  "one report over many hosts' results (files, or directories of DIR/HOST/*.json): hosts x tests, "
	  "the fleet's median and spread per test, MAD-based outliers, groups, hosts that failed to run "
	  "(formats: table, markdown, json, html)", NULL, 0, 0 },
	{ "outlier-z", 0, KB_OPT_DOUBLE, offsetof(struct report_cfg, outlier_z), "Z",
	  "with --fleet: a host is an outlier on a test beyond this robust z-score (0.6745 deviation / MAD) "
	  "and more than --tolerance off the fleet median", "3.5", 0.5, 100 },
	{ "min-hosts", 0, KB_OPT_INT, offsetof(struct report_cfg, min_hosts), "N",
	  "with --fleet: fewest hosts measuring a test for outliers to be called", "3", 3, 1000000 },
};

/* Load every operand; exits 2 naming the file that cannot be read. */
static struct kb_result *load_all(int argc, char **argv)
{
	struct kb_result *r = kb_xcalloc((size_t)argc, sizeof(*r));

	for (int i = 0; i < argc; i++)
		if (kb_result_load(argv[i], &r[i]))
			kb_die("%s", kb_last_error());
	return r;
}

/* The inputs' SHA-256 for the report's traceability: of the whole file, up to the largest result
 * kb_result_load accepts (it has just read them). */
#define KB_DIGEST_MAX ((size_t)1 << 40)

static char **digest_all(int argc, char **argv)
{
	char **d = kb_xcalloc((size_t)argc + 1, sizeof(*d));

	for (int i = 0; i < argc; i++) {
		d[i] = kb_xcalloc(65, 1);
		if (kb_sha256_file(argv[i], KB_DIGEST_MAX, d[i]))
			kb_die("%s", kb_last_error());
	}
	return d;
}

/* PASS or FAIL, as the reports show it: the exit status follows it. */
static int report_status(const struct kb_report *rep)
{
	struct kb_report_view v;
	bool pass;

	kb_report_view_init(rep, &v);
	if (v.compared && v.cmp.ndiffs) {
		/* The results come from anywhere: no control character of theirs reaches a terminal. */
		FILE *warn = kb_termsafe_open(stderr, false);

		if (!warn)
			kb_die("%s", kb_last_error());
		fputs("kvmbench: ", warn);
		kb_comparison_print_warning(warn, &v.cmp, "");
		fclose(warn);
	}
	if (v.compared && kb_comparison_status(&v.cmp) == 2)
		kb_warn("no test of the results could be compared with the baseline %s", rep->baseline_name);
	pass = v.verdict.pass;
	kb_report_view_free(&v);
	return pass ? 0 : 1;
}

static int write_stream(const struct kb_writer *w, const struct kb_report *rep, const char *path)
{
	int err;

	if (path)
		return kb_write_report_file(w, rep, path);
	err = w->write(rep, stdout);
	if (!err && (fflush(stdout) || ferror(stdout)))
		err = kb_fail(EIO, "standard output: writing the %s report failed", w->name);
	return err;
}

static int write_fleet_stream(const struct kb_fleet_writer *w, const struct kb_fleet *f, const char *title,
			      const char *path)
{
	FILE *out;
	int err;

	if (path)
		return kb_write_fleet_file(w, f, title, path);
	/* Host names and reasons come from the hosts: no control character of theirs reaches a terminal. */
	out = w == &kb_fleet_writer_table && isatty(STDOUT_FILENO) ? kb_termsafe_open(stdout, false) : stdout;
	if (!out)
		return -EIO;
	err = w->write(f, title, out);
	if (out != stdout)
		fclose(out);
	if (!err && (fflush(stdout) || ferror(stdout)))
		err = kb_fail(EIO, "standard output: writing the %s fleet report failed", w->name);
	return err;
}

/* report --fleet: exit 0 when every host ran and passed, 1 when one did not, 2 on bad input. */
static int report_fleet(const struct report_cfg *cfg, int argc, char **argv)
{
	const struct kb_fleet_writer *w = NULL;
	bool stream = cfg->format || cfg->output || (!cfg->html && !cfg->markdown);
	const char *title = strcmp(cfg->title, "kvmbench qualification report") ? cfg->title : "kvmbench fleet report";
	struct kb_fleet_opts o;
	struct kb_fleet f;
	int err = 0, status;

	if (cfg->baseline)
		kb_die("--baseline: not with --fleet (the fleet is judged against its own median)");
	if (stream && !(w = kb_find_fleet_writer(cfg->format ? cfg->format : "table")))
		kb_die("--format: '%s' is not a fleet report format (use one of: %s)", cfg->format,
		       kb_fleet_writer_names());
	kb_fleet_opts_init(&o);
	o.outlier_z = cfg->outlier_z;
	o.min_dev_pct = cfg->tolerance;
	o.min_hosts = (size_t)cfg->min_hosts;
	kb_fleet_init(&f, &o);
	for (int i = 0; i < argc && !err; i++)
		err = kb_fleet_add_path(&f, argv[i]);
	if (!err)
		err = kb_fleet_load(&f);
	if (err)
		kb_die("%s", kb_last_error());
	if (!f.nhosts)
		kb_die("--fleet: no result file in %s%s", argv[0], argc > 1 ? " ..." : "");
	kb_fleet_finish(&f);
	status = f.pass ? 0 : 1;
	if (w)
		err = write_fleet_stream(w, &f, title, cfg->output);
	if (!err && cfg->markdown)
		err = kb_write_fleet_file(&kb_fleet_writer_markdown, &f, title, cfg->markdown);
	if (!err && cfg->html)
		err = kb_write_fleet_file(&kb_fleet_writer_html, &f, title, cfg->html);
	if (err) {
		fprintf(stderr, "kvmbench: %s\n", kb_last_error());
		status = 2;
	}
	kb_fleet_free(&f);
	return status;
}

static int cmd_report(void *cfgp, int argc, char **argv)
{
	struct report_cfg *cfg = cfgp;
	const struct kb_writer *w = NULL;
	struct kb_result *results, baseline;
	const struct kb_result **ptrs;
	struct kb_report rep = { 0 };
	char **digests, baseline_sha[65];
	bool stream = cfg->format || cfg->output || (!cfg->html && !cfg->markdown);
	int status, err = 0;

	if (argc < 1)
		kb_die("report needs at least one result file ('kvmbench report --help')");
	if (cfg->fleet)
		return report_fleet(cfg, argc, argv);
	if (stream && !(w = kb_find_writer(cfg->format ? cfg->format : "markdown")))
		kb_die("--format: '%s' is not a format (use one of: %s)", cfg->format, kb_writer_names());
	kb_compare_opts_init(&rep.cmp);
	rep.cmp.tolerance_pct = cfg->tolerance;
	rep.cmp.alpha = cfg->alpha;
	if (kb_sig_test_parse(cfg->test, &rep.cmp.test))
		kb_die("--test: %s", kb_last_error());
	results = load_all(argc, argv);
	digests = digest_all(argc, argv);
	if (cfg->baseline && kb_sha256_file(cfg->baseline, KB_DIGEST_MAX, baseline_sha))
		kb_die("%s", kb_last_error());
	ptrs = kb_xcalloc((size_t)argc, sizeof(*ptrs));
	for (int i = 0; i < argc; i++)
		ptrs[i] = &results[i];
	if (cfg->baseline && kb_result_load(cfg->baseline, &baseline))
		kb_die("%s", kb_last_error());
	rep.results = ptrs;
	rep.names = (const char *const *)argv;
	rep.nresults = (size_t)argc;
	rep.baseline = cfg->baseline ? &baseline : NULL;
	rep.baseline_name = cfg->baseline;
	rep.title = cfg->title;
	rep.sha256 = (const char *const *)digests;
	rep.baseline_sha256 = cfg->baseline ? baseline_sha : NULL;
	rep.command = kb_cli_command_line();
	if (w && cfg->baseline && !kb_writer_compares(w))
		kb_warn("--format %s shows the results only; the comparison with --baseline is in the table, "
			"markdown and html formats", w->name);
	status = report_status(&rep);
	if (w) {
		rep.color = w == &kb_writer_table && !cfg->output && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		err = write_stream(w, &rep, cfg->output);
		rep.color = false;
	}
	if (!err && cfg->markdown)
		err = kb_write_report_file(&kb_writer_markdown, &rep, cfg->markdown);
	if (!err && cfg->html)
		err = kb_write_report_file(&kb_writer_html, &rep, cfg->html);
	if (err) {
		fprintf(stderr, "kvmbench: %s\n", kb_last_error());
		status = 2;
	}
	for (int i = 0; i < argc; i++)
		kb_result_free(&results[i]);
	free(results);
	free(ptrs);
	for (int i = 0; i < argc; i++)
		free(digests[i]);
	free(digests);
	json_object_put(rep.command);
	if (cfg->baseline)
		kb_result_free(&baseline);
	return status;
}

const struct kb_cmd kb_cmd_report = {
	.name = "report",
	.summary = "Turn results into CSV, JSON, Markdown or an HTML qualification report.",
	.usage = "[OPTIONS] RESULT.json...  |  --fleet [OPTIONS] RESULT.json|DIR...",
	.description = "The report shows the host (everything the result recorded about it), every\n"
		       "suite's results with confidence intervals and validity checks, and the comparison\n"
		       "with --baseline. The HTML report opens with the verdict, the host in one line and\n"
		       "the key figures, charts every exit path's cost on a log scale (and A vs B per\n"
		       "test), keeps samples and raw details collapsed, prints cleanly to PDF and ends\n"
		       "with traceability: versions, command lines, the inputs' SHA-256. Several results\n"
		       "are reported together (e.g. one per vCPU count).\n"
		       "With --fleet the operands are many hosts' results (a directory: each subdirectory\n"
		       "one host, as Ansible's fetch makes them; *.failure.json: a host that failed to run)\n"
		       "and the report is the fleet's: hosts x tests, per test the median and spread,\n"
		       "outliers and how far off, groups by microarchitecture, kernel and KVM parameters.\n"
		       "Exit status: 0 PASS (each result passes: its qualification profile's verdict if\n"
		       "it has one, else every test valid; nothing regressed beyond tolerance; with\n"
		       "--fleet: every host ran and passes, no host an outlier on the slow side),\n"
		       "1 FAIL, 2 usage error or unreadable file.",
	.opts = report_opts,
	.nopts = ARRAY_SIZE(report_opts),
	.cfg_size = sizeof(struct report_cfg),
	.exec = cmd_report,
};
