/* SPDX-License-Identifier: GPL-2.0-or-later */
/* header.c: a bundled patch's Kvmbench-Patch 1 header, parsed and checked against its diff. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/kb.h"
#include "patches/internal.h"

static const char *const header_keys[] = {
	"Kvmbench-Patch", "Feature", "Title", "What", "Why", "Upstream", "Measured-By",
	"Expected-Effect", "Base", "Files",
};

#define NHEADER (sizeof(header_keys) / sizeof(header_keys[0]))

void kbp_patch_free(struct kb_patch *p)
{
	if (!p)
		return;
	free(p->file);
	free(p->path);
	free(p->feature);
	free(p->title);
	free(p->upstream);
	free(p->base);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The paths of the diff's "diff --git a/P b/P" lines, sorted, duplicates removed. */
size_t kbp_diff_paths(const char *text, char ***out)
{
	char **v = NULL;
	size_t n = 0, m = 0, cap = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *start, *end;

		if (strncmp(p, "diff --git a/", 13))
			continue;
		start = p + 13;
		end = strstr(start, " b/");
		if (!end || memchr(start, '\n', (size_t)(end - start)))
			continue;
		v = kb_xgrow(v, n, &cap, sizeof(*v));
		v[n++] = strndup(start, (size_t)(end - start));
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[m++] = v[i];
	}
	*out = v;
	return m;
}

static char *join_words(char **v, size_t n)
{
	struct kb_buf b = { 0 };

	kb_buf_add(&b, "", 0);
	for (size_t i = 0; i < n; i++)
		kb_buf_printf(&b, "%s%s", i ? " " : "", v[i]);
	return b.p;
}

/* Parse and check a patch's Kvmbench-Patch 1 header (kernel/README.md) against its feature: the
 * patch's text as given, or (given NULL) as read from dir/rel. */
static int patch_make(const char *dir, const char *rel, const char *feature, const char *given, struct kb_patch **out)
{
	struct kb_patch *p = kb_xcalloc(1, sizeof(*p));
	char *vals[NHEADER] = { 0 }, *text = NULL, **diff = NULL, **sorted = NULL;
	size_t nk = 0, ndiff = 0;
	const char *s;
	int line = 1, err = 0, cur = -1;

	*out = NULL;
	p->file = kb_xstrdup(rel);
	p->path = kb_xasprintf("%s/%s", dir, rel);
	if (!kbp_safe_relpath(rel)) {
		err = kb_fail(EINVAL, "features.json: feature '%s': patch '%s' is not a path inside the bundle", feature, rel);
		goto out;
	}
	if (given)
		text = kb_xstrdup(given);
	else
		err = kb_read_all(p->path, KB_PATCH_READ_MAX, &text, NULL);
	if (err) {
		err = kb_fail(err, "%s (the patch of feature '%s'): %s", p->path, feature, strerror(-err));
		goto out;
	}
	/* The header block: up to the first empty line; continuation lines start with a blank. */
	for (s = text; *s && *s != '\n'; line++) {
		const char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s) : strlen(s);

		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (*s == ' ' || *s == '\t') {
			size_t lead = 0, old;

			if (cur < 0) {
				err = kb_fail(EINVAL, "%s:%d: a continuation line before the first header field", p->path, line);
				goto out;
			}
			while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
				lead++;
			old = strlen(vals[cur]);
			vals[cur] = kb_xrealloc(vals[cur], old + 1 + (n - lead) + 1, 1);
			vals[cur][old] = ' ';
			memcpy(vals[cur] + old + 1, s + lead, n - lead);
			vals[cur][old + 1 + n - lead] = 0;
		} else {
			size_t k = 0;

			if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
				for (k = 1; k < n && (s[k] == '-' || (s[k] >= '0' && s[k] <= '9') ||
						     (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z')); k++)
					;
			if (!k || k + 1 >= n || s[k] != ':' || s[k + 1] != ' ') {
				err = kb_fail(EINVAL, "%s:%d: not a 'Key: value' header line (Kvmbench-Patch 1, kernel/README.md)",
					      p->path, line);
				goto out;
			}
			if (nk >= NHEADER || strlen(header_keys[nk]) != k || strncmp(s, header_keys[nk], k)) {
				err = kb_fail(EINVAL, "%s:%d: header field '%.*s' where %s%s%s is expected (Kvmbench-Patch 1 has each of %s and %s once, in this order)",
					      p->path, line, (int)k, s, nk < NHEADER ? "'" : "", nk < NHEADER ? header_keys[nk] : "the empty line that ends the header",
					      nk < NHEADER ? "'" : "", header_keys[0], header_keys[NHEADER - 1]);
				goto out;
			}
			vals[nk] = strndup(s + k + 2, n - k - 2);
			cur = (int)nk++;
		}
		if (!eol)
			break;
		s = eol + 1;
	}
	if (nk < NHEADER) {
		err = kb_fail(EINVAL, "%s: the header has no '%s' field (Kvmbench-Patch 1, kernel/README.md)", p->path,
			      header_keys[nk]);
		goto out;
	}
	if (strcmp(vals[0], "1")) {
		err = kb_fail(EINVAL, "%s: Kvmbench-Patch is '%s'; this kvmbench reads version 1", p->path, vals[0]);
		goto out;
	}
	if (strcmp(vals[1], feature)) {
		err = kb_fail(EINVAL, "%s: Feature is '%s' but features.json gives this patch to '%s'", p->path, vals[1], feature);
		goto out;
	}
	/* Files: what apply snapshots, so it must be exactly what the diff touches. */
	for (char *save = NULL, *w = strtok_r(vals[9], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!kbp_safe_relpath(w)) {
			err = kb_fail(EINVAL, "%s: Files: '%s' is not a path inside the tree", p->path, w);
			goto out;
		}
		p->files = kb_xrealloc(p->files, p->nfiles + 1, sizeof(*p->files));
		p->files[p->nfiles++] = kb_xstrdup(w);
	}
	ndiff = kbp_diff_paths(text, &diff);
	sorted = kb_xcalloc(p->nfiles + 1, sizeof(*sorted));
	memcpy(sorted, p->files, p->nfiles * sizeof(*sorted));
	qsort(sorted, p->nfiles, sizeof(*sorted), cmp_str);
	{
		bool same = ndiff && ndiff == p->nfiles;

		for (size_t i = 0; same && i < ndiff; i++)
			same = !strcmp(sorted[i], diff[i]);
		for (size_t i = 1; same && i < p->nfiles; i++)
			same = strcmp(sorted[i - 1], sorted[i]) != 0;
		if (!same) {
			char *a = join_words(p->files, p->nfiles), *b = join_words(diff, ndiff);

			err = kb_fail(EINVAL, "%s: Files lists '%s' but the diff touches '%s' (they must agree: apply snapshots the Files)",
				      p->path, a, b);
			free(a);
			free(b);
			goto out;
		}
	}
	p->feature = vals[1];
	p->title = vals[2];
	p->upstream = vals[5];
	p->base = vals[8];
	vals[1] = vals[2] = vals[5] = vals[8] = NULL;
	*out = p;
	p = NULL;
out:
	for (size_t i = 0; i < NHEADER; i++)
		free(vals[i]);
	for (size_t i = 0; i < ndiff; i++)
		free(diff[i]);
	free(diff);
	free(sorted);
	free(text);
	kbp_patch_free(p);
	return err;
}

int kbp_patch_load(const char *dir, const char *rel, const char *feature, struct kb_patch **out)
{
	return patch_make(dir, rel, feature, NULL, out);
}

int kbp_patch_parse(const char *dir, const char *rel, const char *feature, const char *text, struct kb_patch **out)
{
	return patch_make(dir, rel, feature, text, out);
}
