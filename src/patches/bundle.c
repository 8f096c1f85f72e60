/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bundle.c: the kernel/ bundle: find it, check features.json, load its patches, list it. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/kb.h"
#include "patches/internal.h"

#ifndef KB_PKGDATADIR
#define KB_PKGDATADIR "/usr/local/share/kvmbench"
#endif

static const char *const statuses[] = { "bundled", "upstream", "known-bad", NULL };
static const char *const arches[] = { "x86_64", "arm64", "any", NULL };
static const char *const vendors[] = { "intel", "amd", "any", NULL };
static const char *const rule_sets[] = { "applicable_if", "present_if", "bundled_if", NULL };

static bool id_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}


/*
 * glibc's regcomp() copies a subexpression once per count of an interval ("x{1000}") and once
 * for each '+', so stacked or nested repetitions take memory multiplied up (found by fuzzing: 30
 * '+' in a row, 2^30 copies, exhausted 2 GiB).  The copies, taken as if all nested, may multiply
 * to 65536.
 */
static bool regex_bounded(const char *re)
{
	double copies = 1;
	bool bracket = false;

	if (strlen(re) > 4096)
		return false;
	for (const char *p = re; *p; p++) {
		if (bracket) {
			/* "[]...]" and "[^]...]" start with a literal ']'. */
			if (*p == ']' && p[-1] != '[' && !(p[-1] == '^' && p[-2] == '['))
				bracket = false;
		} else if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			bracket = true;
		} else if (*p == '+') {
			copies *= 2;
		} else if (*p == '{') {
			char *end;
			unsigned long lo = strtoul(p + 1, &end, 10), hi = lo;

			if (end == p + 1)
				continue;
			if (*end == ',')
				hi = end[1] == '}' ? lo + 1 : strtoul(end + 1, &end, 10);
			copies *= (double)(hi > lo ? hi : lo) + 1;
		}
	}
	return copies <= 65536;
}

static int check_source_rule(const char *id, const char *set, json_object *r)
{
	const char *file = kb_json_get_str(r, "file"), *fixed = kb_json_get_str(r, "fixed"), *re = kb_json_get_str(r, "regex");
	json_object *match = kb_json_get(r, "match");

	if (!json_object_is_type(r, json_type_object) || !file || !kbp_safe_relpath(file))
		return kb_fail(EINVAL, "features.json: feature '%s': a %s rule has no valid 'file'", id, set);
	if (!fixed == !re)
		return kb_fail(EINVAL, "features.json: feature '%s': a %s rule on %s needs exactly one of 'fixed' and 'regex'",
			       id, set, file);
	if (fixed && (!*fixed || strchr(fixed, '\n')))
		return kb_fail(EINVAL, "features.json: feature '%s': a %s 'fixed' string on %s is empty or has a newline",
			       id, set, file);
	if (match && !json_object_is_type(match, json_type_boolean))
		return kb_fail(EINVAL, "features.json: feature '%s': a %s rule on %s has a 'match' that is not true or false",
			       id, set, file);
	if (re && !regex_bounded(re))
		return kb_fail(EINVAL, "features.json: feature '%s': %s regex on %s is too long or repeats too much "
			       "(the counts of its '+' and {m,n} repetitions may multiply to at most 65536)", id, set, file);
	if (re) {
		regex_t rx;
		int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[256];

			regerror(rc, &rx, msg, sizeof(msg));
			return kb_fail(EINVAL, "features.json: feature '%s': %s regex on %s does not compile: %s",
				       id, set, file, msg);
		}
		regfree(&rx);
	}
	return 0;
}

static int check_runtime_rule(const char *id, const char *set, json_object *r)
{
	const char *sym = kb_json_get_str(r, "kallsyms"), *param = kb_json_get_str(r, "param"), *stat = kb_json_get_str(r, "stat");
	json_object *match = kb_json_get(r, "match");

	if (!json_object_is_type(r, json_type_object) || (!!sym + !!param + !!stat) != 1)
		return kb_fail(EINVAL, "features.json: feature '%s': a running_kernel %s rule needs exactly one of 'kallsyms', 'param' and 'stat'",
			       id, set);
	if (match && !json_object_is_type(match, json_type_boolean))
		return kb_fail(EINVAL, "features.json: feature '%s': a running_kernel %s rule has a 'match' that is not true or false", id, set);
	if (sym && !in_list(kb_json_get_str(r, "type"), (const char *const[]){ "text", "data", NULL }))
		return kb_fail(EINVAL, "features.json: feature '%s': kallsyms rule %s: 'type' must be \"text\" or \"data\"", id, sym);
	if (param && (!strchr(param, '/') || !kbp_safe_relpath(param) || strchr(strchr(param, '/') + 1, '/')))
		return kb_fail(EINVAL, "features.json: feature '%s': param rule '%s' is not 'module/name'", id, param);
	if (stat && (!in_list(kb_json_get_str(r, "scope"), (const char *const[]){ "vm", "vcpu", NULL }) || !kbp_safe_relpath(stat)))
		return kb_fail(EINVAL, "features.json: feature '%s': stat rule '%s': 'scope' must be \"vm\" or \"vcpu\"", id, stat);
	return 0;
}

static int check_feature(const struct kb_bundle *b, size_t idx, json_object *fj)
{
	const char *id = kb_json_get_str(fj, "id"), *status = kb_json_get_str(fj, "status"), *arch = kb_json_get_str(fj, "arch");
	json_object *v, *st = kb_json_get(fj, "source_tree"), *rk = kb_json_get(fj, "running_kernel");
	int err;

	if (!id_ok(id))
		return kb_fail(EINVAL, "features.json: feature #%zu: 'id' is missing or not [a-z0-9-]+", idx + 1);
	for (size_t i = 0; i < idx; i++)
		if (!strcmp(b->features[i].id, id))
			return kb_fail(EINVAL, "features.json: feature id '%s' appears twice", id);
	if (!kb_json_get_str(fj, "title"))
		return kb_fail(EINVAL, "features.json: feature '%s' has no 'title'", id);
	if (!in_list(status, statuses))
		return kb_fail(EINVAL, "features.json: feature '%s': 'status' must be bundled, upstream or known-bad", id);
	if (!in_list(arch, arches))
		return kb_fail(EINVAL, "features.json: feature '%s': 'arch' must be x86_64, arm64 or any", id);
	v = kb_json_get(fj, "cpu_vendors");
	if (!v || !json_object_is_type(v, json_type_array) || !json_object_array_length(v))
		return kb_fail(EINVAL, "features.json: feature '%s': 'cpu_vendors' must be a non-empty array", id);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string) || !in_list(json_object_get_string(e), vendors))
			return kb_fail(EINVAL, "features.json: feature '%s': cpu_vendors may hold intel, amd and any", id);
	}
	if (!strcmp(status, "bundled") != !kb_json_is_null(kb_json_get(fj, "patch")) ||
	    (!kb_json_is_null(kb_json_get(fj, "patch")) && !kb_json_get_str(fj, "patch")))
		return kb_fail(EINVAL, "features.json: feature '%s': 'patch' must be a path for status bundled and null otherwise", id);
	if (!st || !json_object_is_type(st, json_type_object))
		return kb_fail(EINVAL, "features.json: feature '%s' has no 'source_tree' object", id);
	if (!rk || !json_object_is_type(rk, json_type_object))
		return kb_fail(EINVAL, "features.json: feature '%s' has no 'running_kernel' object", id);
	for (const char *const *set = rule_sets; *set; set++) {
		const char *rset = !strcmp(*set, "applicable_if") ? NULL : *set;

		v = kb_json_get(st, *set);
		if (!kb_json_is_null(v) && !json_object_is_type(v, json_type_array))
			return kb_fail(EINVAL, "features.json: feature '%s': source_tree.%s must be an array or null", id, *set);
		for (size_t i = 0; !kb_json_is_null(v) && i < json_object_array_length(v); i++)
			if ((err = check_source_rule(id, *set, json_object_array_get_idx(v, i))))
				return err;
		if (!rset)
			continue;
		v = kb_json_get(rk, rset);
		if (!kb_json_is_null(v) && !json_object_is_type(v, json_type_array))
			return kb_fail(EINVAL, "features.json: feature '%s': running_kernel.%s must be an array or null", id, rset);
		for (size_t i = 0; !kb_json_is_null(v) && i < json_object_array_length(v); i++)
			if ((err = check_runtime_rule(id, rset, json_object_array_get_idx(v, i))))
				return err;
	}
	v = kb_json_get(rk, "min_version");
	if (!kb_json_is_null(v)) {
		int a, c;

		if (!kb_json_get_str(rk, "min_version") || kb_kernel_version_parse(kb_json_get_str(rk, "min_version"), &a, &c, NULL))
			return kb_fail(EINVAL, "features.json: feature '%s': running_kernel.min_version must be \"X.Y\" or null", id);
	}
	return 0;
}

static int cmp_patch(const void *a, const void *b)
{
	return strcmp((*(struct kb_patch *const *)a)->file, (*(struct kb_patch *const *)b)->file);
}

static int bundle_load(struct kb_bundle *b)
{
	char *path = kb_xasprintf("%s/features.json", b->dir);
	json_object *fs;
	size_t n;
	int err;

	b->manifest = json_object_from_file(path);
	if (!b->manifest) {
		err = kb_fail(EINVAL, "%s: not readable JSON (%s)", path, json_util_get_last_err());
		free(path);
		return err;
	}
	free(path);
	if (!kb_json_get_str(b->manifest, "schema") || strcmp(kb_json_get_str(b->manifest, "schema"), "kvmbench-kernel-features") ||
	    !kb_json_get(b->manifest, "schema_version") || json_object_get_int(kb_json_get(b->manifest, "schema_version")) != 1)
		return kb_fail(EINVAL, "%s/features.json: not a kvmbench-kernel-features manifest of schema_version 1", b->dir);
	fs = kb_json_get(b->manifest, "features");
	if (!fs || !json_object_is_type(fs, json_type_array))
		return kb_fail(EINVAL, "%s/features.json: 'features' is not an array", b->dir);
	n = json_object_array_length(fs);
	b->features = kb_xcalloc(n + 1, sizeof(*b->features));
	b->patches = kb_xcalloc(n + 1, sizeof(*b->patches));
	for (size_t i = 0; i < n; i++) {
		json_object *fj = json_object_array_get_idx(fs, i);
		struct kb_feature *f = &b->features[i];

		if ((err = check_feature(b, i, fj)))
			return err;
		f->id = kb_json_get_str(fj, "id");
		f->title = kb_json_get_str(fj, "title");
		f->status = kb_json_get_str(fj, "status");
		f->arch = kb_json_get_str(fj, "arch");
		f->j = fj;
		b->nfeatures = i + 1;
		if (kb_json_get_str(fj, "patch")) {
			if ((err = kbp_patch_load(b->dir, kb_json_get_str(fj, "patch"), f->id, &f->patch)))
				return err;
			b->patches[b->npatches++] = f->patch;
		}
	}
	qsort(b->patches, b->npatches, sizeof(*b->patches), cmp_patch);
	for (size_t i = 0; i < b->nfeatures; i++) {
		json_object *fx = kb_json_get(b->features[i].j, "fixes");
		const char *fixes = kb_json_get_str(b->features[i].j, "fixes");

		if (kb_json_is_null(fx))
			continue;
		if (!fixes || !strcmp(fixes, b->features[i].id) || !kb_bundle_feature(b, fixes))
			return kb_fail(EINVAL, "features.json: feature '%s': 'fixes' must name another feature of the manifest",
				       b->features[i].id);
	}
	return 0;
}

static bool has_manifest(const char *dir)
{
	char *p = kb_xasprintf("%s/features.json", dir);
	bool ok = !access(p, R_OK);

	free(p);
	return ok;
}

int kb_bundle_open(const char *dir, struct kb_bundle *b)
{
	const char *env = getenv("KVMBENCH_KERNEL_DIR");
	char *installed = kb_xasprintf("%s/kernel", KB_PKGDATADIR), *srcdir = kb_build_tree_srcdir();
	char *srctree = srcdir ? kb_xasprintf("%s/kernel", srcdir) : NULL;
	const char *chosen = NULL;
	char real[PATH_MAX];
	int err;

	memset(b, 0, sizeof(*b));
	if (dir || (env && *env)) {
		chosen = dir ? dir : env;
		b->source = dir ? "--bundle" : "KVMBENCH_KERNEL_DIR";
		b->why = kb_xstrdup(dir ? "given with --bundle" : "from $KVMBENCH_KERNEL_DIR");
		if (!has_manifest(chosen)) {
			err = kb_fail(ENOENT, "%s (%s) is not a kvmbench kernel/ bundle: it has no readable features.json",
				      chosen, b->why);
			goto out;
		}
	} else {
		/* A build tree's own bundle first: an older installed one must not shadow it. */
		const char *order[2] = { srctree ? srctree : installed, srctree ? installed : NULL };

		for (int i = 0; i < 2 && !chosen; i++)
			if (order[i] && has_manifest(order[i]))
				chosen = order[i];
		if (!chosen && srctree) {
			err = kb_fail(ENOENT, "the kernel/ patch bundle is neither installed (%s) nor in the source tree of this build (%s): give its directory with --bundle DIR or $KVMBENCH_KERNEL_DIR",
				      installed, srctree);
			goto out;
		}
		if (!chosen) {
			err = kb_fail(ENOENT, "the kernel/ patch bundle is not installed (%s): reinstall kvmbench, or give its directory with --bundle DIR or $KVMBENCH_KERNEL_DIR",
				      installed);
			goto out;
		}
		if (chosen == srctree) {
			b->source = "source-tree";
			b->why = kb_xstrdup("the source tree of this build, which is not installed");
		} else {
			b->source = "installed";
			b->why = kb_xstrdup("installed with kvmbench");
		}
	}
	b->dir = kb_xstrdup(realpath(chosen, real) ? real : chosen);
	err = bundle_load(b);
out:
	free(installed);
	free(srctree);
	free(srcdir);
	if (err) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", kb_last_error());
		kb_bundle_close(b);
		kb_fail(err, "%s", msg);
	}
	return err;
}

void kb_bundle_close(struct kb_bundle *b)
{
	for (size_t i = 0; i < b->nfeatures; i++)
		kbp_patch_free(b->features[i].patch);
	free(b->features);
	free(b->patches);
	if (b->manifest)
		json_object_put(b->manifest);
	free(b->dir);
	free(b->why);
	memset(b, 0, sizeof(*b));
}

const struct kb_feature *kb_bundle_feature(const struct kb_bundle *b, const char *id)
{
	for (size_t i = 0; i < b->nfeatures; i++)
		if (!strcmp(b->features[i].id, id))
			return &b->features[i];
	return NULL;
}

json_object *kb_bundle_origin_json(const struct kb_bundle *b)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "dir", b->dir);
	kb_json_set_str(o, "source", b->source);
	kb_json_set_str(o, "description", b->why);
	return o;
}

json_object *kbp_strings_json(char *const *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *patch_json(const struct kb_patch *p)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "file", p->file);
	kb_json_set_str(o, "path", p->path);
	kb_json_set_str(o, "feature", p->feature);
	kb_json_set_str(o, "title", p->title);
	kb_json_set_str(o, "upstream", p->upstream);
	kb_json_set_str(o, "base", p->base);
	kb_json_set(o, "files", kbp_strings_json(p->files, p->nfiles));
	return o;
}

json_object *kb_bundle_list_json(const struct kb_bundle *b)
{
	json_object *root = json_object_new_object(), *fs = json_object_new_array(), *ps = json_object_new_array();

	kb_json_set(root, "bundle", kb_bundle_origin_json(b));
	kb_json_set_int(root, "schema_version", 1);
	kb_json_set(root, "base", json_object_get(kb_json_get(b->manifest, "base")));
	for (size_t i = 0; i < b->nfeatures; i++) {
		const struct kb_feature *f = &b->features[i];
		json_object *o = json_object_new_object();
		bool bad = !strcmp(f->status, "known-bad");

		kb_json_set_str(o, "id", f->id);
		kb_json_set_str(o, "title", f->title);
		kb_json_set_str(o, "status", f->status);
		kb_json_set_str(o, "arch", f->arch);
		kb_json_set(o, "cpu_vendors", json_object_get(kb_json_get(f->j, "cpu_vendors")));
		kb_json_set_bool(o, "known_bad", bad);
		kb_json_set_bool(o, "offered", f->patch != NULL);
		kb_json_set(o, "upstream", json_object_get(kb_json_get(f->j, "upstream")));
		kb_json_set(o, "patch", f->patch ? patch_json(f->patch) : NULL);
		kb_json_set(o, "measured_by", json_object_get(kb_json_get(f->j, "measured_by")));
		kb_json_set(o, "notes", json_object_get(kb_json_get(f->j, "notes")));
		json_object_array_add(fs, o);
	}
	for (size_t i = 0; i < b->npatches; i++)
		json_object_array_add(ps, patch_json(b->patches[i]));
	kb_json_set(root, "features", fs);
	kb_json_set(root, "patches", ps);
	return root;
}
