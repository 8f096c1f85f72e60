/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run-profile.c: 'kvmbench run --profile': the profile's file, options, selectors and references. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/suites.h"
#include "cli/cli.h"
#include "cli/run-profile.h"
#include "core/kb.h"

/* Options that name this run's files or the profile itself: a profile cannot set them. */
static const char *const not_in_profile[] = { "profile", "reference", "json", "junit", "baseline", "kvm" };

char *kb_profile_resolve(const char *arg)
{
	char *srcdir, *p;

	if (strchr(arg, '/') || strchr(arg, '.'))
		return kb_xstrdup(arg);
	/* A build tree's own profiles first: an older installed copy must not shadow them. */
	srcdir = kb_build_tree_srcdir();
	p = srcdir ? kb_xasprintf("%s/profiles/%s.yaml", srcdir, arg) : NULL;
	free(srcdir);
	if (p && !access(p, F_OK))
		return p;
	free(p);
	return kb_xasprintf("%s/profiles/%s.yaml", KB_PKGDATADIR, arg);
}

static int apply_options(const struct kb_profile *pr)
{
	for (size_t i = 0; i < pr->nopts; i++) {
		const struct kb_profile_opt *o = &pr->opts[i];
		int err;

		for (size_t k = 0; k < ARRAY_SIZE(not_in_profile); k++)
			if (!strcmp(o->name, not_in_profile[k]))
				return kb_fail(EINVAL, "%s:%d:%d: option '%s' names a file of this run: give it on the command "
					       "line, not in a profile", pr->path, o->pos.line, o->pos.column, o->name);
		err = kb_cli_set_option(o->name, o->value);
		if (err == -ENOENT)
			return kb_fail(EINVAL, "%s:%d:%d: 'kvmbench run' has no option '%s' ('kvmbench run --help' lists them)",
				       pr->path, o->pos.line, o->pos.column, o->name);
		if (err < 0) {
			char msg[512];

			snprintf(msg, sizeof(msg), "%s", kb_last_error());
			return kb_fail(EINVAL, "%s:%d:%d: %s", pr->path, o->pos.line, o->pos.column, msg);
		}
	}
	return 0;
}

static int check_selectors(const struct kb_profile *pr)
{
	for (size_t i = 0; i < pr->nentries; i++) {
		const struct kb_profile_entry *e = &pr->entries[i];
		char name[128], *slash;
		const struct kb_suite *s;

		if (!strcmp(e->select, "default"))
			continue;
		snprintf(name, sizeof(name), "%s", e->select);
		slash = strchr(name, '/');
		if (slash)
			*slash++ = 0;
		s = kb_find_suite(name);
		if (!s)
			return kb_fail(EINVAL, "%s:%d:%d: unknown suite '%s' ('kvmbench list' shows the suites)", pr->path,
				       e->pos.line, e->pos.column, name);
		if (slash && !kb_find_test(s, slash))
			return kb_fail(EINVAL, "%s:%d:%d: suite '%s' has no test '%s' ('kvmbench list %s' shows its tests)",
				       pr->path, e->pos.line, e->pos.column, s->name, slash, s->name);
	}
	return 0;
}

static int load_refs(const char *list, struct kb_run_profile *rp)
{
	char *copy = kb_xstrdup(list), *save = NULL;
	int err = 0;

	for (char *f = strtok_r(copy, ",", &save); f && !err; f = strtok_r(NULL, ",", &save)) {
		rp->refs = kb_xrealloc(rp->refs, rp->nrefs + 1, sizeof(*rp->refs));
		rp->ref_names = kb_xrealloc(rp->ref_names, rp->nrefs + 1, sizeof(*rp->ref_names));
		err = kb_result_load(f, &rp->refs[rp->nrefs]);
		if (err)
			break;
		rp->ref_names[rp->nrefs++] = kb_xstrdup(f);
	}
	if (!err && !rp->nrefs)
		err = kb_fail(EINVAL, "--reference: no file given");
	free(copy);
	return err;
}

int kb_run_profile_open(const char *arg, const char *references, struct kb_run_profile *rp)
{
	int err;

	memset(rp, 0, sizeof(*rp));
	rp->ref = -1;
	rp->path = kb_profile_resolve(arg);
	if (strcmp(rp->path, arg) && access(rp->path, F_OK))
		return kb_fail(ENOENT, "--profile %s: no bundled profile of that name (%s does not exist); a profile file "
			       "is named by a path (./%s.yaml)", arg, rp->path, arg);
	if ((err = kb_profile_load(rp->path, &rp->prof)) || (err = apply_options(&rp->prof)) ||
	    (err = check_selectors(&rp->prof)))
		return err;
	if (references) {
		char msg[1024];

		if ((err = load_refs(references, rp))) {
			snprintf(msg, sizeof(msg), "%s", kb_last_error());
			return kb_fail(-err, "--reference %s", msg);
		}
	}
	return 0;
}

int kb_run_profile_pick(struct kb_run_profile *rp, const char *uarch)
{
	const struct kb_result **refs;
	int i;

	if (!rp->nrefs)
		return 0;
	refs = kb_xcalloc(rp->nrefs, sizeof(*refs));
	for (size_t k = 0; k < rp->nrefs; k++)
		refs[k] = &rp->refs[k];
	i = kb_reference_pick(refs, (const char *const *)rp->ref_names, rp->nrefs, uarch);
	free(refs);
	if (i < 0)
		return i;
	rp->ref = i;
	return 0;
}

void kb_run_profile_close(struct kb_run_profile *rp)
{
	kb_profile_free(&rp->prof);
	for (size_t i = 0; i < rp->nrefs; i++) {
		kb_result_free(&rp->refs[i]);
		free(rp->ref_names[i]);
	}
	free(rp->refs);
	free(rp->ref_names);
	free(rp->path);
	memset(rp, 0, sizeof(*rp));
}
