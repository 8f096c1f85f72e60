/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-list.c: 'kvmbench list': the suites and their tests, for people or as JSON. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/json.h"
#include "core/kb.h"
#include "bench/suites.h"
#include "vmm/cpuarch.h"

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
	static const char *const names[] = { "irqchip", "x2apic", "tsc-deadline", "2-vcpus", "user-msr", "hypercall",
					       "tsx-ctrl", "spec-ctrl", "ibpb", "ioeventfd" };
	size_t len = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		if (needs & (1u << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i]);
	return buf;
}

static json_object *range_json(struct kb_exit_range r)
{
	json_object *o = json_object_new_object();

	kb_json_set(o, "min", json_object_new_double(r.lo));
	kb_json_set(o, "max", json_object_new_double(r.hi));
	return o;
}

/* The exits per iteration the cross-check expects: one number; per backend where they differ
 * (exits_per_iteration null, exits_per_iteration_by_backend the ranges); null where the suite's
 * own runner checks no exits per iteration (memory suites, the guest side's floors). */
static void exits_json(json_object *o, const struct kb_suite *s, const struct kb_test_def *d)
{
	json_object *b;

	if (d->exits_on.set) {
		b = json_object_new_object();
		kb_json_set(b, "intel", range_json(d->exits_on.intel));
		kb_json_set(b, "amd", range_json(d->exits_on.amd));
		kb_json_set(b, "pvm", range_json(d->exits_on.pvm));
		kb_json_set(o, "exits_per_iteration", NULL);
		kb_json_set(o, "exits_per_iteration_by_backend", b);
	} else if (s->run && d->exits_per_iter == 0) {
		kb_json_set(o, "exits_per_iteration", NULL);
	} else {
		kb_json_set(o, "exits_per_iteration", json_object_new_double(d->exits_per_iter));
	}
}

/* The architectures a suite runs on, by name, in enum kb_arch's order. */
static json_object *arches_json(unsigned int arches)
{
	static const enum kb_arch all[] = { KB_ARCH_X86, KB_ARCH_ARM64 };
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (arches & all[i])
			json_object_array_add(a, json_object_new_string(kb_arch_name(all[i])));
	return a;
}

static int cmd_list(void *cfgp, int argc, char **argv)
{
	struct list_cfg *c = cfgp;
	json_object *root = json_object_new_array();
	char needs[128];

	for (size_t i = 0; i < kb_nsuites; i++) {
		const struct kb_suite *s = kb_suites[i];
		json_object *js, *jt;
		const char *unavailable;
		bool named = false;

		for (int a = 0; a < argc; a++)
			named |= !strcmp(argv[a], s->name);
		if (argc && !named)
			continue;
		/* A suite of another architecture is always named, hidden with the reason; its tests
		 * (never runnable here) only in the JSON, with --all, or when the suite is named. */
		unavailable = kb_suite_unavailable(s);
		if (s->hidden && !unavailable && !c->all && !named)
			continue;
		js = json_object_new_object();
		jt = json_object_new_array();
		kb_json_set_str(js, "name", s->name);
		kb_json_set_str(js, "summary", s->summary);
		kb_json_set_bool(js, "hidden", s->hidden || unavailable);
		kb_json_set_str(js, "unavailable", unavailable);
		kb_json_set(js, "arches", arches_json(s->arches));
		if (!c->json && unavailable)
			printf("%s (hidden: %s) — %s\n", s->name, unavailable, s->summary);
		else if (!c->json)
			printf("%s%s — %s\n", s->name, s->hidden ? " (hidden)" : "", s->summary);
		for (size_t t = 0; t < s->ntests; t++) {
			const struct kb_test_def *d = &s->tests[t];
			json_object *o;

			if (d->hidden && !c->all && !named)
				continue;
			if (unavailable && !c->json && !c->all && !named)
				continue;
			needs_text(d->needs, needs, sizeof(needs));
			o = json_object_new_object();
			kb_json_set_str(o, "name", d->name);
			kb_json_set_str(o, "summary", d->summary);
			exits_json(o, s, d);
			kb_json_set_str(o, "needs", needs);
			kb_json_set_bool(o, "hidden", d->hidden);
			json_object_array_add(jt, o);
			if (!c->json)
				printf("  %s/%-24s %s%s%s%s\n", s->name, d->name, d->summary,
				       needs[0] ? " [needs " : "", needs, needs[0] ? "]" : "");
		}
		kb_json_set(js, "tests", jt);
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
