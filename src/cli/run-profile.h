/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run-profile.h: 'kvmbench run --profile': find and load the profile, apply its options, pick the reference. */
#ifndef KB_RUN_PROFILE_H
#define KB_RUN_PROFILE_H

#include <stddef.h>

#include "results/profile.h"
#include "results/result.h"

struct kb_run_profile {
	struct kb_profile prof;
	char *path;                    /* the file read */
	struct kb_result *refs;        /* --reference FILE[,FILE...] */
	char **ref_names;
	size_t nrefs;
	int ref;                       /* the one for this host's microarchitecture, or -1 */
};

/* The file of --profile ARG: a bundled profile when ARG is a bare name (no '/' or '.'), else ARG. */
char *kb_profile_resolve(const char *arg);
/* Load the profile and the references, set the profile's options unless the command line gave them,
 * and check its selectors against the suite table.  -errno with kb_fail(). */
int kb_run_profile_open(const char *arg, const char *references, struct kb_run_profile *rp);
/* Choose the reference measured on uarch (NULL: unknown); 0 when there are none. */
int kb_run_profile_pick(struct kb_run_profile *rp, const char *uarch);
void kb_run_profile_close(struct kb_run_profile *rp);

#endif
