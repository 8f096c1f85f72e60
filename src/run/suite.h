/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suite.h: the interface a benchmark suite fills (bench/): its tests, options, needs and how it
 * runs.  The engine (src/run/) runs what a suite declares; it never names a suite. */
#ifndef KB_RUN_SUITE_H
#define KB_RUN_SUITE_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "core/opt.h"
#include "run/run.h"
#include "kb_abi.h"
#include "vmm/cpuarch.h"
#include "vmm/devices.h"
#include "vmm/kvm.h"
#include "results/result.h"

/* What a test needs from the host; a test whose needs are not met is skipped with the reason. */
enum kb_need {
	KB_NEED_IRQCHIP = 1u << 0,
	KB_NEED_X2APIC = 1u << 1,
	KB_NEED_TSC_DEADLINE = 1u << 2,
	KB_NEED_2VCPUS = 1u << 3,
	KB_NEED_USER_MSR = 1u << 4,
	KB_NEED_HYPERCALL = 1u << 5,   /* VMCALL/VMMCALL must reach this KVM */
	KB_NEED_TSX_CTRL = 1u << 6,    /* IA32_TSX_CTRL: ARCH_CAPABILITIES offered, with its TSX_CTRL bit */
	KB_NEED_SPEC_CTRL = 1u << 7,   /* IA32_SPEC_CTRL: CPUID.7.0:EDX[26] offered */
	KB_NEED_IBPB = 1u << 8,        /* IA32_PRED_CMD's IBPB: CPUID.7.0:EDX[26] or CPUID.80000008:EBX[12] */
	KB_NEED_IOEVENTFD = 1u << 9,   /* KVM_IOEVENTFD (the test's ioeventfd) */
};

/* Exits one iteration causes: exactly lo == hi, or a range where hardware assists (APICv, AVIC)
 * may absorb some of them. */
struct kb_exit_range {
	double lo, hi;
};

/* Exits per iteration where the backends differ (e.g. an MSR one passes through and another traps). */
struct kb_backend_exits {
	bool set;
	struct kb_exit_range intel, amd, pvm, arm64;
	/* VMX and SVM: the ranges span what APICv/AVIC may absorb (lo: the exits the architecture
	 * guarantees, HLT's say); with the APIC not virtualized every exit happens: exactly hi. */
	bool exact_without_apic_virt;
	/* kvm_pvm: CPUIDs per iteration the top of its range counts as exits.  Once the host's probe
	 * (run/probe.c) has said where a guest's CPUID goes, exactly hi where it exits to kvm_pvm, exactly
	 * hi - pvm_cpuids where something underneath answers it; the range until then. */
	double pvm_cpuids;
};

/* A KVM vCPU stat one iteration must add to, per iteration (arm64's hvc_exit_stat, say). */
struct kb_stat_count {
	const char *name;           /* NULL: none */
	double per_iter;
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
	struct kb_ioeventfd ioeventfd;   /* len != 0: writes KVM completes itself, each one counted */
	struct kb_stat_count stats[2];   /* KVM stats the exits must show up in, cross-checked like exits */
};

struct kb_machine;
struct kb_machine_cfg;

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
	unsigned int arches;        /* the architectures (enum kb_arch bits) it runs on; hidden elsewhere */
	/* Adjust a test's guest parameters (param[] starts as the test's own), echo them into
	 * 'echo'; NULL keeps the test's own. */
	void (*params)(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
		       json_object *echo);
	/* The generic runner's test machine is up: set the guest parameters that depend on it (param[]
	 * as params() left it); NULL: none. */
	void (*prepare)(const struct kb_run_ctx *ctx, const struct kb_test_def *t, const struct kb_machine *m,
			uint64_t param[6]);
	/* The generic runner's measurement failed with err: the error to report instead (-ENOTSUP with
	 * kb_fail()'s reason to skip, say), or err; NULL keeps err. */
	int (*failed)(const struct kb_run_ctx *ctx, const struct kb_test_def *t, const struct kb_machine *m,
		      int err);
	/* Run one test; NULL selects the generic timed-loop runner.  Returns 0, or -errno with
	 * kb_fail()'s message: -ENOTSUP means "cannot be measured on this host" (skipped). */
	int (*run)(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
		   struct kb_test_result *r);
};

/* Exits one iteration of t causes on this KVM (its backend, and whether it virtualizes the APIC). */
struct kb_exit_range kb_test_expected_exits(const struct kb_test_def *t, const struct kb_kvm *kvm);
/* The machine a test's needs call for, with nvcpus vCPUs (its own count when it has one). */
void kb_test_machine_cfg(const struct kb_run_ctx *ctx, const struct kb_test_def *t, int nvcpus,
			 struct kb_machine_cfg *cfg);
/* Why suite s does not run on this build's architecture ("x86 only: ..."), or NULL when it does. */
const char *kb_suite_unavailable(const struct kb_suite *s);
/* Why a test cannot run on this host, or NULL. */
const char *kb_test_unmet_need(const struct kb_run_ctx *ctx, const struct kb_test_def *t);

/* The generic runner: calibrate, warm up, then sample a guest loop on every vCPU at once. */
int kb_run_loop_test(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
		     struct kb_test_result *r);

#endif
