/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ab-gate.h: sample-level interleaving of kvmbench ab: two 'kvmbench run's, one per configuration, each
 * with its VM kept alive, take their samples in turn (A B B A ...) as the ab process grants them. */
#ifndef KB_AB_GATE_H
#define KB_AB_GATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "run/run.h"

/* The environment variable that makes a 'kvmbench run' a gated side of kvmbench ab: "RFD,WFD". */
#define KB_AB_GATE_ENV "KVMBENCH_AB_GATE"

/* In 'kvmbench run': with KB_AB_GATE_ENV set, ctx->gate asks the ab process for each sample's turn.
 * Returns 1 when gated (the ab process holds the run lock for both sides), 0 when not, 2 after kb_fail()
 * when the variable is malformed. */
int kb_ab_gate_child(struct kb_run_ctx *ctx);

/* One side as the ab process sees it.  Its requests: "SLOT\n" before a sample, "d\n" after it, and "i N\n"
 * after calibrating N iterations per sample, answered with the count both sides take. */
struct kb_ab_side {
	pid_t pid;            /* 0 once reaped */
	int status;           /* its wait status, once reaped */
	int req_fd;           /* the side's requests: "SLOT\n" before a sample, "d\n" after it */
	int grant_fd;         /* one byte per sample granted */
	bool alive;
	bool pending;         /* a request waits for its grant */
	int slot;             /* of the pending or running sample; -1 calibration or warm-up */
	long measured;        /* measured samples done so far, over all tests */
	bool agreeing;        /* calibrated, waits for the iterations per sample both sides take */
	unsigned long long iters;   /* what its calibration found */
};

/* Fork and exec argv[side] for both sides, gated; 0 or -errno with kb_fail(). */
int kb_ab_gate_start(char **const argv[2], struct kb_ab_side side[2]);
/*
 * Grant samples until both sides have exited: one sample at a time, calibration and warm-up when
 * asked, measured samples in the order A B, B A, A B, ... of their pairs (a side that has exited
 * no longer holds the other back).  before(side, arg) runs before each grant (module parameters);
 * *stop ends the granting (the sides then see their gate close).  order gets one letter per
 * measured sample (room: max_order bytes).  Returns 0, or -errno with kb_fail() (before failed).
 */
int kb_ab_gate_serve(struct kb_ab_side side[2], int (*before)(int side, void *arg), void *arg,
		     volatile sig_atomic_t *stop, char *order, size_t max_order);
/* Close the grants, wait for both sides; 0 when both exited 0 or 1, else -EIO with kb_fail() naming the side. */
int kb_ab_gate_finish(struct kb_ab_side side[2]);

#endif
