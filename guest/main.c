/* main.c: the guest's dispatcher: set up the IDT, then run what the host asks for. */
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
extern const char irq_stub_ipi[], irq_stub_timer[], irq_stub_spurious[];

static void loop_spin(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	(void)iters;
	for (;;)
		__asm__ volatile("pause");
}

static void loop_ud2(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	(void)iters;
	__asm__ volatile("ud2");
}

static void loop_triple(struct kb_mailbox *mb, uint64_t iters)
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

static void loop_nop(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile("" : : : "memory");
}

/* The one table of guest loops, indexed by enum kb_loop. */
static const guest_loop_fn loops[KB_LOOP_MAX] = {
	[KB_LOOP_CPUID] = loop_cpuid,
	[KB_LOOP_SPIN] = loop_spin,
	[KB_LOOP_UD2] = loop_ud2,
	[KB_LOOP_NOP] = loop_nop,
	[KB_LOOP_RDMSR] = loop_rdmsr,
	[KB_LOOP_WRMSR] = loop_wrmsr,
	[KB_LOOP_EFER_TOGGLE] = loop_efer_toggle,
	[KB_LOOP_IN] = loop_in,
	[KB_LOOP_OUT] = loop_out,
	[KB_LOOP_MMIO_READ] = loop_mmio_read,
	[KB_LOOP_HYPERCALL] = loop_hypercall,
	[KB_LOOP_MOV_TO_CR8] = loop_mov_to_cr8,
	[KB_LOOP_MOV_FROM_CR8] = loop_mov_from_cr8,
	[KB_LOOP_APIC] = loop_apic,
	[KB_LOOP_MEM] = loop_mem,
	[KB_LOOP_TRIPLE] = loop_triple,
};

static void str_copy(char *dst, const char *src, unsigned int max)
{
	unsigned int i = 0;

	while (src[i] && i + 1 < max) {
		dst[i] = src[i];
		i++;
	}
	dst[i] = 0;
}

static struct kb_mailbox *self_mailbox(void)
{
	struct kb_mailbox *mb;

	/* Every vCPU has its own stack, so the mailbox is found from the stack pointer. */
	uint64_t rsp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(rsp));
	uint64_t id = (rsp - KB_STACK_GPA) / KB_STACK_SIZE;
	mb = (struct kb_mailbox *)(KB_VCPU_AREA_GPA + id * KB_VCPU_AREA_SIZE);
	return mb;
}

void guest_ucall(struct kb_mailbox *mb, enum kb_ucall call)
{
	mb->call = call;
	outl(KB_UCALL_PORT, call);
}

void guest_abort(const char *file, int line, const char *what)
{
	struct kb_mailbox *mb = self_mailbox();
	char num[12];
	int n = 0;

	str_copy(mb->msg, file, sizeof(mb->msg));
	do {
		num[n++] = '0' + line % 10;
		line /= 10;
	} while (line && n < 11);
	unsigned int len = 0;
	while (mb->msg[len])
		len++;
	if (len + n + 2 < sizeof(mb->msg)) {
		mb->msg[len++] = ':';
		while (n)
			mb->msg[len++] = num[--n];
		mb->msg[len] = 0;
	}
	len = 0;
	while (mb->msg[len])
		len++;
	if (len + 2 < sizeof(mb->msg)) {
		mb->msg[len++] = ':';
		mb->msg[len++] = ' ';
		str_copy(mb->msg + len, what, sizeof(mb->msg) - len);
	}
	for (;;)
		guest_ucall(mb, KB_UC_ABORT);
}

void guest_exception(uint64_t *frame)
{
	struct kb_mailbox *mb = self_mailbox();

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

static void idt_setup(void)
{
	for (int v = 0; v < 32; v++)
		idt_set(v, exc_stub_table[v]);
	idt_set(KB_IPI_VECTOR, (uint64_t)irq_stub_ipi);
	idt_set(KB_TIMER_VECTOR, (uint64_t)irq_stub_timer);
	idt_set(KB_SPURIOUS_VECTOR, (uint64_t)irq_stub_spurious);
}

extern const char guest_hlt_insn[];

/* Called by the interrupt stubs (entry.S) with the interrupt frame (rip first). */
void guest_irq(uint64_t vector, uint64_t *frame);

void guest_irq(uint64_t vector, uint64_t *frame)
{
	struct kb_mailbox *mb = self_mailbox();

	(void)vector;
	mb->irq_count++;
	/* Taken before the HLT that STI's shadow covers: the hypervisor stack broke the shadow.
	 * Going back to the HLT would wait for an interrupt that has already come. */
	if (frame[0] == (uint64_t)guest_hlt_insn) {
		frame[0]++;
		mb->shadow_violations++;
	}
	guest_apic_eoi();
}

void guest_main(uint64_t vcpu_id, struct kb_mailbox *mb);

void guest_main(uint64_t vcpu_id, struct kb_mailbox *mb)
{
	/* All vCPUs write the same gates; doing it everywhere avoids ordering the vCPUs. */
	idt_setup();
	GUEST_ASSERT(mb->vcpu_id == vcpu_id);

	for (;;) {
		guest_ucall(mb, KB_UC_NEXT);
		switch (mb->op) {
		case KB_OP_QUIT:
			for (;;)
				__asm__ volatile("cli; hlt");
		case KB_OP_LOOP: {
			uint64_t test = mb->test, iters = mb->iters;

			GUEST_ASSERT(test > 0 && test < KB_LOOP_MAX && loops[test]);
			mb->tsc_begin = rdtsc_ordered();
			loops[test](mb, iters);
			mb->tsc_end = rdtsc_ordered();
			mb->done_iters = iters;
			break;
		}
		default:
			GUEST_ASSERT(!"unknown op from host");
		}
	}
}
