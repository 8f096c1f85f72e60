/* suite.h: what a benchmark suite declares: its tests, options, needs and how it runs. */
#ifndef KB_SUITE_H
#define KB_SUITE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "cli.h"
#include "kb_abi.h"
#include "kvm.h"
#include "result.h"

/* What a test needs from the host; a test whose needs are not met is skipped with the reason. */
enum kb_need {
	KB_NEED_IRQCHIP = 1u << 0,
	KB_NEED_X2APIC = 1u << 1,
	KB_NEED_TSC_DEADLINE = 1u << 2,
	KB_NEED_2VCPUS = 1u << 3,
	KB_NEED_USER_MSR = 1u << 4,
	KB_NEED_HYPERCALL = 1u << 5,   /* VMCALL/VMMCALL must reach this KVM */
};

/* Options every measurement shares (kvmbench run's own options). */
struct kb_run_opts {
	int runs;                /* 0: sample until target_ci, min_runs..max_runs, max_time */
	int min_runs;
	int max_runs;
	double target_ci;        /* percent: half-width of the 95% CI relative to the mean */
	uint64_t max_time_ns;
	int warmup;
	uint64_t sample_time_ns;
	uint64_t iterations;     /* 0: calibrate */
	struct kb_int_list vcpu_counts;   /* --vcpus: one count, or several to sweep */
	int vcpus;               /* the count the current test runs with (one of vcpu_counts) */
	uint64_t timeout_ns;     /* watchdog bound on every KVM_RUN */
	const char *json;
	const char *baseline;     /* compare with this result right after measuring */
	double tolerance;         /* percent, for --baseline */
	const char *kvm_path;
	bool quiet;
	bool verbose;
	bool pvm_emulated;       /* leave kvm_pvm in emulation mode: proves the cross-check */
};

/* Exits one iteration causes: exactly lo == hi, or a range where hardware assists (APICv, AVIC)
 * may absorb some of them. */
struct kb_exit_range {
	double lo, hi;
};

/* Exits per iteration where the backends differ (e.g. an MSR one passes through and another traps). */
struct kb_backend_exits {
	bool set;
	struct kb_exit_range intel, amd, pvm;
};

struct kb_test_def {
	const char *name;
	const char *summary;
	enum kb_loop loop;          /* guest loop (guest/) */
	double exits_per_iter;      /* KVM exits one iteration must cause */
	unsigned int needs;
	bool hidden;                /* only run when named (selftests) */
	uint64_t param[6];          /* guest loop parameters (a suite's params() may adjust them) */
	struct kb_backend_exits exits_on;
	int vcpus;                  /* fixed vCPU count (two for IPIs); 0: --vcpus */
	bool lead_vcpu_only;        /* only vCPU 0 iterates; the others serve it */
	double irqs_per_iter;       /* interrupts the guest must take per iteration; 0: no check */
};

struct kb_plan;

struct kb_run_ctx {
	struct kb_kvm *kvm;         /* NULL when /dev/kvm is unusable: only guest-side suites run then */
	const struct kb_plan *plan;   /* where vCPU threads and guest memory go */
	const struct kb_run_opts *opts;
	volatile sig_atomic_t *stop;
	/* Progress report: sample k of n of the current test. */
	void (*progress)(struct kb_run_ctx *ctx, int sample, int nsamples);
	const char *current;        /* "suite/test" */
	json_object *host;          /* this run's host facts (kb_host_json), read-only */
};

/* Where a suite measures from: kvmbench's own VMs on /dev/kvm, or this machine as a guest of the
 * hypervisor underneath (no /dev/kvm needed). */
enum kb_side {
	KB_SIDE_HOST = 0,
	KB_SIDE_GUEST,
};

struct kb_suite {
	const char *name;
	const char *summary;
	const struct kb_test_def *tests;
	size_t ntests;
	const struct kb_opt *opts;  /* the suite's own options for 'kvmbench run' */
	size_t nopts;
	void *cfg;                  /* where those options land */
	bool hidden;
	enum kb_side side;
	/* Adjust a test's guest parameters (param[] starts as the test's own), echo them into
	 * 'echo'; NULL keeps the test's own. */
	void (*params)(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
		       json_object *echo);
	/* Run one test; NULL selects the generic timed-loop runner.  Returns 0, or -errno with
	 * kb_fail()'s message: -ENOTSUP means "cannot be measured on this host" (skipped). */
	int (*run)(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
		   struct kb_test_result *r);
};

extern const struct kb_suite *const kb_suites[];
extern const size_t kb_nsuites;

const struct kb_suite *kb_find_suite(const char *name);
const struct kb_test_def *kb_find_test(const struct kb_suite *s, const char *name);
/* Every suite entry complete, names unique, options not clashing: checked at start-up. */
int kb_suites_validate(void);
/* Exits one iteration of t causes on backend b. */
struct kb_exit_range kb_test_expected_exits(const struct kb_test_def *t, enum kb_backend b);
/* Why a test cannot run on this host, or NULL. */
const char *kb_test_unmet_need(const struct kb_run_ctx *ctx, const struct kb_test_def *t);

/* The generic runner: calibrate, warm up, then sample a guest loop on every vCPU at once. */
int kb_run_loop_test(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
		     struct kb_test_result *r);

#endif
