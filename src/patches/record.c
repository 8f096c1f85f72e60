/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.c: the record 'apply' leaves in the tree (.kvmbench-patches.json): read, checked, written. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "patches/internal.h"

bool kbp_record_has(json_object *rec, const char *id)
{
	json_object *a = kb_json_get(rec, "applied");

	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		const char *f = kb_json_get_str(json_object_array_get_idx(a, i), "feature");

		if (f && !strcmp(f, id))
			return true;
	}
	return false;
}


json_object *kbp_record_load(const char *tree, int *err)
{
	char *path = kb_xasprintf("%s/%s", tree, KB_PATCHES_RECORD), *text = NULL;
	json_object *rec, *a;
	int rc;

	*err = 0;
	rc = kb_read_all(path, KB_PATCH_READ_MAX, &text, NULL);
	if (rc == -ENOENT) {
		free(path);
		return NULL;
	}
	if (rc) {
		*err = kb_fail(rc, "%s: %s", path, strerror(-rc));
		free(path);
		return NULL;
	}
	rec = json_tokener_parse(text);
	free(text);
	a = kb_json_get(rec, "applied");
	if (!rec || !kb_json_get_str(rec, "schema") || strcmp(kb_json_get_str(rec, "schema"), "kvmbench-applied-patches") ||
	    !a || !json_object_is_type(a, json_type_array)) {
		json_object_put(rec);
		*err = kb_fail(EINVAL, "%s is not a record kvmbench wrote (schema kvmbench-applied-patches): move it away or revert by hand",
			       path);
		free(path);
		return NULL;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i), *files = kb_json_get(e, "files");
		bool ok = kb_json_get_str(e, "feature") && kb_json_get_str(e, "patch") && kb_json_get_str(e, "diff") && files &&
			  json_object_is_type(files, json_type_array);

		for (size_t k = 0; ok && k < json_object_array_length(files); k++) {
			json_object *fj = json_object_array_get_idx(files, k);

			ok = json_object_is_type(fj, json_type_string) && kbp_safe_relpath(json_object_get_string(fj));
		}
		/* Revert snapshots 'files': the diff may touch nothing else. */
		if (ok) {
			char **touched = NULL;
			size_t nt = kbp_diff_paths(kb_json_get_str(e, "diff"), &touched);

			for (size_t k = 0; k < nt; k++) {
				bool listed = false;

				for (size_t m = 0; m < json_object_array_length(files); m++)
					listed |= !strcmp(touched[k], json_object_get_string(json_object_array_get_idx(files, m)));
				ok &= listed;
				free(touched[k]);
			}
			free(touched);
			ok &= nt > 0;
		}
		if (!ok) {
			json_object_put(rec);
			*err = kb_fail(EINVAL, "%s: entry %zu lacks feature, patch, files or diff, or its diff touches files it does not list: the record is damaged (revert by hand with patch -R)",
				       path, i + 1);
			free(path);
			return NULL;
		}
	}
	free(path);
	return rec;
}

int kbp_record_write(const char *tree, json_object *rec)
{
	char *path = kb_xasprintf("%s/%s", tree, KB_PATCHES_RECORD);
	const char *text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	struct kb_buf b = { 0 };
	int err;

	kb_buf_printf(&b, "%s\n", text);
	err = kb_write_atomic_data(path, "the patch record", b.p, b.len, 0644);
	if (err)
		err = kb_fail(err, "cannot write %s: %s", path, strerror(-err));
	free(b.p);
	free(path);
	return err;
}
