/* selfipi.c: interrupt delivery and KVM_REQ_EVENT: self-IPIs, IPIs between vCPUs, EOI, TSC deadline. */
#include "kb.h"
#include "suite.h"

#define NEEDS (KB_NEED_IRQCHIP)
#define X2 KB_X2APIC
#define XA KB_XAPIC

/*
 * Exits per iteration.  VMX and SVM without APIC virtualization: every APIC write (IPI,
 * TPR, EOI, TSC deadline) and HLT exits, and an interrupt that waits for IF=1 costs an
 * interrupt-window exit; APICv and AVIC absorb some or all of these, so the range starts
 * at 0.  kvm_pvm (measured, and explained by its design): every privileged instruction
 * traps, STI, CLI and IRETQ included, and delivering the interrupt is an exit of its own.
 */
#define APIC_EXITS(pvm_lo, pvm_hi, hw_hi) \
	.exits_on = { true, .intel = { 0, hw_hi }, .amd = { 0, hw_hi }, .pvm = { pvm_lo, pvm_hi } }

#define SELF_IPI(name, summary, mode, test, pvm, hw) \
	{ name, summary, KB_LOOP_APIC, 0, NEEDS | ((mode) == X2 ? KB_NEED_X2APIC : 0), false, \
	  .param = { mode, test }, APIC_EXITS(pvm, pvm, hw), .irqs_per_iter = 1 }

/* Names follow kvm-unit-tests' vmexit tests: the plain name is the xAPIC form, x2apic_ the MSR form. */
static const struct kb_test_def tests[] = {
	SELF_IPI("self_ipi_sti_nop", "self-IPI with IF=0, then STI; NOP takes it (xAPIC)", XA, KB_APIC_SELF_IPI_STI_NOP, 6, 3),
	SELF_IPI("self_ipi_sti_hlt", "self-IPI with IF=0, then STI; HLT takes it (xAPIC)", XA, KB_APIC_SELF_IPI_STI_HLT, 6, 4),
	SELF_IPI("self_ipi_tpr", "self-IPI held back by a raised TPR, taken when the TPR drops (xAPIC)", XA, KB_APIC_SELF_IPI_TPR, 6, 4),
	SELF_IPI("self_ipi_tpr_sti_nop", "TPR raised, self-IPI, TPR lowered, then STI; NOP (xAPIC)", XA, KB_APIC_SELF_IPI_TPR_STI_NOP, 8, 5),
	SELF_IPI("self_ipi_tpr_sti_hlt", "TPR raised, self-IPI, TPR lowered, then STI; HLT (xAPIC)", XA, KB_APIC_SELF_IPI_TPR_STI_HLT, 8, 6),
	SELF_IPI("x2apic_self_ipi_sti_nop", "self-IPI with IF=0, then STI; NOP takes it (x2APIC)", X2, KB_APIC_SELF_IPI_STI_NOP, 6, 3),
	SELF_IPI("x2apic_self_ipi_sti_hlt", "self-IPI with IF=0, then STI; HLT takes it (x2APIC)", X2, KB_APIC_SELF_IPI_STI_HLT, 6, 4),
	SELF_IPI("x2apic_self_ipi_tpr", "self-IPI held back by a raised TPR, taken when the TPR drops (x2APIC)", X2, KB_APIC_SELF_IPI_TPR, 6, 4),
	SELF_IPI("x2apic_self_ipi_tpr_sti_nop", "TPR raised, self-IPI, TPR lowered, then STI; NOP (x2APIC)", X2, KB_APIC_SELF_IPI_TPR_STI_NOP, 8, 5),
	SELF_IPI("x2apic_self_ipi_tpr_sti_hlt", "TPR raised, self-IPI, TPR lowered, then STI; HLT (x2APIC)", X2, KB_APIC_SELF_IPI_TPR_STI_HLT, 8, 6),
	{ "eoi", "an EOI write with no interrupt in service (xAPIC)", KB_LOOP_APIC, 0, NEEDS, false,
	  .param = { XA, KB_APIC_EOI }, APIC_EXITS(1, 1, 1) },
	{ "x2apic_eoi", "an EOI write with no interrupt in service (x2APIC)", KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC, false,
	  .param = { X2, KB_APIC_EOI }, APIC_EXITS(1, 1, 1) },
	{ "ipi", "vCPU 0 sends an IPI to vCPU 1, which spins with IF=1, and waits for it to be taken (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_2VCPUS, false, .param = { X2, KB_APIC_IPI },
	  /* the next IPI can arrive while vCPU 1 still runs its handler with IF=0: then an
	   * interrupt-window exit follows */
	  APIC_EXITS(3, 5, 3), .vcpus = 2, .lead_vcpu_only = true, .irqs_per_iter = 1 },
	{ "ipi_halt", "vCPU 0 sends an IPI to vCPU 1, which waits in HLT (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_2VCPUS, false, .param = { X2, KB_APIC_IPI_HALT },
	  /* whether the receiver is already in HLT when the IPI comes varies from one to the next */
	  APIC_EXITS(3, 5, 4), .vcpus = 2, .lead_vcpu_only = true, .irqs_per_iter = 1 },
	{ "tscdeadline", "TSC-deadline timer armed 20000 cycles ahead, waited for in HLT (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_TSC_DEADLINE, false,
	  .param = { X2, KB_APIC_TSCDEADLINE, 20000 }, APIC_EXITS(6, 6, 4), .irqs_per_iter = 1 },
	{ "tscdeadline_immed", "TSC-deadline timer armed in the past: the interrupt comes at once (x2APIC)",
	  KB_LOOP_APIC, 0, NEEDS | KB_NEED_X2APIC | KB_NEED_TSC_DEADLINE, false,
	  .param = { X2, KB_APIC_TSCDEADLINE_IMMED }, APIC_EXITS(6, 6, 3), .irqs_per_iter = 1 },
};

static void selfipi_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			   json_object *echo)
{
	json_object_object_add(echo, "apic", json_object_new_string(param[0] == KB_X2APIC ? "x2apic" : "xapic"));
	if (param[2])
		json_object_object_add(echo, "tsc_delta", json_object_new_uint64(param[2]));
}

const struct kb_suite kb_suite_selfipi = {
	.name = "self-ipi",
	.summary = "Interrupt delivery and KVM_REQ_EVENT: self-IPIs, IPIs, EOI, TSC-deadline timer",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.params = selfipi_params,
};
