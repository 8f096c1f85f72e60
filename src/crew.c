/* crew.c: vCPU threads that run guest loops on command, all at once: the phases of memory tests. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "crew.h"
#include "kb.h"
#include "topo.h"

struct member {
	pthread_t thread;
	struct kb_crew *crew;
	int id;
	bool started;
	uint64_t param[6];
	struct kb_crew_result res;
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
	enum kb_loop loop;
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
	snprintf(w->errmsg, sizeof(w->errmsg), "%s", kb_last_error());
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
	else if ((err = call_guest(w)))
		fail(w, err);
	finish(w);
	for (;;) {
		uint64_t t0, t1;

		pthread_mutex_lock(&c->lock);
		while (c->generation == seen && !c->quit)
			pthread_cond_wait(&c->go, &c->lock);
		seen = c->generation;
		if (c->quit) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		pthread_mutex_unlock(&c->lock);
		if (!w->err) {
			mb->op = KB_OP_LOOP;
			mb->test = c->loop;
			mb->iters = 1;
			memcpy(mb->param, w->param, sizeof(mb->param));
			t0 = kb_now_ns();
			err = call_guest(w);
			t1 = kb_now_ns();
			if (err) {
				fail(w, err);
			} else {
				w->res.tsc = mb->tsc_end - mb->tsc_begin;
				w->res.host_ns = t1 - t0;
				for (int i = 0; i < 4; i++)
					w->res.args[i] = mb->args[i];
			}
		}
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

int kb_crew_run(struct kb_crew *c, enum kb_loop loop, kb_crew_params_fn fn, void *arg,
		struct kb_crew_result *out, uint64_t *wall_ns)
{
	uint64_t t0;
	int err = first_error(c);

	if (err)
		return err;
	for (int i = 0; i < c->n; i++) {
		memset(c->members[i].param, 0, sizeof(c->members[i].param));
		fn(i, c->members[i].param, arg);
		memset(&c->members[i].res, 0, sizeof(c->members[i].res));
	}
	pthread_mutex_lock(&c->lock);
	c->loop = loop;
	c->pending = c->n;
	c->generation++;
	t0 = kb_now_ns();
	pthread_cond_broadcast(&c->go);
	while (c->pending > 0)
		pthread_cond_wait(&c->done, &c->lock);
	*wall_ns = kb_now_ns() - t0;
	pthread_mutex_unlock(&c->lock);
	err = first_error(c);
	if (err)
		return err;
	for (int i = 0; i < c->n; i++)
		out[i] = c->members[i].res;
	return 0;
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
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->done);
	free(c->members);
	free(c);
}
