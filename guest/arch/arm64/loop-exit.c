/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-exit.c (arm64): the exit loops of kvm-unit-tests arm/micro-bench.c's tests (hvc, mmio_read_user,
 * mmio_read_vgic, eoi, ipi, timer_10ms; lpi in loop-its.c) and the MMIO loops the x86 image has too.  The instructions
 * one iteration times are in one out-of-line function per test, kb_timed_<test name> (noipa), which
 * docs/conformance.md names. */
#include "guest.h"
#include "gic.h"

#define TIMED __attribute__((noipa))

/* micro-bench's hvc_exec: an SMCCC call KVM answers itself, NOT_SUPPORTED in x0. */
TIMED uint64_t kb_timed_hvc(uint64_t fn)
{
	register uint64_t x0 __asm__("x0") = fn;

	__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
	return x0;
}

void loop_hvc(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t fn = mb->param[0], ret = 0;

	for (uint64_t i = 0; i < iters; i++)
		ret = kb_timed_hvc(fn);
	/* The host checks who answered: KVM's SMCCC NOT_SUPPORTED is -1. */
	mb->args[0] = ret;
}

/* micro-bench's mmio_read_user_exec and mmio_read_vgic_exec: one 32-bit read (readl). */
TIMED uint32_t kb_timed_mmio_read(uint64_t gpa)
{
	return mmio_read32(gpa);
}

void loop_mmio_read(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t gpa = mb->param[0];
	uint32_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		v = kb_timed_mmio_read(gpa);
	mb->args[0] = v;
}

void loop_mmio_write(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t gpa = mb->param[0];
	uint8_t v = (uint8_t)mb->param[1];

	for (uint64_t i = 0; i < iters; i++)
		mmio_write8(gpa, v);
}

void gic_cpu_setup(struct kb_mailbox *mb)
{
	uint64_t rd = KB_ARM64_GICR_GPA + mb->vcpu_id * KB_ARM64_GICR_SIZE, sgi = rd + GICR_SGI_BASE;

	/* Every vCPU enables the distributor (the same value): no vCPU waits for another's. */
	mmio_write32(KB_ARM64_GICD_GPA + GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_G1);
	mmio_write32(rd + GICR_WAKER, 0);
	mmio_write32(sgi + GICR_IGROUPR0, 0xffffffffu);
	for (int i = 0; i < 8; i++)
		mmio_write32(sgi + GICR_IPRIORITYR0 + 4 * i, KB_GIC_PRIORITY * 0x01010101u);
	mmio_write32(sgi + GICR_ISENABLER0, (1u << KB_GIC_SGI) | (1u << KB_GIC_VTIMER_PPI));
	write_sysreg(read_sysreg(icc_sre_el1) | 1, icc_sre_el1);
	isb();
	write_sysreg(KB_GIC_PMR, icc_pmr_el1);
	write_sysreg(0, icc_bpr1_el1);
	write_sysreg(1, icc_igrpen1_el1);
	isb();
}

/* micro-bench's eoi_exec: an EOI of the spurious INTID, with nothing in service. */
TIMED void kb_timed_gic_eoi(void)
{
	write_sysreg(KB_GIC_SPURIOUS, icc_eoir1_el1);
}

/* ICC_SGI1R_EL1 for SGI 'intid' to the vCPU with MPIDR Aff0 'vcpu' (KVM gives vCPU n Aff0 n
 * for n < 16), Aff1-3 zero. */
static inline uint64_t sgi1r(uint64_t intid, uint64_t vcpu)
{
	return (intid << 24) | (1ULL << vcpu);
}

/* micro-bench's ipi_exec: SGI 1 to vCPU 1, then wait for its handler (irq_received).  An SGI that
 * has not arrived after 'patience' counter ticks is sent again, and counted. */
TIMED void kb_timed_ipi(struct kb_mailbox *mb, volatile struct kb_shared *sh, uint64_t patience)
{
	uint64_t sent;

	sh->irq_received = 0;
	write_sysreg(sgi1r(KB_GIC_SGI, 1), icc_sgi1r_el1);
	isb();
	sent = read_sysreg(cntvct_el0);
	while (!sh->irq_received) {
		__asm__ volatile("yield" : : : "memory");
		if (patience && read_sysreg(cntvct_el0) - sent > patience) {
			mb->ipi_resends++;
			write_sysreg(sgi1r(KB_GIC_SGI, 1), icc_sgi1r_el1);
			isb();
			sent = read_sysreg(cntvct_el0);
		}
	}
}

/* The timer_10ms test: the virtual timer's compare value 'ticks' ahead, enabled, and a busy wait
 * (interrupts on) until its interrupt is taken; the handler masks the timer. */
TIMED void kb_timed_timer_10ms(struct kb_mailbox *mb, uint64_t ticks)
{
	uint64_t seen = mb->irq_count;

	write_sysreg(read_sysreg(cntvct_el0) + ticks, cntv_cval_el0);
	write_sysreg(CNTV_CTL_ENABLE, cntv_ctl_el0);
	isb();
	while (mb->irq_count == seen)
		__asm__ volatile("yield" : : : "memory");
}

/* vCPU 1 spins with interrupts on (micro-bench's gic_secondary_entry) until it has taken 'iters'
 * interrupts; vCPU 0 sends SGIs, or LPIs through the ITS.  The host starts the next sample only
 * after both are back. */
static void two_vcpu_ipi(struct kb_mailbox *mb, uint64_t iters, enum kb_gic_test test)
{
	volatile struct kb_shared *sh = (volatile struct kb_shared *)KB_DATA_GPA;

	if (mb->vcpu_id == 1) {
		uint64_t last = mb->irq_count + iters;

		irq_enable();
		sh->receiver_ready = 1;
		while (mb->irq_count < last)
			__asm__ volatile("yield" : : : "memory");
		/* A resent SGI can be taken twice (the first had only been slow), and the count reach
		 * 'last' while the sender still waits for one: this vCPU stays, interrupts on, until the
		 * sender has seen its last one handled (as x86's receiver does).  Without resends the
		 * sender is a store away by now. */
		while (sh->ipi_sent < iters)
			__asm__ volatile("yield" : : : "memory");
		irq_disable();
		sh->receiver_ready = 0;
		return;
	}
	if (mb->vcpu_id != 0)
		return;
	/* Seen by vCPU 1 before the first interrupt of this sample is (the DSB orders the store before
	 * the SGI or ITS command that follows, as Linux orders its stores before an SGI). */
	sh->ipi_sent = 0;
	__asm__ volatile("dsb ish" : : : "memory");
	while (!sh->receiver_ready)
		__asm__ volatile("yield" : : : "memory");
	if (test == KB_GIC_LPI_ITS)
		gic_lpi_loop(mb, iters);
	else
		for (uint64_t i = 0; i < iters; i++)
			kb_timed_ipi(mb, sh, mb->param[1]);
	/* Every one was seen handled: each timed send waits for its handler. */
	sh->ipi_sent = iters;
}

void loop_gic(struct kb_mailbox *mb, uint64_t iters)
{
	enum kb_gic_test test = (enum kb_gic_test)mb->param[0];

	/* Set up once, in the first (calibration) sample, so that no sample pays for it. */
	if (!mb->apic_ready) {
		gic_cpu_setup(mb);
		if (test == KB_GIC_LPI_ITS)
			gic_lpi_setup(mb);
		mb->apic_ready = 1;
	}
	switch (test) {
	case KB_GIC_EOI:
		for (uint64_t i = 0; i < iters; i++)
			kb_timed_gic_eoi();
		break;
	case KB_GIC_IPI:
	case KB_GIC_LPI_ITS:
		two_vcpu_ipi(mb, iters, test);
		break;
	case KB_GIC_TIMER:
		irq_enable();
		for (uint64_t i = 0; i < iters; i++)
			kb_timed_timer_10ms(mb, mb->param[2]);
		irq_disable();
		write_sysreg(0, cntv_ctl_el0);
		break;
	default:
		GUEST_ASSERT(!"unknown GIC test");
	}
}
