/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.h: the run context: the options every measurement shares, and what a running test may use
 * (the KVM device, the placement plan, the stop flag, progress, the hypervisor underneath). */
#ifndef KB_RUN_H
#define KB_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct kb_kvm;
struct kb_perf_set;
struct kb_cpu_virt;

/* Options every measurement shares (kvmbench run's own options); read-only while tests run. */
struct kb_run_opts {
	int runs;                /* 0: sample until target_ci, min_runs..max_runs, max_time */
	int min_runs;
	int max_runs;
	double target_ci;        /* percent: half-width of the 95% CI relative to the mean */
	uint64_t max_time_ns;
	int warmup;
	uint64_t sample_time_ns;
	uint64_t iterations;     /* 0: calibrate */
	uint64_t timeout_ns;     /* watchdog bound on every KVM_RUN */
	bool pvm_emulated;       /* leave kvm_pvm in emulation mode: proves the cross-check */
	int vpmu;                /* enum kb_vpmu (vmm/machine.h): the guest's PMU */
	int guest_efer;          /* enum kb_guest_efer (vmm/machine.h): the guest's EFER against the host's */
	int guest_page;          /* enum kb_guest_page (vmm/machine.h): the guest's pages over test memory */
	bool overlap;            /* the memory suites' vCPUs share one test memory (execute-perf, dirty-log) */
	const char *capture_dir; /* --capture: failing exits' full state and wrong page contents go here */
	const struct kb_perf_set *perf;   /* run --perf: host counters on the vCPU threads; NULL: none */
};

struct kb_plan;

struct kb_run_ctx {
	struct kb_kvm *kvm;         /* NULL when /dev/kvm is unusable: only guest-side suites run then */
	const struct kb_plan *plan;   /* where vCPU threads and guest memory go */
	const struct kb_run_opts *opts;
	int vcpus;                  /* vCPUs the current test runs with, unless it has its own count */
	volatile sig_atomic_t *stop;
	/* Progress report: sample k of n of the current test. */
	void (*progress)(struct kb_run_ctx *ctx, int sample, int nsamples);
	const char *current;        /* "suite/test" */
	const struct kb_cpu_virt *virt;   /* the hypervisor underneath, from CPUID; NULL: unknown */
	/* Interleaved A/B (kvmbench ab): called before (done false) and after (done true) every sample,
	 * calibration and warm-up ones included (slot -1), so that the other configuration's samples,
	 * taken by another process, never overlap ours and alternate with them; NULL: none.  Returns 0 or
	 * -errno with kb_fail()'s message, which stops the test. */
	int (*gate)(struct kb_run_ctx *ctx, int slot, bool done);
	/* With a gate: the iterations per sample calibration found, which the gate may replace with the
	 * other configuration's (both sides' samples the same size: under load a sample's time per
	 * iteration depends on its length).  Returns 0 or -errno with kb_fail()'s message. */
	int (*agree)(struct kb_run_ctx *ctx, uint64_t *iters);
};

#endif
