/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-patch-header.c: one bundled patch, as 'kvmbench patches' reads each patch features.json
 * names: kbp_patch_load() parses its Kvmbench-Patch 1 header and checks Feature and Files against
 * the diff.  The manifest target reaches headers only behind a features.json that loads; this
 * one feeds the header parser directly.
 *
 * Input: the patch file, given to the parser as the text kbp_patch_load() reads (kbp_patch_parse():
 * no file is written and read back).  The feature it is checked against is the value of its first
 * "Feature: " line (so that the checks after the Feature match are reached), or "none". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "patches/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = kb_fuzz_cstr(data, size), feature[128] = "none";
	const char *f = strstr(text, "\nFeature: ");
	struct kb_patch *p;

	if (f) {
		size_t n = strcspn(f + 10, "\r\n");

		snprintf(feature, sizeof(feature), "%.*s", (int)(n < sizeof(feature) ? n : sizeof(feature) - 1), f + 10);
	}
	/* The text as kbp_patch_load() has it once read: the same parser, without the file. */
	if (!kbp_patch_parse("bundle", "patches/p.patch", feature, text, &p))
		kbp_patch_free(p);
	free(text);
	return 0;
}
