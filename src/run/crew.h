/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crew.h: the vCPU runtime: one pinned thread per vCPU that runs a guest loop on command, every
 * vCPU released together, each timing its own part (guest TSC, host clock, KVM stats, interrupts). */
#ifndef KB_CREW_H
#define KB_CREW_H

#include <stdint.h>

#include "kb_abi.h"
#include "vmm/machine.h"
#include "run/perfcount.h"
#include "run/run.h"

struct kb_crew;

/* One vCPU's part of a phase. */
struct kb_crew_result {
	uint64_t iters;       /* iterations the guest ran */
	uint64_t tsc;         /* guest TSC cycles of the timed part: around the loop, or its EOIs where the
	                       * loop says so (mailbox part_timed, self-ipi/eoi) */
	uint64_t tsc_ipi;     /* kvm-unit-tests' sub-timings over the loop, guest TSC cycles: the self-IPI */
	uint64_t tsc_eoi;     /* sends (or ipi's on_cpu), the EOIs of the test vector's handler */
	uint64_t span;        /* guest TSC cycles around the whole loop */
	uint64_t host_ns;     /* host time around this vCPU's guest call */
	uint64_t args[6];     /* what the guest left in its mailbox */
	uint64_t irqs;        /* interrupts the guest's handler took during the loop */
	uint64_t shadow;      /* of those, taken inside STI's shadow before HLT */
	uint64_t recovered;   /* interrupts found lost and recovered by the guest (a resent IPI, a nudge) */
	uint64_t user_exits;  /* exits that came back to userspace (KVM_RUN returned), the call's own included */
	uint64_t perf[KB_PERF_MAX];   /* run --perf: each event's count on this vCPU's thread around its part */
	uint64_t *stats;      /* in: NULL, or room for this vCPU's stats.nvals values: gets the
	                       * KVM stats deltas around its part */
};

/* The guest loop's parameters for vCPU 'vcpu'. */
typedef void (*kb_crew_params_fn)(int vcpu, uint64_t param[6], void *arg);

/* What every vCPU runs in one phase. */
struct kb_crew_phase {
	enum kb_loop loop;
	uint64_t iters;             /* per vCPU; the guest must report exactly these */
	kb_crew_params_fn params;   /* fills each vCPU's parameters (they start at 0) */
	void *arg;
};

/* Start a thread per vCPU of m (pinned by ctx->plan) and run each guest up to its first call;
 * every KVM_RUN is bounded by ctx->opts->timeout_ns. */
int kb_crew_start(struct kb_crew **out, struct kb_machine *m, const struct kb_run_ctx *ctx);
/*
 * Run phase 'ph' once on every vCPU, all released together; out[] (one per vCPU) gets each vCPU's
 * part and *wall_ns the host time from the release to the last vCPU's answer.  -errno with the
 * first failing vCPU's message; the crew can take no more phases after a failure.
 */
int kb_crew_run(struct kb_crew *c, const struct kb_crew_phase *ph, struct kb_crew_result *out,
		uint64_t *wall_ns);
/* End the threads (the guests stay where they are) and free the crew; NULL is fine. */
void kb_crew_stop(struct kb_crew *c);
/* The KVM exits of one vCPU's part (its stats deltas) that its loop caused: 'exits' (index i_exits)
 * less the call channel's one exit back at the part's end, and less the exits for host interrupts
 * (irq_exits, index i_irq; -1 where KVM does not count them), which come with time, not with the loop. */
double kb_crew_loop_exits(const struct kb_crew_result *part, int i_exits, int i_irq);

#endif
