/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memvm.h: what the memory suites share: a benchmark VM with test memory of a chosen backing in
 * extra memslots from KB_MEM_GPA, a vCPU crew running KB_LOOP_MEM phases, and the KVM statistics,
 * timings and host settings that explain the results. */
#ifndef KB_MEMVM_H
#define KB_MEMVM_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "run/crew.h"
#include "vmm/guestmem.h"
#include "vmm/machine.h"
#include "run/suite.h"

#define KB_MEMVM_MAX_SLOTS 64

struct kb_memvm_cfg {
	int nvcpus;
	enum kb_backing backing;
	uint64_t vcpu_bytes;          /* test memory each vCPU works on */
	bool overlap;                 /* every vCPU works on the same vcpu_bytes, not a part of its own */
	int nslots;                   /* the test memory split evenly into this many memslots */
	uint32_t dirty_ring_bytes;    /* per-vCPU dirty ring; 0: none */
	uint64_t manual_protect;      /* KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 flags to enable; 0: none */
	const char *size_option;      /* the suite's option for vcpu_bytes, for messages ("--mem") */
};

struct kb_memvm {
	const struct kb_run_ctx *ctx;
	struct kb_memvm_cfg cfg;
	struct kb_machine m;
	bool machine_up;
	struct kb_guestmem mem;
	struct kb_memslot slots[KB_MEMVM_MAX_SLOTS];
	int nslots;                   /* memslots created */
	uint64_t bytes;               /* all test memory */
	struct kb_crew *crew;
	uint64_t keepalive_cycles;    /* guest TSC cycles between its calls on long phases */
};

/* KVM statistics around a step: VM stats and every vCPU's. */
struct kb_memvm_snap {
	uint64_t *vm;
	uint64_t **vcpu;
};

/* One phase: every vCPU ran one KB_LOOP_MEM operation over its part of the test memory. */
struct kb_mem_phase {
	uint64_t wall_ns;             /* host: release of the vCPUs to the last one's answer */
	struct kb_crew_result *vcpu;  /* per vCPU; args[0] pages written, args[1] pages read or called */
	json_object *stats;           /* {"vm": ..., "vcpus": ...}, see kb_memvm_snap_end() */
};

/*
 * Whether cfg can run on this host now: 0; -ENOTSUP (the test is skipped) when the backing cannot
 * be had (huge pages not reserved, 1 GiB pages unsupported, sizes that are not whole huge pages),
 * with the reason and the fix; -EINVAL or -ENOMEM (an error) for requests no host setting fixes:
 * more test memory than the guest's page tables or the host's available memory hold.
 */
int kb_memvm_check(const struct kb_run_ctx *ctx, const struct kb_memvm_cfg *cfg);
int kb_memvm_create(const struct kb_run_ctx *ctx, const struct kb_memvm_cfg *cfg, struct kb_memvm *mv);
/* Tear down all of it; -errno (with its message) when KVM failed to delete a memslot. */
int kb_memvm_destroy(struct kb_memvm *mv);

/* First GPA of vCPU v's part of the test memory. */
uint64_t kb_memvm_vcpu_gpa(const struct kb_memvm *mv, int v);
/* 4 KiB pages of each vCPU's part, and of all test memory. */
uint64_t kb_memvm_vcpu_pages(const struct kb_memvm *mv);
uint64_t kb_memvm_pages(const struct kb_memvm *mv);

/* Run op on every vCPU over its part (value and percent as in KB_LOOP_MEM). */
int kb_memvm_phase(struct kb_memvm *mv, enum kb_mem_op op, uint64_t value, uint64_t percent,
		   struct kb_mem_phase *ph);
void kb_mem_phase_free(struct kb_mem_phase *ph);
/* {"wall_s", "vcpus": [{vcpu, tsc_cycles, seconds, host_ns, pages_written, pages_other}], "kvm_stats"} */
json_object *kb_mem_phase_json(const struct kb_memvm *mv, const struct kb_mem_phase *ph);
/* Guest seconds of vCPU v's part. */
double kb_mem_phase_vcpu_s(const struct kb_memvm *mv, const struct kb_mem_phase *ph, int v);
/* Push the phase's wall time to metric 'name' and, with several vCPUs, each vCPU's guest time to
 * 'name.vcpuN' (seconds, lower is better). */
void kb_mem_phase_record(struct kb_test_result *r, const char *name, const struct kb_memvm *mv,
			 const struct kb_mem_phase *ph);
/* The longest vCPU guest time over the host's wall time: above 1, the clocks disagree. */
double kb_mem_phase_clock_ratio(const struct kb_memvm *mv, const struct kb_mem_phase *ph);

/* Statistics around a host-side step (enabling dirty logging, say). */
void kb_memvm_snap_begin(struct kb_memvm *mv, struct kb_memvm_snap *s);
/* {"vm": counters' deltas and other stats' values, "vcpus": counters that moved, summed}; frees s. */
json_object *kb_memvm_snap_end(struct kb_memvm *mv, struct kb_memvm_snap *s);

/* The host settings that change memory results: KVM's MMU parameters, THP, huge pages. */
json_object *kb_memvm_host_json(void);
/* What every memory test's result says about how it ran: pages per vCPU as its iterations, the TSC
 * rate, the backend, kb_memvm_host_json() and the per-phase KVM stats of its last sample. */
void kb_memvm_record(struct kb_test_result *r, const struct kb_run_ctx *ctx, uint64_t vcpu_bytes,
		     uint32_t tsc_khz, json_object *last_stats);

#endif
