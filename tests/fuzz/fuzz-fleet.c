/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-fleet.c: a fleet directory as 'report --fleet' reads it: the input is one host's result,
 * read lean (yajl, the raw records left out, json-c's NaN and Infinity words rewritten) and, when
 * json-c reads the same bytes as a result too, checked against that full load: everything but the
 * raw records must be the same.  The fleet is then judged and rendered by every fleet writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fuzz.h"
#include "output/fleet-writers.h"
#include "results/fleet.h"
#include "results/result.h"

static FILE *sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

/* json-c prints a double it parsed with the text it was given ("1.50", "0e308", "-1e308"), the lean
 * reader's from its value ("1.5", "0.0", "-1e+308"): the same numbers.  Both are printed from their
 * values here, so that what is compared is what each reader read, not how the file spelt it. */
static void spell_by_value(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		json_object_set_serializer(o, NULL, NULL, NULL);
		break;
	case json_type_object: {
		json_object_object_foreach(o, key, v) {
			(void)key;
			spell_by_value(v);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			spell_by_value(json_object_array_get_idx(o, i));
		break;
	default:
		break;
	}
}

static char *without_raw(const struct kb_result *r)
{
	json_object *j = kb_result_to_json(r), *tests = json_object_object_get(j, "tests");
	char *text;

	for (size_t i = 0; tests && i < json_object_array_length(tests); i++)
		json_object_object_del(json_object_array_get_idx(tests, i), "raw");
	spell_by_value(j);
	text = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4096];
	struct kb_result lean, full;
	struct kb_fleet f;
	static const struct kb_fleet_writer *const writers[] = {
		&kb_fleet_writer_table, &kb_fleet_writer_markdown, &kb_fleet_writer_json, &kb_fleet_writer_html,
	};

	kb_fuzz_dir_clear();
	if (kb_fuzz_write("fleet/host/r.json", data, size))
		return 0;
	snprintf(path, sizeof(path), "%s/fleet/host/r.json", kb_fuzz_dir());
	if (!kb_result_load_lean(path, &lean)) {
		if (!kb_result_load(path, &full)) {
			char *a = without_raw(&full), *b = without_raw(&lean);

			/* Two readers of one format must read the same values. */
			if (!a || !b || strcmp(a, b))
				abort();
			free(a);
			free(b);
			kb_result_free(&full);
		}
		kb_result_free(&lean);
	}
	snprintf(path, sizeof(path), "%s/fleet", kb_fuzz_dir());
	kb_fleet_init(&f, NULL);
	if (!kb_fleet_add_path(&f, path) && !kb_fleet_load(&f)) {
		kb_fleet_finish(&f);
		for (size_t w = 0; w < sizeof(writers) / sizeof(writers[0]); w++)
			writers[w]->write(&f, "fuzz", sink());
	}
	kb_fleet_free(&f);
	return 0;
}
