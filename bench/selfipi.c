/* SPDX-License-Identifier: GPL-2.0-or-later */
/* selfipi.c: interrupt delivery and KVM_REQ_EVENT: self-IPIs, IPIs between vCPUs, EOI, TSC deadline. */
#include "core/json.h"
#include "core/kb.h"
#include "run/suite.h"
#include "vmm/machine.h"

#define NEEDS (KB_NEED_IRQCHIP)
#define X2 KB_X2APIC
#define XA KB_XAPIC

/*
 * Exits per iteration.  VMX and SVM without APIC virtualization: every APIC write (IPI,
 * TPR register, EOI, TSC deadline) and HLT exits, a CR8 write only when it drops the TPR below
 * a pending interrupt, and an interrupt that waits for IF=1 costs an
 * interrupt-window exit: exactly hw_hi (measured on SVM in the testbed).  APICv and AVIC
 * absorb some or all of these, down to hw_lo, what the architecture still guarantees (HLT
 * always exits).  The host's APICv/AVIC setting picks one (kb_test_expected_exits()).
 * kvm_pvm (measured, and explained by its design): every privileged instruction traps, STI,
 * CLI and IRETQ included, and delivering the interrupt is an exit of its own.
 */
#define APIC_EXITS(pvm_lo, pvm_hi, hw_lo, hw_hi) APIC_EXITS_CPUID(pvm_lo, pvm_hi, hw_lo, hw_hi, 0)
/* The same, for a loop with 'cpuids' CPUIDs an iteration, which reach kvm_pvm on some hosts only. */
#define APIC_EXITS_CPUID(pvm_lo, pvm_hi, hw_lo, hw_hi, cpuids) \
	.exits_on = { true, .intel = { hw_lo, hw_hi }, .amd = { hw_lo, hw_hi }, .pvm = { pvm_lo, pvm_hi }, \
		      .exact_without_apic_virt = true, .pvm_cpuids = cpuids }

/* Between two vCPUs the counts vary even without APIC virtualization (an interrupt-window exit
 * when the next IPI comes while the receiver's handler still runs): a range everywhere. */
#define APIC_EXITS_VARY(pvm_lo, pvm_hi, hw_lo, hw_hi) \
	.exits_on = { true, .intel = { hw_lo, hw_hi }, .amd = { hw_lo, hw_hi }, .pvm = { pvm_lo, pvm_hi } }

/* HLT always exits, whatever virtualizes the APIC. */
#define HLT_EXITS(test) ((test) == KB_APIC_SELF_IPI_STI_HLT || (test) == KB_APIC_SELF_IPI_TPR_STI_HLT ? 1 : 0)

#define SELF_IPI(name, summary, route, test, pvm, hw) \
	{ name, summary, KB_LOOP_APIC, 0, NEEDS | ((route) == ICR_XA ? 0 : KB_NEED_X2APIC), false, \
	  .param = { (route) == ICR_XA ? XA : X2, test, 0, 0, route }, APIC_EXITS(pvm, pvm, HLT_EXITS(test), hw), \
	  .irqs_per_iter = 1 }
#define ICR_X2 KB_ROUTE_X2APIC_ICR
#define SELF_MSR KB_ROUTE_SELF_IPI_MSR
#define ICR_XA KB_ROUTE_XAPIC_ICR

/*
 * Names follow kvm-unit-tests' x86/vmexit.c and measure what it measures (docs/conformance.md,
 * held to the guest image by tests/scripts/conformance.test): the x2APIC on (as upstream turns it
 * on at boot), the plain self_ipi_* through the ICR MSR, x2apic_self_ipi_* through the SELF_IPI
 * MSR, the TPR by MOV CR8, vector 0xb0.  kvmbench's own variants have names of their own.
 */
static const struct kb_test_def tests[] = {
	SELF_IPI("self_ipi_sti_nop", "CLI, self-IPI by the x2APIC ICR, then STI; NOP takes it", ICR_X2, KB_APIC_SELF_IPI_STI_NOP, 6, 3),
	SELF_IPI("self_ipi_sti_hlt", "CLI, self-IPI by the x2APIC ICR, then STI; HLT takes it", ICR_X2, KB_APIC_SELF_IPI_STI_HLT, 6, 4),
	SELF_IPI("self_ipi_tpr", "IF=1: TPR raised by CR8, self-IPI by the x2APIC ICR (held back), TPR lowered: taken",
		 ICR_X2, KB_APIC_SELF_IPI_TPR, 6, 3),
	SELF_IPI("self_ipi_tpr_sti_nop", "CLI, CR8 raised, self-IPI by the x2APIC ICR, CR8 lowered, then STI; NOP",
		 ICR_X2, KB_APIC_SELF_IPI_TPR_STI_NOP, 8, 4),
	SELF_IPI("self_ipi_tpr_sti_hlt", "CLI, CR8 raised, self-IPI by the x2APIC ICR, CR8 lowered, then STI; HLT",
		 ICR_X2, KB_APIC_SELF_IPI_TPR_STI_HLT, 8, 5),
	SELF_IPI("x2apic_self_ipi_sti_nop", "CLI, self-IPI by the SELF_IPI MSR, then STI; NOP takes it", SELF_MSR, KB_APIC_SELF_IPI_STI_NOP, 6, 3),
	SELF_IPI("x2apic_self_ipi_sti_hlt", "CLI, self-IPI by the SELF_IPI MSR, then STI; HLT takes it", SELF_MSR, KB_APIC_SELF_IPI_STI_HLT, 6, 4),
	SELF_IPI("x2apic_self_ipi_tpr", "IF=1: TPR raised by CR8, self-IPI by the SELF_IPI MSR (held back), TPR lowered: taken",
		 SELF_MSR, KB_APIC_SELF_IPI_TPR, 6, 3),
	SELF_IPI("x2apic_self_ipi_tpr_sti_nop", "CLI, CR8 raised, self-IPI by the SELF_IPI MSR, CR8 lowered, then STI; NOP",
		 SELF_MSR, KB_APIC_SELF_IPI_TPR_STI_NOP, 8, 4),
	SELF_IPI("x2apic_self_ipi_tpr_sti_hlt", "CLI, CR8 raised, self-IPI by the SELF_IPI MSR, CR8 lowered, then STI; HLT",
		 SELF_MSR, KB_APIC_SELF_IPI_TPR_STI_HLT, 8, 5),
	/* kvmbench's own: the xAPIC (ICR by MMIO, emulated unless APICv/AVIC), TPR by the APIC register. */
	SELF_IPI("xapic_self_ipi_sti_nop", "self_ipi_sti_nop in xAPIC mode: the ICR by MMIO (not upstream's)", ICR_XA,
		 KB_APIC_SELF_IPI_STI_NOP, 6, 3),
	SELF_IPI("xapic_self_ipi_sti_hlt", "self_ipi_sti_hlt in xAPIC mode: the ICR by MMIO (not upstream's)", ICR_XA,
		 KB_APIC_SELF_IPI_STI_HLT, 6, 4),
	SELF_IPI("xapic_self_ipi_tpr", "self_ipi_tpr in xAPIC mode, TPR by the APIC's TPR register, not CR8 (not upstream's)",
		 ICR_XA, KB_APIC_SELF_IPI_TPR, 6, 4),
	SELF_IPI("xapic_self_ipi_tpr_sti_nop", "self_ipi_tpr_sti_nop in xAPIC mode, TPR by the APIC register (not upstream's)",
		 ICR_XA, KB_APIC_SELF_IPI_TPR_STI_NOP, 8, 5),
	SELF_IPI("xapic_self_ipi_tpr_sti_hlt", "self_ipi_tpr_sti_hlt in xAPIC mode, TPR by the APIC register (not upstream's)",
		 ICR_XA, KB_APIC_SELF_IPI_TPR_STI_HLT, 8, 6),
	/* kvm-unit-tests' eoi sub-timing: cycles are the EOI alone; the exits are the whole
	 * self_ipi_sti_nop iteration's. */
	{ "eoi", "EOI with one interrupt in service, timed inside the handler of self_ipi_sti_nop (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC, false, .param = { X2, KB_APIC_EOI, 0, 0, ICR_X2 },
	  APIC_EXITS(6, 6, 0, 3), .irqs_per_iter = 1 },
	{ "eoi_idle", "an EOI write with no interrupt in service (xAPIC): KVM's early return, not upstream's eoi",
	  KB_LOOP_APIC, 0, NEEDS, false, .param = { XA, KB_APIC_EOI_IDLE }, APIC_EXITS(1, 1, 0, 1) },
	{ "x2apic_eoi_idle", "an EOI write with no interrupt in service (x2APIC): KVM's early return",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC, false, .param = { X2, KB_APIC_EOI_IDLE }, APIC_EXITS(1, 1, 0, 1) },
	{ "ipi", "vCPU 1 idles in HLT; vCPU 0 sends it an IPI by the x2APIC ICR and waits until its handler ran (on_cpu)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_2VCPUS, false, .param = { X2, KB_APIC_IPI },
	  /* whether the receiver is already back in HLT when the next IPI comes varies */
	  APIC_EXITS_VARY(3, 5, 1, 4), .vcpus = 2, .lead_vcpu_only = true, .irqs_per_iter = 1 },
	{ "ipi_halt", "ipi, then 2000 TSC cycles of busy wait so that vCPU 1 is back in HLT before the next",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_2VCPUS, false, .param = { X2, KB_APIC_IPI_HALT },
	  APIC_EXITS_VARY(3, 5, 1, 4), .vcpus = 2, .lead_vcpu_only = true, .irqs_per_iter = 1 },
	{ "ipi_spin", "vCPU 0 sends an IPI to vCPU 1, which spins with IF=1 instead of idling in HLT (not upstream's ipi)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_2VCPUS, false, .param = { X2, KB_APIC_IPI_SPIN },
	  /* the next IPI can arrive while vCPU 1 still runs its handler with IF=0: then an
	   * interrupt-window exit follows */
	  APIC_EXITS_VARY(3, 5, 0, 3), .vcpus = 2, .lead_vcpu_only = true, .irqs_per_iter = 1 },
	{ "tscdeadline", "TSC-deadline timer armed 3000 cycles ahead, busy-waited for with IF=1 (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_TSC_DEADLINE, false,
	  .param = { X2, KB_APIC_TSCDEADLINE, 3000 },
	  /* SVM in the testbed: 2 (WRMSR, EOI: the deadline had passed by the time KVM re-entered);
	   * where it has not, the timer's own exit (VMX's preemption timer, a host hrtimer) adds one */
	  APIC_EXITS_VARY(4, 4, 1, 3), .irqs_per_iter = 1 },
	{ "tscdeadline_immed", "TSC-deadline timer armed at \"now\", serialised by CPUID, not waited for; IF=1 (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_TSC_DEADLINE, false,
	  .param = { X2, KB_APIC_TSCDEADLINE_IMMED },
	  /* WRMSR, CPUID, EOI (SVM in the testbed: 3); the WRMSR and CPUID exit even with APICv.  kvm_pvm:
	   * 4 where the outer hypervisor answers CPUID (it never reaches kvm_pvm there), 5 where CPUID
	   * reaches kvm_pvm (an Intel Xeon host with cpuid_fault: 5.002, one insn_emulation more); the
	   * host's CPUID probe says which, and the count is then exact */
	  APIC_EXITS_CPUID(4, 5, 2, 3, 1), .irqs_per_iter = 1 },
	{ "tscdeadline_hlt", "TSC-deadline timer armed 20000 cycles ahead, waited for in HLT: the hrtimer and halt-polling "
	  "path, not upstream's tscdeadline (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_TSC_DEADLINE, false,
	  .param = { X2, KB_APIC_TSCDEADLINE_HLT, 20000 }, APIC_EXITS(6, 6, 1, 4), .irqs_per_iter = 1 },
};

static const char *const route_names[] = {
	[KB_ROUTE_XAPIC_ICR] = "xapic_icr", [KB_ROUTE_X2APIC_ICR] = "x2apic_icr", [KB_ROUTE_SELF_IPI_MSR] = "self_ipi_msr",
};

/* The setup docs/conformance.md promises, as the run records it (tests/scripts/conformance.test). */
static void selfipi_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			   json_object *echo)
{
	enum kb_apic_test test = (enum kb_apic_test)param[1];
	bool self = test <= KB_APIC_EOI;
	bool tpr = test == KB_APIC_SELF_IPI_TPR || test == KB_APIC_SELF_IPI_TPR_STI_NOP ||
		   test == KB_APIC_SELF_IPI_TPR_STI_HLT;
	bool timer = test == KB_APIC_TSCDEADLINE || test == KB_APIC_TSCDEADLINE_IMMED || test == KB_APIC_TSCDEADLINE_HLT;

	kb_json_set_str(echo, "apic", param[0] == KB_X2APIC ? "x2apic" : "xapic");
	if (self)
		kb_json_set_str(echo, "self_ipi", route_names[param[4]]);
	if (tpr)
		kb_json_set_str(echo, "tpr", param[4] == KB_ROUTE_XAPIC_ICR ? "apic_register" : "cr8");
	if (self || timer || test == KB_APIC_IPI_SPIN)
		kb_json_set_u64(echo, "vector", KB_TEST_VECTOR);
	if (test == KB_APIC_IPI || test == KB_APIC_IPI_HALT)
		kb_json_set_u64(echo, "vector", KB_SMP_VECTOR);
	if (param[2])
		kb_json_set_u64(echo, "tsc_delta", param[2]);
	if (timer)
		kb_json_set_str(echo, "wait", test == KB_APIC_TSCDEADLINE ? "busy_if1" :
				test == KB_APIC_TSCDEADLINE_HLT ? "hlt" : "none_cpuid_serialised");
	if (test == KB_APIC_IPI || test == KB_APIC_IPI_HALT || test == KB_APIC_IPI_SPIN) {
		kb_json_set_str(echo, "receiver", test == KB_APIC_IPI_SPIN ? "spin_if1" : "hlt");
		kb_json_set_str(echo, "sender_waits", test == KB_APIC_IPI_HALT ? "handler_then_2000_cycles" : "handler");
	}
	kb_json_set_str(echo, "timed", test == KB_APIC_EOI ? "eoi_in_handler" : "iteration");
}

/* The APIC loops' patience (include/kb_abi.h): an IPI not there by then is taken as lost, well
 * before the watchdog takes the guest for hung. */
static void selfipi_prepare(const struct kb_run_ctx *ctx, const struct kb_test_def *t,
			    const struct kb_machine *m, uint64_t param[6])
{
	param[3] = kb_machine_patience_cycles(m, ctx->opts->timeout_ns);
}

const struct kb_suite kb_suite_selfipi = {
	.name = "self-ipi",
	.summary = "Interrupt delivery and KVM_REQ_EVENT: self-IPIs, IPIs, EOI, TSC-deadline timer",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.params = selfipi_params,
	.prepare = selfipi_prepare,
	.arches = KB_ARCH_X86,
};
