/* cmd-compare.c: 'kvmbench compare BASE.json NEW.json': A/B statistics, verdicts and an exit status CI can gate on. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "kb.h"

struct compare_cfg {
	double tolerance;
	double alpha;
	const char *test;
	const char *format;
	const char *output;
	bool all_metrics;
};

static const struct kb_opt compare_opts[] = {
	{ "tolerance", 't', KB_OPT_DOUBLE, offsetof(struct compare_cfg, tolerance), "PCT",
	  "changes within ±PCT percent of the base mean count as no change", "5%", 0, 1000 },
	{ "alpha", 'a', KB_OPT_DOUBLE, offsetof(struct compare_cfg, alpha), "P",
	  "significance level; the delta's confidence interval is 1-P", "0.05", 0.0001, 0.5 },
	{ "test", 0, KB_OPT_STRING, offsetof(struct compare_cfg, test), "NAME",
	  "significance test on the raw samples: welch or mann-whitney", "welch", 0, 0 },
	{ "format", 'f', KB_OPT_STRING, offsetof(struct compare_cfg, format), "FORMAT",
	  "table, json or markdown", "table", 0, 0 },
	{ "output", 'o', KB_OPT_STRING, offsetof(struct compare_cfg, output), "FILE",
	  "write the comparison to FILE instead of standard output", NULL, 0, 0 },
	{ "all-metrics", 0, KB_OPT_FLAG, offsetof(struct compare_cfg, all_metrics), NULL,
	  "also compare the per-vCPU metrics (rate.vcpu0, ...)", NULL, 0, 0 },
};

static int fill_text(FILE *f, void *text)
{
	return fputs(text, f) < 0 ? -EIO : 0;
}

static int cmd_compare(void *cfgp, int argc, char **argv)
{
	struct compare_cfg *cfg = cfgp;
	struct kb_compare_opts o;
	struct kb_result base, cur;
	FILE *out = stdout, *warn;
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
	if (kb_result_load(argv[0], &base))
		kb_die("%s", kb_last_error());
	if (kb_result_load(argv[1], &cur))
		kb_die("%s", kb_last_error());
	/* Into memory first, then atomically over --output: a failed write (ENOSPC) leaves the
	 * previous file as it was. */
	if (cfg->output && !(out = open_memstream(&text, &len)))
		kb_die("%s: cannot write the comparison: %s", cfg->output, strerror(errno));
	o.color = out == stdout && o.format == KB_CMP_TABLE && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	/* On a terminal the table carries the warning itself; anywhere else repeat it on stderr. */
	warn = o.color ? NULL : stderr;
	status = kb_compare_results(&base, &cur, &o, out, warn);
	if (status == 2)
		fprintf(stderr, "kvmbench: %s\n", kb_last_error());
	if (out != stdout) {
		if (fclose(out) || kb_write_atomic(cfg->output, "the comparison", fill_text, text)) {
			fprintf(stderr, "kvmbench: %s\n", kb_last_error());
			status = 2;
		}
		free(text);
	}
	kb_result_free(&base);
	kb_result_free(&cur);
	return status;
}

const struct kb_cmd kb_cmd_compare = {
	.name = "compare",
	.summary = "Compare two results: deltas with confidence intervals, significance, verdicts.",
	.usage = "[OPTIONS] BASE.json NEW.json",
	.description = "Per test and metric: both means with their 95% CIs, the change relative to BASE\n"
		       "with its confidence interval, a significance test on the raw samples and a\n"
		       "verdict: 'within tolerance' (|delta| <= tolerance), 'improved' or 'regressed'\n"
		       "(beyond tolerance and significant; higher- or lower-is-better per metric) or\n"
		       "'inconclusive' (beyond tolerance, not significant). Results from different\n"
		       "hosts or with different parameters are compared, with a warning naming every\n"
		       "field that differs. Exit status: 0 nothing regressed beyond tolerance,\n"
		       "1 something did, 2 usage error, unreadable file or nothing to compare.",
	.opts = compare_opts,
	.nopts = ARRAY_SIZE(compare_opts),
	.cfg_size = sizeof(struct compare_cfg),
	.exec = cmd_compare,
};
