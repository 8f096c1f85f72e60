/* cli.c: one parser for every command, driven by the option tables. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kb.h"

#define MAX_GROUPS 16
#define MAX_LONGOPTS 128

int kb_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*bytes = v * mul;
	return 0;
}

/* A size for people: "300 GiB", "2 MiB", "1536 KiB". */
static void format_size(double bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && bytes >= 1024 && bytes / 1024 == (double)(uint64_t)(bytes / 1024)) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, size, "%.0f %s", bytes, units[u]);
}

static int check_range(const struct kb_opt *o, double v)
{
	char a[32], lo[32], hi[32];

	if (!(o->max > o->min) || (v >= o->min && v <= o->max))
		return 0;
	if (o->type == KB_OPT_SIZE) {
		format_size(v, a, sizeof(a));
		format_size(o->min, lo, sizeof(lo));
		format_size(o->max, hi, sizeof(hi));
		return kb_fail(ERANGE, "--%s: %s is outside %s..%s", o->name, a, lo, hi);
	}
	return kb_fail(ERANGE, "--%s: %g is outside %g..%g", o->name, v, o->min, o->max);
}

static int parse_int(const struct kb_opt *o, const char *value, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 0);
	if (errno || end == value || *end || v < INT32_MIN || v > INT32_MAX)
		return kb_fail(EINVAL, "--%s: '%s' is not a whole number", o->name, value);
	*out = (int)v;
	return check_range(o, (double)v);
}

/* "1,2,4,8": each element an in-range whole number, none twice. */
static int parse_int_list(const struct kb_opt *o, const char *value, struct kb_int_list *out)
{
	struct kb_int_list l = { 0 };
	char buf[256], *save = NULL, *tok;
	int err;

	if (strlen(value) >= sizeof(buf) || !*value || value[strlen(value) - 1] == ',')
		return kb_fail(EINVAL, "--%s: '%s' is not a number or a comma-separated list of numbers", o->name, value);
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (l.n == KB_INT_LIST_MAX)
			return kb_fail(E2BIG, "--%s: more than %d values in '%s'", o->name, KB_INT_LIST_MAX, value);
		err = parse_int(o, tok, &l.v[l.n]);
		if (err)
			return err;
		for (int i = 0; i < l.n; i++)
			if (l.v[i] == l.v[l.n])
				return kb_fail(EINVAL, "--%s: %d is listed twice in '%s'", o->name, l.v[i], value);
		l.n++;
	}
	*out = l;
	return 0;
}

int kb_cli_set(const struct kb_opt *o, void *cfg, const char *value)
{
	char *p = (char *)cfg + o->off;
	char *end;
	int err;

	errno = 0;
	switch (o->type) {
	case KB_OPT_FLAG:
		*(bool *)p = value ? (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes")) : true;
		return 0;
	case KB_OPT_INT: {
		int v;

		err = parse_int(o, value, &v);
		if (!err)
			*(int *)p = v;
		return err;
	}
	case KB_OPT_INT_LIST:
		return parse_int_list(o, value, (struct kb_int_list *)p);
	case KB_OPT_U64: {
		unsigned long long v = strtoull(value, &end, 0);

		if (errno || end == value || *end || *value == '-')
			return kb_fail(EINVAL, "--%s: '%s' is not a non-negative whole number", o->name, value);
		err = check_range(o, (double)v);
		if (!err)
			*(uint64_t *)p = v;
		return err;
	}
	case KB_OPT_DOUBLE: {
		double v = strtod(value, &end);

		if (errno || end == value || (*end && strcmp(end, "%")))
			return kb_fail(EINVAL, "--%s: '%s' is not a number", o->name, value);
		err = check_range(o, v);
		if (!err)
			*(double *)p = v;
		return err;
	}
	case KB_OPT_STRING:
		*(const char **)p = value;
		return 0;
	case KB_OPT_DURATION: {
		uint64_t ns;

		if (kb_parse_duration(value, &ns))
			return kb_fail(EINVAL, "--%s: '%s' is not a duration (e.g. 500ms, 2s)", o->name, value);
		err = check_range(o, ns / 1e9);
		if (!err)
			*(uint64_t *)p = ns;
		return err;
	}
	case KB_OPT_SIZE: {
		uint64_t b;

		if (kb_parse_size(value, &b))
			return kb_fail(EINVAL, "--%s: '%s' is not a size (e.g. 64M, 1G)", o->name, value);
		err = check_range(o, (double)b);
		if (!err)
			*(uint64_t *)p = b;
		return err;
	}
	}
	return kb_fail(EINVAL, "--%s: unknown option type", o->name);
}

int kb_cli_apply_defaults(const struct kb_opt_group *g)
{
	for (size_t i = 0; i < g->nopts; i++) {
		const struct kb_opt *o = &g->opts[i];

		if (o->def && o->type != KB_OPT_FLAG) {
			int err = kb_cli_set(o, g->cfg, o->def);

			if (err)
				return err;
		}
	}
	return 0;
}

static size_t build_groups(const struct kb_cmd *cmd, void *cfg, struct kb_opt_group *groups, size_t max)
{
	size_t n = 0;

	groups[n++] = (struct kb_opt_group){ NULL, cmd->opts, cmd->nopts, cfg };
	if (cmd->extra_groups)
		n += cmd->extra_groups(groups + n, max - n);
	return n;
}

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
		if (kb_cli_set(o, cfg, optarg)) {
			fprintf(stderr, "kvmbench %s: %s\nTry 'kvmbench %s --help'.\n", cmd->name,
				kb_last_error(), cmd->name);
			return -1;
		}
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

json_object *kb_cli_options_json(const struct kb_opt_group *groups, size_t ngroups)
{
	json_object *o = json_object_new_object();

	for (size_t g = 0; g < ngroups; g++)
		for (size_t i = 0; i < groups[g].nopts; i++) {
			const struct kb_opt *op = &groups[g].opts[i];
			const char *p = (const char *)groups[g].cfg + op->off;
			json_object *v = NULL;

			switch (op->type) {
			case KB_OPT_FLAG: v = json_object_new_boolean(*(const bool *)p); break;
			case KB_OPT_INT: v = json_object_new_int(*(const int *)p); break;
			case KB_OPT_INT_LIST: {
				const struct kb_int_list *l = (const void *)p;

				/* One value stays a number, as an INT option's would. */
				if (l->n == 1) {
					v = json_object_new_int(l->v[0]);
					break;
				}
				v = json_object_new_array();
				for (int k = 0; k < l->n; k++)
					json_object_array_add(v, json_object_new_int(l->v[k]));
				break;
			}
			case KB_OPT_U64: case KB_OPT_SIZE: case KB_OPT_DURATION:
				v = json_object_new_uint64(*(const uint64_t *)p);
				break;
			case KB_OPT_DOUBLE: v = json_object_new_double(*(const double *)p); break;
			case KB_OPT_STRING:
				v = *(const char *const *)p ? json_object_new_string(*(const char *const *)p) : NULL;
				break;
			}
			json_object_object_add(o, op->name, v);
		}
	return o;
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
	return kb_cli_options_json(current_groups, current_ngroups);
}

int kb_run_command(const struct kb_cmd *cmd, int argc, char **argv)
{
	struct kb_opt_group *groups = current_groups;
	void *cfg = kb_xcalloc(1, cmd->cfg_size);
	size_t ng = build_groups(cmd, cfg, groups, MAX_GROUPS);
	int first, ret;

	current_ngroups = ng;
	for (size_t g = 0; g < ng; g++)
		if (kb_cli_apply_defaults(&groups[g]))
			kb_die("internal error: bad default: %s", kb_last_error());
	first = kb_cli_parse(cmd, groups, ng, argc, argv);
	if (first <= 0) {
		free(cfg);
		return first == 0 ? 0 : 2;
	}
	ret = cmd->exec(cfg, argc - first, argv + first);
	free(cfg);
	return ret;
}
