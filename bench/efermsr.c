/* efermsr.c: the exit-path suite: EFER and MSR exits, port I/O and MMIO round trips, hypercall, CR8. */
#include "kb.h"
#include "suite.h"

#define MSR_IA32_TSC_ADJUST   0x3b
#define MSR_KERNEL_GS_BASE    0xc0000102

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
	{ "inl_from_kernel", "8-bit IN from the in-kernel PIC's mask register (port 0x21), answered in KVM",
	  KB_LOOP_IN, 1.0, KB_NEED_IRQCHIP, .param = { KB_KERNEL_PORT, 1 } },
	{ "outl_to_kernel", "8-bit OUT (all masked) to the in-kernel PIC's mask register, handled in KVM",
	  KB_LOOP_OUT, 1.0, KB_NEED_IRQCHIP, .param = { KB_KERNEL_PORT, 1, 0xff } },
	{ "mmio_read_user", "4-byte MMIO read outside guest memory, answered by kvmbench's userspace",
	  KB_LOOP_MMIO_READ, 1.0, .param = { KB_MMIO_GPA } },
	{ "hypercall", "VMCALL (Intel) or VMMCALL (AMD) with an unimplemented number, answered in KVM",
	  KB_LOOP_HYPERCALL, 1.0, KB_NEED_HYPERCALL },
	{ "mov_to_cr8", "MOV to CR8 (the TPR): no exit where the TPR is virtualized, trapped by kvm_pvm",
	  KB_LOOP_MOV_TO_CR8, 1.0, KB_NEED_IRQCHIP, .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
	{ "mov_from_cr8", "MOV from CR8 (the TPR): no exit where the TPR is virtualized, trapped by kvm_pvm",
	  KB_LOOP_MOV_FROM_CR8, 1.0, KB_NEED_IRQCHIP, .exits_on = { true, .intel = { 0, 0 }, .amd = { 0, 0 }, .pvm = { 1, 1 } } },
};

static void efermsr_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			   json_object *echo)
{
	if (t->loop == KB_LOOP_HYPERCALL) {
		param[0] = ctx->kvm->backend == KB_BACKEND_AMD;
		json_object_object_add(echo, "instruction", json_object_new_string(param[0] ? "vmmcall" : "vmcall"));
	}
	if (t->loop == KB_LOOP_RDMSR || t->loop == KB_LOOP_WRMSR)
		json_object_object_add(echo, "msr", json_object_new_uint64(param[0]));
	if (t->loop == KB_LOOP_IN || t->loop == KB_LOOP_OUT) {
		json_object_object_add(echo, "port", json_object_new_uint64(param[0]));
		json_object_object_add(echo, "width", json_object_new_uint64(param[1]));
	}
	if (t->loop == KB_LOOP_MMIO_READ)
		json_object_object_add(echo, "gpa", json_object_new_uint64(param[0]));
}

const struct kb_suite kb_suite_efermsr = {
	.name = "efer-msr",
	.summary = "EFER/MSR switching, port I/O and MMIO round trips, hypercall and CR8 exits",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.params = efermsr_params,
};
