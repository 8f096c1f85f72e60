/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-arm64-dump.c: an arm64 CPU dump, as 'info --arm64-cpu-file' reads it: kb_arm64_parse() on the
 * text, then what info does with a dump that parses: the core table, the ID-register fields, advice. */
#include <stdlib.h>
#include <json-c/json.h>

#include "host/arm64.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = kb_fuzz_cstr(data, size);
	struct kb_arm64_cpu c;
	json_object *a;

	if (!kb_arm64_parse("fuzz", text, &c)) {
		/* A dump info accepts has at least one CPU, each with a 32-bit MIDR. */
		if (c.ncores < 1)
			abort();
		json_object_put(kb_arm64_cpu_json(&c));
		json_object_put(kb_arm64_virt_json(&c));
		json_object_put(kb_arm64_pmu_json(&c));
		a = json_object_new_array();
		kb_arm64_advice(&c, a);
		json_object_put(a);
		kb_arm64_free(&c);
	}
	free(text);
	return 0;
}
