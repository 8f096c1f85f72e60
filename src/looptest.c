/* looptest.c: the generic timed-loop runner: one thread per vCPU, calibrated samples, KVM-stats cross-check. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kb.h"
#include "machine.h"
#include "sampler.h"
#include "suite.h"
#include "topo.h"

/* A barrier that a failing thread can break, so the others do not wait forever. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int count, waiting;
	unsigned long generation;
	bool broken;
};

static void gate_init(struct gate *g, int count)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->count = count;
	g->waiting = 0;
	g->generation = 0;
	g->broken = false;
}

static int gate_wait(struct gate *g)
{
	int ret;

	pthread_mutex_lock(&g->lock);
	if (!g->broken && ++g->waiting == g->count) {
		g->waiting = 0;
		g->generation++;
		pthread_cond_broadcast(&g->cond);
	} else if (!g->broken) {
		unsigned long gen = g->generation;

		while (gen == g->generation && !g->broken)
			pthread_cond_wait(&g->cond, &g->lock);
	}
	ret = g->broken ? -1 : 0;
	pthread_mutex_unlock(&g->lock);
	return ret;
}

static void gate_break(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->broken = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* One vCPU's measurement of one sample. */
struct sample {
	uint64_t iters;
	uint64_t tsc;
	uint64_t host_ns;
	uint64_t irqs;        /* interrupts the guest's handler took */
	uint64_t shadow;      /* of those, taken inside STI's shadow before HLT */
	uint64_t *delta;      /* per-vCPU KVM stats deltas, indexed like a snapshot */
};

/* Shared by a test's vCPU threads: how many samples are done and whether they are enough. */
struct sampling {
	int done;
	bool enough;
	uint64_t start_ns;
	uint64_t iters;       /* per sample and vCPU, decided by vCPU 0's calibration */
	bool calibrated;
};

struct worker {
	pthread_t thread;
	struct worker *all;   /* every vCPU's worker, for vCPU 0's stopping decision */
	struct sampling *sampling;
	struct kb_machine *m;
	struct kb_run_ctx *ctx;
	const struct kb_test_def *t;
	const uint64_t *param;
	struct gate *gate;
	int id;
	struct sample *samples;
	uint64_t iters;
	int err;
	char errmsg[1024];
	uint32_t last_args[4];
};

static int one_sample(struct worker *w, uint64_t iters, struct sample *out)
{
	struct kb_vcpu *v = &w->m->vcpus[w->id];
	struct kb_mailbox *mb = kb_machine_mailbox(w->m, w->id);
	uint64_t *before = out->delta;
	uint64_t *after = kb_xcalloc(v->stats.nvals, sizeof(uint64_t));
	uint64_t t0, t1;
	int r;

	mb->op = KB_OP_LOOP;
	mb->test = w->t->loop;
	mb->iters = iters;
	memcpy(mb->param, w->param, sizeof(mb->param));
	out->irqs = mb->irq_count;
	out->shadow = mb->shadow_violations;
	r = kb_stats_read(&v->stats, before);
	t0 = kb_now_ns();
	while (!r && (r = kb_machine_call(w->m, w->id, w->ctx->opts->timeout_ns)) == KB_UC_PRINT)
		;
	t1 = kb_now_ns();
	if (r == KB_UC_NEXT)
		r = kb_stats_read(&v->stats, after);
	if (!r) {
		for (uint32_t i = 0; i < v->stats.nvals; i++)
			out->delta[i] = after[i] - before[i];
		out->iters = mb->done_iters;
		out->tsc = mb->tsc_end - mb->tsc_begin;
		out->host_ns = t1 - t0;
		out->irqs = mb->irq_count - out->irqs;
		out->shadow = mb->shadow_violations - out->shadow;
		for (int i = 0; i < 4; i++)
			w->last_args[i] = (uint32_t)mb->args[i];
		if (out->iters != iters)
			r = kb_fail(EPROTO, "vCPU %d: guest ran %llu iterations, asked for %llu", w->id,
				    (unsigned long long)out->iters, (unsigned long long)iters);
	}
	free(after);
	return r < 0 ? r : 0;
}

/*
 * Grow the iteration count until a sample lasts long enough to time, then
 * scale it to the target.  All vCPUs take the calibration samples together
 * (the vCPUs of a two-vCPU test depend on each other) and vCPU 0 decides.
 */
static int calibrate(struct worker *w)
{
	const struct kb_run_opts *o = w->ctx->opts;
	struct sampling *sp = w->sampling;
	struct sample s = { .delta = kb_xcalloc(w->m->vcpus[w->id].stats.nvals, sizeof(uint64_t)) };
	int err = 0;

	if (o->iterations) {
		w->iters = o->iterations;
		goto out;
	}
	for (;;) {
		if (gate_wait(w->gate)) {
			err = -ECANCELED;
			goto out;
		}
		if (sp->calibrated)
			break;
		err = one_sample(w, sp->iters, &s);
		if (err)
			goto out;
		if (gate_wait(w->gate)) {
			err = -ECANCELED;
			goto out;
		}
		if (w->id)
			continue;
		sp->calibrated = kb_sampler_calibration_step(o, &sp->iters, (double)s.host_ns / 1e9);
	}
	w->iters = sp->iters;
out:
	free(s.delta);
	return err;
}

/* vCPUs whose iterations count: all, or only vCPU 0 where the others serve it (IPI receivers). */
static int measured_vcpus(const struct worker *w)
{
	return w->t->lead_vcpu_only ? 1 : w->m->nvcpus;
}

/* Aggregate rate of sample k: iterations per second of guest TSC time, summed over vCPUs. */
static double sample_rate(const struct worker *all, int nvcpus, int k)
{
	double rate = 0, khz = all[0].m->vcpus[0].tsc_khz;

	for (int v = 0; v < nvcpus; v++) {
		const struct sample *s = &all[v].samples[k];

		if (s->tsc)
			rate += (double)s->iters / ((double)s->tsc / (khz * 1e3));
	}
	return rate;
}

/* vCPU 0, between samples: the shared stopping rule (sampler.c) on the aggregate rates. */
static bool enough_samples(const struct worker *w, int n)
{
	double *rates = kb_xcalloc(n, sizeof(*rates));
	bool enough;

	for (int k = 0; k < n; k++)
		rates[k] = sample_rate(w->all, measured_vcpus(w), k);
	enough = kb_sampler_enough(w->ctx->opts, rates, n, kb_now_ns() - w->sampling->start_ns);
	free(rates);
	return enough;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct kb_run_opts *o = w->ctx->opts;
	uint32_t nvals = w->m->vcpus[w->id].stats.nvals;
	struct sample scratch = { .delta = kb_xcalloc(nvals, sizeof(uint64_t)) };
	int total = o->warmup + kb_sampler_max_samples(o), r;

	if (w->ctx->plan && kb_plan_pin_vcpu_thread(w->ctx->plan, w->id)) {
		w->err = -EINVAL;
		goto fail;
	}
	r = kb_machine_call(w->m, w->id, o->timeout_ns);
	if (r != KB_UC_NEXT) {
		w->err = r < 0 ? r : -EPROTO;
		goto fail;
	}
	w->err = calibrate(w);
	if (w->err == -ECANCELED) {
		/* Another vCPU failed and broke the gate; its error is the one to report. */
		w->err = 0;
		goto out;
	}
	if (w->err)
		goto fail;
	for (int k = 0; k < total; k++) {
		struct sample *s = k < o->warmup ? &scratch : &w->samples[k - o->warmup];

		if (gate_wait(w->gate))
			goto out;
		if (w->sampling->enough)
			break;
		if (*w->ctx->stop) {
			w->err = -EINTR;
			goto fail;
		}
		if (w->id == 0 && w->ctx->progress)
			w->ctx->progress(w->ctx, k + 1, total);
		if (k == o->warmup && w->id == 0)
			w->sampling->start_ns = kb_now_ns();
		w->err = one_sample(w, w->iters, s);
		if (w->err)
			goto fail;
		/* Everyone has finished sample k before vCPU 0 looks at it. */
		if (gate_wait(w->gate))
			goto out;
		if (w->id == 0 && k >= o->warmup) {
			w->sampling->done = k - o->warmup + 1;
			w->sampling->enough = enough_samples(w, w->sampling->done);
		}
	}
	goto out;
fail:
	snprintf(w->errmsg, sizeof(w->errmsg), "%s", w->err == -EINTR ? "interrupted" : kb_last_error());
	gate_break(w->gate);
out:
	free(scratch.delta);
	return NULL;
}

/* KVM stats deltas of one sample, as a JSON object of the counters that moved. */
static json_object *stats_json(const struct kb_stats *st, const uint64_t *delta)
{
	json_object *o = json_object_new_object();

	for (uint32_t i = 0; i < st->ndesc; i++)
		if (kb_stats_is_cumulative(st, i) && delta[st->desc[i].index])
			json_object_object_add(o, st->desc[i].name,
					       json_object_new_uint64(delta[st->desc[i].index]));
	return o;
}

/* The KVM counters that explain an exit path's cost, kept per iteration as breakdown metrics. */
static const char *const explained[] = { "exits", "irq_injections", "req_event", "halt_exits" };

static void record(struct kb_test_result *r, struct kb_machine *m, struct worker *w,
		   const struct kb_test_def *t, struct kb_exit_range expect, int nsamples)
{
	struct kb_metric *rate = kb_test_metric(r, "rate", "iter/s", true);
	struct kb_metric *cycles = kb_test_metric(r, "cycles", "cycles/iter", false);
	struct kb_metric *ns = kb_test_metric(r, "ns", "ns/iter", false);
	const struct kb_stats *st = &m->vcpus[0].stats;
	int i_exits = kb_stats_find(st, "exits"), i_emul = kb_stats_find(st, "insn_emulation");
	int i_irq = kb_stats_find(st, "irq_exits");
	double iters = 0, irqs = 0, shadow = 0, clock_ratio = 0, tol;
	double *sample_epi = kb_xcalloc(nsamples, sizeof(double)), *sample_mpi = kb_xcalloc(nsamples, sizeof(double));
	struct kb_summary epi, mpi;
	double khz = m->vcpus[0].tsc_khz;
	int nvcpus = m->nvcpus, nmeasured = measured_vcpus(w);

	for (int k = 0; k < nsamples; k++) {
		json_object *jsample = json_object_new_object(), *jv = json_object_new_array();
		double agg_rate = 0, cyc = 0, sample_iters = 0, per_stat[ARRAY_SIZE(explained)] = { 0 };
		double exits = 0, emul = 0;

		for (int v = 0; v < nvcpus; v++) {
			const struct sample *s = &w[v].samples[k];
			json_object *o = json_object_new_object();
			double sec = (double)s->tsc / (khz * 1e3);
			double vrate = sec > 0 ? (double)s->iters / sec : 0;

			if (v < nmeasured) {
				agg_rate += vrate;
				cyc += (double)s->tsc / (double)s->iters;
				sample_iters += (double)s->iters;
				clock_ratio += sec / ((double)s->host_ns / 1e9);
			}
			/* One exit per sample is the call channel's OUT (kvm_pvm also emulates it, SVM and
			 * VMX do not); exits for host interrupts (irq_exits) come with time, not with the loop. */
			if (i_exits >= 0)
				exits += (double)s->delta[i_exits] - 1 - (i_irq >= 0 ? (double)s->delta[i_irq] : 0);
			if (i_emul >= 0)
				emul += s->delta[i_emul] ? (double)s->delta[i_emul] - 1 : 0;
			irqs += (double)s->irqs;
			shadow += (double)s->shadow;
			for (size_t i = 0; i < ARRAY_SIZE(explained); i++) {
				int idx = kb_stats_find(&m->vcpus[v].stats, explained[i]);

				if (idx >= 0)
					per_stat[i] += (double)s->delta[idx];
			}
			json_object_object_add(o, "vcpu", json_object_new_int(v));
			json_object_object_add(o, "iterations", json_object_new_uint64(s->iters));
			json_object_object_add(o, "tsc_cycles", json_object_new_uint64(s->tsc));
			json_object_object_add(o, "host_ns", json_object_new_uint64(s->host_ns));
			json_object_object_add(o, "guest_interrupts", json_object_new_uint64(s->irqs));
			if (s->shadow)
				json_object_object_add(o, "sti_shadow_violations", json_object_new_uint64(s->shadow));
			json_object_object_add(o, "kvm_stats", stats_json(&m->vcpus[v].stats, s->delta));
			json_object_array_add(jv, o);
			if (nmeasured > 1) {
				char name[32];

				snprintf(name, sizeof(name), "rate.vcpu%d", v);
				kb_metric_push(kb_test_metric(r, name, "iter/s", true), vrate);
			}
		}
		iters += sample_iters;
		sample_epi[k] = exits / sample_iters;
		sample_mpi[k] = emul / sample_iters;
		cyc /= nmeasured;
		kb_metric_push(rate, agg_rate);
		kb_metric_push(cycles, cyc);
		kb_metric_push(ns, cyc * 1e6 / khz);
		for (size_t i = 0; i < ARRAY_SIZE(explained); i++) {
			char name[48];

			snprintf(name, sizeof(name), "kvm.%s", explained[i]);
			kb_metric_push(kb_test_metric(r, name, "per iter", false), per_stat[i] / sample_iters);
		}
		json_object_object_add(jsample, "sample", json_object_new_int(k));
		json_object_object_add(jsample, "vcpus", jv);
		json_object_array_add(r->raw, jsample);
	}
	/* The least disturbed sample decides, for exits and emulations alike.  Host activity
	 * (reclaim, migration, a busy neighbour, and on kvm_pvm, which has no irq_exits counter,
	 * every host interrupt) only ever adds to both counts, to many samples on a busy host; a loop
	 * that causes more or fewer than declared does so in every sample.  Every sample's own counts
	 * stay in the raw data. */
	kb_summarize(sample_epi, nsamples, &epi);
	kb_summarize(sample_mpi, nsamples, &mpi);
	free(sample_epi);
	free(sample_mpi);
	if (i_exits < 0 || i_emul < 0) {
		kb_test_set_status(r, KB_STATUS_INVALID, "this kernel's KVM stats lack 'exits' or 'insn_emulation': "
				   "the measurement cannot be cross-checked");
		return;
	}
	/* The tolerance allows 2%, and one exit per sample and vCPU that neither the loop nor a
	 * host interrupt explains (the vCPU rescheduled, say): it matters where samples are short. */
	tol = 0.02 * fmax(1.0, expect.hi) + (double)nsamples * nvcpus / iters;
	kb_test_check(r, "exits_per_iteration", expect.lo == expect.hi ? expect.lo : (expect.lo + expect.hi) / 2,
		      expect.lo - tol, expect.hi + tol, epi.min, true,
		      epi.min < expect.lo / 2 ?
		      "fewer exits than iterations: the hardware or an outer hypervisor answered the instruction, not this KVM" :
		      "the exit count does not match what one iteration causes");
	/* Each exit may go through KVM's emulator (kvm_pvm emulates every trapped instruction);
	 * more than that means guest code itself is being emulated. */
	kb_test_check(r, "emulations_per_iteration", expect.hi, 0, expect.hi + 0.02, mpi.min, true,
		      "guest instructions are going through KVM's instruction emulator: the loop is not running natively");
	if (t->irqs_per_iter > 0) {
		kb_test_check(r, "interrupts_per_iteration", t->irqs_per_iter, t->irqs_per_iter - 0.02,
			      t->irqs_per_iter + 0.02, irqs / iters, true,
			      "the guest did not take one interrupt per iteration: interrupts were lost or coalesced");
		kb_test_check(r, "sti_shadow_violations", 0, 0, 0, shadow, false,
			      "interrupts came inside STI's one-instruction shadow, before HLT: the hypervisor "
			      "(or an emulator under it) does not honour the shadow; the guest resumed after the HLT");
	}
	clock_ratio /= (double)nsamples * nmeasured;
	/* Guest TSC time over host wall time: the host's also holds one round trip, so slightly below 1. */
	kb_test_check(r, "tsc_vs_host_clock", 1.0, 0.95, 1.05, clock_ratio, false,
		      "the guest TSC and the host clock disagree: TSC frequency or scaling is off, or the host is overloaded");
}

int kb_run_loop_test(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
		     struct kb_test_result *r)
{
	const struct kb_run_opts *o = ctx->opts;
	struct kb_machine_cfg mcfg = {
		.nvcpus = t->vcpus ? t->vcpus : o->vcpus,
		.irqchip = (t->needs & KB_NEED_IRQCHIP) != 0,
		.pvm_emulated = o->pvm_emulated,
		.user_msr = (t->needs & KB_NEED_USER_MSR) != 0,
		.plan = ctx->plan,
	};
	struct kb_machine m;
	struct worker *w;
	struct gate gate;
	struct sampling sampling = { .iters = 8 };
	int nmax = kb_sampler_max_samples(o);
	uint64_t param[6] = { 0 };
	uint64_t t_setup, t_teardown;
	int err = 0;

	memcpy(param, t->param, sizeof(param));
	if (s->params)
		s->params(ctx, t, param, r->params);
	t_setup = kb_now_ns();
	err = kb_machine_create(ctx->kvm, &mcfg, &m);
	if (err)
		return err;
	t_setup = kb_now_ns() - t_setup;
	/* The APIC loops' patience (include/kb_abi.h): an IPI not there by then is taken as lost,
	 * well before the watchdog takes the guest for hung. */
	if (t->loop == KB_LOOP_APIC)
		param[3] = kb_machine_patience_cycles(&m, o->timeout_ns);
	w = kb_xcalloc(m.nvcpus, sizeof(*w));
	gate_init(&gate, m.nvcpus);
	for (int i = 0; i < m.nvcpus; i++) {
		w[i] = (struct worker){ .m = &m, .ctx = ctx, .t = t, .param = param, .gate = &gate, .id = i,
					.all = w, .sampling = &sampling };
		w[i].samples = kb_xcalloc(nmax, sizeof(struct sample));
		for (int k = 0; k < nmax; k++)
			w[i].samples[k].delta = kb_xcalloc(m.vcpus[i].stats.nvals, sizeof(uint64_t));
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			err = kb_fail(EAGAIN, "cannot start the thread of vCPU %d", i);
			gate_break(&gate);
			for (int j = 0; j < i; j++)
				pthread_join(w[j].thread, NULL);
			goto out;
		}
	}
	for (int i = 0; i < m.nvcpus; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < m.nvcpus; i++)
		if (w[i].err && (t->needs & KB_NEED_USER_MSR) && m.fault_vector == 13) {
			/* KVM_CAP_X86_USER_SPACE_MSR was accepted, yet KVM injected #GP itself. */
			err = kb_fail(ENOTSUP, "this KVM injects #GP instead of forwarding the MSR access to userspace, "
				      "although it accepted KVM_CAP_X86_USER_SPACE_MSR with reasons INVAL and UNKNOWN");
			break;
		} else if (w[i].err) {
			/* Report the first real failure, not a vCPU that merely saw the gate break. */
			err = kb_fail(w[i].err, "%s", w[i].errmsg);
			if (w[i].err != -EINTR)
				break;
		}
	if (!err) {
		r->vcpus = m.nvcpus;
		r->iterations = w[0].iters;
		r->tsc_khz = m.vcpus[0].tsc_khz;
		json_object_object_add(r->extra, "backend", json_object_new_string(kb_backend_name(ctx->kvm->backend)));
		json_object_object_add(r->extra, "pvm_native", json_object_new_boolean(m.pvm_native));
		if (kb_machine_mailbox(&m, m.nvcpus - 1)->late_irq_nudges)
			json_object_object_add(r->extra, "late_irq_nudges",
					       json_object_new_uint64(kb_machine_mailbox(&m, m.nvcpus - 1)->late_irq_nudges));
		if (kb_machine_mailbox(&m, 0)->ipi_resends)
			json_object_object_add(r->extra, "ipi_resends",
					       json_object_new_uint64(kb_machine_mailbox(&m, 0)->ipi_resends));
		/* What the loop's last instruction returned (CPUID's registers, say): shows who answered. */
		json_object *last = json_object_new_array();

		for (int i = 0; i < 4; i++)
			json_object_array_add(last, json_object_new_int64(w[0].last_args[i]));
		json_object_object_add(r->extra, "guest_last_result", last);
		record(r, &m, w, t, kb_test_expected_exits(t, ctx->kvm->backend), sampling.done);
		kb_sampler_record(o, sampling.done, r);
	}
out:
	for (int i = 0; i < m.nvcpus; i++) {
		for (int k = 0; k < nmax; k++)
			free(w[i].samples[k].delta);
		free(w[i].samples);
	}
	free(w);
	t_teardown = kb_now_ns();
	kb_machine_destroy(&m);
	t_teardown = kb_now_ns() - t_teardown;
	/* The cost of building a VM is paid once per test, never per sample. */
	json_object_object_add(r->extra, "vm_setup_ns", json_object_new_uint64(t_setup));
	json_object_object_add(r->extra, "vm_teardown_ns", json_object_new_uint64(t_teardown));
	return err;
}
