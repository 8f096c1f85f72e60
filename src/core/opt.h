/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.h: declarative option tables (fio-style): name, type, offset into a config struct, range,
 * default and help.  Commands and suites declare their options with them; the CLI parses argv. */
#ifndef KB_OPT_H
#define KB_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	KB_OPT_CHOICE,     /* int: the index of the value among .choices, "host|on|off" */
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
	const char *choices;  /* KB_OPT_CHOICE: the values, "a|b|c"; the help text should name them */
};

struct kb_opt_group {
	const char *title;    /* NULL for a command's own options */
	const struct kb_opt *opts;
	size_t nopts;
	void *cfg;
};

#define KB_OPTS(table) (table), (sizeof(table) / sizeof((table)[0]))

/* Set option o in cfg from its text form; -errno with a message naming the option. */
int kb_opt_set(const struct kb_opt *o, void *cfg, const char *value);
/* Set every option of g that has a default. */
int kb_opt_apply_defaults(const struct kb_opt_group *g);
/* The options' current values, for the JSON result. */
json_object *kb_opt_groups_json(const struct kb_opt_group *groups, size_t ngroups);
/* The name of value 'index' of a KB_OPT_CHOICE option ("" if out of range). */
const char *kb_opt_choice_name(const struct kb_opt *o, int index, char *buf, size_t size);
/* "64M", "1G", "2MiB", "4096" into bytes. */
int kb_parse_size(const char *s, uint64_t *bytes);
/* A size for people: "300 GiB", "2 MiB", "1536 KiB". */
void kb_format_size(double bytes, char *buf, size_t size);

#endif
