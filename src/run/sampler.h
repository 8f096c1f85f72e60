/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sampler.h: the one sampling rule of every measurement: calibrate, warm up, then sample to a fixed
 * count (--runs) or until the 95% CI of the mean rate is within --target-ci. */
#ifndef KB_SAMPLER_H
#define KB_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "results/result.h"
#include "run/suite.h"

/* What one sample measured: the iterations that ran and the time they took. */
struct kb_sample_time {
	uint64_t iters;
	double seconds;
	double rate;        /* the rate the stopping rule sees when the sample has its own (iterations of
	                     * several vCPUs, each on its own clock); 0: iters / seconds */
};

/*
 * Take one sample of 'iters' iterations.  'slot' is where a measured sample keeps its own evidence
 * (0 .. kb_sampler_max_samples() - 1), or -1 for a calibration or warm-up sample, which is discarded.
 * Returns 0, or -errno with kb_fail()'s message.
 */
typedef int (*kb_sample_fn)(void *arg, int slot, uint64_t iters, struct kb_sample_time *out);

/* The most measured samples one test can take: the room to allocate for them. */
int kb_sampler_max_samples(const struct kb_run_opts *o);

/*
 * One step of calibration: *iters iterations took 'seconds'.  Returns false with the next count to
 * try in *iters while a sample is too short to time (under a tenth of --sample-time), true with the
 * final count scaled to --sample-time.  For runners that take calibration samples their own way.
 */
bool kb_sampler_calibration_step(const struct kb_run_opts *o, uint64_t *iters, double seconds);

/* Iterations per sample: --iterations when given, otherwise calibrated from 8 on by taking samples
 * through fn; the first count long enough to time is taken KB_CALIBRATION_TRIES times and the
 * fastest scaled to --sample-time. */
#define KB_CALIBRATION_TRIES 3
int kb_sampler_calibrate(const struct kb_run_opts *o, kb_sample_fn fn, void *arg, uint64_t *iters);

/* n measured samples with these rates, the first begun elapsed_ns ago: may sampling stop? */
bool kb_sampler_enough(const struct kb_run_opts *o, const double *rates, int n, uint64_t elapsed_ns);

struct kb_sampling {
	uint64_t iters;     /* per sample */
	int done;           /* measured samples, in slots 0 .. done - 1 */
	uint64_t min_iters; /* set by the runner: the fewest iterations per sample its checks can judge;
	                     * calibration never settles below it (--iterations still decides) */
};

/*
 * A whole measurement in the calling thread: calibrate, --warmup discarded samples, then measured
 * samples until kb_sampler_enough().  Reports progress through ctx->progress; returns -EINTR as soon
 * as *ctx->stop is set.
 */
int kb_sampler_run(struct kb_run_ctx *ctx, kb_sample_fn fn, void *arg, struct kb_sampling *out);
/* The same for samples of a fixed size (a whole VM's populate, say): no calibration; fn is asked for
 * one iteration per sample and reports the seconds the sample's primary metric took. */
int kb_sampler_run_fixed(struct kb_run_ctx *ctx, kb_sample_fn fn, void *arg, struct kb_sampling *out);

/* Say in the result how its samples were taken (extra.sampling) and, when sampling to a target,
 * whether metric "rate" (or else the first metric) reached it (check ci95_within_target_pct). */
void kb_sampler_record(const struct kb_run_opts *o, int done, struct kb_test_result *r);

#endif
