/* SPDX-License-Identifier: GPL-2.0-or-later */
/* traps.c (arm64): the vCPU's own mailbox, the exception report, the interrupt handler (GICv3 CPU
 * interface), and the loops that exist to make the guest fail in a chosen way (spin, UDF). */
#include "guest.h"
#include "gic.h"

struct kb_mailbox *guest_self_mailbox(void)
{
	uint64_t sp;

	/* Every vCPU has its own stack, so the mailbox is found from the stack pointer. */
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	return (struct kb_mailbox *)(KB_VCPU_AREA_GPA + (sp - KB_STACK_GPA) / KB_STACK_SIZE * KB_VCPU_AREA_SIZE);
}

void guest_traps_setup(void)
{
	/* VBAR_EL1 is set by the entry code, before the MMU goes on; nothing is left to do here. */
}

/* From the vectors (entry.S): the vector's index (0-15), ESR_EL1, ELR_EL1, FAR_EL1. */
void guest_exception(uint64_t index, uint64_t esr, uint64_t elr, uint64_t far);

void guest_exception(uint64_t index, uint64_t esr, uint64_t elr, uint64_t far)
{
	struct kb_mailbox *mb = guest_self_mailbox();

	/* args[0] is the exception class (ESR_EL1.EC) for a synchronous exception, else 0x100 + the
	 * vector's index (an IRQ from the wrong stack, an FIQ, an SError). */
	mb->args[0] = (index & 3) == 0 ? (esr >> 26) & 0x3f : 0x100 + index;
	mb->args[1] = esr;
	mb->args[2] = elr;
	mb->args[3] = far;
	for (;;)
		guest_ucall(mb, KB_UC_FAULT);
}

/* From the IRQ vector (entry.S), interrupts masked: acknowledge, count, EOI. */
void guest_irq(void);

void guest_irq(void)
{
	struct kb_mailbox *mb = guest_self_mailbox();
	struct kb_shared *sh = (struct kb_shared *)KB_DATA_GPA;
	uint64_t intid = read_sysreg(icc_iar1_el1) & 0xffffff;

	if (intid == KB_GIC_SPURIOUS)
		return;
	/* The virtual timer's line stays high until it is masked (micro-bench's handler does the same). */
	if (intid == KB_GIC_VTIMER_PPI)
		write_sysreg(CNTV_CTL_ENABLE | CNTV_CTL_IMASK, cntv_ctl_el0);
	mb->irq_count++;
	sh->irq_received = 1;
	write_sysreg(intid, icc_eoir1_el1);
	isb();
}

void loop_spin(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	(void)iters;
	for (;;)
		__asm__ volatile("yield");
}

void loop_udf(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	(void)iters;
	__asm__ volatile("udf #0");
}
