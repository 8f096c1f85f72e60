/* cli.h: declarative option tables and the command table that drive parsing, --help and JSON. */
#ifndef KB_CLI_H
#define KB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

enum kb_opt_type {
	KB_OPT_FLAG,       /* bool, no argument */
	KB_OPT_INT,        /* int */
	KB_OPT_U64,        /* uint64_t, accepts 0x... */
	KB_OPT_DOUBLE,     /* double */
	KB_OPT_STRING,     /* char * (points into argv or the default) */
	KB_OPT_DURATION,   /* uint64_t nanoseconds: "100ms", "2s" */
	KB_OPT_SIZE,       /* uint64_t bytes: "64M", "1G" */
	KB_OPT_INT_LIST,   /* struct kb_int_list: "4" or "1,2,4,8", each in range, no repeats */
};

#define KB_INT_LIST_MAX 16

struct kb_int_list {
	int n;
	int v[KB_INT_LIST_MAX];
};

struct kb_opt {
	const char *name;
	char short_name;
	enum kb_opt_type type;
	size_t off;           /* offsetof() into the group's config struct */
	const char *arg;      /* argument name in --help, e.g. "N" */
	const char *help;
	const char *def;      /* default, parsed like a command-line value; NULL: zero/unset */
	double min, max;      /* accepted numeric range when max > min */
};

struct kb_opt_group {
	const char *title;    /* NULL for a command's own options */
	const struct kb_opt *opts;
	size_t nopts;
	void *cfg;
};

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

#define KB_OPTS(table) (table), (sizeof(table) / sizeof((table)[0]))

/* Parse argv (argv[0] is the command name) into the groups' configs.  Returns the
 * index of the first operand, or -1 after printing a usage error; 0 when --help was shown. */
int kb_cli_parse(const struct kb_cmd *cmd, struct kb_opt_group *groups, size_t ngroups,
		 int argc, char **argv);
int kb_cli_apply_defaults(const struct kb_opt_group *g);
void kb_cli_help(const struct kb_cmd *cmd, const struct kb_opt_group *groups, size_t ngroups, FILE *f);
/* The options' current values, for the JSON result. */
json_object *kb_cli_options_json(const struct kb_opt_group *groups, size_t ngroups);
/* The options of the command being run, as parsed. */
json_object *kb_cli_current_options_json(void);
int kb_cli_set(const struct kb_opt *o, void *cfg, const char *value);
int kb_parse_size(const char *s, uint64_t *bytes);

/* The command table (commands.c). */
extern const struct kb_cmd *const kb_commands[];
extern const size_t kb_ncommands;
const struct kb_cmd *kb_find_command(const char *name);
int kb_run_command(const struct kb_cmd *cmd, int argc, char **argv);

#endif
