/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suites.c: the one table of suites; a new suite is one file plus one line here. */
#include <errno.h>
#include <string.h>

#include "core/kb.h"
#include "bench/suites.h"

extern const struct kb_suite kb_suite_cpuid;
extern const struct kb_suite kb_suite_efermsr;
extern const struct kb_suite kb_suite_selfipi;
extern const struct kb_suite kb_suite_execperf;
extern const struct kb_suite kb_suite_dirtylog;
extern const struct kb_suite kb_suite_selftest;
extern const struct kb_suite kb_suite_guest;
extern const struct kb_suite kb_suite_microbench;

const struct kb_suite *const kb_suites[] = {
	&kb_suite_cpuid,
	&kb_suite_efermsr,
	&kb_suite_selfipi,
	&kb_suite_execperf,
	&kb_suite_dirtylog,
	&kb_suite_selftest,
	&kb_suite_microbench,
	/* guest-side suites: measured from inside this machine, no /dev/kvm needed */
	&kb_suite_guest,
};

const size_t kb_nsuites = ARRAY_SIZE(kb_suites);

const struct kb_suite *kb_find_suite(const char *name)
{
	for (size_t i = 0; i < kb_nsuites; i++)
		if (!strcmp(kb_suites[i]->name, name))
			return kb_suites[i];
	return NULL;
}

const struct kb_test_def *kb_find_test(const struct kb_suite *s, const char *name)
{
	for (size_t i = 0; i < s->ntests; i++)
		if (!strcmp(s->tests[i].name, name))
			return &s->tests[i];
	return NULL;
}

_Static_assert(KB_LOOP_X86 == KB_ARCH_X86 && KB_LOOP_ARM64 == KB_ARCH_ARM64,
	       "include/kb_loops.h's architecture bits are enum kb_arch's");

int kb_suites_validate(void)
{
	for (size_t i = 0; i < kb_nsuites; i++) {
		const struct kb_suite *s = kb_suites[i];

		if (!s->name || !s->summary || !s->tests || !s->ntests || !s->arches ||
		    (s->nopts && (!s->opts || !s->cfg)))
			return kb_fail(EINVAL, "suite #%zu (%s) is incomplete", i, s->name ? s->name : "?");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(kb_suites[j]->name, s->name))
				return kb_fail(EINVAL, "suite name '%s' is used twice", s->name);
		for (size_t t = 0; t < s->ntests; t++) {
			const struct kb_test_def *d = &s->tests[t];

			if (!d->name || !d->summary || (!s->run && (d->loop <= 0 || d->loop >= KB_LOOP_MAX)))
				return kb_fail(EINVAL, "suite %s: test #%zu is incomplete", s->name, t);
			/* A loop must be in the guest image of every architecture the suite runs on (the
			 * loop's arches in include/kb_loops.h are enum kb_arch's bits). */
			if (d->loop > 0 && d->loop < KB_LOOP_MAX && (kb_loop_arches(d->loop) & s->arches) != s->arches)
				return kb_fail(EINVAL, "suite %s: test %s's guest loop #%d is not in the guest image of "
					       "every architecture the suite runs on", s->name, d->name, (int)d->loop);
			for (size_t u = 0; u < t; u++)
				if (!strcmp(s->tests[u].name, d->name))
					return kb_fail(EINVAL, "suite %s: test name '%s' is used twice", s->name, d->name);
		}
		/* Suite options share kvmbench run's command line: names must not clash. */
		for (size_t o = 0; o < s->nopts; o++)
			for (size_t j = 0; j < i; j++)
				for (size_t p = 0; p < kb_suites[j]->nopts; p++)
					if (!strcmp(kb_suites[j]->opts[p].name, s->opts[o].name))
						return kb_fail(EINVAL, "option --%s is declared by suites %s and %s",
							       s->opts[o].name, kb_suites[j]->name, s->name);
	}
	return 0;
}
