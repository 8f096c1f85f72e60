/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-result-json.c: a results or baseline file, as 'compare', 'report' and 'run --baseline'
 * read it: json-c parses the bytes, kb_result_from_json() builds the model, and a model that
 * loads is then compared with itself and rendered by every writer, which is where the loaded
 * host, options, params and extra objects are read. */
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>

#include "output/compare-view.h"
#include "fuzz.h"
#include "results/result.h"
#include "output/writers.h"

static FILE *sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_tokener *tok = json_tokener_new();
	json_object *j;
	struct kb_result r;

	if (!tok)
		return 0;
	kb_result_init(&r);
	j = json_tokener_parse_ex(tok, (const char *)data, (int)(size > 1 << 24 ? 1 << 24 : size));
	if (j && !kb_result_from_json(j, &r)) {
		const struct kb_result *results[] = { &r, &r };
		const char *names[] = { "a.json", "b.json" };
		struct kb_report rep = { .results = results, .names = names, .nresults = 2,
					 .baseline = &r, .baseline_name = "base.json" };
		struct kb_compare_opts o;
		json_object *back = kb_result_to_json(&r);

		json_object_to_json_string(back);
		json_object_put(back);
		kb_compare_opts_init(&o);
		for (int fmt = KB_CMP_TABLE; fmt <= KB_CMP_MARKDOWN; fmt++) {
			o.format = (enum kb_compare_format)fmt;
			o.all_metrics = fmt == KB_CMP_JSON;
			kb_compare_results(&r, &r, &o, sink(), sink());
		}
		kb_compare_opts_init(&rep.cmp);
		for (size_t w = 0; w < kb_nwriters; w++)
			kb_writers[w]->write(&rep, sink());
	}
	/* A failed load leaves what it built so far; freeing it is the caller's part. */
	kb_result_free(&r);
	json_object_put(j);
	json_tokener_free(tok);
	return 0;
}
