/* SPDX-License-Identifier: GPL-2.0-or-later */
/* traps.c (x86): the IDT, the exception and interrupt handlers, the vCPU's own mailbox, and the
 * loops that exist to make the guest fail in a chosen way (spin, #UD, triple fault). */
#include "guest.h"

struct idt_gate {
	uint16_t off0;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off1;
	uint32_t off2;
	uint32_t zero;
};

extern const uint64_t exc_stub_table[32];
extern const char irq_stub_test[], irq_stub_smp[], irq_stub_spurious[];

struct kb_mailbox *guest_self_mailbox(void)
{
	struct kb_mailbox *mb;

	/* Every vCPU has its own stack, so the mailbox is found from the stack pointer. */
	uint64_t rsp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(rsp));
	uint64_t id = (rsp - KB_STACK_GPA) / KB_STACK_SIZE;
	mb = (struct kb_mailbox *)(KB_VCPU_AREA_GPA + id * KB_VCPU_AREA_SIZE);
	return mb;
}

void guest_exception(uint64_t *frame)
{
	struct kb_mailbox *mb = guest_self_mailbox();

	mb->args[0] = frame[0];   /* vector */
	mb->args[1] = frame[1];   /* error code */
	mb->args[2] = frame[2];   /* rip */
	mb->args[3] = frame[5];   /* rsp */
	for (;;)
		guest_ucall(mb, KB_UC_FAULT);
}

static void idt_set(int v, uint64_t off)
{
	struct idt_gate *idt = (struct idt_gate *)KB_IDT_GPA;

	idt[v].off0 = off & 0xffff;
	idt[v].sel = KB_SEL_CODE;
	idt[v].ist = 0;
	idt[v].type = 0x8e;   /* present, DPL0, 64-bit interrupt gate */
	idt[v].off1 = (off >> 16) & 0xffff;
	idt[v].off2 = off >> 32;
	idt[v].zero = 0;
}

void guest_traps_setup(void)
{
	for (int v = 0; v < 32; v++)
		idt_set(v, exc_stub_table[v]);
	idt_set(KB_TEST_VECTOR, (uint64_t)irq_stub_test);
	idt_set(KB_SMP_VECTOR, (uint64_t)irq_stub_smp);
	idt_set(KB_SPURIOUS_VECTOR, (uint64_t)irq_stub_spurious);
}

extern const char guest_hlt_insn[];

/* Called by the interrupt stubs (entry.S) with the interrupt frame (rip first). */
void guest_irq(uint64_t vector, uint64_t *frame);

void guest_irq(uint64_t vector, uint64_t *frame)
{
	struct kb_mailbox *mb = guest_self_mailbox();

	mb->irq_count++;
	/* Taken before the HLT that STI's shadow covers: the hypervisor stack broke the shadow.
	 * Going back to the HLT would wait for an interrupt that has already come. */
	if (frame[0] == (uint64_t)guest_hlt_insn) {
		frame[0]++;
		mb->shadow_violations++;
	}
	/* kvm-unit-tests' eoi sub-timing: its handler of IPI_TEST_VECTOR (self-IPIs, the TSC-deadline
	 * timer) reads the TSC around the EOI, this interrupt still in service; on_cpu()'s is untimed. */
	if (vector == KB_TEST_VECTOR)
		mb->tsc_eoi += guest_apic_timed_eoi();
	else
		guest_apic_eoi();
}

void loop_spin(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	(void)iters;
	for (;;)
		__asm__ volatile("pause");
}

void loop_ud2(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	(void)iters;
	__asm__ volatile("ud2");
}

void loop_triple(struct kb_mailbox *mb, uint64_t iters)
{
	/* With no gate to deliver #UD through, then #GP, then #DF, the CPU shuts down. */
	static const struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} empty_idt = { 0, 0 };

	(void)mb;
	(void)iters;
	__asm__ volatile("lidt %0; ud2" : : "m"(empty_idt));
}
