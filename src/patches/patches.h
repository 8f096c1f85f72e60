/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patches.h: the kernel/ bundle (reference host patches and the feature manifest, described in
 * kernel/README.md): find and load it, judge a kernel source tree or the running kernel against
 * it, and apply or revert its patches on a source tree all or nothing. */
#ifndef KB_PATCHES_H
#define KB_PATCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/* A bundled patch: its Kvmbench-Patch 1 header, checked against the manifest and its diff. */
struct kb_patch {
	char *file;        /* relative to the bundle directory: "patches/0001-....patch" */
	char *path;        /* the bundle directory joined with file */
	char *feature;     /* Feature: */
	char *title;       /* Title: */
	char *upstream;    /* Upstream: */
	char *base;        /* Base: */
	char **files;      /* Files: paths relative to the tree top, as listed */
	size_t nfiles;
};

struct kb_feature {
	const char *id;
	const char *title;
	const char *status;   /* "bundled", "upstream" or "known-bad" */
	const char *arch;     /* "x86_64", "arm64" or "any" */
	json_object *j;       /* the manifest entry (owned by the bundle) */
	struct kb_patch *patch;   /* bundled features only */
};

struct kb_bundle {
	char *dir;            /* the kernel/ directory */
	const char *source;   /* how it was chosen: "--bundle", "KVMBENCH_KERNEL_DIR", "installed", "source-tree" */
	char *why;            /* the same in words, for people */
	json_object *manifest;
	struct kb_feature *features;
	size_t nfeatures;
	struct kb_patch **patches;   /* in apply order (patch file name order) */
	size_t npatches;
};

/*
 * Find and load the bundle: 'dir' when given (--bundle), else $KVMBENCH_KERNEL_DIR, else for a
 * build that is not installed (the executable sits next to config.status) the source tree's
 * kernel/ (abs_top_srcdir in the build tree's Makefile, read at run time), else the installed
 * $(pkgdatadir)/kernel (KB_PKGDATADIR).  The manifest and every patch header are checked (kernel/README.md);
 * anything wrong fails the load with -errno and a message naming the file and what is wrong.
 */
int kb_bundle_open(const char *dir, struct kb_bundle *b);
void kb_bundle_close(struct kb_bundle *b);
const struct kb_feature *kb_bundle_feature(const struct kb_bundle *b, const char *id);
/* {"dir", "source", "description"}. */
json_object *kb_bundle_origin_json(const struct kb_bundle *b);
/* The manifest and the patches, for 'patches list --json'. */
json_object *kb_bundle_list_json(const struct kb_bundle *b);

/* A kernel source tree: a Makefile with VERSION and PATCHLEVEL, and arch/x86/kvm. */
struct kb_tree {
	char *dir;
	char version[64];     /* "6.1.192" (VERSION.PATCHLEVEL.SUBLEVEL) */
	char release[128];    /* the same with EXTRAVERSION */
};
int kb_tree_open(const char *dir, struct kb_tree *t);
void kb_tree_close(struct kb_tree *t);

/* The record 'apply' leaves in the tree and 'revert' reads. */
#define KB_PATCHES_RECORD ".kvmbench-patches.json"

/*
 * Per feature (all when nids is 0), the source-tree verdict of kernel/README.md with the rules'
 * evidence and, for a patch, its dry-run output.  arch: the target architecture (NULL: this
 * host's).  Returns the report object (never NULL); unknown ids fail with -EINVAL.
 */
int kb_tree_verify(const struct kb_bundle *b, const struct kb_tree *t, const char *arch,
		   char *const *ids, size_t nids, json_object **report);

/* The same for the running kernel, from its version, module parameters, KVM stats names (a VM and
 * a vCPU are created on kvm_path) and /proc/kallsyms; evidence that cannot be read is "unknown". */
int kb_running_verify(const struct kb_bundle *b, const char *kvm_path, char *const *ids, size_t nids,
		      json_object **report);

/* Called before and after each patch is applied or reverted, for progress output. */
typedef void kb_patch_progress_fn(const char *event, const struct kb_patch *p, void *arg);

/*
 * Apply the named bundled features' patches (nids 0: every bundled feature that the tree still
 * lacks) to the tree, all or nothing, and record them in the tree (KB_PATCHES_RECORD).
 * Everything is checked before anything changes; the files each patch touches are snapshotted
 * and restored on any failure, including SIGINT, SIGTERM, SIGHUP and SIGQUIT (blocked while the
 * tree changes).  Test hook: $KB_TEST_APPLY_DELAY seconds (may be fractional) of waiting, during
 * which those signals interrupt, after each patch.
 * Returns 0, -ECANCELED when a patch does not apply (nothing changed; the report has patch's
 * output), -EINTR when interrupted (tree restored; the report's "signal" names the signal), or
 * another -errno for a usage or setup error (nothing changed).  *report is set in every case.
 */
int kb_patches_apply(const struct kb_bundle *b, const struct kb_tree *t, char *const *ids, size_t nids,
		     kb_patch_progress_fn *progress, void *arg, json_object **report);

/* Undo exactly what the tree's record says was applied (reverse order, patch -R), then remove
 * the record; all or nothing, with the same checks, signals and return values as apply. */
int kb_patches_revert(const struct kb_tree *t, kb_patch_progress_fn *progress, void *arg,
		      json_object **report);

/* The first X.Y[.Z] of a kernel release string as numbers; 0 when found, -EINVAL otherwise. */
int kb_kernel_version_parse(const char *release, int *major, int *minor, int *sub);

#endif
