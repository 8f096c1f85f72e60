/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stability.h: warnings that a result, though measured correctly, may not be stable: samples that
 * vary a lot, a first sample slower than the rest, a TSC or CPU frequency that changed while it ran.
 * Each is a non-fatal check of the test (named below), so every writer, compare and report show it
 * and the JSON keeps the measured value; a failed one is also printed as a warning. */
#ifndef KB_STABILITY_H
#define KB_STABILITY_H

#include <stdint.h>

#include "results/result.h"

/* The checks, with what they accept. */
#define KB_STAB_CV "cv_pct"                          /* primary metric's CV, at most 5% */
#define KB_STAB_FIRST "first_sample_slower_pct"      /* first sample against the median */
#define KB_STAB_TSC "tsc_rate_change_pct"            /* TSC rate over the test against the reference */
#define KB_STAB_FREQ "cpu_mhz_change_pct"            /* mean CPU frequency, end of test against start */

#define KB_STAB_CV_MAX 5.0
#define KB_STAB_TSC_MAX 0.5
#define KB_STAB_FREQ_MAX 5.0

/* What the clocks said at one moment. */
struct kb_stab_snap {
	uint64_t tsc;
	uint64_t raw_ns;       /* CLOCK_MONOTONIC_RAW: not slewed by NTP */
	double mhz;            /* mean current frequency of the online CPUs (cpufreq); 0: not known */
};

void kb_stab_snap_take(struct kb_stab_snap *s);

/*
 * Add the stability checks to a measured test: the sample-based ones from its primary metric (rate,
 * else the first), the clock-based ones from the snapshots taken around it.  'ref_khz' is the TSC
 * rate to hold the test's own against (KVM's for the vCPUs, or what an earlier test of the run
 * measured); 0 leaves that check out.  Returns the TSC rate the test measured in kHz (0: too short).
 */
double kb_stab_judge(struct kb_test_result *t, const struct kb_stab_snap *begin, const struct kb_stab_snap *end,
		     double ref_khz);

#endif
