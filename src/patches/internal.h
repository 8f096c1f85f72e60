/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h: what the files of src/patches share privately (patches.h is the public API). */
#ifndef KB_PATCHES_INTERNAL_H
#define KB_PATCHES_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "core/buf.h"
#include "patches/patches.h"

/* No patch, kernel source file or /proc/kallsyms comes near this; a device would never end. */
#define KB_PATCH_READ_MAX ((size_t)256 << 20)

/* ---- path.c: paths ---- */
bool kbp_is_dir(const char *path);
bool kbp_exists(const char *path);   /* lstat: a dangling symlink exists */
/* A path relative to a tree top that cannot leave it: no leading '/', no '.' or '..' parts. */
bool kbp_safe_relpath(const char *p);

/* ---- spawn.c: running programs by argv, GNU patch ---- */
/* An executable named 'name' on $PATH. */
bool kbp_find_program(const char *name);
/*
 * Run argv (looked up on $PATH) in dir, stdin from in_fd (-1: /dev/null), stdout and stderr
 * captured into *output.  The child runs in a session of its own (a terminal's ^C reaches
 * kvmbench only) with child_mask as its signal mask when given.  Returns the exit status,
 * 128 + the signal when it was killed, or -errno when it could not be started.
 */
int kbp_spawn_capture(char *const argv[], const char *dir, int in_fd, const sigset_t *child_mask, char **output);
/* The patch command line, as the reports show it. */
const char *kbp_patch_command(bool reverse, bool dry_run);
/* Dry-run (or apply) a patch given as a file or as text; the outcome goes into 'o'
 * ("command", "exit_status", "output").  Returns patch's exit status or -errno. */
int kbp_patch_run(const char *tree, const char *file, const char *text, bool reverse, bool dry_run,
		  const sigset_t *child_mask, json_object *o);

/* ---- header.c: a patch's Kvmbench-Patch 1 header ---- */
/* Parse and check the header of dir/rel, the patch of 'feature', against its diff. */
int kbp_patch_load(const char *dir, const char *rel, const char *feature, struct kb_patch **out);
/* The same on the patch's text (up to its first NUL, as read from a file), dir/rel naming it: the
 * patch-header fuzz target's entry, without a file to write and read back at every input. */
int kbp_patch_parse(const char *dir, const char *rel, const char *feature, const char *text, struct kb_patch **out);
void kbp_patch_free(struct kb_patch *p);
/* The paths of the diff's "diff --git a/P b/P" lines, sorted, duplicates removed. */
size_t kbp_diff_paths(const char *text, char ***out);

/* ---- bundle.c ---- */
json_object *kbp_strings_json(char *const *v, size_t n);

/* ---- verify.c: source rules and the source-tree verdict ---- */
struct fcache_entry {
	char *rel;
	char *data;
	size_t len;
	int err;
};

/* The tree's files, each read once. */
struct fcache {
	const char *tree;
	struct fcache_entry *e;
	size_t n, cap;
};
void kbp_fcache_free(struct fcache *c);

enum pre_verdict {
	PV_NOT_APPLICABLE,
	PV_PRESENT,         /* present-upstream, or known-bad-present */
	PV_BUNDLED_APPLIED,
	PV_PATCHABLE,       /* a patch to dry-run */
	PV_ABSENT,          /* absent, or known-bad-absent */
};

/* Steps 1-4 and 6 of the verdict (kernel/README.md); PV_PATCHABLE leaves step 5 to the caller.
 * The rules' evidence goes into 'fe' ("evidence"), the reason into *why (allocated). */
enum pre_verdict kbp_source_verdict(const struct kb_feature *f, struct fcache *c, const char *arch,
				    json_object *fe, char **why);
const char *kbp_pre_verdict_name(enum pre_verdict v, bool bad);
json_object *kbp_tree_json(const struct kb_tree *t);
/* Whether feature 'id' is among ids (all are when nids is 0). */
bool kbp_wanted(const char *id, char *const *ids, size_t nids);
/* -EINVAL naming the first id the manifest does not have. */
int kbp_check_ids(const struct kb_bundle *b, char *const *ids, size_t nids);
void kbp_count_verdict(json_object *summary, const char *verdict);
void kbp_note_missing_fixes(const struct kb_bundle *b, json_object *fs, json_object *rep, const char *where);

/* ---- running.c ---- */
/* This host's architecture as the manifest names it ("x86_64", "arm64", ...). */
const char *kbp_host_arch(void);

/* ---- snapshot.c: the files a change touches, kept to restore them ---- */
struct snap_file {
	char *rel, *path;
	bool existed;
	char *data;
	size_t len;
	mode_t mode;
	char **made;     /* directories that did not exist, deepest first (a patch may create them) */
	size_t nmade, capmade;
};

struct snapshot {
	struct snap_file *f;
	size_t n, cap;
};
int kbp_snap_add(struct snapshot *s, const char *tree, const char *rel);
/* Put every snapshotted file back and check it; the problems, if any, go to 'problems'. */
int kbp_snap_restore(const struct snapshot *s, struct kb_buf *problems);
void kbp_snap_free(struct snapshot *s);

/* ---- record.c: the record apply leaves in the tree (KB_PATCHES_RECORD) ---- */
/* The tree's record, NULL when it has none (or on error: *err is -errno then). */
json_object *kbp_record_load(const char *tree, int *err);
int kbp_record_write(const char *tree, json_object *rec);
bool kbp_record_has(json_object *rec, const char *id);

#endif
