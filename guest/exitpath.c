/* exitpath.c: guest loops of the exit-path suite: MSR, port I/O, MMIO, hypercall and CR8 exits. */
#include "guest.h"

#define MSR_EFER 0xc0000080
#define EFER_SCE 1ULL

static inline uint64_t rdmsr(uint32_t index)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(index) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t index, uint64_t val)
{
	__asm__ volatile("wrmsr" : : "c"(index), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)) : "memory");
}

void loop_rdmsr(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t index = (uint32_t)mb->param[0];
	uint64_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		v = rdmsr(index);
	mb->args[0] = v;
}

void loop_wrmsr(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t index = (uint32_t)mb->param[0];
	uint64_t val = mb->param[1];

	for (uint64_t i = 0; i < iters; i++)
		wrmsr(index, val);
}

void loop_efer_toggle(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t efer = rdmsr(MSR_EFER);

	/* SCE only matters to SYSCALL, which the guest never executes. */
	for (uint64_t i = 0; i < iters; i++) {
		efer ^= EFER_SCE;
		wrmsr(MSR_EFER, efer);
	}
	if (iters & 1)
		wrmsr(MSR_EFER, efer ^ EFER_SCE);
	mb->args[0] = rdmsr(MSR_EFER);
}

void loop_in(struct kb_mailbox *mb, uint64_t iters)
{
	uint16_t port = (uint16_t)mb->param[0];
	uint32_t v = 0;

	for (uint64_t i = 0; i < iters; i++) {
		switch (mb->param[1]) {
		case 1: { uint8_t b; __asm__ volatile("inb %1, %0" : "=a"(b) : "Nd"(port)); v = b; break; }
		case 2: { uint16_t w; __asm__ volatile("inw %1, %0" : "=a"(w) : "Nd"(port)); v = w; break; }
		default: __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); break;
		}
	}
	mb->args[0] = v;
}

void loop_out(struct kb_mailbox *mb, uint64_t iters)
{
	uint16_t port = (uint16_t)mb->param[0];
	uint32_t v = (uint32_t)mb->param[2];

	for (uint64_t i = 0; i < iters; i++) {
		switch (mb->param[1]) {
		case 1: __asm__ volatile("outb %0, %1" : : "a"((uint8_t)v), "Nd"(port)); break;
		case 2: __asm__ volatile("outw %0, %1" : : "a"((uint16_t)v), "Nd"(port)); break;
		default: __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); break;
		}
	}
}

void loop_mmio_read(struct kb_mailbox *mb, uint64_t iters)
{
	volatile uint32_t *p = (volatile uint32_t *)mb->param[0];
	uint32_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		v = *p;
	mb->args[0] = v;
}

void loop_hypercall(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t ret = 0;

	/* Hypercall number 0 is not one KVM implements: it answers -KVM_ENOSYS in the kernel. */
	for (uint64_t i = 0; i < iters; i++) {
		if (mb->param[0])
			__asm__ volatile("vmmcall" : "=a"(ret) : "a"(0ULL) : "memory");
		else
			__asm__ volatile("vmcall" : "=a"(ret) : "a"(0ULL) : "memory");
	}
	mb->args[0] = ret;
}

void loop_mov_to_cr8(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile("mov %0, %%cr8" : : "r"(0ULL) : "memory");
}

void loop_mov_from_cr8(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile("mov %%cr8, %0" : "=r"(v) : : "memory");
	mb->args[0] = v;
}
