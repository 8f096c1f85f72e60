/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.c: the files an apply or revert touches, kept to put them back byte for byte. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/kb.h"
#include "patches/internal.h"

void kbp_snap_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].rel);
		free(s->f[i].path);
		free(s->f[i].data);
		for (size_t k = 0; k < s->f[i].nmade; k++)
			free(s->f[i].made[k]);
		free(s->f[i].made);
	}
	free(s->f);
	memset(s, 0, sizeof(*s));
}

int kbp_snap_add(struct snapshot *s, const char *tree, const char *rel)
{
	struct snap_file *f;
	struct stat st;
	int err;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].rel, rel))
			return 0;
	s->f = kb_xgrow(s->f, s->n, &s->cap, sizeof(*s->f));
	f = &s->f[s->n++];
	memset(f, 0, sizeof(*f));
	f->rel = kb_xstrdup(rel);
	f->path = kb_xasprintf("%s/%s", tree, rel);
	if (!lstat(f->path, &st)) {
		if (!S_ISREG(st.st_mode))
			return kb_fail(EINVAL, "%s is not a regular file: kvmbench will not patch it", f->path);
		f->existed = true;
		f->mode = st.st_mode & 07777;
		err = kb_read_all(f->path, KB_PATCH_READ_MAX, &f->data, &f->len);
		if (err)
			return kb_fail(err, "cannot snapshot %s: %s", f->path, strerror(-err));
		return 0;
	}
	if (errno != ENOENT)
		return kb_fail(errno, "cannot snapshot %s: %s", f->path, strerror(errno));
	/* A file the patch creates: remember which of its directories are new too. */
	{
		char *d = kb_xstrdup(f->path), *slash;

		while ((slash = strrchr(d, '/')) && slash > d + strlen(tree)) {
			*slash = 0;
			if (kbp_exists(d))
				break;
			f->made = kb_xgrow(f->made, f->nmade, &f->capmade, sizeof(*f->made));
			f->made[f->nmade++] = kb_xstrdup(d);
		}
		free(d);
	}
	return 0;
}

static void mkdirs_for(const char *path)
{
	char *d = kb_xstrdup(path);

	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(d, 0755);
			*p = '/';
		}
	free(d);
}

/* Put every snapshotted file back and check it; the problems, if any, go to 'problems'. */
int kbp_snap_restore(const struct snapshot *s, struct kb_buf *problems)
{
	int bad = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct snap_file *f = &s->f[i];
		char *now = NULL;
		size_t len = 0;
		int err;

		if (f->existed) {
			if (!kb_read_all(f->path, KB_PATCH_READ_MAX, &now, &len) && len == f->len && !memcmp(now, f->data, len)) {
				struct stat st;

				if (!stat(f->path, &st) && (st.st_mode & 07777) != f->mode)
					chmod(f->path, f->mode);
				free(now);
				continue;
			}
			free(now);
			mkdirs_for(f->path);
			err = kb_write_atomic_data(f->path, "the file as it was", f->data, f->len, (int)f->mode);
			if (err) {
				kb_buf_printf(problems, "%s could not be restored: %s; ", f->path, strerror(-err));
				bad = 1;
			}
		} else {
			if (unlink(f->path) && errno != ENOENT) {
				kb_buf_printf(problems, "%s (created by the patch) could not be removed: %s; ", f->path,
					   strerror(errno));
				bad = 1;
			}
			for (size_t k = 0; k < f->nmade; k++)
				rmdir(f->made[k]);
		}
	}
	/* Check: byte-identical files, absent files absent. */
	for (size_t i = 0; i < s->n && !bad; i++) {
		const struct snap_file *f = &s->f[i];
		char *now = NULL;
		size_t len = 0;

		if (f->existed) {
			if (kb_read_all(f->path, KB_PATCH_READ_MAX, &now, &len) || len != f->len || memcmp(now, f->data, len)) {
				kb_buf_printf(problems, "%s differs from its snapshot after the restore; ", f->path);
				bad = 1;
			}
			free(now);
		} else if (kbp_exists(f->path)) {
			kb_buf_printf(problems, "%s still exists after the restore; ", f->path);
			bad = 1;
		}
	}
	return bad ? -EIO : 0;
}
