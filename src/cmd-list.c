/* cmd-list.c: 'kvmbench list': the suites and their tests, for people or as JSON. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kb.h"
#include "suite.h"

struct list_cfg {
	bool all;
	bool json;
};

static const struct kb_opt list_opts[] = {
	{ "all", 'a', KB_OPT_FLAG, offsetof(struct list_cfg, all), NULL,
	  "include hidden suites and tests (kvmbench's self-tests)", NULL, 0, 0 },
	{ "json", 'j', KB_OPT_FLAG, offsetof(struct list_cfg, json), NULL, "print JSON", NULL, 0, 0 },
};

static const char *needs_text(unsigned int needs, char *buf, size_t size)
{
	static const char *const names[] = { "irqchip", "x2apic", "tsc-deadline", "2-vcpus", "user-msr", "hypercall" };
	size_t len = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		if (needs & (1u << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i]);
	return buf;
}

static int cmd_list(void *cfgp, int argc, char **argv)
{
	struct list_cfg *c = cfgp;
	json_object *root = json_object_new_array();
	char needs[128];

	for (size_t i = 0; i < kb_nsuites; i++) {
		const struct kb_suite *s = kb_suites[i];
		json_object *js, *jt;
		bool named = false;

		for (int a = 0; a < argc; a++)
			named |= !strcmp(argv[a], s->name);
		if (argc && !named)
			continue;
		if (s->hidden && !c->all && !named)
			continue;
		js = json_object_new_object();
		jt = json_object_new_array();
		json_object_object_add(js, "name", json_object_new_string(s->name));
		json_object_object_add(js, "summary", json_object_new_string(s->summary));
		if (!c->json)
			printf("%s%s — %s\n", s->name, s->hidden ? " (hidden)" : "", s->summary);
		for (size_t t = 0; t < s->ntests; t++) {
			const struct kb_test_def *d = &s->tests[t];
			json_object *o;

			if (d->hidden && !c->all && !named)
				continue;
			needs_text(d->needs, needs, sizeof(needs));
			o = json_object_new_object();
			json_object_object_add(o, "name", json_object_new_string(d->name));
			json_object_object_add(o, "summary", json_object_new_string(d->summary));
			json_object_object_add(o, "exits_per_iteration", json_object_new_double(d->exits_per_iter));
			json_object_object_add(o, "needs", json_object_new_string(needs));
			json_object_object_add(o, "hidden", json_object_new_boolean(d->hidden));
			json_object_array_add(jt, o);
			if (!c->json)
				printf("  %s/%-24s %s%s%s%s\n", s->name, d->name, d->summary,
				       needs[0] ? " [needs " : "", needs, needs[0] ? "]" : "");
		}
		json_object_object_add(js, "tests", jt);
		json_object_array_add(root, js);
	}
	for (int a = 0; a < argc; a++)
		if (!kb_find_suite(argv[a])) {
			json_object_put(root);
			kb_die("unknown suite '%s' ('kvmbench list' shows the suites)", argv[a]);
		}
	if (c->json)
		printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return 0;
}

const struct kb_cmd kb_cmd_list = {
	.name = "list",
	.summary = "List the suites and their tests.",
	.usage = "[OPTIONS] [SUITE]...",
	.opts = list_opts,
	.nopts = ARRAY_SIZE(list_opts),
	.cfg_size = sizeof(struct list_cfg),
	.exec = cmd_list,
};
