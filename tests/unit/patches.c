/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patches.c: the patch machinery: kernel versions, the repo's kernel/ bundle and damaged copies of
 * it, and apply/revert (conflicts, failures, signals) on small trees built from the patches' diffs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "host/advice.h"
#include "host/uarch.h"
#include "patches/internal.h"
#include "patches/patches.h"
#include "tap.h"
#include "testfs.h"

#define FEATURE_PMU "vpmu-emulated-event-fastpath"
#define FEATURE_TDP "tdp-mmu-split-huge-page-on-fault"
#define PATCH_PMU "patches/0001-kvm-x86-pmu-skip-emulated-event-loop-when-no-counter-enabled.patch"
#define PATCH_TDP "patches/0002-kvm-x86-mmu-split-huge-pages-on-fault-in-tdp-mmu.patch"

static char *tmp_root;   /* $TMPDIR/kb-unit-patches-XXXXXX */

/* ---- files ---------------------------------------------------------------------------------- */

static char *slurp(const char *path)
{
	char *text = NULL;

	if (kb_read_all(path, (size_t)64 << 20, &text, NULL)) {
		printf("# cannot read %s\n", path);
		exit(99);
	}
	return text;
}

static void spit_str(const char *path, const char *text)
{
	testfs_write(path, text, strlen(text));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Every directory and file under dir (hidden ones too), sorted, with each file's bytes and mode:
 * two trees are byte-identical exactly when their images are equal. */
static void image_add(struct kb_buf *b, const char *dir, const char *rel)
{
	struct dirent **ents;
	char *path = kb_xasprintf("%s%s%s", dir, *rel ? "/" : "", rel);
	int n = scandir(path, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *r, *p;
		struct stat st;

		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			free(ents[i]);
			continue;
		}
		r = kb_xasprintf("%s%s%s", rel, *rel ? "/" : "", name);
		p = kb_xasprintf("%s/%s", dir, r);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode)) {
			kb_buf_printf(b, "dir %s %o\n", r, (unsigned)(st.st_mode & 07777));
			image_add(b, dir, r);
		} else if (!lstat(p, &st) && S_ISREG(st.st_mode)) {
			char *data = NULL;
			size_t len = 0;

			if (kb_read_all(p, (size_t)64 << 20, &data, &len))
				exit(99);
			kb_buf_printf(b, "file %s %o %zu\n", r, (unsigned)(st.st_mode & 07777), len);
			kb_buf_add(b, data, len);
			kb_buf_add(b, "\n", 1);
			free(data);
		} else {
			kb_buf_printf(b, "other %s\n", r);
		}
		free(p);
		free(r);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	free(path);
}

static char *tree_image(const char *dir)
{
	struct kb_buf b = { 0 };

	kb_buf_add(&b, "", 0);
	image_add(&b, dir, "");
	return b.p;
}

/* ---- a small tree: what the bundled patches' hunks need, at the lines they name ------------- */

struct lines {
	char **v;
	size_t n, cap;
};

static void lines_set(struct lines *l, size_t at, const char *s, size_t len)
{
	while (l->n <= at) {
		l->v = kb_xgrow(l->v, l->n, &l->cap, sizeof(*l->v));
		l->v[l->n] = kb_xasprintf("/* filler line %zu of the unit test tree */", l->n + 1);
		l->n++;
	}
	free(l->v[at]);
	l->v[at] = kb_xasprintf("%.*s", (int)len, s);
}

/* The files a diff touches as they were before it (its context and removed lines at their line
 * numbers, filler between), written into tree unless there already; 'extra' lines go at the end. */
static void write_preimages(const char *tree, const char *diff, const char *extra)
{
	const char *p = diff;

	while ((p = strstr(p, "\ndiff --git a/"))) {
		const char *name = p + 14, *end = strstr(name, " b/");
		char *rel = kb_xasprintf("%.*s", (int)(end - name), name), *path;
		struct lines l = { 0 };
		struct kb_buf out = { 0 };
		bool in_hunk = false;
		size_t at = 0;

		p = strchr(p + 1, '\n');
		while (p && p[1] && strncmp(p + 1, "diff --git", 10)) {
			const char *line = p + 1, *eol = strchr(line, '\n');
			size_t len = eol ? (size_t)(eol - line) : strlen(line);

			if (!strncmp(line, "@@ -", 4)) {
				at = strtoul(line + 4, NULL, 10) - 1;
				in_hunk = true;
			} else if (in_hunk && (*line == ' ' || *line == '-')) {
				lines_set(&l, at++, line + 1, len - 1);
			}
			p = eol;
		}
		kb_buf_add(&out, "", 0);
		for (size_t i = 0; i < l.n; i++) {
			kb_buf_printf(&out, "%s\n", l.v[i]);
			free(l.v[i]);
		}
		kb_buf_printf(&out, "%s", extra);
		path = kb_xasprintf("%s/%s", tree, rel);
		if (access(path, F_OK))
			testfs_write(path, out.p, out.len);
		free(path);
		free(out.p);
		free(l.v);
		free(rel);
	}
}

/* The applicable_if strings of every feature, as lines: the tree has the code the patches touch. */
static char *applicable_lines(const struct kb_bundle *b)
{
	struct kb_buf out = { 0 };

	kb_buf_add(&out, "", 0);
	for (size_t i = 0; i < b->nfeatures; i++) {
		json_object *set = kb_json_path(b->features[i].j, "source_tree.applicable_if");

		for (size_t k = 0; b->features[i].patch && set && k < json_object_array_length(set); k++)
			kb_buf_printf(&out, "/* %s */\n", kb_json_get_str(json_object_array_get_idx(set, k), "fixed"));
	}
	return out.p;
}

static char *make_tree(const struct kb_bundle *b, const char *name)
{
	char *tree = kb_xasprintf("%s/%s", tmp_root, name), *mk = kb_xasprintf("%s/Makefile", tree);
	char *kvm = kb_xasprintf("%s/arch/x86/kvm", tree), *extra = applicable_lines(b);

	spit_str(mk, "# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n"
		     "EXTRAVERSION =\nNAME = Curry Ramen\n");
	testfs_mkdirs(kvm);
	for (size_t i = 0; i < b->npatches; i++) {
		char *text = slurp(b->patches[i]->path);

		write_preimages(tree, text, extra);
		free(text);
	}
	free(extra);
	free(kvm);
	free(mk);
	return tree;
}

/* ---- checks --------------------------------------------------------------------------------- */

static bool has(const char *haystack, const char *needle)
{
	return haystack && strstr(haystack, needle);
}

static const char *verdict_of(json_object *rep, const char *id)
{
	json_object *fs = kb_json_get(rep, "features");

	for (size_t i = 0; fs && i < json_object_array_length(fs); i++)
		if (!strcmp(kb_json_get_str(json_object_array_get_idx(fs, i), "id"), id))
			return kb_json_get_str(json_object_array_get_idx(fs, i), "verdict");
	return NULL;
}

static void test_versions(void)
{
	static const struct {
		const char *s;
		int major, minor, sub;
	} good[] = {
		{ "6.1.192", 6, 1, 192 },
		{ "6.1.0-57-amd64", 6, 1, 0 },
		{ "4.11", 4, 11, 0 },
		{ "v6.9-rc1", 6, 9, 0 },
		{ "Linux version 5.15.0-91-generic", 5, 15, 0 },
		{ "12.34.56.78", 12, 34, 56 },
		{ "6.1.", 6, 1, 0 },
		{ "release 7 then 3.2", 3, 2, 0 },
	};
	static const char *const bad[] = { "", "abc", "6", "6.", "6.x", "1.x.2", "v-", "7 and 8" };
	int a, b, c;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		int rc;

		a = b = c = -1;
		rc = kb_kernel_version_parse(good[i].s, &a, &b, &c);
		ok(rc == 0 && a == good[i].major && b == good[i].minor && c == good[i].sub,
		   "version '%s' is %d.%d.%d (got %d: %d.%d.%d)", good[i].s, good[i].major, good[i].minor, good[i].sub,
		   rc, a, b, c);
	}
	a = b = -1;
	ok(kb_kernel_version_parse("6.1.192", &a, &b, NULL) == 0 && a == 6 && b == 1, "version without sublevel wanted");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ok(kb_kernel_version_parse(bad[i], &a, &b, &c) == -EINVAL, "'%s' is not a version: -EINVAL", bad[i]);
	ok(kb_kernel_version_parse(NULL, &a, &b, &c) == -EINVAL, "NULL is not a version: -EINVAL");
}

static void test_bundle(const char *kdir, struct kb_bundle *b)
{
	char *mpath = kb_xasprintf("%s/features.json", kdir), real[4096];
	json_object *m = json_object_from_file(mpath), *fs = kb_json_get(m, "features"), *list;
	size_t nbundled = 0;
	bool same = fs != NULL;
	const struct kb_feature *f;
	struct kb_bundle e;
	int err;

	err = kb_bundle_open(kdir, b);
	if (!ok(err == 0, "the repo's kernel/ bundle loads (%s)", err ? kb_last_error() : kdir))
		exit(tap_done());
	is_str(b->source, "--bundle", "a bundle given by directory says so");
	is_str(b->dir, realpath(kdir, real) ? real : kdir, "the bundle's directory, resolved");
	ok(b->npatches == 2, "2 patches (%zu)", b->npatches);
	is_str(b->patches[0]->file, PATCH_PMU, "first patch in apply order");
	is_str(b->patches[1]->file, PATCH_TDP, "second patch in apply order");
	is_str(b->patches[0]->feature, FEATURE_PMU, "the first patch's Feature");
	is_str(b->patches[1]->feature, FEATURE_TDP, "the second patch's Feature");
	ok(b->patches[0]->nfiles == 1 && !strcmp(b->patches[0]->files[0], "arch/x86/kvm/pmu.c"), "the first patch's Files");
	ok(b->patches[1]->nfiles == 1 && !strcmp(b->patches[1]->files[0], "arch/x86/kvm/mmu/tdp_mmu.c"),
	   "the second patch's Files");
	ok(b->patches[0]->title && has(b->patches[0]->title, "KVM: x86/pmu:"), "the first patch's Title");
	/* The features, against the manifest read here. */
	same = same && json_object_array_length(fs) == b->nfeatures;
	for (size_t i = 0; same && i < b->nfeatures; i++) {
		json_object *fj = json_object_array_get_idx(fs, i);

		same = !strcmp(b->features[i].id, kb_json_get_str(fj, "id")) &&
		       !strcmp(b->features[i].status, kb_json_get_str(fj, "status")) &&
		       !strcmp(b->features[i].arch, kb_json_get_str(fj, "arch")) &&
		       !b->features[i].patch == kb_json_is_null(kb_json_get(fj, "patch"));
		nbundled += b->features[i].patch != NULL;
	}
	ok(same && b->nfeatures == 10, "its %zu features are the manifest's, in order, with their status and arch", b->nfeatures);
	ok(nbundled == 2, "2 bundled features (%zu)", nbundled);
	f = kb_bundle_feature(b, "kvm-req-event-skip-on-eoi");
	ok(f && !strcmp(f->status, "known-bad") && !f->patch, "kvm-req-event-skip-on-eoi is known-bad, without a patch");
	f = kb_bundle_feature(b, FEATURE_TDP);
	ok(f && f->patch == b->patches[1] && !strcmp(f->status, "bundled"), "%s carries the second patch", FEATURE_TDP);
	ok(!kb_bundle_feature(b, "no-such-feature"), "an unknown feature is not found");
	f = kb_bundle_feature(b, "kvm-cr8-intercept-on-ppr-update");
	ok(f && !strcmp(f->status, "upstream") && !strcmp(kb_json_get_str(f->j, "fixes"), "kvm-req-event-series") &&
	   !strcmp(kb_json_get_str(kb_json_get(f->j, "upstream"), "commit"), "bb365a506b1e"),
	   "kvm-cr8-intercept-on-ppr-update is upstream bb365a506b1e and fixes kvm-req-event-series");
	list = kb_bundle_list_json(b);
	ok(json_object_array_length(kb_json_get(list, "patches")) == 2 &&
	   json_object_array_length(kb_json_get(list, "features")) == 10 &&
	   !strcmp(kb_json_get_str(kb_json_path(list, "bundle"), "source"), "--bundle") &&
	   !strcmp(kb_json_get_str(kb_json_get(list, "base"), "kernel"), "6.1.192"),
	   "list JSON: 2 patches, 10 features, the bundle's origin, base 6.1.192");
	json_object_put(list);
	/* $KVMBENCH_KERNEL_DIR chooses it too. */
	setenv("KVMBENCH_KERNEL_DIR", kdir, 1);
	err = kb_bundle_open(NULL, &e);
	ok(err == 0 && !strcmp(e.source, "KVMBENCH_KERNEL_DIR") && !strcmp(e.dir, b->dir) && e.npatches == 2,
	   "$KVMBENCH_KERNEL_DIR chooses the bundle (%s)", err ? kb_last_error() : e.source);
	if (!err)
		kb_bundle_close(&e);
	unsetenv("KVMBENCH_KERNEL_DIR");
	json_object_put(m);
	free(mpath);
}

/* A copy of kernel/ with one replacement made in one file: refused with -EINVAL and this message. */
struct damage {
	const char *file, *from, *to, *message;
};

static void test_damaged(const char *kdir)
{
	static const struct damage cases[] = {
		{ "features.json", "\"schema_version\": 1,", "\"schema_version\": 1", "not readable JSON" },
		{ "features.json", "\"schema_version\": 1,", "\"schema_version\": 2,",
		  "not a kvmbench-kernel-features manifest of schema_version 1" },
		{ "features.json", "\"status\": \"upstream\"", "\"status\": \"maybe\"",
		  "feature 'kvm-req-event-series': 'status' must be bundled, upstream or known-bad" },
		{ "features.json", "\"id\": \"kvm-req-event-skip-on-eoi\"", "\"id\": \"kvm-req-event-series\"",
		  "feature id 'kvm-req-event-series' appears twice" },
		{ "features.json", "\"patch\": \"" PATCH_PMU "\"", "\"patch\": \"../" PATCH_PMU "\"",
		  "patch '../" PATCH_PMU "' is not a path inside the bundle" },
		{ "features.json", "\"patch\": \"" PATCH_PMU "\"", "\"patch\": null",
		  "feature '" FEATURE_PMU "': 'patch' must be a path for status bundled and null otherwise" },
		{ "features.json", "\"fixes\": \"kvm-req-event-series\"", "\"fixes\": \"kvm-req-event-serie\"",
		  "feature 'kvm-cr8-intercept-on-ppr-update': 'fixes' must name another feature of the manifest" },
		{ "features.json", "\"fixes\": \"kvm-req-event-series\"", "\"fixes\": \"kvm-cr8-intercept-on-ppr-update\"",
		  "feature 'kvm-cr8-intercept-on-ppr-update': 'fixes' must name another feature of the manifest" },
		{ PATCH_PMU, "Kvmbench-Patch: 1\n", "Kvmbench-Patch: 2\n", "Kvmbench-Patch is '2'; this kvmbench reads version 1" },
		{ PATCH_PMU, "Feature: " FEATURE_PMU "\n", "Feature: " FEATURE_TDP "\n",
		  "Feature is '" FEATURE_TDP "' but features.json gives this patch to '" FEATURE_PMU "'" },
		{ PATCH_PMU, "Files: arch/x86/kvm/pmu.c\n", "Files: arch/x86/kvm/pmu.h\n",
		  "Files lists 'arch/x86/kvm/pmu.h' but the diff touches 'arch/x86/kvm/pmu.c'" },
		{ PATCH_TDP, "Files: arch/x86/kvm/mmu/tdp_mmu.c\n", "Files: ../tdp_mmu.c\n",
		  "Files: '../tdp_mmu.c' is not a path inside the tree" },
		{ PATCH_TDP, "\nTitle: ", "\nHeadline: ", ":3: header field 'Headline' where 'Title' is expected" },
	};
	static const char *const files[] = { "features.json", PATCH_PMU, PATCH_TDP };
	char *copy = kb_xasprintf("%s/bundle", tmp_root), *orig[ARRAY_SIZE(files)];
	struct kb_bundle b;
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *src = kb_xasprintf("%s/%s", kdir, files[i]), *dst = kb_xasprintf("%s/%s", copy, files[i]);

		orig[i] = slurp(src);
		spit_str(dst, orig[i]);
		free(src);
		free(dst);
	}
	err = kb_bundle_open(copy, &b);
	ok(err == 0, "an undamaged copy of kernel/ loads (%s)", err ? kb_last_error() : "ok");
	if (!err)
		kb_bundle_close(&b);
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct damage *d = &cases[c];
		size_t fi = 0;
		char *path, *at, *text;

		while (strcmp(files[fi], d->file))
			fi++;
		at = strstr(orig[fi], d->from);
		if (!ok(at != NULL, "damage %zu: the text to change is in %s", c + 1, d->file))
			continue;
		text = kb_xasprintf("%.*s%s%s", (int)(at - orig[fi]), orig[fi], d->to, at + strlen(d->from));
		path = kb_xasprintf("%s/%s", copy, d->file);
		spit_str(path, text);
		memset(&b, 0x5a, sizeof(b));
		err = kb_bundle_open(copy, &b);
		if (!ok(err == -EINVAL && has(kb_last_error(), d->message) && has(kb_last_error(), d->file + (fi ? 8 : 0)),
			"damage %zu: %s refused with -EINVAL, naming it: ...%s", c + 1, d->file, d->message))
			printf("# got %d: %s\n", err, kb_last_error());
		ok(!b.dir && !b.features && !b.nfeatures && !b.npatches && !b.manifest, "the refused bundle is left empty");
		if (!err)
			kb_bundle_close(&b);
		spit_str(path, orig[fi]);
		free(path);
		free(text);
	}
	{
		char *m = kb_xasprintf("%s/features.json", copy);

		unlink(m);
		err = kb_bundle_open(copy, &b);
		ok(err == -ENOENT && has(kb_last_error(), "has no readable features.json"),
		   "a directory without features.json is no bundle: -ENOENT (%d): %s", err, kb_last_error());
		free(m);
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		free(orig[i]);
	free(copy);
}

/* ---- apply and revert ----------------------------------------------------------------------- */

struct progress_log {
	struct kb_buf events;
	const char *raise_on;   /* raise SIGTERM at this event of the first patch */
};

static void progress(const char *event, const struct kb_patch *p, void *arg)
{
	struct progress_log *l = arg;

	kb_buf_printf(&l->events, "%s %s;", event, p->feature);
	if (l->raise_on && !strcmp(event, l->raise_on)) {
		l->raise_on = NULL;
		raise(SIGTERM);
	}
}

static void test_apply_revert(const struct kb_bundle *b)
{
	char *tree = make_tree(b, "tree"), *pristine = tree_image(tree), *applied, *now, *rec;
	struct progress_log log = { { 0 } };
	struct kb_tree t;
	json_object *rep;
	int err;

	err = kb_tree_open(tree, &t);
	if (!ok(err == 0, "the small tree opens as a kernel source tree (%s)", err ? kb_last_error() : tree))
		return;
	is_str(t.version, "6.1.192", "its version, from its Makefile");
	err = kb_tree_verify(b, &t, "x86_64", NULL, 0, &rep);
	ok(err == 0, "verify the small tree");
	is_str(verdict_of(rep, FEATURE_PMU), "applies-cleanly", FEATURE_PMU);
	is_str(verdict_of(rep, FEATURE_TDP), "applies-cleanly", FEATURE_TDP);
	json_object_put(rep);
	now = tree_image(tree);
	ok(!strcmp(now, pristine), "verify leaves the tree byte-identical");
	free(now);

	err = kb_patches_apply(b, &t, NULL, 0, progress, &log, &rep);
	ok(err == 0, "apply both patches (%d: %s)", err, err ? kb_last_error() : "ok");
	is_str(kb_json_get_str(rep, "result"), "applied", "apply's result");
	ok(json_object_array_length(kb_json_get(rep, "applied")) == 2, "apply reports 2 patches applied");
	is_str(log.events.p, "applying " FEATURE_PMU ";applied " FEATURE_PMU ";applying " FEATURE_TDP
	       ";applied " FEATURE_TDP ";", "progress, in apply order");
	json_object_put(rep);
	applied = tree_image(tree);
	rec = kb_xasprintf("%s/%s", tree, KB_PATCHES_RECORD);
	ok(strcmp(applied, pristine) && access(rec, F_OK) == 0, "the tree changed and has the record");
	err = kb_tree_verify(b, &t, "x86_64", NULL, 0, &rep);
	ok(err == 0 && !strcmp(verdict_of(rep, FEATURE_PMU), "bundled-applied") &&
	   !strcmp(verdict_of(rep, FEATURE_TDP), "bundled-applied"), "verify after apply: both bundled-applied");
	json_object_put(rep);

	err = kb_patches_apply(b, &t, NULL, 0, NULL, NULL, &rep);
	ok(err == 0 && !strcmp(kb_json_get_str(rep, "result"), "nothing-to-apply"), "apply again: nothing to apply");
	json_object_put(rep);
	err = kb_patches_apply(b, &t, (char *[]){ FEATURE_PMU }, 1, NULL, NULL, &rep);
	ok(err == -EINVAL && has(kb_last_error(), "already applied by kvmbench"),
	   "apply of an applied feature by name: -EINVAL (%d): %s", err, kb_last_error());
	json_object_put(rep);
	now = tree_image(tree);
	ok(!strcmp(now, applied), "neither changed the tree");
	free(now);

	kb_buf_printf(&log.events, "|");
	err = kb_patches_revert(&t, progress, &log, &rep);
	ok(err == 0 && !strcmp(kb_json_get_str(rep, "result"), "reverted") &&
	   json_object_array_length(kb_json_get(rep, "reverted")) == 2, "revert both (%d: %s)", err,
	   err ? kb_last_error() : "ok");
	ok(has(log.events.p, "|reverting " FEATURE_TDP ";reverted " FEATURE_TDP ";reverting " FEATURE_PMU
	       ";reverted " FEATURE_PMU ";"), "revert goes in reverse order");
	json_object_put(rep);
	now = tree_image(tree);
	ok(!strcmp(now, pristine), "after apply and revert the tree is byte-identical, without the record");
	free(now);
	err = kb_patches_revert(&t, NULL, NULL, &rep);
	ok(err == -ENOENT && has(kb_last_error(), "no record of patches applied by kvmbench"),
	   "revert without a record: -ENOENT (%d)", err);
	json_object_put(rep);

	/* Interrupted after the first patch: SIGTERM, held off while patch runs, restores the tree. */
	log.raise_on = "applied";
	err = kb_patches_apply(b, &t, NULL, 0, progress, &log, &rep);
	ok(err == -EINTR && !strcmp(kb_json_get_str(rep, "result"), "interrupted") &&
	   kb_json_get_num(rep, "signal", 0) == SIGTERM && kb_json_get_bool(rep, "restored", false),
	   "SIGTERM during apply: -EINTR (%d), interrupted, restored: %s", err, kb_last_error());
	json_object_put(rep);
	now = tree_image(tree);
	ok(!strcmp(now, pristine), "after the interrupted apply the tree is byte-identical, without the record");
	free(now);

	free(log.events.p);
	free(rec);
	free(applied);
	free(pristine);
	kb_tree_close(&t);
	free(tree);
}

/* One changed context line of the second patch: it does not apply, so neither is applied. */
static void test_conflict(const struct kb_bundle *b)
{
	char *tree = make_tree(b, "conflict"), *path = kb_xasprintf("%s/arch/x86/kvm/mmu/tdp_mmu.c", tree);
	char *text = slurp(path), *line = strstr(text, "\n\t\tif (is_shadow_present_pte(iter.old_spte) &&\n"), *before, *now;
	struct kb_tree t;
	json_object *rep;
	int err;

	if (!ok(line != NULL, "the second patch's context is in the small tree")) {
		free(text);
		free(path);
		free(tree);
		return;
	}
	line[3] = 'X';   /* "\t\tXf (is_shadow_present_pte..." */
	spit_str(path, text);
	before = tree_image(tree);
	if (kb_tree_open(tree, &t))
		exit(99);
	err = kb_patches_apply(b, &t, NULL, 0, NULL, NULL, &rep);
	ok(err == -ECANCELED, "a patch that does not apply: -ECANCELED (%d)", err);
	ok(has(kb_last_error(), "the patch of " FEATURE_TDP " does not apply cleanly") &&
	   has(kb_last_error(), "nothing was changed"), "it says which and that nothing changed: %s", kb_last_error());
	ok(!strcmp(kb_json_get_str(rep, "result"), "conflict") &&
	   !strcmp(kb_json_get_str(rep, "failed_feature"), FEATURE_TDP), "the report: conflict, the failed feature");
	json_object_put(rep);
	now = tree_image(tree);
	ok(!strcmp(now, before), "the tree is exactly as it was: the first patch was not applied either");
	free(now);
	kb_tree_close(&t);
	free(before);
	free(text);
	free(path);
	free(tree);
}

/*
 * A bundle with a third patch on the first one's file that no longer applies once the first is in:
 * the dry run cannot see it (they share a file), the real run fails, and the snapshot restores
 * the tree.
 */
static void test_failed_run(const char *kdir)
{
	char *copy = kb_xasprintf("%s/bundle3", tmp_root), *src, *dst, *mpath, *ppath, *pmu, *diff, *ppmu;
	const char *removed = NULL;
	json_object *m, *f3 = NULL, *fs;
	struct kb_bundle b;
	struct kb_buf patch = { 0 };
	size_t removed_len = 0, at = 0;
	int err;

	for (const char *const *f = (const char *const[]){ PATCH_PMU, PATCH_TDP, NULL }; *f; f++) {
		src = kb_xasprintf("%s/%s", kdir, *f);
		dst = kb_xasprintf("%s/%s", copy, *f);
		pmu = slurp(src);
		spit_str(dst, pmu);
		free(pmu);
		free(src);
		free(dst);
	}
	src = kb_xasprintf("%s/features.json", kdir);
	m = json_object_from_file(src);
	free(src);
	fs = kb_json_get(m, "features");
	for (size_t i = 0; i < json_object_array_length(fs); i++)
		if (!strcmp(kb_json_get_str(json_object_array_get_idx(fs, i), "id"), FEATURE_PMU))
			json_object_deep_copy(json_object_array_get_idx(fs, i), &f3, NULL);
	kb_json_set_str(f3, "id", "pmu-after-fastpath");
	kb_json_set_str(f3, "patch", "patches/0003-test-pmu-after-fastpath.patch");
	json_object_array_add(fs, f3);
	mpath = kb_xasprintf("%s/features.json", copy);
	json_object_to_file_ext(mpath, m, JSON_C_TO_STRING_PRETTY);
	json_object_put(m);

	/* A line the first patch removes and does not add back, at its line number. */
	ppmu = kb_xasprintf("%s/%s", kdir, PATCH_PMU);
	pmu = slurp(ppmu);
	free(ppmu);
	diff = strstr(pmu, "\n@@ -");
	for (const char *p = diff + 1; p && !removed; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");

		if (!strncmp(p, "@@ -", 4)) {
			at = strtoul(p + 4, NULL, 10);
			continue;
		}
		if (*p == '-' && len > 24) {
			int seen = 0;

			/* The only line of the diff with this text: absent once the first patch is in. */
			for (const char *c = " -+"; *c; c++) {
				char *as = kb_xasprintf("\n%c%.*s\n", *c, (int)len - 1, p + 1);

				for (const char *q = strstr(pmu, as); q; q = strstr(q + 1, as))
					seen++;
				free(as);
			}
			if (seen == 1) {
				removed = p + 1;
				removed_len = len - 1;
			}
		}
		if (!removed && (*p == ' ' || *p == '-'))
			at++;
	}
	if (!ok(removed != NULL, "the first patch removes a line a third patch can change"))
		exit(tap_done());
	kb_buf_printf(&patch, "Kvmbench-Patch: 1\nFeature: pmu-after-fastpath\nTitle: a test patch\nWhat: changes a line\n"
		      "Why: to fail after the first patch\nUpstream: none\nMeasured-By: nothing\nExpected-Effect: none\n"
		      "Base: 6.1.192\nFiles: arch/x86/kvm/pmu.c\n\n"
		      "diff --git a/arch/x86/kvm/pmu.c b/arch/x86/kvm/pmu.c\n--- a/arch/x86/kvm/pmu.c\n+++ b/arch/x86/kvm/pmu.c\n"
		      "@@ -%zu,1 +%zu,1 @@\n-%.*s\n+%.*s /* changed */\n", at, at, (int)removed_len, removed,
		      (int)removed_len, removed);
	ppath = kb_xasprintf("%s/patches/0003-test-pmu-after-fastpath.patch", copy);
	testfs_write(ppath, patch.p, patch.len);
	err = kb_bundle_open(copy, &b);
	ok(err == 0 && b.npatches == 3, "a bundle with a third patch loads (%s)", err ? kb_last_error() : "ok");
	if (!err) {
		char *tree = make_tree(&b, "failed"), *before, *now;
		struct kb_tree t;
		json_object *rep;

		/* pmu.c is the first patch's preimage: the third's, written after it, is left out. */
		before = tree_image(tree);
		if (kb_tree_open(tree, &t))
			exit(99);
		err = kb_patches_apply(&b, &t, NULL, 0, NULL, NULL, &rep);
		ok(err == -ECANCELED && has(kb_last_error(), "the patch of pmu-after-fastpath failed to apply") &&
		   has(kb_last_error(), "the tree was restored as it was"),
		   "the third patch fails in the real run: -ECANCELED (%d), restored: %s", err, kb_last_error());
		ok(!strcmp(kb_json_get_str(rep, "result"), "failed") && kb_json_get_bool(rep, "restored", false) &&
		   json_object_array_length(kb_json_get(rep, "applied")) == 3, "the report: failed after 3 runs, restored");
		json_object_put(rep);
		now = tree_image(tree);
		ok(!strcmp(now, before), "the tree is exactly as it was, though two patches had been applied");
		free(now);
		free(before);
		kb_tree_close(&t);
		free(tree);
		kb_bundle_close(&b);
	}
	free(ppath);
	free(patch.p);
	free(pmu);
	free(mpath);
	free(copy);
}

/* info's advice for the fix the manifest knows (kvm-cr8-intercept-on-ppr-update): kvm_intel without APICv only. */
static bool advice_has(const struct kb_host_facts *f, const char *id)
{
	json_object *a = kb_advice_json(f);
	bool found = false;

	for (size_t i = 0; i < json_object_array_length(a); i++)
		found |= !strcmp(kb_json_get_str(json_object_array_get_idx(a, i), "id"), id);
	json_object_put(a);
	return found;
}

static void test_advice(void)
{
	struct kb_cpu_info c = { 0 };
	struct kb_host_facts f = { .cpu = &c, .backend = "kvm_intel" };
	json_object *params = json_object_new_object();

	strcpy(c.vendor, "GenuineIntel");
	kb_uarch_lookup(c.vendor, 6, 0x55, 4, "Intel Xeon", &c.uarch);
	f.params = params;
	json_object_object_add(params, "enable_apicv", json_object_new_string("N"));
	ok(advice_has(&f, "vmx-stale-tpr-threshold"), "advice: kvm_intel with enable_apicv=N is told about bb365a506b1e");
	json_object_object_add(params, "enable_apicv", json_object_new_string("Y"));
	ok(!advice_has(&f, "vmx-stale-tpr-threshold"), "advice: not with enable_apicv=Y");
	f.backend = "kvm_amd";
	json_object_object_add(params, "enable_apicv", json_object_new_string("N"));
	ok(!advice_has(&f, "vmx-stale-tpr-threshold"), "advice: not on kvm_amd (no TPR threshold on SVM)");
	json_object_put(params);
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* kbp_patch_parse() (the patch-header fuzz target's entry) on a bundled patch's text gives what
 * kbp_patch_load() gives on its file, and refuses the text cut after its header. */
static void test_parse_text(const struct kb_bundle *b)
{
	size_t same = 0;

	for (size_t i = 0; i < b->npatches; i++) {
		const struct kb_patch *p = b->patches[i];
		struct kb_patch *q = NULL;
		char *text = NULL, *cut;
		bool eq;

		if (kb_read_all(p->path, (size_t)1 << 20, &text, NULL))
			continue;
		eq = !kbp_patch_parse(b->dir, p->file, p->feature, text, &q) && same_str(q->feature, p->feature) &&
		     same_str(q->title, p->title) && same_str(q->upstream, p->upstream) && same_str(q->base, p->base) &&
		     same_str(q->path, p->path) && q->nfiles == p->nfiles;
		for (size_t f = 0; eq && f < p->nfiles; f++)
			eq = same_str(q->files[f], p->files[f]);
		kbp_patch_free(q);
		q = NULL;
		/* Without its diff, the header's Files: name files the patch does not change. */
		if ((cut = strstr(text, "\ndiff --git ")))
			cut[1] = 0;
		eq = eq && cut && kbp_patch_parse(b->dir, p->file, p->feature, text, &q) == -EINVAL && !q;
		same += eq;
		free(text);
	}
	ok(b->npatches > 0 && same == b->npatches, "the %zu bundled patches parse from their text as from their file "
	   "(%zu the same), and are refused without their diff", b->npatches, same);
}

int main(void)
{
	const char *srcdir = getenv("KB_SRCDIR");
	char *kdir = kb_xasprintf("%s/kernel", srcdir && *srcdir ? srcdir : ".");
	struct kb_bundle b;

	unsetenv("KVMBENCH_KERNEL_DIR");
	unsetenv("KB_TEST_APPLY_DELAY");
	tmp_root = kb_xasprintf("%s/kb-unit-patches-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp_root)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_versions();
	test_bundle(kdir, &b);
	test_parse_text(&b);
	test_damaged(kdir);
	test_apply_revert(&b);
	test_conflict(&b);
	test_failed_run(kdir);
	test_advice();
	kb_bundle_close(&b);
	rm_rf(tmp_root);
	free(tmp_root);
	free(kdir);
	return tap_done();
}
