/* SPDX-License-Identifier: GPL-2.0-or-later */
/* looptest.c: the generic timed-loop runner: the sampler drives the crew, then the KVM-stats cross-check. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "vmm/machine.h"
#include "run/crew.h"
#include "run/sampler.h"
#include "run/suite.h"
#include "run/vmcfg.h"

/* One test's measurement: the crew that runs its loop and every vCPU's part of every sample. */
struct loop_run {
	const struct kb_test_def *t;
	struct kb_machine *m;
	struct kb_crew *crew;
	uint64_t param[6];
	struct kb_crew_result **samples;   /* [slot][vCPU] */
	struct kb_crew_result *scratch;    /* calibration and warm-up samples */
	uint32_t last_args[4];             /* vCPU 0's mailbox after the last sample */
	const struct kb_perf_set *perf;    /* run --perf, or NULL */
	uint64_t *completed;               /* [slot]: writes KVM completed through the ioeventfd */
	uint64_t retaken;                  /* measured samples taken again: an interrupt was recovered */
	uint64_t retaken_recovered;        /* the recoveries of those attempts, */
	uint64_t retaken_iters;            /* and their iterations, which interrupts_recovered_pct counts too */
};

/* vCPUs whose iterations count: all, or only vCPU 0 where the others serve it (IPI receivers). */
static int measured_vcpus(const struct kb_test_def *t, const struct kb_machine *m)
{
	return t->lead_vcpu_only ? 1 : m->nvcpus;
}

/* Aggregate rate of one sample: iterations per second of guest TSC time, summed over vCPUs. */
static double sample_rate(const struct loop_run *lr, const struct kb_crew_result *res)
{
	double rate = 0, khz = lr->m->vcpus[0].tsc_khz;

	for (int v = 0; v < measured_vcpus(lr->t, lr->m); v++)
		if (res[v].tsc)
			rate += (double)res[v].iters / ((double)res[v].tsc / (khz * 1e3));
	return rate;
}

static void same_params(int vcpu, uint64_t param[6], void *arg)
{
	const struct loop_run *lr = arg;

	memcpy(param, lr->param, sizeof(lr->param));
}

/* A measured sample in which an interrupt was lost and brought in by hand (an IPI sent again, a
 * receiver made to exit) timed the recovery, not delivery: it is taken again, at most this many
 * times, and what still needed a recovery after that is kept, flagged.  The attempts put aside are
 * not forgotten: interrupts_recovered_pct counts their recoveries and iterations with the kept
 * samples', so interrupts that are lost at a steady rate still make the test invalid however the
 * retakes fall. */
#define KB_RECOVERY_RETAKES 2

static bool recovered(const struct loop_run *lr, const struct kb_crew_result *res)
{
	for (int v = 0; v < lr->m->nvcpus; v++)
		if (res[v].recovered)
			return true;
	return false;
}

/* One sample (kb_sample_fn): the loop on every vCPU at once; vCPU 0's host time calibrates. */
static int take_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	struct loop_run *lr = arg;
	struct kb_crew_result *res = slot < 0 ? lr->scratch : lr->samples[slot];
	struct kb_crew_phase ph = { lr->t->loop, iters, same_params, lr };
	uint64_t wall_ns;
	int err;

	for (int attempt = 0;; attempt++) {
		kb_ioeventfd_drain(&lr->m->ioeventfd);   /* what calibration, warm-up or the attempt before wrote */
		err = kb_crew_run(lr->crew, &ph, res, &wall_ns);
		if (err)
			return err;
		if (slot < 0 || attempt == KB_RECOVERY_RETAKES || !recovered(lr, res))
			break;
		lr->retaken++;
		for (int v = 0; v < lr->m->nvcpus; v++) {
			lr->retaken_recovered += res[v].recovered;
			if (v < measured_vcpus(lr->t, lr->m))
				lr->retaken_iters += res[v].iters;
		}
	}
	if (slot >= 0)
		lr->completed[slot] = kb_ioeventfd_drain(&lr->m->ioeventfd);
	for (int i = 0; i < 4; i++)
		lr->last_args[i] = (uint32_t)res[0].args[i];
	out->iters = iters;
	out->seconds = (double)res[0].host_ns / 1e9;
	out->rate = sample_rate(lr, res);
	return 0;
}

/* Room for a sample: every vCPU's part with its KVM stats deltas. */
static struct kb_crew_result *alloc_parts(const struct kb_machine *m)
{
	struct kb_crew_result *res = kb_xcalloc(m->nvcpus, sizeof(*res));

	for (int v = 0; v < m->nvcpus; v++)
		res[v].stats = kb_xcalloc(m->vcpus[v].stats.nvals + 1, sizeof(uint64_t));
	return res;
}

static void free_parts(struct kb_crew_result *res, int nvcpus)
{
	if (!res)
		return;
	for (int v = 0; v < nvcpus; v++)
		free(res[v].stats);
	free(res);
}

/* KVM stats deltas of one sample, as a JSON object of the counters that moved. */
static json_object *stats_json(const struct kb_stats *st, const uint64_t *delta)
{
	json_object *o = json_object_new_object();

	for (uint32_t i = 0; i < st->ndesc; i++)
		if (kb_stats_is_cumulative(st, i) && delta[st->desc[i].index])
			kb_json_set(o, st->desc[i].name,
					       json_object_new_uint64(delta[st->desc[i].index]));
	return o;
}

/*
 * The exit cross-check allows one unexplained exit per sample and vCPU (a reschedule).  Spread over
 * too few iterations that allowance swamps the count, and a loop without its instruction passes on
 * the channel's own exits; so it may be at most this share of the declared exits per iteration (at
 * least one).  With fewer iterations per sample the test is invalid: "cannot judge".
 */
#define KB_MAX_SLACK_SHARE 0.05

/* The fewest iterations per sample whose exit count that allowance can judge. */
static uint64_t min_judged_iters(int nvcpus, struct kb_exit_range expect)
{
	return (uint64_t)ceil(nvcpus / (KB_MAX_SLACK_SHARE * fmax(1.0, expect.hi)));
}
/* Load adds exits to many samples, so the median may sit above the least disturbed sample, but
 * not by more than this share of the declared count (at least one exit): a loop that exits more
 * than declared in most samples is not measured as declared. */
#define KB_MEDIAN_EXCESS 0.25
/* Interrupts found lost and recovered (an IPI sent again, a receiver nudged to exit), per hundred
 * iterations of every attempt, retaken ones included, at most; each kept sample that needed one is
 * flagged in the raw data.  A busy host loses one now and then (one in several hundred seen); a
 * defect that drops one interrupt in 20 is far over. */
#define KB_MAX_RECOVERED_PCT 1.0

/* One vCPU's --perf counts of a sample, by event name (the events this host counts). */
static json_object *perf_json(const struct kb_perf_set *set, const uint64_t *vals)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < set->n; i++)
		if (!set->ev[i].open_errno)
			kb_json_set_u64(o, set->ev[i].name, vals[i]);
	return o;
}

/* Which --perf events were counted, and why the others were not. */
static void perf_extra(struct kb_test_result *r, const struct kb_perf_set *set)
{
	json_object *o = json_object_new_object(), *counted = json_object_new_array(), *skipped = json_object_new_object();
	char why[256];

	for (int i = 0; i < set->n; i++)
		if (kb_perf_why(set, i, why, sizeof(why)))
			kb_json_set_str(skipped, set->ev[i].name, why);
		else
			json_object_array_add(counted, json_object_new_string(set->ev[i].name));
	kb_json_set(o, "counted", counted);
	kb_json_set(o, "skipped", skipped);
	kb_json_set_str(o, "side", "the vCPU threads: hardware events outside guest mode (exclude_guest), software events all of the thread");
	kb_json_set(r->extra, "perf", o);
}

/* The KVM counters that explain an exit path's cost, kept per iteration as breakdown metrics. */
static const char *const explained[] = { "exits", "irq_injections", "req_event", "halt_exits" };

static void record(struct kb_test_result *r, const struct loop_run *lr, struct kb_exit_range expect,
		   int nsamples)
{
	const struct kb_test_def *t = lr->t;
	const struct kb_machine *m = lr->m;
	struct kb_metric *rate = kb_test_metric(r, "rate", "iter/s", true);
	struct kb_metric *cycles = kb_test_metric(r, "cycles", "cycles/iter", false);
	struct kb_metric *ns = kb_test_metric(r, "ns", "ns/iter", false);
	const struct kb_stats *st = &m->vcpus[0].stats;
	int i_exits = kb_stats_find(st, "exits"), i_emul = kb_stats_find(st, "insn_emulation");
	int i_irq = kb_stats_find(st, "irq_exits");
	double iters = 0, irqs = 0, shadow = 0, clock_ratio = 0, tol, median_hi, min_iters, irq_allow = 0;
	double recovered_all = 0;
	double *sample_epi = kb_xcalloc(nsamples, sizeof(double)), *sample_mpi = kb_xcalloc(nsamples, sizeof(double));
	double *sample_spi[ARRAY_SIZE(t->stats)];
	int i_stat[ARRAY_SIZE(t->stats)];
	struct kb_summary epi, mpi;
	double khz = m->vcpus[0].tsc_khz;
	int nvcpus = m->nvcpus, nmeasured = measured_vcpus(t, m);
	bool has_ipi = false, has_eoi = false;

	for (size_t j = 0; j < ARRAY_SIZE(t->stats); j++) {
		sample_spi[j] = kb_xcalloc(nsamples, sizeof(double));
		i_stat[j] = t->stats[j].name ? kb_stats_find(st, t->stats[j].name) : -1;
	}
	/* kvm-unit-tests' sub-timings, where the loop has them (upstream prints each when non-zero). */
	for (int k = 0; k < nsamples; k++)
		for (int v = 0; v < nmeasured; v++) {
			has_ipi |= lr->samples[k][v].tsc_ipi != 0;
			has_eoi |= lr->samples[k][v].tsc_eoi != 0;
		}

	for (int k = 0; k < nsamples; k++) {
		json_object *jsample = json_object_new_object(), *jv = json_object_new_array();
		double agg_rate = 0, cyc = 0, sample_iters = 0, per_stat[ARRAY_SIZE(explained)] = { 0 };
		double exits = 0, emul = 0, ipi_cyc = 0, eoi_cyc = 0, perf[KB_PERF_MAX] = { 0 };
		double stat_sum[ARRAY_SIZE(t->stats)] = { 0 }, host_ms = 0;
		uint64_t recovered = 0;

		for (int v = 0; v < nvcpus; v++) {
			const struct kb_crew_result *s = &lr->samples[k][v];
			json_object *o = json_object_new_object();
			double sec = (double)s->tsc / (khz * 1e3);
			double vrate = sec > 0 ? (double)s->iters / sec : 0;

			if (v < nmeasured) {
				agg_rate += vrate;
				cyc += (double)s->tsc / (double)s->iters;
				ipi_cyc += (double)s->tsc_ipi / (double)s->iters;
				eoi_cyc += (double)s->tsc_eoi / (double)s->iters;
				sample_iters += (double)s->iters;
				/* the whole loop against the host's clock, also where only part is timed */
				clock_ratio += (double)s->span / (khz * 1e3) / ((double)s->host_ns / 1e9);
			}
			/* The call channel's OUT is one of the exits (kvm_pvm also emulates it, SVM and VMX do not). */
			if (i_exits >= 0)
				exits += kb_crew_loop_exits(s, i_exits, i_irq);
			if (i_emul >= 0)
				emul += s->stats[i_emul] ? (double)s->stats[i_emul] - 1 : 0;
			host_ms += (double)s->host_ns / 1e6;
			/* A declared stat the channel's own call adds to (kb_machine_ucall_stat) loses that one. */
			for (size_t j = 0; j < ARRAY_SIZE(t->stats); j++)
				if (i_stat[j] >= 0)
					stat_sum[j] += (double)s->stats[i_stat[j]] -
						       (kb_machine_ucall_stat && !strcmp(t->stats[j].name, kb_machine_ucall_stat));
			irqs += (double)s->irqs;
			shadow += (double)s->shadow;
			recovered += s->recovered;
			for (size_t i = 0; i < ARRAY_SIZE(explained); i++) {
				int idx = kb_stats_find(&m->vcpus[v].stats, explained[i]);

				if (idx >= 0)
					per_stat[i] += (double)s->stats[idx];
			}
			kb_json_set_int(o, "vcpu", v);
			kb_json_set_u64(o, "iterations", s->iters);
			kb_json_set_u64(o, "tsc_cycles", s->tsc);
			if (s->span != s->tsc)
				kb_json_set_u64(o, "loop_tsc_cycles", s->span);
			if (has_ipi)
				kb_json_set_u64(o, "ipi_tsc_cycles", s->tsc_ipi);
			if (has_eoi)
				kb_json_set_u64(o, "eoi_tsc_cycles", s->tsc_eoi);
			kb_json_set_u64(o, "host_ns", s->host_ns);
			kb_json_set_u64(o, "guest_interrupts", s->irqs);
			if (s->shadow)
				kb_json_set_u64(o, "sti_shadow_violations", s->shadow);
			if (s->recovered)
				kb_json_set_u64(o, "interrupts_recovered", s->recovered);
			kb_json_set_u64(o, "userspace_exits", s->user_exits);
			kb_json_set(o, "kvm_stats", stats_json(&m->vcpus[v].stats, s->stats));
			if (lr->perf && lr->perf->n)
				kb_json_set(o, "perf", perf_json(lr->perf, s->perf));
			for (int i = 0; v < nmeasured && lr->perf && i < lr->perf->n; i++)
				perf[i] += (double)s->perf[i];
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
		irq_allow += host_ms / sample_iters / nsamples;
		for (size_t j = 0; j < ARRAY_SIZE(t->stats); j++)
			sample_spi[j][k] = stat_sum[j] / sample_iters;
		cyc /= nmeasured;
		kb_metric_push(rate, agg_rate);
		kb_metric_push(cycles, cyc);
		kb_metric_push(ns, cyc * 1e6 / khz);
		if (has_ipi)
			kb_metric_push(kb_test_metric(r, "cycles.ipi", "cycles/iter", false), ipi_cyc / nmeasured);
		if (has_eoi)
			kb_metric_push(kb_test_metric(r, "cycles.eoi", "cycles/iter", false), eoi_cyc / nmeasured);
		for (size_t i = 0; i < ARRAY_SIZE(explained); i++) {
			char name[48];

			snprintf(name, sizeof(name), "kvm.%s", explained[i]);
			kb_metric_push(kb_test_metric(r, name, "per iter", false), per_stat[i] / sample_iters);
		}
		for (int i = 0; lr->perf && i < lr->perf->n; i++) {
			char name[48];

			if (lr->perf->ev[i].open_errno)
				continue;
			snprintf(name, sizeof(name), "perf.%s", lr->perf->ev[i].name);
			kb_metric_push(kb_test_metric(r, name, "per iter", false), perf[i] / sample_iters);
		}
		if (recovered) {
			/* A lost interrupt was brought in by hand: this sample did not measure delivery. */
			recovered_all += (double)recovered;
			kb_json_set_str(jsample, "disturbed", "interrupt recovered");
		}
		kb_json_set_int(jsample, "sample", k);
		if (t->ioeventfd.len)
			kb_json_set_u64(jsample, "ioeventfd_writes", lr->completed[k]);
		kb_json_set(jsample, "vcpus", jv);
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
	/* x86's KVM emulates instructions and counts them; arm64's has no emulator to count. */
	bool emulates = kb_arch_self() == KB_ARCH_X86;

	if (i_exits < 0 || (emulates && i_emul < 0)) {
		for (size_t j = 0; j < ARRAY_SIZE(t->stats); j++)
			free(sample_spi[j]);
		kb_test_set_status(r, KB_STATUS_INVALID, emulates ?
				   "this kernel's KVM stats lack 'exits' or 'insn_emulation': "
				   "the measurement cannot be cross-checked" :
				   "this kernel's KVM stats lack 'exits': the measurement cannot be cross-checked");
		return;
	}
	/* The tolerance allows 2%, and one exit per sample and vCPU that neither the loop nor a
	 * host interrupt explains (the vCPU rescheduled, say): it matters where samples are short. */
	min_iters = (double)min_judged_iters(nvcpus, expect);
	kb_test_check(r, "iterations_per_sample", min_iters, min_iters, INFINITY,
		      iters / ((double)nsamples * nmeasured), true,
		      "too few iterations per sample to judge the exit count (cannot judge): raise --iterations or "
		      "--sample-time, or see why calibration stopped this low");
	tol = 0.02 * fmax(1.0, expect.hi) + (double)nsamples * nvcpus / iters;
	/* arm64's KVM counts no irq_exits: a host interrupt's exit is in 'exits' and cannot be taken off.
	 * The upper bounds allow one such exit per millisecond of the samples' host time (HZ is at most
	 * 1000); the exact count of the test's own exit is its declared stat's check below. */
	if (emulates || i_irq >= 0)
		irq_allow = 0;
	kb_test_check(r, "exits_per_iteration", expect.lo == expect.hi ? expect.lo : (expect.lo + expect.hi) / 2,
		      expect.lo - tol, expect.hi + tol + irq_allow, epi.min, true,
		      epi.min < expect.lo / 2 ?
		      "fewer exits than iterations: the hardware or an outer hypervisor answered the instruction, not this KVM" :
		      "the exit count does not match what one iteration causes");
	median_hi = expect.hi + tol + KB_MEDIAN_EXCESS * fmax(1.0, expect.hi) + irq_allow;
	kb_test_check(r, "exits_per_iteration_median", expect.hi, expect.lo - tol, median_hi, epi.median, true,
		      "most samples exit more (or less) than one iteration causes: the least disturbed one is not typical");
	/* Each exit may go through KVM's emulator (kvm_pvm emulates every trapped instruction);
	 * more than that means guest code itself is being emulated. */
	if (emulates) {
		kb_test_check(r, "emulations_per_iteration", expect.hi, 0, expect.hi + 0.02, mpi.min, true,
			      "guest instructions are going through KVM's instruction emulator: the loop is not running natively");
		kb_test_check(r, "emulations_per_iteration_median", expect.hi, 0, median_hi, mpi.median, true,
			      "most samples go through KVM's instruction emulator more than one iteration's exits explain");
	}
	/* The stats the declared exits must show up in (hvc_exit_stat for an HVC, say): as the exits,
	 * the least disturbed sample, 2% and one count per sample and vCPU of tolerance. */
	for (size_t j = 0; j < ARRAY_SIZE(t->stats); j++) {
		struct kb_summary spi;
		double want = t->stats[j].per_iter, stol = 0.02 * fmax(1.0, want) + (double)nsamples * nvcpus / iters;
		char name[64];

		if (!t->stats[j].name) {
			free(sample_spi[j]);
			continue;
		}
		snprintf(name, sizeof(name), "kvm_stat_per_iteration.%s", t->stats[j].name);
		if (i_stat[j] < 0) {
			kb_test_set_status(r, KB_STATUS_INVALID, "this kernel's KVM stats lack the one the test's exits are "
					   "cross-checked against");
			free(sample_spi[j]);
			continue;
		}
		kb_summarize(sample_spi[j], nsamples, &spi);
		free(sample_spi[j]);
		kb_test_check(r, name, want, want - stol, want + stol, spi.min, true,
			      "the KVM stat that counts this test's exits did not move once per iteration as declared: "
			      "the loop does not cause the exit it is named after");
	}
	if (t->irqs_per_iter > 0) {
		kb_test_check(r, "interrupts_per_iteration", t->irqs_per_iter, t->irqs_per_iter - 0.02,
			      t->irqs_per_iter + 0.02, irqs / iters, true,
			      "the guest did not take one interrupt per iteration: interrupts were lost or coalesced");
		kb_test_check(r, "interrupts_recovered_pct", 0, 0, KB_MAX_RECOVERED_PCT,
			      100.0 * ((double)lr->retaken_recovered + recovered_all) / (iters + (double)lr->retaken_iters),
			      true, "interrupts were lost and had to be recovered (an IPI sent again, a receiver made to "
			      "exit) too often, retaken samples included: delivery was not measured");
		kb_test_check(r, "sti_shadow_violations", 0, 0, 0, shadow, false,
			      "interrupts came inside STI's one-instruction shadow, before HLT: the hypervisor "
			      "(or an emulator under it) does not honour the shadow; the guest resumed after the HLT");
	}
	if (t->ioeventfd.len) {
		/* Every write the loop made, and only those, signalled the eventfd: none reached userspace
		 * (which would have failed the run) and none was lost. */
		double done = 0, all_iters = 0;

		for (int k = 0; k < nsamples; k++) {
			done += (double)lr->completed[k];
			for (int v = 0; v < nvcpus; v++)
				all_iters += (double)lr->samples[k][v].iters;
		}
		kb_test_check(r, "ioeventfd_writes_per_iteration", 1.0, 0.999, 1.001, done / all_iters, true,
			      "the guest's writes did not each signal the ioeventfd once: KVM did not complete them "
			      "in the kernel as registered");
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
	struct kb_machine_cfg mcfg;
	struct kb_machine m;
	struct loop_run lr = { .t = t, .m = &m, .perf = ctx->opts->perf };
	struct kb_sampling sampling = { 0 };
	int nmax = kb_sampler_max_samples(o);
	uint64_t t_setup, t_teardown;
	int err = 0;

	/* A loop only the other architecture's guest image has is refused here, before any VM. */
	if (!(kb_loop_arches(t->loop) & kb_arch_self()))
		return kb_fail(ENOTSUP, "its guest loop (#%d) is not in the %s guest image", (int)t->loop,
			       kb_arch_name(kb_arch_self()));
	kb_test_machine_cfg(ctx, t, ctx->vcpus, &mcfg);
	memcpy(lr.param, t->param, sizeof(lr.param));
	if (s->params)
		s->params(ctx, t, lr.param, r->params);
	err = kb_run_machine_cfg(ctx, &mcfg);
	if (err)
		return err;
	t_setup = kb_now_ns();
	err = kb_machine_create(ctx->kvm, &mcfg, &m);
	if (err)
		return err;
	t_setup = kb_now_ns() - t_setup;
	if (s->prepare)
		s->prepare(ctx, t, &m, lr.param);
	lr.samples = kb_xcalloc(nmax, sizeof(*lr.samples));
	for (int k = 0; k < nmax; k++)
		lr.samples[k] = alloc_parts(&m);
	lr.scratch = alloc_parts(&m);
	lr.completed = kb_xcalloc(nmax, sizeof(*lr.completed));
	sampling.min_iters = min_judged_iters(m.nvcpus, kb_test_expected_exits(t, ctx->kvm));
	err = kb_crew_start(&lr.crew, &m, ctx);
	if (!err)
		err = kb_sampler_run(ctx, take_sample, &lr, &sampling);
	kb_crew_stop(lr.crew);
	if (err && s->failed)
		err = s->failed(ctx, t, &m, err);
	if (!err) {
		r->vcpus = m.nvcpus;
		r->iterations = sampling.iters;
		r->tsc_khz = m.vcpus[0].tsc_khz;
		kb_json_set_str(r->extra, "backend", kb_backend_name(ctx->kvm->backend));
		kb_json_set_bool(r->extra, "pvm_native", m.pvm_native);
		kb_json_set_tri(r->extra, "apic_virtualization", ctx->kvm->apic_virt);
		if (kb_machine_mailbox(&m, m.nvcpus - 1)->late_irq_nudges)
			kb_json_set(r->extra, "late_irq_nudges",
					       json_object_new_uint64(kb_machine_mailbox(&m, m.nvcpus - 1)->late_irq_nudges));
		if (lr.retaken)
			kb_json_set_u64(r->extra, "samples_retaken", lr.retaken);
		if (kb_machine_mailbox(&m, 0)->ipi_resends)
			kb_json_set(r->extra, "ipi_resends",
					       json_object_new_uint64(kb_machine_mailbox(&m, 0)->ipi_resends));
		/* What the loop's last instruction returned (CPUID's registers, say): shows who answered. */
		json_object *last = json_object_new_array();

		for (int i = 0; i < 4; i++)
			json_object_array_add(last, json_object_new_int64(lr.last_args[i]));
		kb_json_set(r->extra, "guest_last_result", last);
		record(r, &lr, kb_test_expected_exits(t, ctx->kvm), sampling.done);
		if (lr.perf && lr.perf->n)
			perf_extra(r, lr.perf);
		kb_sampler_record(o, sampling.done, r);
	}
	for (int k = 0; k < nmax; k++)
		free_parts(lr.samples[k], m.nvcpus);
	free(lr.samples);
	free_parts(lr.scratch, m.nvcpus);
	free(lr.completed);
	t_teardown = kb_now_ns();
	kb_machine_destroy(&m);
	t_teardown = kb_now_ns() - t_teardown;
	/* The cost of building a VM is paid once per test, never per sample. */
	kb_json_set_u64(r->extra, "vm_setup_ns", t_setup);
	kb_json_set_u64(r->extra, "vm_teardown_ns", t_teardown);
	return err;
}
