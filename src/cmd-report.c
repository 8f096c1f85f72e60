/* cmd-report.c: 'kvmbench report RESULT.json...': the results as CSV, JSON, Markdown or a
 * self-contained HTML qualification report, optionally against a baseline. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "kb.h"
#include "writers.h"

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

/* PASS or FAIL, as the reports show it: the exit status follows it. */
static int report_status(const struct kb_report *rep)
{
	struct kb_report_view v;
	bool pass;

	kb_report_view_init(rep, &v);
	if (v.compared && v.cmp.ndiffs) {
		fputs("kvmbench: ", stderr);
		kb_comparison_print_warning(stderr, &v.cmp, "");
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

static int cmd_report(void *cfgp, int argc, char **argv)
{
	struct report_cfg *cfg = cfgp;
	const struct kb_writer *w = NULL;
	struct kb_result *results, baseline;
	const struct kb_result **ptrs;
	struct kb_report rep = { 0 };
	bool stream = cfg->format || cfg->output || (!cfg->html && !cfg->markdown);
	int status, err = 0;

	if (argc < 1)
		kb_die("report needs at least one result file ('kvmbench report --help')");
	if (stream && !(w = kb_find_writer(cfg->format ? cfg->format : "markdown")))
		kb_die("--format: '%s' is not a format (use one of: %s)", cfg->format, kb_writer_names());
	kb_compare_opts_init(&rep.cmp);
	rep.cmp.tolerance_pct = cfg->tolerance;
	rep.cmp.alpha = cfg->alpha;
	if (kb_sig_test_parse(cfg->test, &rep.cmp.test))
		kb_die("--test: %s", kb_last_error());
	results = load_all(argc, argv);
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
	if (cfg->baseline)
		kb_result_free(&baseline);
	return status;
}

const struct kb_cmd kb_cmd_report = {
	.name = "report",
	.summary = "Turn results into CSV, JSON, Markdown or an HTML qualification report.",
	.usage = "[OPTIONS] RESULT.json...",
	.description = "The report shows the host (everything the result recorded about it), every\n"
		       "suite's results with confidence intervals and validity checks, the comparison\n"
		       "with --baseline and, in HTML, charts: means with error bars, vCPU scaling and\n"
		       "every sample. Several results are reported together (e.g. one per vCPU count).\n"
		       "Exit status: 0 PASS (every test valid, nothing regressed beyond tolerance),\n"
		       "1 FAIL, 2 usage error or unreadable file.",
	.opts = report_opts,
	.nopts = ARRAY_SIZE(report_opts),
	.cfg_size = sizeof(struct report_cfg),
	.exec = cmd_report,
};
