/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-compare.c: 'kvmbench compare BASE.json NEW.json': A/B statistics, verdicts and an exit status CI can gate on. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "output/compare-view.h"
#include "output/termsafe.h"
#include "output/writers.h"
#include "core/kb.h"

struct compare_cfg {
	double tolerance;
	double alpha;
	const char *test;
	const char *format;
	const char *output;
	const char *html;
	bool all_metrics;
};

static const struct kb_opt compare_opts[] = {
	{ "tolerance", 't', KB_OPT_DOUBLE, offsetof(struct compare_cfg, tolerance), "PCT",
	  "changes within ±PCT percent of the base mean count as no change", "5%", 0, 1000 },
	{ "alpha", 'a', KB_OPT_DOUBLE, offsetof(struct compare_cfg, alpha), "P",
	  "significance level; the delta's confidence interval is 1-P", "0.05", 0.0001, 0.5 },
	{ "test", 0, KB_OPT_STRING, offsetof(struct compare_cfg, test), "NAME",
	  "significance test on the round means (the samples where a side has one round): welch or mann-whitney", "welch", 0, 0 },
	{ "format", 'f', KB_OPT_STRING, offsetof(struct compare_cfg, format), "FORMAT",
	  "table, json or markdown", "table", 0, 0 },
	{ "output", 'o', KB_OPT_STRING, offsetof(struct compare_cfg, output), "FILE",
	  "write the comparison to FILE instead of standard output", NULL, 0, 0 },
	{ "html", 0, KB_OPT_STRING, offsetof(struct compare_cfg, html), "FILE",
	  "also write the A/B report as one self-contained HTML file (as 'report --baseline BASE --html FILE NEW')",
	  NULL, 0, 0 },
	{ "all-metrics", 0, KB_OPT_FLAG, offsetof(struct compare_cfg, all_metrics), NULL,
	  "also compare the per-vCPU metrics (rate.vcpu0, ...)", NULL, 0, 0 },
};

static int fill_text(FILE *f, void *text)
{
	return fputs(text, f) < 0 ? -EIO : 0;
}

/* The A/B report in HTML: the same comparison, with the charts, host and traceability of 'report'. */
static int write_html(const struct compare_cfg *cfg, const struct kb_compare_opts *o, const struct kb_result *base,
		      const struct kb_result *cur, char **argv)
{
	const struct kb_result *results[] = { cur };
	const char *names[] = { argv[1] };
	char sha_base[65], sha_new[65];
	const char *shas[] = { sha_new };
	struct kb_report rep = { .results = results, .names = names, .nresults = 1, .baseline = base,
				 .baseline_name = argv[0], .cmp = *o, .sha256 = shas, .baseline_sha256 = sha_base };
	int err;

	if (kb_sha256_file(argv[0], (size_t)1 << 40, sha_base) || kb_sha256_file(argv[1], (size_t)1 << 40, sha_new))
		return -EIO;
	rep.cmp.color = false;
	rep.command = kb_cli_command_line();
	err = kb_write_report_file(&kb_writer_html, &rep, cfg->html);
	json_object_put(rep.command);
	return err;
}

/* One side: a result file, or several separate runs of it, FILE,FILE,... folded as one round each. */
static void load_side(const char *list, struct kb_result *r)
{
	char *copy = kb_xstrdup(list), *save = NULL;
	size_t n = 0;

	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save), n++) {
		struct kb_result run;

		if (kb_result_load(f, n ? &run : r))
			kb_die("%s", kb_last_error());
		if (n) {
			kb_result_add_run(r, &run);
			kb_result_free(&run);
		}
	}
	if (!n)
		kb_die("'%s' names no result file", list);
	free(copy);
}

static int cmd_compare(void *cfgp, int argc, char **argv)
{
	struct compare_cfg *cfg = cfgp;
	struct kb_compare_opts o;
	struct kb_result base, cur;
	FILE *out = stdout, *warn, *shown;
	char *text = NULL;
	size_t len = 0;
	int status;

	if (argc != 2)
		kb_die("compare takes two result files, BASE and NEW, and was given %d ('kvmbench compare --help')", argc);
	kb_compare_opts_init(&o);
	o.tolerance_pct = cfg->tolerance;
	o.alpha = cfg->alpha;
	o.all_metrics = cfg->all_metrics;
	o.base_label = argv[0];
	o.new_label = argv[1];
	if (kb_sig_test_parse(cfg->test, &o.test) || kb_compare_format_parse(cfg->format, &o.format))
		kb_die("%s", kb_last_error());
	if (cfg->html && (strchr(argv[0], ',') || strchr(argv[1], ',')))
		kb_die("--html takes one result file a side (the report names each file with its checksum)");
	load_side(argv[0], &base);
	load_side(argv[1], &cur);
	/* Into memory first, then atomically over --output: a failed write (ENOSPC) leaves the
	 * previous file as it was. */
	if (cfg->output && !(out = open_memstream(&text, &len)))
		kb_die("%s: cannot write the comparison: %s", cfg->output, strerror(errno));
	o.color = out == stdout && o.format == KB_CMP_TABLE && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	/* On a terminal the table carries the warning itself; anywhere else repeat it on stderr. */
	warn = o.color ? NULL : stderr;
	/* The results come from anywhere: no control character of theirs reaches a terminal. */
	shown = o.format == KB_CMP_TABLE ? kb_termsafe_open(out, o.color) : out;
	if (!shown || (warn && !(warn = kb_termsafe_open(stderr, false))))
		kb_die("%s", kb_last_error());
	status = kb_compare_results(&base, &cur, &o, shown, warn);
	if (warn)
		fclose(warn);
	if (shown != out && fclose(shown) && status != 2) {
		kb_fail(errno, "writing the comparison: %s", strerror(errno));
		status = 2;
	}
	if (status == 2)
		fprintf(stderr, "kvmbench: %s\n", kb_last_error());
	if (out != stdout) {
		if (fclose(out) || kb_write_atomic(cfg->output, "the comparison", fill_text, text)) {
			fprintf(stderr, "kvmbench: %s\n", kb_last_error());
			status = 2;
		}
		free(text);
	}
	if (cfg->html && status != 2 && write_html(cfg, &o, &base, &cur, argv)) {
		fprintf(stderr, "kvmbench: %s\n", kb_last_error());
		status = 2;
	}
	kb_result_free(&base);
	kb_result_free(&cur);
	return status;
}

const struct kb_cmd kb_cmd_compare = {
	.name = "compare",
	.summary = "Compare two results: deltas with confidence intervals, significance, verdicts.",
	.usage = "[OPTIONS] BASE.json[,BASE2.json...] NEW.json[,NEW2.json...]",
	.description = "Per test and metric: both means with their 95% CIs, the change relative to BASE\n"
		       "with its confidence interval, a significance test on the round means of each\n"
		       "side and a verdict: 'within tolerance' (|delta| <= tolerance), 'improved' or\n"
		       "'regressed' (beyond tolerance and significant between separate runs;\n"
		       "higher- or lower-is-better per metric) or 'inconclusive' (beyond tolerance, not\n"
		       "significant, or a side resting on one run: one round, or the rounds of one\n"
		       "run --rounds N, which do not sample the drift between runs). Give a side as\n"
		       "several separate runs, FILE,FILE,...: each run is one round. Results from different\n"
		       "hosts or with different parameters are compared, with a warning naming every\n"
		       "field that differs. Exit status: 0 nothing regressed beyond tolerance,\n"
		       "1 something did, 2 usage error, unreadable file or nothing to compare.",
	.opts = compare_opts,
	.nopts = ARRAY_SIZE(compare_opts),
	.cfg_size = sizeof(struct compare_cfg),
	.exec = cmd_compare,
};
