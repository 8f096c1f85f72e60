/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crew.c: the vCPU runtime: one thread per vCPU that runs guest loops on command, all at once. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "run/crew.h"
#include "core/kb.h"
#include "host/topo.h"

struct member {
	pthread_t thread;
	struct kb_crew *crew;
	int id;
	bool started;
	uint64_t param[6];
	uint64_t *before, *after;   /* KVM stats snapshots around a part */
	struct kb_perf_counters perf;   /* run --perf, on this thread */
	int err;
	char errmsg[1024];
};

struct kb_crew {
	struct kb_machine *m;
	const struct kb_run_ctx *ctx;
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	unsigned long generation;   /* one per command */
	int pending;                /* members still working on the current command */
	bool quit;
	const struct kb_crew_phase *phase;
	struct kb_crew_result *out;
	struct member *members;
	int n;
};

static void finish(struct member *w)
{
	struct kb_crew *c = w->crew;

	pthread_mutex_lock(&c->lock);
	if (--c->pending == 0)
		pthread_cond_signal(&c->done);
	pthread_mutex_unlock(&c->lock);
}

/* Enter the guest until it answers (KB_UC_NEXT); prints on the channel are only debug output. */
static int call_guest(struct member *w)
{
	int r;

	while ((r = kb_machine_call(w->crew->m, w->id, w->crew->ctx->opts->timeout_ns)) == KB_UC_PRINT)
		;
	return r == KB_UC_NEXT ? 0 : r < 0 ? r : -EPROTO;
}

static void fail(struct member *w, int err)
{
	w->err = err;
	snprintf(w->errmsg, sizeof(w->errmsg), "%s", err == -EINTR ? "interrupted" : kb_last_error());
}

/* This vCPU's part of the current phase, timed and counted around its guest call. */
static int run_part(struct member *w, struct kb_mailbox *mb)
{
	const struct kb_crew_phase *ph = w->crew->phase;
	struct kb_crew_result *res = &w->crew->out[w->id];
	const struct kb_stats *st = &w->crew->m->vcpus[w->id].stats;
	uint64_t t0, t1, irqs, shadow, recovered, user_exits, tsc_ipi, tsc_eoi, pb[KB_PERF_MAX], pa[KB_PERF_MAX];
	int err = 0;

	mb->op = KB_OP_LOOP;
	mb->test = ph->loop;
	mb->iters = ph->iters;
	memcpy(mb->param, w->param, sizeof(mb->param));
	mb->part_timed = 0;
	irqs = mb->irq_count;
	shadow = mb->shadow_violations;
	recovered = mb->late_irq_nudges + mb->ipi_resends;
	tsc_ipi = mb->tsc_ipi;
	tsc_eoi = mb->tsc_eoi;
	user_exits = w->crew->m->vcpus[w->id].user_exits;
	if (res->stats)
		err = kb_stats_read(st, w->before);
	if (err)
		return err;
	kb_perf_read(&w->perf, pb);
	t0 = kb_now_ns();
	err = call_guest(w);
	t1 = kb_now_ns();
	kb_perf_read(&w->perf, pa);
	for (int i = 0; i < w->perf.n; i++)
		res->perf[i] = pa[i] - pb[i];
	if (!err && res->stats)
		err = kb_stats_read(st, w->after);
	if (err)
		return err;
	if (res->stats)
		for (uint32_t i = 0; i < st->nvals; i++)
			res->stats[i] = w->after[i] - w->before[i];
	res->iters = mb->done_iters;
	res->span = mb->tsc_end - mb->tsc_begin;
	res->tsc_ipi = mb->tsc_ipi - tsc_ipi;
	res->tsc_eoi = mb->tsc_eoi - tsc_eoi;
	res->tsc = mb->part_timed ? res->tsc_eoi : res->span;
	res->host_ns = t1 - t0;
	res->irqs = mb->irq_count - irqs;
	res->shadow = mb->shadow_violations - shadow;
	res->recovered = mb->late_irq_nudges + mb->ipi_resends - recovered;
	res->user_exits = w->crew->m->vcpus[w->id].user_exits - user_exits;
	for (int i = 0; i < 6; i++)
		res->args[i] = mb->args[i];
	if (res->iters != ph->iters)
		return kb_fail(EPROTO, "vCPU %d: guest ran %llu iterations, asked for %llu", w->id,
			       (unsigned long long)res->iters, (unsigned long long)ph->iters);
	return 0;
}

static void *member_main(void *arg)
{
	struct member *w = arg;
	struct kb_crew *c = w->crew;
	struct kb_mailbox *mb = kb_machine_mailbox(c->m, w->id);
	unsigned long seen = 0;
	int err;

	if (c->ctx->plan && kb_plan_pin_vcpu_thread(c->ctx->plan, w->id))
		fail(w, -EINVAL);
	else if ((err = kb_perf_open_self(c->ctx->opts->perf, &w->perf)))
		fail(w, err);
	else if ((err = call_guest(w)))
		fail(w, err);
	finish(w);
	for (;;) {
		pthread_mutex_lock(&c->lock);
		while (c->generation == seen && !c->quit)
			pthread_cond_wait(&c->go, &c->lock);
		seen = c->generation;
		if (c->quit) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		pthread_mutex_unlock(&c->lock);
		if (!w->err && (err = run_part(w, mb)))
			fail(w, err);
		finish(w);
	}
	return NULL;
}

/* The first failure of any member, as this thread's error; 0 when none failed. */
static int first_error(struct kb_crew *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->members[i].err)
			return kb_fail(-c->members[i].err, "%s", c->members[i].errmsg);
	return 0;
}

static void wait_done(struct kb_crew *c)
{
	pthread_mutex_lock(&c->lock);
	while (c->pending > 0)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

int kb_crew_start(struct kb_crew **out, struct kb_machine *m, const struct kb_run_ctx *ctx)
{
	struct kb_crew *c = kb_xcalloc(1, sizeof(*c));
	int err = 0;

	c->m = m;
	c->ctx = ctx;
	c->n = m->nvcpus;
	c->members = kb_xcalloc((size_t)c->n, sizeof(*c->members));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->go, NULL);
	pthread_cond_init(&c->done, NULL);
	c->pending = c->n;
	for (int i = 0; i < c->n; i++) {
		struct member *w = &c->members[i];

		w->crew = c;
		w->id = i;
		w->before = kb_xcalloc(m->vcpus[i].stats.nvals + 1, sizeof(uint64_t));
		w->after = kb_xcalloc(m->vcpus[i].stats.nvals + 1, sizeof(uint64_t));
		if (pthread_create(&w->thread, NULL, member_main, w)) {
			err = kb_fail(EAGAIN, "cannot start the thread of vCPU %d", i);
			/* The members that never started will never report: take them off the count. */
			pthread_mutex_lock(&c->lock);
			c->pending -= c->n - i;
			pthread_mutex_unlock(&c->lock);
			break;
		}
		w->started = true;
	}
	wait_done(c);
	if (!err)
		err = first_error(c);
	if (err) {
		kb_crew_stop(c);
		return err;
	}
	*out = c;
	return 0;
}

int kb_crew_run(struct kb_crew *c, const struct kb_crew_phase *ph, struct kb_crew_result *out,
		uint64_t *wall_ns)
{
	uint64_t t0;
	int err = first_error(c);

	if (err)
		return err;
	for (int i = 0; i < c->n; i++) {
		uint64_t *stats = out[i].stats;

		memset(c->members[i].param, 0, sizeof(c->members[i].param));
		ph->params(i, c->members[i].param, ph->arg);
		out[i] = (struct kb_crew_result){ .stats = stats };
	}
	pthread_mutex_lock(&c->lock);
	c->phase = ph;
	c->out = out;
	c->pending = c->n;
	c->generation++;
	t0 = kb_now_ns();
	pthread_cond_broadcast(&c->go);
	while (c->pending > 0)
		pthread_cond_wait(&c->done, &c->lock);
	*wall_ns = kb_now_ns() - t0;
	pthread_mutex_unlock(&c->lock);
	return first_error(c);
}

void kb_crew_stop(struct kb_crew *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->n; i++)
		if (c->members[i].started)
			pthread_join(c->members[i].thread, NULL);
	for (int i = 0; i < c->n; i++) {
		free(c->members[i].before);
		free(c->members[i].after);
		kb_perf_close(&c->members[i].perf);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->done);
	free(c->members);
	free(c);
}

double kb_crew_loop_exits(const struct kb_crew_result *part, int i_exits, int i_irq)
{
	return (double)part->stats[i_exits] - 1 - (i_irq >= 0 ? (double)part->stats[i_irq] : 0);
}
