/* SPDX-License-Identifier: GPL-2.0-or-later */
/* microbench.c: the arm64 exit suite of kvm-unit-tests' arm/micro-bench.c: an HVC KVM answers, MMIO
 * reads answered by kvmbench and by the vGIC, an EOI with nothing in service, an SGI between two
 * vCPUs, and the virtual timer 10 ms ahead (docs/conformance.md has what each times). */
#include <errno.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/suite.h"
#include "vmm/machine.h"

/* micro-bench's hvc_exec: w0 = 0x4b000000, an SMCCC id KVM answers NOT_SUPPORTED in the kernel. */
#define MB_HVC_FUNCTION 0x4b000000ULL
#define GICD_IIDR 0x0008

static const struct kb_test_def tests[] = {
	{ "hvc", "HVC #0 with SMCCC function id 0x4b000000, which KVM answers in the kernel (NOT_SUPPORTED)",
	  KB_LOOP_HVC, 1.0, .param = { MB_HVC_FUNCTION }, .stats = { { "hvc_exit_stat", 1.0 } } },
	{ "mmio_read_user", "32-bit read of an address no memslot or device backs: an MMIO exit answered by "
	  "kvmbench's userspace", KB_LOOP_MMIO_READ, 1.0, .param = { KB_MMIO_GPA },
	  .stats = { { "mmio_exit_user", 1.0 } } },
	{ "mmio_read_vgic", "32-bit read of the vGIC distributor's GICD_IIDR, answered in the kernel",
	  KB_LOOP_MMIO_READ, 1.0, .param = { KB_ARM64_GICD_GPA + GICD_IIDR },
	  .stats = { { "mmio_exit_kernel", 1.0 }, { "mmio_exit_user", 0.0 } } },
	{ "eoi", "write of the spurious INTID 1023 to ICC_EOIR1_EL1, nothing in service: the GIC CPU "
	  "interface's virtual EOI, no exit", KB_LOOP_GIC, 0.0, .param = { KB_GIC_EOI } },
	/* vCPU 0's SGI write traps (ICC_SGI1R_EL1), and the kick that brings the SGI to the spinning vCPU 1
	 * is an exit of its own: two per iteration between them. */
	{ "ipi", "SGI 1 from vCPU 0 to vCPU 1 (ICC_SGI1R_EL1), vCPU 1 spinning with interrupts on; timed "
	  "until its handler has run", KB_LOOP_GIC, 2.0, KB_NEED_2VCPUS, .param = { KB_GIC_IPI }, .vcpus = 2,
	  .lead_vcpu_only = true, .irqs_per_iter = 1.0 },
	/* As ipi, the sender's exit being its GITS_CWRITER write, which KVM's ITS answers in the kernel. */
	{ "lpi", "LPI 8199 through the ITS: an INT command (device 2, event 20) queued and GITS_CWRITER "
	  "written by vCPU 0, the LPI taken by vCPU 1 spinning with interrupts on; timed until its handler has run",
	  KB_LOOP_GIC, 2.0, KB_NEED_2VCPUS, .param = { KB_GIC_LPI_ITS }, .vcpus = 2, .lead_vcpu_only = true,
	  .irqs_per_iter = 1.0, .stats = { { "mmio_exit_kernel", 1.0 } } },
	/* The timer's own exit (its interrupt arrives as the host's), plus whatever host ticks fall in the
	 * 10 ms: up to 1000 Hz, 10 more. */
	{ "timer_10ms", "the virtual timer's compare value 10 ms ahead, then a busy wait until its interrupt "
	  "(the time past 10 ms is the latency)", KB_LOOP_GIC, 1.0, .param = { KB_GIC_TIMER },
	  .exits_on = { true, .arm64 = { 1, 11 } }, .irqs_per_iter = 1.0 },
};

#define TIMER_AHEAD_MS 10

static void microbench_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			      json_object *echo)
{
	switch (t->loop) {
	case KB_LOOP_HVC:
		kb_json_set_str(echo, "instruction", "hvc");
		kb_json_set_u64(echo, "function_id", param[0]);
		break;
	case KB_LOOP_MMIO_READ:
		kb_json_set_u64(echo, "gpa", param[0]);
		kb_json_set_u64(echo, "width", 4);
		kb_json_set_str(echo, "answered_by", param[0] == KB_MMIO_GPA ? "userspace" : "vgic");
		break;
	case KB_LOOP_GIC:
		kb_json_set_str(echo, "gic", "v3");
		if (param[0] == KB_GIC_EOI) {
			kb_json_set_str(echo, "register", "icc_eoir1_el1");
			kb_json_set_u64(echo, "intid", KB_GIC_SPURIOUS);
		} else if (param[0] == KB_GIC_IPI) {
			kb_json_set_u64(echo, "sgi", KB_GIC_SGI);
			kb_json_set_str(echo, "receiver", "spin");
		} else if (param[0] == KB_GIC_LPI_ITS) {
			kb_json_set_u64(echo, "lpi", KB_GIC_LPI_INTID);
			kb_json_set_u64(echo, "device", KB_GIC_ITS_DEVICE);
			kb_json_set_u64(echo, "event", KB_GIC_ITS_EVENT);
			kb_json_set_u64(echo, "collection", KB_GIC_ITS_COLLECTION);
			kb_json_set_str(echo, "set_up_by", "guest");
			kb_json_set_str(echo, "trigger", "int_command");
			kb_json_set_str(echo, "receiver", "spin");
		} else if (param[0] == KB_GIC_TIMER) {
			kb_json_set_str(echo, "timer", "virtual");
			kb_json_set_u64(echo, "intid", KB_GIC_VTIMER_PPI);
			kb_json_set_u64(echo, "ahead_ms", TIMER_AHEAD_MS);
		}
		break;
	default:
		break;
	}
}

/* The SGI's patience (include/kb_abi.h): one not there by then is sent again, and counted; and the
 * timer's 10 ms in counter ticks, as micro-bench's timer_exec (cntfrq / 100). */
static void microbench_prepare(const struct kb_run_ctx *ctx, const struct kb_test_def *t, const struct kb_machine *m,
			       uint64_t param[6])
{
	if (t->loop != KB_LOOP_GIC)
		return;
	param[1] = kb_machine_patience_cycles(m, ctx->opts->timeout_ns);
	if (param[0] == KB_GIC_TIMER)
		param[2] = (uint64_t)m->vcpus[0].tsc_khz * TIMER_AHEAD_MS;
}

/* A machine whose KVM has no ITS (irqchip_note says why) cannot take an LPI: skipped with the reason. */
static int microbench_failed(const struct kb_run_ctx *ctx, const struct kb_test_def *t, const struct kb_machine *m,
			     int err)
{
	if (t->param[0] == KB_GIC_LPI_ITS && t->loop == KB_LOOP_GIC && m->irqchip_fd[1] < 0 && m->irqchip_note[0])
		return kb_fail(ENOTSUP, "the lpi test needs the vGIC's ITS, and this KVM gave none (%s)", m->irqchip_note);
	return err;
}

const struct kb_suite kb_suite_microbench = {
	.name = "micro-bench",
	.summary = "kvm-unit-tests arm/micro-bench's exits: HVC, MMIO to userspace and to the vGIC, EOI, SGI "
		   "between vCPUs, the virtual timer",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.params = microbench_params,
	.prepare = microbench_prepare,
	.failed = microbench_failed,
	.arches = KB_ARCH_ARM64,
};
