/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.h: qualification profiles (kvmbench-profile(5)): which tests with which options, the
 * acceptance criteria per test and metric, read from YAML; and judging a result by them. */
#ifndef KB_PROFILE_H
#define KB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "results/result.h"

/* The largest profile read: a hand-written file is a few KiB. */
#define KB_PROFILE_MAX_BYTES (1u << 20)

/* Where in the profile something was written: every error and every verdict names it. */
struct kb_profile_pos {
	int line, column;     /* 1-based */
};

/* A list of reason substrings ("may-skip-for"); any: every reason. */
struct kb_reasons {
	bool any;
	char **v;
	size_t n;
};

/* The criteria on one metric of a test ("primary": the test's primary metric). */
struct kb_metric_crit {
	char *metric;
	bool has_min, has_max, has_max_cv, has_tolerance;
	double min, max;           /* in the metric's unit */
	double max_cv_pct;         /* CV of the samples, percent */
	double tolerance_pct;      /* worse than the reference's mean by at most this many percent */
	struct kb_profile_pos pos;
};

/* One entry of 'tests:': a selector and what its tests must meet. */
struct kb_profile_entry {
	char *select;              /* "SUITE", "SUITE/TEST", or "default" (what 'run' runs without operands) */
	struct kb_reasons may_skip, may_be_invalid;
	struct kb_metric_crit *metrics;
	size_t nmetrics;
	struct kb_profile_pos pos;
};

/* One entry of 'options:': a 'kvmbench run' option given as if on the command line. */
struct kb_profile_opt {
	char *name, *value;
	struct kb_profile_pos pos;
};

struct kb_profile {
	char *path;                /* as given, for messages */
	char *name, *description;
	struct kb_profile_opt *opts;
	size_t nopts;
	struct kb_profile_entry *entries;
	size_t nentries;
};

/* Parse a profile held in memory; path names it in errors ("FILE:LINE:COLUMN: what is wrong"). */
int kb_profile_parse(const char *path, const char *text, size_t len, struct kb_profile *p);
/* Read and parse the file at path. */
int kb_profile_load(const char *path, struct kb_profile *p);
void kb_profile_free(struct kb_profile *p);
/* Whether an entry's selector applies to the test suite/test. */
bool kb_profile_entry_matches(const struct kb_profile_entry *e, const char *suite, const char *test);
/* Whether the profile has a tolerance criterion (so it wants a reference). */
bool kb_profile_wants_reference(const struct kb_profile *p);

/* Judge every test of res by the entries that select it, storing the verdicts in the tests and
 * the profile and the overall verdict in res->profile.  ref: the reference result for
 * tolerance criteria (NULL: they are not judged), ref_name its file.  Returns the number of
 * failed criteria. */
size_t kb_profile_judge(const struct kb_profile *p, struct kb_result *res, const struct kb_result *ref,
			const char *ref_name);
/* Of refs (several references, e.g. one per microarchitecture), the one measured on this uarch
 * (host.cpu.microarchitecture); -1 with a message naming what each has when none is. */
int kb_reference_pick(const struct kb_result *const *refs, const char *const *names, size_t n, const char *uarch);

#endif
