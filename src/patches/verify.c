/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c: a kernel source tree: open it, evaluate the source rules, give each feature a verdict. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "patches/internal.h"

/* The value of "NAME = value" at the start of a line of a kernel Makefile, or NULL. */
static char *makefile_var(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v, *eol;

		if (strncmp(p, name, n))
			continue;
		v = p + n;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		eol = strchr(v, '\n');
		if (!eol)
			eol = v + strlen(v);
		while (eol > v && (eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == '\r'))
			eol--;
		return strndup(v, (size_t)(eol - v));
	}
	return NULL;
}

int kb_tree_open(const char *dir, struct kb_tree *t)
{
	char real[PATH_MAX], *mk, *text = NULL, *ver, *pl, *sub, *extra;
	int err;

	memset(t, 0, sizeof(*t));
	if (!kbp_is_dir(dir))
		return kb_fail(ENOTDIR, "%s: %s", dir, kbp_exists(dir) ? "not a directory" : "no such directory");
	t->dir = kb_xstrdup(realpath(dir, real) ? real : dir);
	mk = kb_xasprintf("%s/Makefile", t->dir);
	err = kb_read_all(mk, KB_PATCH_READ_MAX, &text, NULL);
	if (err) {
		err = kb_fail(EINVAL, "%s is not a kernel source tree: %s: %s (give the top directory of an unpacked Linux source tree, e.g. linux-source-6.1)",
			      dir, mk, strerror(-err));
		free(mk);
		kb_tree_close(t);
		return err;
	}
	ver = makefile_var(text, "VERSION");
	pl = makefile_var(text, "PATCHLEVEL");
	sub = makefile_var(text, "SUBLEVEL");
	extra = makefile_var(text, "EXTRAVERSION");
	free(text);
	if (!ver || !pl || !*ver || !*pl) {
		err = kb_fail(EINVAL, "%s is not a kernel source tree: %s sets no VERSION and PATCHLEVEL (give the top directory of an unpacked Linux source tree)",
			      dir, mk);
	} else {
		snprintf(t->version, sizeof(t->version), "%s.%s.%s", ver, pl, sub && *sub ? sub : "0");
		snprintf(t->release, sizeof(t->release), "%s%s", t->version, extra ? extra : "");
		free(mk);
		mk = kb_xasprintf("%s/arch/x86/kvm", t->dir);
		if (!kbp_is_dir(mk))
			err = kb_fail(EINVAL, "%s is not a kernel source tree with KVM: it has no arch/x86/kvm (the bundled patches change x86 KVM)",
				      dir);
	}
	free(mk);
	free(ver);
	free(pl);
	free(sub);
	free(extra);
	if (err)
		kb_tree_close(t);
	return err;
}

void kb_tree_close(struct kb_tree *t)
{
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

static const struct fcache_entry *fcache_get(struct fcache *c, const char *rel)
{
	struct fcache_entry *e;
	char *path;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].rel, rel))
			return &c->e[i];
	c->e = kb_xgrow(c->e, c->n, &c->cap, sizeof(*c->e));
	e = &c->e[c->n++];
	memset(e, 0, sizeof(*e));
	e->rel = kb_xstrdup(rel);
	path = kb_xasprintf("%s/%s", c->tree, rel);
	e->err = kb_read_all(path, KB_PATCH_READ_MAX, &e->data, &e->len);
	free(path);
	return e;
}

void kbp_fcache_free(struct fcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].rel);
		free(c->e[i].data);
	}
	free(c->e);
	c->e = NULL;
	c->n = c->cap = 0;
}

/* Evaluate one source rule; its evidence goes to 'arr'.  Returns 1 when it holds, else 0. */
static int source_rule(struct fcache *c, json_object *r, json_object *arr)
{
	const char *file = kb_json_get_str(r, "file"), *fixed = kb_json_get_str(r, "fixed"), *re = kb_json_get_str(r, "regex");
	json_object *mj = kb_json_get(r, "match"), *ev = json_object_new_object();
	bool match = !mj || json_object_get_boolean(mj);
	const struct fcache_entry *e = fcache_get(c, file);
	int found = -1, holds;

	kb_json_set_str(ev, "file", file);
	kb_json_set_str(ev, fixed ? "fixed" : "regex", fixed ? fixed : re);
	kb_json_set_bool(ev, "match", match);
	if (e->err) {
		kb_json_set_str(ev, "note", e->err == -ENOENT ? "the file does not exist: the rule does not hold"
						     : strerror(-e->err));
	} else if (fixed) {
		found = memmem(e->data, e->len, fixed, strlen(fixed)) != NULL;
	} else {
		regex_t rx;
		int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

		if (!rc) {
			rc = regexec(&rx, e->data, 0, NULL, 0);
			found = rc == 0;
			if (rc && rc != REG_NOMATCH) {
				found = -1;
				kb_json_set_str(ev, "note", "regexec failed (out of memory?)");
			}
			regfree(&rx);
		}
	}
	holds = found >= 0 && found == (int)match;
	kb_json_set_tri(ev, "found", found);
	kb_json_set_bool(ev, "holds", holds);
	json_object_array_add(arr, ev);
	return holds;
}

/* A rule set: 2 when not defined (null or empty), 1 when every rule holds, 0 otherwise. */
static int source_set(struct fcache *c, json_object *set, json_object *evidence, const char *name)
{
	json_object *arr;
	int all = 1;

	if (kb_json_is_null(set) || !json_object_array_length(set)) {
		kb_json_set(evidence, name, NULL);
		return 2;
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(set); i++)
		all &= source_rule(c, json_object_array_get_idx(set, i), arr);
	kb_json_set(evidence, name, arr);
	return all;
}

/* The first rule of a set that failed, in words. */
static char *failed_rule_text(json_object *evidence, const char *set)
{
	json_object *arr = kb_json_get(evidence, set);

	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *ev = json_object_array_get_idx(arr, i);
		const char *pat = kb_json_get_str(ev, "fixed") ? kb_json_get_str(ev, "fixed") : kb_json_get_str(ev, "regex");
		json_object *found = kb_json_get(ev, "found");

		if (json_object_get_boolean(kb_json_get(ev, "holds")))
			continue;
		return kb_xasprintf("%s: %s \"%s\" %s", kb_json_get_str(ev, "file"), kb_json_get_str(ev, "fixed") ? "string" : "regex", pat,
			       kb_json_is_null(found) ? "cannot be searched (no such file)" :
			       json_object_get_boolean(found) ? "found" : "not found");
	}
	return kb_xstrdup("a rule failed");
}

/* Steps 1-4 and 6 of the verdict (kernel/README.md); PV_PATCHABLE leaves step 5 to the caller.
 * The rules' evidence goes into 'fe' ("evidence"), the reason into *why (allocated). */
enum pre_verdict kbp_source_verdict(const struct kb_feature *f, struct fcache *c, const char *arch,
				    json_object *fe, char **why)
{
	json_object *st = kb_json_get(f->j, "source_tree"), *ev = json_object_new_object();
	int app = source_set(c, kb_json_get(st, "applicable_if"), ev, "applicable_if");
	int pres = source_set(c, kb_json_get(st, "present_if"), ev, "present_if");
	int bund = source_set(c, kb_json_get(st, "bundled_if"), ev, "bundled_if");
	bool bad = !strcmp(f->status, "known-bad");
	enum pre_verdict v;

	kb_json_set(fe, "evidence", ev);
	if (strcmp(f->arch, "any") && strcmp(f->arch, arch)) {
		*why = kb_xasprintf("a feature of %s, the target architecture is %s (rules shown for information)", f->arch, arch);
		v = PV_NOT_APPLICABLE;
	} else if (app == 0) {
		char *r = failed_rule_text(ev, "applicable_if");

		*why = kb_xasprintf("the tree lacks the code the feature touches: applicable_if %s", r);
		free(r);
		v = PV_NOT_APPLICABLE;
	} else if (pres == 1) {
		*why = kb_xasprintf(bad ? "every present_if rule holds: the tree carries this known-bad change"
				   : "every present_if rule holds");
		v = PV_PRESENT;
	} else if (bund == 1) {
		*why = kb_xstrdup("every bundled_if rule holds: the bundled patch is applied");
		v = PV_BUNDLED_APPLIED;
	} else if (f->patch) {
		*why = NULL;
		v = PV_PATCHABLE;
	} else {
		*why = kb_xstrdup(bad ? "the known-bad change is not there (its present_if rules do not all hold)"
				      : pres == 2 ? "no present_if or bundled_if rule set holds, and there is no patch"
						  : "not every present_if rule holds, and there is no patch");
		v = PV_ABSENT;
	}
	return v;
}

const char *kbp_pre_verdict_name(enum pre_verdict v, bool bad)
{
	switch (v) {
	case PV_NOT_APPLICABLE: return "not-applicable";
	case PV_PRESENT: return bad ? "known-bad-present" : "present-upstream";
	case PV_BUNDLED_APPLIED: return "bundled-applied";
	case PV_PATCHABLE: return "applies-cleanly";
	case PV_ABSENT: return bad ? "known-bad-absent" : "absent";
	}
	return "unknown";
}

json_object *kbp_tree_json(const struct kb_tree *t)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "dir", t->dir);
	kb_json_set_str(o, "version", t->version);
	kb_json_set_str(o, "release", t->release);
	return o;
}

bool kbp_wanted(const char *id, char *const *ids, size_t nids)
{
	if (!nids)
		return true;
	for (size_t i = 0; i < nids; i++)
		if (!strcmp(ids[i], id))
			return true;
	return false;
}

int kbp_check_ids(const struct kb_bundle *b, char *const *ids, size_t nids)
{
	for (size_t i = 0; i < nids; i++)
		if (!kb_bundle_feature(b, ids[i])) {
			struct kb_buf known = { 0 };
			int err;

			for (size_t k = 0; k < b->nfeatures; k++)
				kb_buf_printf(&known, "%s%s", k ? ", " : "", b->features[k].id);
			err = kb_fail(EINVAL, "unknown feature '%s' (the manifest has: %s)", ids[i], known.p ? known.p : "none");
			free(known.p);
			return err;
		}
	return 0;
}

void kbp_count_verdict(json_object *summary, const char *verdict)
{
	json_object *v = kb_json_get(summary, verdict);

	kb_json_set_int(summary, verdict, v ? json_object_get_int(v) + 1 : 1);
}

/*
 * A feature that fixes another ("fixes": ID) and is absent while the feature it fixes is there:
 * the tree or kernel carries a known defect.  Each such case becomes a "warning" on the fix's
 * entry and a line of the report's "warnings" ('where' names the tree or kernel in the text).
 */
void kbp_note_missing_fixes(const struct kb_bundle *b, json_object *fs, json_object *rep, const char *where)
{
	json_object *warnings = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		json_object *fe = json_object_array_get_idx(fs, i), *up;
		const struct kb_feature *f = kb_bundle_feature(b, kb_json_get_str(fe, "id"));
		const char *fixes = f ? kb_json_get_str(f->j, "fixes") : NULL, *vfix = kb_json_get_str(fe, "verdict");

		if (!fixes || strcmp(vfix, "absent"))
			continue;
		for (size_t k = 0; k < json_object_array_length(fs); k++) {
			json_object *other = json_object_array_get_idx(fs, k);
			const char *v = kb_json_get_str(other, "verdict");
			char *msg;

			if (strcmp(kb_json_get_str(other, "id"), fixes) || (strcmp(v, "present-upstream") && strcmp(v, "bundled-applied")))
				continue;
			up = kb_json_get(f->j, "upstream");
			msg = kb_xasprintf("%s has %s (%s) but not its fix %s (%s%s%s)", where, fixes, v, f->id,
					   kb_json_get_str(up, "commit") ? kb_json_get_str(up, "commit") : "commit unknown",
					   kb_json_get_str(up, "subject") ? " " : "",
					   kb_json_get_str(up, "subject") ? kb_json_get_str(up, "subject") : "");
			kb_json_set_str(fe, "warning", msg);
			json_object_array_add(warnings, json_object_new_string(msg));
			free(msg);
		}
	}
	kb_json_set(rep, "warnings", warnings);
}

int kb_tree_verify(const struct kb_bundle *b, const struct kb_tree *t, const char *arch,
		   char *const *ids, size_t nids, json_object **report)
{
	json_object *rep = json_object_new_object(), *fs = json_object_new_array(), *summary = json_object_new_object();
	struct fcache c = { .tree = t->dir };
	bool have_patch = kbp_find_program("patch");
	json_object *rec;
	int err, rerr = 0;

	*report = rep;
	if (!arch)
		arch = kbp_host_arch();
	kb_json_set_str(rep, "target", "source-tree");
	kb_json_set(rep, "bundle", kb_bundle_origin_json(b));
	kb_json_set(rep, "tree", kbp_tree_json(t));
	kb_json_set_str(rep, "arch", arch);
	rec = kbp_record_load(t->dir, &rerr);
	kb_json_set(rep, "record", rec ? json_object_new_string(KB_PATCHES_RECORD) : NULL);
	if (rerr)
		kb_json_set_str(rep, "record_error", kb_last_error());
	err = kbp_check_ids(b, ids, nids);
	if (err) {
		json_object_put(rec);
		return err;
	}
	for (size_t i = 0; i < b->nfeatures; i++) {
		const struct kb_feature *f = &b->features[i];
		json_object *fe;
		const char *verdict;
		char *why = NULL;
		enum pre_verdict pv;

		if (!kbp_wanted(f->id, ids, nids))
			continue;
		fe = json_object_new_object();
		kb_json_set_str(fe, "id", f->id);
		kb_json_set_str(fe, "title", f->title);
		kb_json_set_str(fe, "status", f->status);
		kb_json_set_str(fe, "arch", f->arch);
		pv = kbp_source_verdict(f, &c, arch, fe, &why);
		verdict = kbp_pre_verdict_name(pv, !strcmp(f->status, "known-bad"));
		if (f->patch)
			kb_json_set_str(fe, "patch", f->patch->file);
		if (pv == PV_PATCHABLE && !have_patch) {
			verdict = "unknown";
			why = kb_xstrdup("the patch cannot be dry-run: patch(1) is not installed (apt-get install patch)");
		} else if (pv == PV_PATCHABLE) {
			json_object *dry = json_object_new_object();
			int rc = kbp_patch_run(t->dir, f->patch->path, NULL, false, true, NULL, dry);

			kb_json_set(fe, "dry_run", dry);
			if (rc == 0) {
				verdict = "applies-cleanly";
				why = kb_xasprintf("%s succeeds", kbp_patch_command(false, true));
			} else {
				verdict = "conflicts";
				why = kb_xasprintf("%s fails (exit status %d); its output is the evidence", kbp_patch_command(false, true), rc);
			}
		}
		if (rec && kbp_record_has(rec, f->id)) {
			kb_json_set_bool(fe, "recorded", true);
			if (pv == PV_BUNDLED_APPLIED) {
				char *w = kb_xasprintf("%s; applied by kvmbench patches apply (recorded in %s)", why, KB_PATCHES_RECORD);

				free(why);
				why = w;
			}
		}
		kb_json_set_str(fe, "verdict", verdict);
		kb_json_set_str(fe, "reason", why);
		kbp_count_verdict(summary, verdict);
		free(why);
		json_object_array_add(fs, fe);
	}
	kbp_note_missing_fixes(b, fs, rep, "the tree");
	kb_json_set(rep, "features", fs);
	kb_json_set(rep, "summary", summary);
	json_object_put(rec);
	kbp_fcache_free(&c);
	return 0;
}
