/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer-json.c: the lossless JSON result (schema_version 1, docs/result-schema.json); several results as an array. */
#include "core/kb.h"
#include "output/writers.h"

static int write_json(const struct kb_report *rep, FILE *f)
{
	json_object *j;

	if (rep->nresults == 1) {
		j = kb_result_to_json(rep->results[0]);
	} else {
		j = json_object_new_array();
		for (size_t i = 0; i < rep->nresults; i++)
			json_object_array_add(j, kb_result_to_json(rep->results[i]));
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
	return 0;
}

const struct kb_writer kb_writer_json = {
	.name = "json",
	.summary = "the lossless result; several results as a JSON array of them",
	.write = write_json,
};
