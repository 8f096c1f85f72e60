/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stability.c: warn about results that were measured correctly but may not be stable. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "run/stability.h"
#include "vmm/cpuarch.h"
#include "stats/stats.h"

/* Mean of scaling_cur_freq over the CPUs that have cpufreq, in MHz; 0 when none has. */
static double cpufreq_mhz(void)
{
	DIR *d = opendir("/sys/devices/system/cpu");
	struct dirent *e;
	double sum = 0;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[320], buf[32];
		double khz;

		if (strncmp(e->d_name, "cpu", 3) || !e->d_name[3] || strspn(e->d_name + 3, "0123456789") !=
		    strlen(e->d_name + 3))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s/cpufreq/scaling_cur_freq", e->d_name);
		if (!kb_read_text(path, buf, sizeof(buf)) && (khz = atof(buf)) > 0) {
			sum += khz / 1000;
			n++;
		}
	}
	closedir(d);
	return n ? sum / n : 0;
}

void kb_stab_snap_take(struct kb_stab_snap *s)
{
	struct timespec ts;

	s->mhz = cpufreq_mhz();
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	s->tsc = kb_cpu_counter();
	s->raw_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* How much slower than the median of all samples the first one was, in % (0: not slower). */
static double first_slower_pct(const struct kb_metric *m)
{
	double d = (m->samples[0] - m->sum.median) / fabs(m->sum.median) * 100;

	return fmax(0, m->higher_is_better ? -d : d);
}

double kb_stab_judge(struct kb_test_result *t, const struct kb_stab_snap *begin, const struct kb_stab_snap *end,
		     double ref_khz)
{
	const struct kb_metric *m = kb_test_primary_metric(t);
	double khz = 0;

	if (m && m->n >= 3 && m->sum.mean != 0)
		kb_test_check(t, KB_STAB_CV, 0, 0, KB_STAB_CV_MAX, m->sum.cv * 100, false,
			      "unstable: the samples vary by more than 5% (CV): a busy host, CPU frequency changes, "
			      "or samples too short for the timer (--sample-time)");
	/* The first sample is suspect when it is an outlier (modified z-score, as everywhere) on the slow
	 * side, and more than 2% off: a cache, TLB or page-table warm-up the discarded samples missed. */
	if (m && m->n >= 5 && m->sum.median != 0) {
		double fence = KB_OUTLIER_Z * m->sum.mad / KB_MAD_TO_SIGMA / fabs(m->sum.median) * 100;

		kb_test_check(t, KB_STAB_FIRST, 0, 0, fmax(fence, 2.0), first_slower_pct(m), false,
			      "the first sample was slower than the rest: warm-up too short (raise --warmup)");
	}
	/* Tests shorter than 10 ms cannot time the TSC to 0.5%: their rate is not judged. */
	if (end->raw_ns > begin->raw_ns + 10000000 && end->tsc > begin->tsc) {
		khz = (double)(end->tsc - begin->tsc) / ((double)(end->raw_ns - begin->raw_ns) / 1e6);
		if (ref_khz > 0)
			kb_test_check(t, KB_STAB_TSC, 0, -KB_STAB_TSC_MAX, KB_STAB_TSC_MAX, (khz / ref_khz - 1) * 100,
				      false, "the TSC ran at another rate than the reference (KVM's rate for the vCPUs, or "
				      "the run's first test): a TSC that is not invariant, or TSC scaling changed; "
				      "times taken from it are off by as much");
	}
	if (begin->mhz > 0 && end->mhz > 0)
		kb_test_check(t, KB_STAB_FREQ, 0, -KB_STAB_FREQ_MAX, KB_STAB_FREQ_MAX, (end->mhz / begin->mhz - 1) * 100,
			      false, "the CPU frequency changed during the test: use the performance governor "
			      "(cpupower frequency-set -g performance) and consider disabling turbo");
	return khz;
}
