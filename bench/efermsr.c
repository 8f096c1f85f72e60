/* SPDX-License-Identifier: GPL-2.0-or-later */
/* efermsr.c: the exit-path suite: EFER and MSR exits, port I/O and MMIO round trips, VMCALL, CR and DR
 * writes, cache flushes, the PM timer, ioeventfd writes and the PAUSE-loop ring of kvm-unit-tests' vmexit. */
#include <errno.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/suite.h"
#include "vmm/machine.h"

#define MSR_IA32_TSC_ADJUST   0x3b
#define MSR_KERNEL_GS_BASE    0xc0000102
#define MSR_IA32_SPEC_CTRL    0x48
#define MSR_IA32_PRED_CMD     0x49
#define PRED_CMD_IBPB         1
#define MSR_IA32_TSX_CTRL     0x122

/* Names follow kvm-unit-tests' vmexit tests where the test is the same. */
static const struct kb_test_def tests[] = {
	{ "efer_toggle", "WRMSR to EFER flipping SCE every iteration: the EFER switching path",
	  KB_LOOP_EFER_TOGGLE, 1.0 },
	{ "wr_tsc_adjust_msr", "WRMSR IA32_TSC_ADJUST, handled in the kernel",
	  KB_LOOP_WRMSR, 1.0, .param = { MSR_IA32_TSC_ADJUST, 0 } },
	{ "rd_tsc_adjust_msr", "RDMSR IA32_TSC_ADJUST, handled in the kernel",
	  KB_LOOP_RDMSR, 1.0, .param = { MSR_IA32_TSC_ADJUST } },
	{ "wr_kernel_gs_base", "WRMSR KERNEL_GS_BASE: passed through by VMX and SVM, trapped by kvm_pvm",
	  KB_LOOP_WRMSR, 1.0, .param = { MSR_KERNEL_GS_BASE, 0 },
	  .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
	{ "rd_user_msr", "RDMSR of an MSR KVM does not implement, forwarded to kvmbench's userspace",
	  KB_LOOP_RDMSR, 1.0, KB_NEED_USER_MSR, .param = { KB_USER_MSR } },
	{ "wr_user_msr", "WRMSR of an MSR KVM does not implement, forwarded to kvmbench's userspace",
	  KB_LOOP_WRMSR, 1.0, KB_NEED_USER_MSR, .param = { KB_USER_MSR, 0 } },
	{ "inl_from_userspace", "32-bit IN answered by kvmbench's userspace: the full round trip (inl_from_qemu)",
	  KB_LOOP_IN, 1.0, .param = { KB_USER_PORT, 4 } },
	{ "inl_from_kernel", "8-bit IN from the in-kernel PIC's ELCR (port 0x4d0), answered in KVM",
	  KB_LOOP_IN, 1.0, KB_NEED_IRQCHIP, .param = { KB_KERNEL_PORT, 1 } },
	{ "outl_to_kernel", "8-bit OUT of 0 to the in-kernel PIC's ELCR (port 0x4d0), handled in KVM",
	  KB_LOOP_OUT, 1.0, KB_NEED_IRQCHIP, .param = { KB_KERNEL_PORT, 1, 0 } },
	{ "mmio_read_user", "4-byte MMIO read outside guest memory, answered by kvmbench's userspace",
	  KB_LOOP_MMIO_READ, 1.0, .param = { KB_MMIO_GPA } },
	{ "vmcall", "VMCALL with hypercall number 0 (none KVM implements), answered in KVM; VMMCALL on AMD, "
	  "which KVM rewrites upstream's VMCALL into at its first exit", KB_LOOP_HYPERCALL, 1.0, KB_NEED_HYPERCALL },
	{ "mov_to_cr8", "MOV to CR8 (the TPR): no exit where the TPR is virtualized, trapped by kvm_pvm",
	  KB_LOOP_MOV_TO_CR8, 1.0, KB_NEED_IRQCHIP, .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
	{ "mov_from_cr8", "MOV from CR8 (the TPR): no exit where the TPR is virtualized, trapped by kvm_pvm",
	  KB_LOOP_MOV_FROM_CR8, 1.0, KB_NEED_IRQCHIP, .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
	/* VMX and SVM trap the first MOV DR after each exit, then let the guest own the debug registers
	 * until the next exit; kvm_pvm traps every one. */
	{ "mov_dr", "MOV to DR7 (0x400): trapped once, then the guest's until the next exit on VMX and SVM; "
	  "trapped by kvm_pvm", KB_LOOP_MOV_DR, 1.0,
	  .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
	{ "wbinvd", "WBINVD, intercepted and completed in KVM (a flush only with non-coherent DMA)",
	  KB_LOOP_WBINVD, 1.0 },
	{ "invd", "INVD, intercepted and completed in KVM as a no-op", KB_LOOP_INVD, 1.0 },
	{ "inl_from_pmtimer", "32-bit IN from the ACPI PM timer (port 0xb008), a 3.579545 MHz counter answered "
	  "by kvmbench's userspace as QEMU answers it", KB_LOOP_IN, 1.0, .param = { KB_PMTIMER_PORT, 4 } },
	/* VMX with EPT lets the guest own CR0.WP (Linux 6.4 on) and CR4.PGE; SVM's selective CR0
	 * intercept and its CR4 write intercept trap each write, as kvm_pvm does. */
	{ "toggle_cr0_wp", "two MOV to CR0 clearing and setting CR0.WP: guest-owned on VMX with EPT (Linux >= 6.4), "
	  "trapped by SVM and kvm_pvm", KB_LOOP_TOGGLE_CR0_WP, 2.0,
	  .exits_on = { true, .intel = { 0, 2 }, .amd = { 2, 2 }, .pvm = { 2, 2 } } },
	{ "toggle_cr4_pge", "two MOV to CR4 flipping CR4.PGE and back (global TLB flushes): guest-owned on VMX "
	  "with EPT, trapped by SVM and kvm_pvm", KB_LOOP_TOGGLE_CR4_PGE, 2.0,
	  .exits_on = { true, .intel = { 0, 0 }, .amd = { 2, 2 }, .pvm = { 2, 2 } } },
	{ "wr_tsx_ctrl_msr", "WRMSR IA32_TSX_CTRL = 0, handled in KVM", KB_LOOP_WRMSR, 1.0, KB_NEED_TSX_CTRL,
	  .param = { MSR_IA32_TSX_CTRL, 0 } },
	/* VMX and SVM pass SPEC_CTRL and PRED_CMD through once the guest has written them. */
	{ "wr_ibrs_msr", "WRMSR IA32_SPEC_CTRL = 1 (IBRS), then = 0: passed through by VMX and SVM after the "
	  "first write", KB_LOOP_WRMSR_PAIR, 2.0, KB_NEED_SPEC_CTRL, .param = { MSR_IA32_SPEC_CTRL, 1, 0 },
	  .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 2, 2 } } },
	{ "wr_ibpb_msr", "WRMSR IA32_PRED_CMD = IBPB: passed through by VMX and SVM, trapped by kvm_pvm",
	  KB_LOOP_WRMSR, 1.0, KB_NEED_IBPB, .param = { MSR_IA32_PRED_CMD, PRED_CMD_IBPB },
	  .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
	/* A wait exits only when it outlasts the PAUSE-loop window, i.e. when the token's holder is not
	 * running; kvm_pvm cannot intercept PAUSE at all. */
	{ "ple_round_robin", "two vCPUs hand a token round, each waiting for it in a PAUSE loop: PAUSE-loop "
	  "exits on VMX and SVM when a wait outlasts the window (none on kvm_pvm, which cannot trap PAUSE)",
	  KB_LOOP_PLE_ROUND_ROBIN, 0.0, KB_NEED_2VCPUS, .vcpus = 2,
	  .exits_on = { true, .intel = { 0, 1 }, .amd = { 0, 1 }, .pvm = { 0, 0 } } },
	{ "pci-mem", "byte MMIO write completed in KVM through an ioeventfd (the test device's memory BAR)",
	  KB_LOOP_MMIO_WRITE, 1.0, KB_NEED_IOEVENTFD, .param = { KB_IOEVENTFD_GPA, 1 },
	  .ioeventfd = { KB_IOEVENTFD_GPA, 1, false, -1 } },
	{ "pci-io", "byte OUT completed in KVM through an ioeventfd (the test device's I/O BAR)",
	  KB_LOOP_OUT, 1.0, KB_NEED_IOEVENTFD, .param = { KB_IOEVENTFD_PORT, 1, 1 },
	  .ioeventfd = { KB_IOEVENTFD_PORT, 1, true, -1 } },
};

static void efermsr_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			   json_object *echo)
{
	if (t->loop == KB_LOOP_HYPERCALL) {
		param[0] = ctx->kvm->backend == KB_BACKEND_AMD;
		kb_json_set_str(echo, "instruction", param[0] ? "vmmcall" : "vmcall");
	}
	if (t->loop == KB_LOOP_RDMSR || t->loop == KB_LOOP_WRMSR || t->loop == KB_LOOP_WRMSR_PAIR)
		kb_json_set_u64(echo, "msr", param[0]);
	if (t->loop == KB_LOOP_WRMSR || t->loop == KB_LOOP_WRMSR_PAIR)
		kb_json_set_u64(echo, "value", param[1]);
	if (t->loop == KB_LOOP_WRMSR_PAIR)
		kb_json_set_u64(echo, "then_value", param[2]);
	if (t->ioeventfd.len) {
		kb_json_set_str(echo, "completed_by", "ioeventfd");
		kb_json_set_str(echo, "ioeventfd_match", "wildcard");
	}
	if (t->loop == KB_LOOP_MMIO_WRITE) {
		kb_json_set_u64(echo, "gpa", param[0]);
		kb_json_set_u64(echo, "width", 1);
	}
	if (t->loop == KB_LOOP_PLE_ROUND_ROBIN)
		kb_json_set_bool(echo, "pause_exiting", ctx->kvm->backend != KB_BACKEND_PVM);
	if (t->loop == KB_LOOP_IN || t->loop == KB_LOOP_OUT) {
		kb_json_set_u64(echo, "port", param[0]);
		kb_json_set_u64(echo, "width", param[1]);
	}
	if (t->loop == KB_LOOP_OUT)
		kb_json_set_u64(echo, "value", param[2]);
	if (t->loop == KB_LOOP_MMIO_READ)
		kb_json_set_u64(echo, "gpa", param[0]);
}

/* The user-MSR tests: KVM_CAP_X86_USER_SPACE_MSR was accepted, yet KVM injected #GP itself. */
static int efermsr_failed(const struct kb_run_ctx *ctx, const struct kb_test_def *t, const struct kb_machine *m,
			  int err)
{
	if ((t->needs & KB_NEED_USER_MSR) && m->fault_vector == 13)
		return kb_fail(ENOTSUP, "this KVM injects #GP instead of forwarding the MSR access to userspace, "
			       "although it accepted KVM_CAP_X86_USER_SPACE_MSR with reasons INVAL and UNKNOWN");
	return err;
}

/* The PAUSE-loop ring goes round every vCPU of the machine. */
static void efermsr_prepare(const struct kb_run_ctx *ctx, const struct kb_test_def *t, const struct kb_machine *m,
			    uint64_t param[6])
{
	(void)ctx;
	if (t->loop == KB_LOOP_PLE_ROUND_ROBIN)
		param[0] = (uint64_t)m->nvcpus;
}

const struct kb_suite kb_suite_efermsr = {
	.name = "efer-msr",
	.summary = "EFER/MSR switching, port I/O and MMIO round trips, VMCALL, CR/DR writes, cache flushes, "
		   "PM timer, ioeventfd writes and the PAUSE-loop ring",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.params = efermsr_params,
	.prepare = efermsr_prepare,
	.failed = efermsr_failed,
	.arches = KB_ARCH_X86,
};
