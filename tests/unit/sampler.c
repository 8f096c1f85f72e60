/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sampler.c: the one sampling rule on synthetic numbers: calibration steps, fixed --runs, a target
 * CI reached or not, --min-runs, --max-runs and --max-time. */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/kb.h"
#include "run/run.h"
#include "run/sampler.h"
#include "tap.h"

static struct kb_run_opts opts(void)
{
	return (struct kb_run_opts){ .runs = 0, .min_runs = 5, .max_runs = 30, .target_ci = 1,
				     .max_time_ns = 5000000000ULL, .warmup = 1, .sample_time_ns = 125000000ULL };
}

static void test_calibration_step(void)
{
	struct kb_run_opts o = opts();
	uint64_t n = 8;
	bool final;

	/* Under a thousandth of --sample-time (125 ms, a binary fraction: the scaling is exact): 16 times more. */
	final = kb_sampler_calibration_step(&o, &n, 50e-6);
	ok(!final && n == 128, "a 50 us sample grows 16x (8 -> %llu)", (unsigned long long)n);
	/* Under a tenth: 4 times more. */
	final = kb_sampler_calibration_step(&o, &n, 5e-3);
	ok(!final && n == 512, "a 5 ms sample grows 4x (128 -> %llu)", (unsigned long long)n);
	/* Long enough: scaled to --sample-time. */
	final = kb_sampler_calibration_step(&o, &n, 0.03125);
	ok(final && n == 2048, "a 31.25 ms sample is final, scaled to 125 ms "
	   "(512 -> %llu)", (unsigned long long)n);
	n = 1000;
	final = kb_sampler_calibration_step(&o, &n, 0.5);
	ok(final && n == 250, "a sample longer than --sample-time scales down "
	   "(1000 -> %llu)", (unsigned long long)n);
	n = 3;
	final = kb_sampler_calibration_step(&o, &n, 1000);
	ok(final && n == 1, "never fewer than one iteration (%llu)", (unsigned long long)n);
	n = 1ULL << 40;
	final = kb_sampler_calibration_step(&o, &n, 0.0009765625);
	ok(final && n == (1ULL << 40) * 128,
	   "growth stops at 2^40 iterations: a too short sample is scaled from there");
}

/* A calibration through kb_sampler_calibrate: a loop of 2^-20 s (about 1 us) per iteration. */
static int stall_at_call;   /* this call (1-based) takes ten times as long, as if its vCPU waited */

static int fake_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	int *calls = arg;

	(*calls)++;
	ok(slot == -1, "calibration samples are discarded (slot %d)", slot);
	out->iters = iters;
	out->seconds = (double)iters / (1 << 20) * (*calls == stall_at_call ? 10 : 1);
	return 0;
}

static void test_calibrate(void)
{
	struct kb_run_opts o = opts();
	uint64_t iters = 0;
	int calls = 0, err;

	/* 8 (8 us) -> 128 (122 us) -> 2048 (2 ms) -> 8192 (8 ms) -> 32768 (31.25 ms): final, x4. */
	err = kb_sampler_calibrate(&o, fake_sample, &calls, &iters);
	ok(!err && iters == 131072,
	   "1 us iterations calibrate to 131072 per 125 ms sample (got %llu)", (unsigned long long)iters);
	ok(calls == 7, "in 7 calibration samples: 5, and the final size twice more (%d)", calls);
	/* The first sample of the final size stalls: the faster ones decide, not the stall. */
	stall_at_call = 5;
	calls = 0;
	err = kb_sampler_calibrate(&o, fake_sample, &calls, &iters);
	ok(!err && iters == 131072, "a stalled calibration sample does not scale the samples down (got %llu)",
	   (unsigned long long)iters);
	stall_at_call = 0;
	o.iterations = 777;
	calls = 0;
	err = kb_sampler_calibrate(&o, fake_sample, &calls, &iters);
	ok(!err && iters == 777 && !calls, "--iterations skips calibration");
}

/* A loop of a quarter second per iteration, as on a very busy host: any slot. */
static int slow_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	out->iters = iters;
	out->seconds = 0.25 * (double)iters;
	return 0;
}

static void test_floor(void)
{
	struct kb_run_opts o = opts();
	volatile sig_atomic_t stop = 0;
	struct kb_run_ctx ctx = { .opts = &o, .stop = &stop };
	struct kb_sampling s = { 0 };
	int err;

	o.runs = 2;
	err = kb_sampler_run(&ctx, slow_sample, NULL, &s);
	ok(!err && s.iters == 1 && s.done == 2, "0.25 s iterations calibrate to 1 per 125 ms sample (%llu)",
	   (unsigned long long)s.iters);
	s = (struct kb_sampling){ .min_iters = 8 };
	err = kb_sampler_run(&ctx, slow_sample, NULL, &s);
	ok(!err && s.iters == 8 && s.done == 2, "the runner's floor of 8 judged iterations holds (%llu)",
	   (unsigned long long)s.iters);
	o.iterations = 3;
	s = (struct kb_sampling){ .min_iters = 8 };
	err = kb_sampler_run(&ctx, slow_sample, NULL, &s);
	ok(!err && s.iters == 3, "--iterations 3 still decides below the floor (%llu)", (unsigned long long)s.iters);
}

static void test_enough(void)
{
	struct kb_run_opts o = opts();
	double steady[40], noisy[40];

	for (int i = 0; i < 40; i++) {
		steady[i] = 1000 + (i % 2 ? 1 : -1);      /* 0.1% apart: the CI is far below 1% */
		noisy[i] = 1000 + (i % 2 ? 300 : -300);   /* 30% apart: never within 1% in 30 samples */
	}
	o.runs = 3;
	ok(!kb_sampler_enough(&o, noisy, 2, 0), "--runs 3: 2 samples are not enough");
	ok(kb_sampler_enough(&o, noisy, 3, 0), "--runs 3: 3 samples are, however noisy");
	ok(!kb_sampler_enough(&o, steady, 2, 10000000000ULL), "--runs 3: --max-time does not stop a fixed count");
	o.runs = 0;
	ok(!kb_sampler_enough(&o, steady, 4, 0), "target CI: fewer than --min-runs (5) are never enough");
	ok(kb_sampler_enough(&o, steady, 5, 0), "target CI reached at --min-runs with steady rates");
	ok(!kb_sampler_enough(&o, noisy, 5, 0), "target CI not reached with noisy rates");
	ok(!kb_sampler_enough(&o, noisy, 29, 0), "... nor at 29 samples");
	ok(kb_sampler_enough(&o, noisy, 30, 0), "--max-runs (30) stops sampling that never reaches the target");
	ok(kb_sampler_enough(&o, noisy, 6, 5000000000ULL), "--max-time (5 s) stops it too");
	ok(!kb_sampler_enough(&o, noisy, 6, 4999999999ULL), "... not before");
	o.target_ci = 50;
	ok(kb_sampler_enough(&o, noisy, 5, 0), "a 50%% target accepts the noisy rates");
	o.max_runs = 2;
	ok(kb_sampler_max_samples(&o) == 5, "--max-runs below --min-runs: room for --min-runs samples (%d)",
	   kb_sampler_max_samples(&o));
	o.runs = 7;
	ok(kb_sampler_max_samples(&o) == 7, "--runs 7: room for 7 samples");
}

int main(void)
{
	test_calibration_step();
	test_calibrate();
	test_floor();
	test_enough();
	return tap_done();
}
