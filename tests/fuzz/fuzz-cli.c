/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-cli.c: a command line, as kvmbench's main() hands it to a command: kb_cli_parse() with
 * the command's own option table and every extra option group it has (run: placement and each
 * suite's options), the option values as JSON, then the parsers commands apply to option and
 * operand strings (durations, sizes, CPU lists, placement, formats, significance tests).
 *
 * Input: one argument per line; the first line names the command ("run", "compare", ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli/cli.h"
#include "results/compare.h"
#include "fuzz.h"
#include "vmm/guestmem.h"
#include "core/kb.h"
#include "patches/patches.h"
#include "host/topo.h"
#include "output/writers.h"

enum { MAX_ARGS = 64, MAX_GROUPS = 16 };

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* --help goes to standard output, usage errors to standard error: neither is the point. */
	if (!freopen("/dev/null", "w", stdout))
		return 0;
	return 0;
}

/* What a fresh process has: every option zero, so no value of an earlier input survives (string
 * options point into that input's argv). */
static void reset(const struct kb_opt_group *g)
{
	for (size_t i = 0; i < g->nopts; i++) {
		char *p = (char *)g->cfg + g->opts[i].off;

		switch (g->opts[i].type) {
		case KB_OPT_FLAG: memset(p, 0, sizeof(bool)); break;
		case KB_OPT_INT: case KB_OPT_CHOICE: memset(p, 0, sizeof(int)); break;
		case KB_OPT_DOUBLE: memset(p, 0, sizeof(double)); break;
		case KB_OPT_STRING: *(const char **)(void *)p = NULL; break;
		case KB_OPT_INT_LIST: memset(p, 0, sizeof(struct kb_int_list)); break;
		case KB_OPT_U64: case KB_OPT_DURATION: case KB_OPT_SIZE: memset(p, 0, sizeof(uint64_t)); break;
		}
	}
}

/* The string parsers commands apply to option values and operands. */
static void values(const char *s)
{
	uint64_t u;
	int *cpus = NULL, n, a, b, c;
	enum kb_sig_test st;
	enum kb_compare_format cf;
	enum kb_backing bk;
	enum kb_status ks;

	kb_parse_duration(s, &u);
	kb_parse_size(s, &u);
	if (!kb_parse_cpu_list(s, &cpus, &n))
		free(cpus);
	kb_sig_test_parse(s, &st);
	kb_compare_format_parse(s, &cf);
	kb_backing_parse(s, &bk);
	kb_status_parse(s, &ks);
	kb_kernel_version_parse(s, &a, &b, &c);
	kb_find_writer(s);
	kb_find_command(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = kb_fuzz_cstr(data, size), *argv[MAX_ARGS + 1];
	struct kb_opt_group groups[MAX_GROUPS];
	const struct kb_cmd *cmd;
	size_t ng = 0;
	int argc = 0, first;
	void *cfg;

	/* Empty lines are empty arguments, as a shell passes "". */
	for (char *p = text; p && argc < MAX_ARGS; argc++) {
		argv[argc] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	argv[argc] = NULL;
	cmd = argc ? kb_find_command(argv[0]) : NULL;
	if (!cmd) {
		free(text);
		return 0;
	}
	cfg = calloc(1, cmd->cfg_size);
	if (!cfg)
		abort();
	groups[ng++] = (struct kb_opt_group){ NULL, cmd->opts, cmd->nopts, cfg };
	if (cmd->extra_groups)
		ng += cmd->extra_groups(groups + ng, MAX_GROUPS - ng);
	for (size_t g = 0; g < ng; g++) {
		reset(&groups[g]);
		if (kb_opt_apply_defaults(&groups[g]))
			abort();   /* a bad default in a table: a bug, found at once */
	}
	first = kb_cli_parse(cmd, groups, ng, argc, argv);
	if (first > 0) {
		json_object_put(kb_opt_groups_json(groups, ng));
		for (size_t g = 0; g < ng; g++) {
			for (size_t i = 0; i < groups[g].nopts; i++)
				if (groups[g].opts[i].type == KB_OPT_STRING) {
					const char *v = *(const char **)((char *)groups[g].cfg + groups[g].opts[i].off);

					if (v)
						values(v);
				}
			if (groups[g].opts == kb_plan_opt_table) {
				struct kb_plan_req req;

				kb_plan_req_from_opts(groups[g].cfg, 2, &req);
			}
		}
		for (int i = first; i < argc; i++)
			values(argv[i]);
	}
	for (size_t g = 0; g < ng; g++)
		reset(&groups[g]);
	free(cfg);
	free(text);
	return 0;
}
