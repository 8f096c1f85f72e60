/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c: the option tables: parsing, defaults, ranges, sizes and durations. */
#include <stddef.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "core/kb.h"
#include "bench/suites.h"
#include "tap.h"

struct cfg {
	int n;
	uint64_t size;
	uint64_t dur;
	double pct;
	bool flag;
	const char *name;
	struct kb_int_list list;
};

static const struct kb_opt opts[] = {
	{ "count", 'n', KB_OPT_INT, offsetof(struct cfg, n), "N", "a count", "10", 1, 100 },
	{ "mem", 0, KB_OPT_SIZE, offsetof(struct cfg, size), "SIZE", "a size", "64M", 0, 0 },
	{ "time", 0, KB_OPT_DURATION, offsetof(struct cfg, dur), "T", "a duration", "100ms", 0, 0 },
	{ "pct", 0, KB_OPT_DOUBLE, offsetof(struct cfg, pct), "P", "a percentage", "5", 0, 100 },
	{ "flag", 'f', KB_OPT_FLAG, offsetof(struct cfg, flag), NULL, "a flag", NULL, 0, 0 },
	{ "name", 0, KB_OPT_STRING, offsetof(struct cfg, name), "S", "a name", NULL, 0, 0 },
	{ "list", 0, KB_OPT_INT_LIST, offsetof(struct cfg, list), "LIST", "counts", "1", 1, 64 },
};

static int noop(void *cfg, int argc, char **argv)
{
	return 0;
}

static const struct kb_cmd cmd = { "t", "test", "", NULL, opts, 7, sizeof(struct cfg), NULL, noop };

static int parse(struct cfg *c, int argc, char **argv)
{
	struct kb_opt_group g = { NULL, opts, 7, c };

	memset(c, 0, sizeof(*c));
	kb_opt_apply_defaults(&g);
	return kb_cli_parse(&cmd, &g, 1, argc, argv);
}

int main(void)
{
	struct cfg c;
	uint64_t b;

	char *a1[] = { "t", NULL };
	ok(parse(&c, 1, a1) == 1 && c.n == 10 && c.size == 64ULL << 20 && c.dur == 100000000ULL &&
	   c.pct == 5 && !c.flag && !c.name, "defaults come from the table");

	char *a2[] = { "t", "-n", "7", "--mem", "1G", "--time", "2s", "--pct", "2.5%", "-f", "--name", "x", "op", NULL };
	ok(parse(&c, 13, a2) == 12 && c.n == 7 && c.size == 1ULL << 30 && c.dur == 2000000000ULL &&
	   c.pct == 2.5 && c.flag && !strcmp(c.name, "x"), "every type parses; operands follow");

	char *a3[] = { "t", "--count", "1000", NULL };
	ok(parse(&c, 3, a3) == -1, "out-of-range value is refused");
	char *a4[] = { "t", "--count", "abc", NULL };
	ok(parse(&c, 3, a4) == -1, "a non-number is refused");
	char *a5[] = { "t", "--bogus", NULL };
	ok(parse(&c, 2, a5) == -1, "an unknown option is refused");
	char *a6[] = { "t", "--mem", "12Q", NULL };
	ok(parse(&c, 3, a6) == -1, "a bad size is refused");

	ok(c.list.n == 1 && c.list.v[0] == 1, "a list option's default is one value");
	char *l1[] = { "t", "--list", "1,2,4,8", NULL };
	ok(parse(&c, 3, l1) == 3 && c.list.n == 4 && c.list.v[0] == 1 && c.list.v[3] == 8, "a list keeps its order");
	char *l2[] = { "t", "--list", "2,2", NULL };
	ok(parse(&c, 3, l2) == -1, "a value listed twice is refused");
	char *l3[] = { "t", "--list", "1,65", NULL };
	ok(parse(&c, 3, l3) == -1, "each value is range-checked");
	char *l4[] = { "t", "--list", "1,", NULL };
	ok(parse(&c, 3, l4) == -1, "an empty element is refused");
	{
		struct kb_opt_group g = { NULL, opts, 7, &c };
		json_object *j;

		c.list = (struct kb_int_list){ 1, { 4 } };
		j = kb_opt_groups_json(&g, 1);
		ok(json_object_get_int(json_object_object_get(j, "list")) == 4, "one value goes to JSON as a number");
		json_object_put(j);
		c.list = (struct kb_int_list){ 2, { 1, 2 } };
		j = kb_opt_groups_json(&g, 1);
		ok(json_object_array_length(json_object_object_get(j, "list")) == 2, "several go as an array");
		json_object_put(j);
	}

	ok(kb_parse_size("2MiB", &b) == 0 && b == 2ULL << 20, "2MiB");
	ok(kb_parse_size("4096", &b) == 0 && b == 4096, "plain bytes");
	ok(kb_parse_size("-1", &b) < 0, "negative size refused");
	ok(kb_parse_duration("250us", &b) == 0 && b == 250000, "250us");

	kb_clear_error();
	ok(kb_suites_validate() == 0, "the suite table is complete and consistent %s", kb_last_error());
	return tap_done();
}
