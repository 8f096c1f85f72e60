/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c: one parser for every command, driven by the option tables. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/kb.h"

#define MAX_GROUPS 16
#define MAX_LONGOPTS 128

static size_t build_groups(const struct kb_cmd *cmd, void *cfg, struct kb_opt_group *groups, size_t max)
{
	size_t n = 0;

	groups[n++] = (struct kb_opt_group){ NULL, cmd->opts, cmd->nopts, cfg };
	if (cmd->extra_groups)
		n += cmd->extra_groups(groups + n, max - n);
	return n;
}

/* The options the last parse set from argv: a profile's options (run --profile) yield to them. */
static const struct kb_opt *given[MAX_LONGOPTS];
static size_t ngiven;

int kb_cli_parse(const struct kb_cmd *cmd, struct kb_opt_group *groups, size_t ngroups,
		 int argc, char **argv)
{
	struct option longopts[MAX_LONGOPTS];
	const struct kb_opt *map[MAX_LONGOPTS];
	void *cfgmap[MAX_LONGOPTS];
	char shortopts[128] = "h";
	size_t nl = 0, ns = 1;
	int c, idx;

	for (size_t g = 0; g < ngroups; g++)
		for (size_t i = 0; i < groups[g].nopts && nl < MAX_LONGOPTS - 2; i++) {
			const struct kb_opt *o = &groups[g].opts[i];

			longopts[nl] = (struct option){ o->name, o->type == KB_OPT_FLAG ? no_argument : required_argument,
							NULL, (int)(256 + nl) };
			map[nl] = o;
			cfgmap[nl] = groups[g].cfg;
			nl++;
			if (o->short_name && ns < sizeof(shortopts) - 3) {
				shortopts[ns++] = o->short_name;
				if (o->type != KB_OPT_FLAG)
					shortopts[ns++] = ':';
			}
		}
	longopts[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[nl] = (struct option){ 0 };
	shortopts[ns] = 0;

	/* 0, not 1: glibc then forgets the rest of a short-option cluster left over from an earlier
	 * parse (e.g. "-hq" stops at -h), which would point into that parse's argv. */
	optind = 0;
	opterr = 0;
	ngiven = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		const struct kb_opt *o = NULL;
		void *cfg = NULL;

		if (c == 'h') {
			kb_cli_help(cmd, groups, ngroups, stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			if (optopt && optopt < 256)
				fprintf(stderr, "kvmbench %s: option -%c %s\n", cmd->name, optopt,
					c == ':' ? "needs an argument" : "is not known");
			else
				fprintf(stderr, "kvmbench %s: option '%s' is not known or lacks its argument\n",
					cmd->name, argv[optind - 1]);
			fprintf(stderr, "Try 'kvmbench %s --help'.\n", cmd->name);
			return -1;
		}
		if (c >= 256) {
			o = map[c - 256];
			cfg = cfgmap[c - 256];
		} else {
			for (size_t i = 0; i + 1 < nl; i++)
				if (map[i]->short_name == c) {
					o = map[i];
					cfg = cfgmap[i];
					break;
				}
		}
		if (!o)
			continue;
		if (kb_opt_set(o, cfg, optarg)) {
			fprintf(stderr, "kvmbench %s: %s\nTry 'kvmbench %s --help'.\n", cmd->name,
				kb_last_error(), cmd->name);
			return -1;
		}
		if (ngiven < MAX_LONGOPTS)
			given[ngiven++] = o;
	}
	return optind;
}

static void help_group(const struct kb_opt_group *g, FILE *f)
{
	for (size_t i = 0; i < g->nopts; i++) {
		const struct kb_opt *o = &g->opts[i];
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s", left, o->help);
		if (o->def)
			fprintf(f, " (default: %s)", o->def);
		fputc('\n', f);
	}
}

void kb_cli_help(const struct kb_cmd *cmd, const struct kb_opt_group *groups, size_t ngroups, FILE *f)
{
	fprintf(f, "Usage: kvmbench %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
	if (cmd->description)
		fprintf(f, "\n%s\n", cmd->description);
	fprintf(f, "\nOptions:\n");
	help_group(&groups[0], f);
	fprintf(f, "  %-28s %s\n", "-h, --help", "show this help and exit");
	for (size_t g = 1; g < ngroups; g++) {
		fprintf(f, "\n%s:\n", groups[g].title);
		help_group(&groups[g], f);
	}
}

const struct kb_cmd *kb_find_command(const char *name)
{
	for (size_t i = 0; i < kb_ncommands; i++)
		if (!strcmp(kb_commands[i]->name, name))
			return kb_commands[i];
	return NULL;
}

static struct kb_opt_group current_groups[MAX_GROUPS];
static size_t current_ngroups;

json_object *kb_cli_current_options_json(void)
{
	return kb_opt_groups_json(current_groups, current_ngroups);
}

/* A copy of the command's argv taken before getopt_long permutes it: the line as typed. */
static int current_argc;
static const char **current_argv;

json_object *kb_cli_command_line(void)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_string("kvmbench"));
	for (int i = 0; i < current_argc; i++)
		json_object_array_add(a, json_object_new_string(current_argv[i]));
	return a;
}

int kb_cli_set_option(const char *name, const char *value)
{
	for (size_t g = 0; g < current_ngroups; g++)
		for (size_t i = 0; i < current_groups[g].nopts; i++) {
			const struct kb_opt *o = &current_groups[g].opts[i];

			if (strcmp(o->name, name))
				continue;
			for (size_t k = 0; k < ngiven; k++)
				if (given[k] == o)
					return 1;
			if (o->type == KB_OPT_FLAG) {
				if (!strcmp(value, "true") || !strcmp(value, "yes"))
					return kb_opt_set(o, current_groups[g].cfg, NULL);
				if (!strcmp(value, "false") || !strcmp(value, "no"))
					return kb_opt_set(o, current_groups[g].cfg, "false");
				return kb_fail(EINVAL, "option '%s' is a flag: true or false, not '%s'", name, value);
			}
			return kb_opt_set(o, current_groups[g].cfg, value);
		}
	return -ENOENT;
}

int kb_run_command(const struct kb_cmd *cmd, int argc, char **argv)
{
	struct kb_opt_group *groups = current_groups;
	void *cfg = kb_xcalloc(1, cmd->cfg_size);
	size_t ng = build_groups(cmd, cfg, groups, MAX_GROUPS);
	int first, ret;

	current_ngroups = ng;
	current_argv = kb_xcalloc((size_t)argc + 1, sizeof(*current_argv));
	for (int i = 0; i < argc; i++)
		current_argv[i] = argv[i];
	current_argc = argc;
	for (size_t g = 0; g < ng; g++)
		if (kb_opt_apply_defaults(&groups[g]))
			kb_die("internal error: bad default: %s", kb_last_error());
	first = kb_cli_parse(cmd, groups, ng, argc, argv);
	ret = first <= 0 ? (first == 0 ? 0 : 2) : cmd->exec(cfg, argc - first, argv + first);
	/* The copy is the command's only: nothing of it stays allocated once the command is done. */
	free(current_argv);
	current_argv = NULL;
	current_argc = 0;
	free(cfg);
	return ret;
}
