/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-manifest.c: the kernel/ bundle as 'kvmbench patches' loads it: features.json and the
 * Kvmbench-Patch headers of the patches it names (kb_bundle_open()), and a kernel tree's
 * Makefile (kb_tree_open()).
 *
 * Input: files, each introduced by a line "==> PATH <==" (as 'head' prints several files);
 * bytes before the first such line are features.json.  PATH is relative to the bundle (a
 * scratch directory); paths that could leave it are dropped.  A file "tree/Makefile" also gets
 * an empty tree/arch/x86/kvm, the tree is opened and, with a bundle that loaded, verified: the
 * manifest's rules run on the tree's files and tree/.kvmbench-patches.json (the record of
 * applied patches) is read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fuzz.h"
#include "patches/patches.h"

static bool safe(const char *p, size_t n)
{
	if (!n || n > 200 || p[0] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.' || c == '/'))
			return false;
		if (c == '.' && (i == 0 || p[i - 1] == '/') &&
		    !(n - i == sizeof(KB_PATCHES_RECORD) - 1 && !memcmp(p + i, KB_PATCHES_RECORD, n - i)))
			return false;   /* no "..", no hidden files but the record */
	}
	return true;
}

/* The next "==> " at the start of a line, from p (itself a line start) on. */
static const char *find_marker(const char *p, const char *end)
{
	if (end - p >= 4 && !memcmp(p, "==> ", 4))
		return p;
	while ((p = memchr(p, '\n', (size_t)(end - p))) && ++p < end)
		if (end - p >= 4 && !memcmp(p, "==> ", 4))
			return p;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *next;
	struct kb_bundle b;
	struct kb_tree t;
	bool tree = false, loaded;
	char dir[4096];

	kb_fuzz_dir_clear();
	next = find_marker(p, end);
	if (kb_fuzz_write("features.json", p, (size_t)((next ? next : end) - p)))
		return 0;
	while (next) {
		const char *name = next + 4, *eol = memchr(name, '\n', (size_t)(end - name)), *close;
		char rel[256];

		if (!eol)
			break;
		close = eol - 4 >= name && !memcmp(eol - 4, " <==", 4) ? eol - 4 : NULL;
		p = eol + 1;
		next = p < end ? find_marker(p, end) : NULL;
		if (!close || !safe(name, (size_t)(close - name)))
			continue;
		snprintf(rel, sizeof(rel), "%.*s", (int)(close - name), name);
		if (kb_fuzz_write(rel, p, (size_t)((next ? next : end) - p)))
			continue;
		tree |= !strcmp(rel, "tree/Makefile");
	}
	loaded = !kb_bundle_open(kb_fuzz_dir(), &b);
	if (loaded) {
		json_object_put(kb_bundle_list_json(&b));
		json_object_put(kb_bundle_origin_json(&b));
		for (size_t i = 0; i < b.nfeatures; i++)
			kb_bundle_feature(&b, b.features[i].id);
	}
	if (tree) {
		kb_fuzz_write("tree/arch/x86/kvm/.keep", "", 0);
		snprintf(dir, sizeof(dir), "%s/tree", kb_fuzz_dir());
		if (!kb_tree_open(dir, &t)) {
			if (loaded) {
				json_object *report = NULL;

				kb_tree_verify(&b, &t, "x86_64", NULL, 0, &report);
				json_object_put(report);
			}
			kb_tree_close(&t);
		}
	}
	if (loaded)
		kb_bundle_close(&b);
	return 0;
}
