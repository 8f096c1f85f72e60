/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h: the command table, and the one argv parser and --help that the option tables (core/opt.h) drive. */
#ifndef KB_CLI_H
#define KB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "core/opt.h"

struct kb_cmd {
	const char *name;
	const char *summary;
	const char *usage;    /* after "kvmbench NAME " */
	const char *description;
	const struct kb_opt *opts;
	size_t nopts;
	size_t cfg_size;
	/* Extra option groups (a suite's options for 'run'); may be NULL. */
	size_t (*extra_groups)(struct kb_opt_group *groups, size_t max);
	int (*exec)(void *cfg, int argc, char **argv);
};

/* Parse argv (argv[0] is the command name) into the groups' configs.  Returns the
 * index of the first operand, or -1 after printing a usage error; 0 when --help was shown. */
int kb_cli_parse(const struct kb_cmd *cmd, struct kb_opt_group *groups, size_t ngroups,
		 int argc, char **argv);
void kb_cli_help(const struct kb_cmd *cmd, const struct kb_opt_group *groups, size_t ngroups, FILE *f);
/* The options of the command being run, as parsed. */
json_object *kb_cli_current_options_json(void);
/* The command line being run, as a JSON array of strings: "kvmbench", the command, its arguments. */
json_object *kb_cli_command_line(void);

/* Set option 'name' of the command being run from text, as its command line would, unless its
 * command line gave it (that wins): 0 set, 1 left as given, -ENOENT no such option, else -errno
 * with kb_fail().  A flag takes true/yes or false/no. */
int kb_cli_set_option(const char *name, const char *value);

/* The command table (commands.c). */
extern const struct kb_cmd *const kb_commands[];
extern const size_t kb_ncommands;
const struct kb_cmd *kb_find_command(const char *name);
int kb_run_command(const struct kb_cmd *cmd, int argc, char **argv);

#endif
