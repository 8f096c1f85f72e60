/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c: apply and revert all or nothing: check, snapshot, patch with signals held, record, restore. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "patches/internal.h"

/* The signals that interrupt an apply or revert (those not ignored), blocked meanwhile; SIGPIPE
 * (progress written to a closed pipe) is blocked too, so that it cannot kill a half-done change. */
struct sigguard {
	sigset_t set, old;
};

static void sig_block(struct sigguard *g)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	sigset_t block;

	sigemptyset(&g->set);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction sa;

		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler != SIG_IGN)
			sigaddset(&g->set, sigs[i]);
	}
	block = g->set;
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &g->old);
}

/* A pending interrupting signal, taken (0 when none); waits up to 'seconds' for one. */
static int sig_take(struct sigguard *g, double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	int sig;

	do
		sig = sigtimedwait(&g->set, NULL, &ts);
	while (sig < 0 && errno == EINTR);
	return sig > 0 ? sig : 0;
}

static void sig_release(struct sigguard *g)
{
	sigprocmask(SIG_SETMASK, &g->old, NULL);
}

static double test_delay(void)
{
	const char *s = getenv("KB_TEST_APPLY_DELAY");
	char *end;
	double d;

	if (!s || !*s)
		return 0;
	d = strtod(s, &end);
	return *end || d < 0 || d > 3600 ? 0 : d;
}


/* Up-front check that the user may change 'path' ("apply"/"revert" in the message). */
static int check_writable(const char *path, const char *verb)
{
	struct stat st;
	int err;

	if (!faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
		return 0;
	err = errno;
	if (err == EROFS)
		return kb_fail(err, "%s is on a read-only file system: cannot %s patches there; nothing was changed", path, verb);
	if ((err == EACCES || err == EPERM) && !stat(path, &st)) {
		if (st.st_uid == 0 && geteuid() != 0)
			return kb_fail(err, "%s is not writable by this user (uid %u): it is owned by root, and to %s patches on a root-owned tree you need root (e.g. sudo kvmbench patches %s ...); nothing was changed",
				       path, (unsigned)geteuid(), verb, verb);
		if (st.st_uid == geteuid())
			return kb_fail(err, "%s is not writable (mode %03o): make it writable (chmod u+w) to %s patches; nothing was changed",
				       path, (unsigned)(st.st_mode & 0777), verb);
		return kb_fail(err, "%s is not writable by this user (uid %u; owner uid %u, mode %03o): run as its owner to %s patches; nothing was changed",
			       path, (unsigned)geteuid(), (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), verb);
	}
	return kb_fail(err, "%s: %s; nothing was changed", path, strerror(err));
}

/* The tree top, and for each file the file (if it exists) and its nearest existing directory. */
static int check_tree_writable(const char *tree, char *const *files, size_t n, const char *verb)
{
	int err = check_writable(tree, verb);

	for (size_t i = 0; !err && i < n; i++) {
		char *p = kb_xasprintf("%s/%s", tree, files[i]), *slash;

		if (kbp_exists(p))
			err = check_writable(p, verb);
		while (!err && (slash = strrchr(p, '/')) && slash > p) {
			*slash = 0;
			if (kbp_exists(p)) {
				err = check_writable(p, verb);
				break;
			}
		}
		free(p);
	}
	return err;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	}
	return "a signal";
}

/* One step of an apply or revert: what it needs from a patch. */
struct step {
	const char *feature;
	const char *file;       /* bundle patch file (apply) */
	const char *text;       /* recorded diff (revert) */
	char *const *files;
	size_t nfiles;
	struct kb_patch shown;  /* for the progress callback */
};

static bool shares_file(const struct step *a, const struct step *b)
{
	for (size_t i = 0; i < a->nfiles; i++)
		for (size_t k = 0; k < b->nfiles; k++)
			if (!strcmp(a->files[i], b->files[k]))
				return true;
	return false;
}

/*
 * The common part of apply and revert: dry-run each step (a step sharing a file with an earlier
 * one is checked by the real run instead), snapshot, run them with the interrupting signals
 * blocked, then 'commit' (write or remove the record); restore on any failure.
 */
static int run_steps(const char *tree, struct step *steps, size_t n, bool reverse,
		     int (*commit)(const char *tree, void *arg), void *commit_arg,
		     kb_patch_progress_fn *progress, void *parg, json_object *rep)
{
	json_object *checks = json_object_new_array(), *done = json_object_new_array();
	struct snapshot snap = { 0 };
	struct sigguard g;
	struct kb_buf problems = { 0 };
	double delay = test_delay();
	const char *verb = reverse ? "revert" : "apply";
	int err = 0, sig = 0;

	kb_json_set(rep, "checks", checks);
	kb_json_set(rep, reverse ? "reverted" : "applied", done);
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_new_object();
		bool later = false;
		int rc;

		for (size_t k = 0; k < i; k++)
			later |= shares_file(&steps[k], &steps[i]);
		kb_json_set_str(c, "feature", steps[i].feature);
		json_object_array_add(checks, c);
		if (later) {
			kb_json_set_str(c, "note", "shares a file with an earlier patch: checked by running it (the snapshot covers it)");
			continue;
		}
		rc = kbp_patch_run(tree, steps[i].file, steps[i].text, reverse, true, NULL, c);
		if (rc) {
			kb_json_set_str(rep, "result", "conflict");
			kb_json_set_str(rep, "failed_feature", steps[i].feature);
			return kb_fail(ECANCELED, "the patch of %s does not %s cleanly to %s (%s: exit status %d; its output is below); nothing was changed",
				       steps[i].feature, reverse ? "reverse-apply" : "apply", tree,
				       kbp_patch_command(reverse, true), rc);
		}
	}
	for (size_t i = 0; i < n && !err; i++)
		for (size_t k = 0; k < steps[i].nfiles && !err; k++)
			err = kbp_snap_add(&snap, tree, steps[i].files[k]);
	if (err) {
		kb_json_set_str(rep, "result", "error");
		kbp_snap_free(&snap);
		return err;
	}
	sig_block(&g);
	for (size_t i = 0; i < n; i++) {
		json_object *o;
		int rc;

		if ((sig = sig_take(&g, 0)))
			break;
		o = json_object_new_object();
		if (progress)
			progress(reverse ? "reverting" : "applying", &steps[i].shown, parg);
		kb_json_set_str(o, "feature", steps[i].feature);
		json_object_array_add(done, o);
		rc = kbp_patch_run(tree, steps[i].file, steps[i].text, reverse, false, &g.old, o);
		if (rc) {
			kb_json_set_str(rep, "result", "failed");
			kb_json_set_str(rep, "failed_feature", steps[i].feature);
			err = kb_fail(ECANCELED, "the patch of %s failed to %s (%s: exit status %d; its output is below)",
				      steps[i].feature, verb, kbp_patch_command(reverse, false), rc);
			break;
		}
		if (progress)
			progress(reverse ? "reverted" : "applied", &steps[i].shown, parg);
		if (delay > 0 && (sig = sig_take(&g, delay)))
			break;
	}
	if (!err && !sig && !(sig = sig_take(&g, 0))) {
		err = commit(tree, commit_arg);
		if (err)
			kb_json_set_str(rep, "result", "error");
	}
	if (err || sig) {
		char msg[1024];
		int rerr;

		snprintf(msg, sizeof(msg), "%s", err ? kb_last_error() : "");
		rerr = kbp_snap_restore(&snap, &problems);
		kb_json_set_bool(rep, "restored", !rerr);
		if (sig) {
			kb_json_set_str(rep, "result", "interrupted");
			kb_json_set_int(rep, "signal", sig);
			kb_json_set_str(rep, "signal_name", signame(sig));
			err = rerr ? kb_fail(EINTR, "interrupted by %s, and the tree could NOT be restored: %s", signame(sig), problems.p)
				   : kb_fail(EINTR, "interrupted by %s: the tree was restored as it was", signame(sig));
		} else if (rerr) {
			kb_fail(err, "%s; restoring the tree FAILED: %s", msg, problems.p);
		} else {
			kb_fail(err, "%s; the tree was restored as it was", msg);
		}
		free(problems.p);
	}
	sig_release(&g);
	kbp_snap_free(&snap);
	return err;
}

struct apply_commit {
	json_object *rec;
};

static int apply_commit(const char *tree, void *arg)
{
	return kbp_record_write(tree, ((struct apply_commit *)arg)->rec);
}

static int revert_commit(const char *tree, void *arg)
{
	char *path = kb_xasprintf("%s/%s", tree, KB_PATCHES_RECORD);
	int err = 0;

	(void)arg;
	if (unlink(path))
		err = kb_fail(errno, "cannot remove %s: %s", path, strerror(errno));
	free(path);
	return err;
}

static int cmp_feature_patch(const void *a, const void *b)
{
	const struct kb_feature *x = *(const struct kb_feature *const *)a, *y = *(const struct kb_feature *const *)b;

	return strcmp(x->patch->file, y->patch->file);
}

int kb_patches_apply(const struct kb_bundle *b, const struct kb_tree *t, char *const *ids, size_t nids,
		     kb_patch_progress_fn *progress, void *arg, json_object **report)
{
	json_object *rep = json_object_new_object(), *skipped = json_object_new_array(), *rec = NULL, *sel_j;
	const struct kb_feature **sel = kb_xcalloc(b->nfeatures + 1, sizeof(*sel));
	const char *arch = kbp_host_arch();
	struct fcache c = { .tree = t->dir };
	struct step *steps = NULL;
	struct apply_commit ac = { 0 };
	size_t nsel = 0, nsteps = 0;
	char **files = NULL;
	size_t nfiles = 0, capfiles = 0;
	int err = 0, rerr;

	*report = rep;
	kb_json_set(rep, "bundle", kb_bundle_origin_json(b));
	kb_json_set(rep, "tree", kbp_tree_json(t));
	kb_json_set(rep, "skipped", skipped);
	/* What was asked for. */
	for (size_t i = 0; i < nids && !err; i++) {
		const struct kb_feature *f = kb_bundle_feature(b, ids[i]);
		bool dup = false;

		if (!f) {
			err = kbp_check_ids(b, ids + i, 1);
			break;
		}
		if (!strcmp(f->status, "known-bad"))
			err = kb_fail(EPERM, "'%s' is a known-bad change (%s): kvmbench never offers or applies it", f->id, f->title);
		else if (!f->patch)
			err = kb_fail(EINVAL, "'%s' is an upstream feature: kvmbench has no patch for it ('kvmbench patches list' shows the bundled ones)",
				      f->id);
		for (size_t k = 0; k < nsel; k++)
			dup |= sel[k] == f;
		if (!err && !dup)
			sel[nsel++] = f;
	}
	if (!nids)
		for (size_t i = 0; i < b->nfeatures; i++)
			if (b->features[i].patch)
				sel[nsel++] = &b->features[i];
	if (err)
		goto out;
	if (!kbp_find_program("patch")) {
		err = kb_fail(ENOENT, "patch(1) is not installed: apt-get install patch (Debian package 'patch'); nothing was changed");
		goto out;
	}
	rec = kbp_record_load(t->dir, &rerr);
	if (rerr) {
		err = rerr;
		goto out;
	}
	/* What the tree says about each: apply only what it lacks. */
	for (size_t i = 0; i < nsel && !err; i++) {
		const struct kb_feature *f = sel[i];
		json_object *fe = json_object_new_object();
		char *why = NULL, *skip = NULL;
		enum pre_verdict pv = kbp_source_verdict(f, &c, arch, fe, &why);

		json_object_put(fe);
		if (rec && kbp_record_has(rec, f->id))
			skip = kb_xasprintf("already applied by kvmbench (recorded in %s/%s): 'kvmbench patches revert' undoes it",
				       t->dir, KB_PATCHES_RECORD);
		else if (pv != PV_PATCHABLE)
			skip = kb_xasprintf("%s: %s", kbp_pre_verdict_name(pv, false), why);
		free(why);
		if (skip && nids) {
			err = kb_fail(EINVAL, "%s cannot be applied to %s: %s; nothing was changed", f->id, t->dir, skip);
		} else if (skip) {
			json_object *s = json_object_new_object();

			kb_json_set_str(s, "feature", f->id);
			kb_json_set_str(s, "reason", skip);
			json_object_array_add(skipped, s);
			sel[i] = NULL;
		}
		free(skip);
	}
	if (err)
		goto out;
	for (size_t i = 0; i < nsel; i++)
		if (sel[i])
			sel[nsteps++] = sel[i];
	nsel = nsteps;
	sel_j = json_object_new_array();
	for (size_t i = 0; i < nsel; i++)
		json_object_array_add(sel_j, json_object_new_string(sel[i]->id));
	kb_json_set(rep, "selected", sel_j);
	if (!nsel) {
		kb_json_set_str(rep, "result", "nothing-to-apply");
		kb_json_set(rep, "applied", json_object_new_array());
		goto out;
	}
	qsort(sel, nsel, sizeof(*sel), cmp_feature_patch);
	steps = kb_xcalloc(nsel, sizeof(*steps));
	for (size_t i = 0; i < nsel; i++) {
		steps[i].feature = sel[i]->id;
		steps[i].file = sel[i]->patch->path;
		steps[i].files = sel[i]->patch->files;
		steps[i].nfiles = sel[i]->patch->nfiles;
		steps[i].shown = *sel[i]->patch;
		for (size_t k = 0; k < sel[i]->patch->nfiles; k++) {
			files = kb_xgrow(files, nfiles, &capfiles, sizeof(*files));
			files[nfiles++] = sel[i]->patch->files[k];
		}
	}
	err = check_tree_writable(t->dir, files, nfiles, "apply");
	if (err)
		goto out;
	/* The record after the apply: what was there plus these, with their diffs for revert. */
	ac.rec = rec ? json_object_get(rec) : json_object_new_object();
	if (!rec) {
		kb_json_set_str(ac.rec, "schema", "kvmbench-applied-patches");
		kb_json_set_int(ac.rec, "schema_version", 1);
		kb_json_set(ac.rec, "applied", json_object_new_array());
	}
	kb_json_set_str(ac.rec, "tree_version", t->version);
	kb_json_set_str(ac.rec, "kvmbench_version", PACKAGE_VERSION);
	for (size_t i = 0; i < nsel; i++) {
		json_object *e = json_object_new_object();
		char when[32], *text = NULL;

		if ((err = kb_read_all(sel[i]->patch->path, KB_PATCH_READ_MAX, &text, NULL))) {
			json_object_put(e);
			err = kb_fail(err, "%s: %s", sel[i]->patch->path, strerror(-err));
			goto out;
		}
		kb_iso_now(when, sizeof(when));
		kb_json_set_str(e, "feature", sel[i]->id);
		kb_json_set_str(e, "patch", sel[i]->patch->file);
		kb_json_set_str(e, "title", sel[i]->patch->title);
		kb_json_set(e, "files", kbp_strings_json(sel[i]->patch->files, sel[i]->patch->nfiles));
		kb_json_set_str(e, "bundle", b->dir);
		kb_json_set_str(e, "applied_at", when);
		kb_json_set_str(e, "diff", text);
		free(text);
		json_object_array_add(kb_json_get(ac.rec, "applied"), e);
	}
	err = run_steps(t->dir, steps, nsel, false, apply_commit, &ac, progress, arg, rep);
	if (!err) {
		kb_json_set_str(rep, "result", "applied");
		kb_json_set_str(rep, "record", KB_PATCHES_RECORD);
	}
out:
	if (err && !kb_json_get(rep, "result"))
		kb_json_set_str(rep, "result", "error");
	if (err)
		kb_json_set_str(rep, "error", kb_last_error());
	json_object_put(ac.rec);
	json_object_put(rec);
	kbp_fcache_free(&c);
	free(files);
	free(steps);
	free(sel);
	return err;
}

int kb_patches_revert(const struct kb_tree *t, kb_patch_progress_fn *progress, void *arg, json_object **report)
{
	json_object *rep = json_object_new_object(), *rec, *a;
	struct step *steps = NULL;
	char **files = NULL, ***lists = NULL;
	size_t n = 0, nfiles = 0, capfiles = 0;
	int err = 0, rerr;

	*report = rep;
	kb_json_set(rep, "tree", kbp_tree_json(t));
	rec = kbp_record_load(t->dir, &rerr);
	if (rerr) {
		err = rerr;
		goto out;
	}
	if (!rec) {
		err = kb_fail(ENOENT, "%s has no record of patches applied by kvmbench (%s): nothing to revert; nothing was changed",
			      t->dir, KB_PATCHES_RECORD);
		goto out;
	}
	if (!kbp_find_program("patch")) {
		err = kb_fail(ENOENT, "patch(1) is not installed: apt-get install patch (Debian package 'patch'); nothing was changed");
		goto out;
	}
	a = kb_json_get(rec, "applied");
	n = json_object_array_length(a);
	steps = kb_xcalloc(n + 1, sizeof(*steps));
	lists = kb_xcalloc(n + 1, sizeof(*lists));
	/* Reverse order: the last applied is undone first. */
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, n - 1 - i), *fl = kb_json_get(e, "files");
		struct step *s = &steps[i];

		s->feature = kb_json_get_str(e, "feature");
		s->text = kb_json_get_str(e, "diff");
		s->nfiles = json_object_array_length(fl);
		lists[i] = kb_xcalloc(s->nfiles + 1, sizeof(char *));
		for (size_t k = 0; k < s->nfiles; k++) {
			lists[i][k] = (char *)json_object_get_string(json_object_array_get_idx(fl, k));
			files = kb_xgrow(files, nfiles, &capfiles, sizeof(*files));
			files[nfiles++] = lists[i][k];
		}
		s->files = lists[i];
		s->shown.file = (char *)kb_json_get_str(e, "patch");
		s->shown.feature = (char *)s->feature;
		s->shown.title = (char *)kb_json_get_str(e, "title");
		s->shown.files = lists[i];
		s->shown.nfiles = s->nfiles;
	}
	err = check_tree_writable(t->dir, files, nfiles, "revert");
	if (err)
		goto out;
	err = run_steps(t->dir, steps, n, true, revert_commit, NULL, progress, arg, rep);
	if (!err)
		kb_json_set_str(rep, "result", "reverted");
out:
	if (err && !kb_json_get(rep, "result"))
		kb_json_set_str(rep, "result", "error");
	if (err)
		kb_json_set_str(rep, "error", kb_last_error());
	for (size_t i = 0; lists && i < n; i++)
		free(lists[i]);
	free(lists);
	free(files);
	free(steps);
	json_object_put(rec);
	return err;
}
