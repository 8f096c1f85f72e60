/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sampler.c: the one sampling rule of every measurement: calibrate, warm up, sample until enough. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/sampler.h"
#include "stats/stats.h"

int kb_sampler_max_samples(const struct kb_run_opts *o)
{
	return o->runs ? o->runs : (o->max_runs > o->min_runs ? o->max_runs : o->min_runs);
}

bool kb_sampler_calibration_step(const struct kb_run_opts *o, uint64_t *iters, double seconds)
{
	double target = (double)o->sample_time_ns / 1e9;

	/* Too short a sample is mostly timer resolution and loop overhead: grow it first. */
	if (seconds < target / 10 && *iters < (1ULL << 40)) {
		*iters *= seconds < target / 1000 ? 16 : 4;
		return false;
	}
	*iters = (uint64_t)fmax(1.0, (double)*iters * target / (seconds > 0 ? seconds : 1e-9));
	return true;
}

int kb_sampler_calibrate(const struct kb_run_opts *o, kb_sample_fn fn, void *arg, uint64_t *iters)
{
	struct kb_sample_time s;
	uint64_t n = 8;
	int err;

	if (o->iterations) {
		*iters = o->iterations;
		return 0;
	}
	for (;;) {
		uint64_t next = n;
		double best;

		s = (struct kb_sample_time){ 0 };
		err = fn(arg, -1, n, &s);
		if (err)
			return err;
		if (!kb_sampler_calibration_step(o, &next, s.seconds)) {
			n = next;
			continue;
		}
		/* Long enough to time.  One stalled iteration (the vCPU thread waiting for a CPU) must not
		 * scale every sample down: load only ever slows a sample, so the fastest of
		 * KB_CALIBRATION_TRIES samples of this size decides. */
		best = s.seconds;
		for (int i = 1; i < KB_CALIBRATION_TRIES; i++) {
			s = (struct kb_sample_time){ 0 };
			err = fn(arg, -1, n, &s);
			if (err)
				return err;
			best = fmin(best, s.seconds);
		}
		kb_sampler_calibration_step(o, &n, best);
		break;
	}
	*iters = n;
	return 0;
}

bool kb_sampler_enough(const struct kb_run_opts *o, const double *rates, int n, uint64_t elapsed_ns)
{
	struct kb_summary sum;

	if (o->runs)
		return n >= o->runs;
	if (n >= kb_sampler_max_samples(o) || elapsed_ns >= o->max_time_ns)
		return true;
	if (n < o->min_runs)
		return false;
	kb_summarize(rates, (size_t)n, &sum);
	return sum.ci_rel * 100 <= o->target_ci;
}

/* Warm-up samples, then measured ones until kb_sampler_enough(), each of out->iters iterations. */
static int sample_until_enough(struct kb_run_ctx *ctx, kb_sample_fn fn, void *arg, struct kb_sampling *out)
{
	const struct kb_run_opts *o = ctx->opts;
	int nmax = kb_sampler_max_samples(o), total = o->warmup + nmax, err = 0;
	double *rates = kb_xcalloc((size_t)nmax, sizeof(*rates));
	uint64_t start_ns = 0;

	for (int k = 0; !err && k < total; k++) {
		int slot = k - o->warmup;
		struct kb_sample_time s = { 0 };

		if (*ctx->stop) {
			err = kb_fail(EINTR, "interrupted");
			break;
		}
		if (ctx->progress)
			ctx->progress(ctx, k + 1, total);
		if (slot == 0)
			start_ns = kb_now_ns();
		err = fn(arg, slot < 0 ? -1 : slot, out->iters, &s);
		if (err || slot < 0)
			continue;
		rates[slot] = s.rate > 0 ? s.rate : s.seconds > 0 ? (double)s.iters / s.seconds : 0;
		out->done = slot + 1;
		if (kb_sampler_enough(o, rates, out->done, kb_now_ns() - start_ns))
			break;
	}
	free(rates);
	return err;
}

/* A runner's sample function behind the run's gate (ctx->gate): every sample waits for its turn. */
struct gated {
	struct kb_run_ctx *ctx;
	kb_sample_fn fn;
	void *arg;
};

static int gated_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	struct gated *g = arg;
	int err = g->ctx->gate(g->ctx, slot, false), done;

	if (err)
		return err;
	err = g->fn(g->arg, slot, iters, out);
	done = g->ctx->gate(g->ctx, slot, true);
	return err ? err : done;
}

int kb_sampler_run(struct kb_run_ctx *ctx, kb_sample_fn fn, void *arg, struct kb_sampling *out)
{
	struct gated g = { ctx, fn, arg };
	int err;

	if (ctx->gate) {
		fn = gated_sample;
		arg = &g;
	}
	out->done = 0;
	err = kb_sampler_calibrate(ctx->opts, fn, arg, &out->iters);
	/* A busy host slows calibration's samples, and --sample-time then holds fewer iterations: never
	 * fewer than the runner can judge, or every sample would be "cannot judge". */
	if (!err && !ctx->opts->iterations && out->iters < out->min_iters)
		out->iters = out->min_iters;
	if (!err && ctx->agree)
		err = ctx->agree(ctx, &out->iters);
	return err ? err : sample_until_enough(ctx, fn, arg, out);
}

int kb_sampler_run_fixed(struct kb_run_ctx *ctx, kb_sample_fn fn, void *arg, struct kb_sampling *out)
{
	struct gated g = { ctx, fn, arg };

	out->done = 0;
	out->iters = 1;
	return sample_until_enough(ctx, ctx->gate ? gated_sample : fn, ctx->gate ? (void *)&g : arg, out);
}

void kb_sampler_record(const struct kb_run_opts *o, int done, struct kb_test_result *r)
{
	json_object *js = json_object_new_object();
	const struct kb_metric *rate = kb_test_primary_metric(r);

	kb_json_set_str(js, "mode", o->runs ? "fixed" : "target-ci");
	kb_json_set_int(js, "samples", done);
	kb_json_set_int(js, "warmup", o->warmup);
	kb_json_set(r->extra, "sampling", js);
	if (!o->runs && rate) {
		struct kb_summary sum;

		kb_summarize(rate->samples, rate->n, &sum);
		kb_test_check(r, "ci95_within_target_pct", o->target_ci, 0, o->target_ci, sum.ci_rel * 100, false,
			      "the confidence interval did not reach --target-ci within --max-runs/--max-time");
	}
}
