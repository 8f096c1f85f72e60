/* crew.h: one pinned thread per vCPU that runs a guest loop on command, every vCPU at once, timed
 * by the guest's TSC and the host's clock; for tests made of phases (populate, execute, dirty, ...). */
#ifndef KB_CREW_H
#define KB_CREW_H

#include <stdint.h>

#include "kb_abi.h"
#include "machine.h"
#include "suite.h"

struct kb_crew;

/* One vCPU's part of a phase. */
struct kb_crew_result {
	uint64_t tsc;         /* guest TSC cycles around the loop */
	uint64_t host_ns;     /* from this vCPU's thread taking the command to the guest's answer */
	uint64_t args[4];     /* what the guest left in its mailbox */
};

/* The guest loop's parameters for vCPU 'vcpu'. */
typedef void (*kb_crew_params_fn)(int vcpu, uint64_t param[6], void *arg);

/* Start a thread per vCPU of m (pinned by ctx->plan) and run each guest up to its first call. */
int kb_crew_start(struct kb_crew **out, struct kb_machine *m, const struct kb_run_ctx *ctx);
/*
 * Run guest loop 'loop' once on every vCPU, all released together; out[] gets each vCPU's part and
 * *wall_ns the host time from the release to the last vCPU's answer.  -errno with the first
 * failing vCPU's message; the crew can take no more phases after a failure.
 */
int kb_crew_run(struct kb_crew *c, enum kb_loop loop, kb_crew_params_fn fn, void *arg,
		struct kb_crew_result *out, uint64_t *wall_ns);
/* End the threads (the guests stay where they are) and free the crew; NULL is fine. */
void kb_crew_stop(struct kb_crew *c);

#endif
