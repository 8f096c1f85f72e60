/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-exitpath.c: guest loops of the exit-path suite: MSR, port I/O, MMIO and CR8 exits. */
#include "guest.h"

#define MSR_EFER 0xc0000080
#define EFER_SCE 1ULL

void loop_rdmsr(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t index = (uint32_t)mb->param[0];
	uint64_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		v = rdmsr(index);
	mb->args[0] = v;
}

/* A defect on purpose (selftest/exits_vary): most samples exit twice per iteration, every fourth
 * once, so only a verdict that looks past the least disturbed sample catches it. */
void loop_rdmsr_vary(struct kb_mailbox *mb, uint64_t iters)
{
	static uint64_t calls;
	uint32_t index = (uint32_t)mb->param[0];
	uint64_t v = 0;
	int twice = calls++ % 4 != 0;

	for (uint64_t i = 0; i < iters; i++) {
		v = rdmsr(index);
		if (twice)
			v += rdmsr(index);
	}
	mb->args[0] = v;
}

/* A known real difference (selftest/rdmsr_plus5): one RDMSR per iteration and one more every
 * param[1]-th iteration, so the work grows by exactly 1/param[1]; never a sleep. */
void loop_rdmsr_plus(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t index = (uint32_t)mb->param[0];
	uint64_t every = mb->param[1] ? mb->param[1] : 1;
	uint64_t v = 0, k = 0;

	for (uint64_t i = 0; i < iters; i++) {
		v += rdmsr(index);
		if (++k == every) {
			k = 0;
			v += rdmsr(index);
		}
	}
	mb->args[0] = v;
}

void loop_wrmsr(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t index = (uint32_t)mb->param[0];
	uint64_t val = mb->param[1];

	for (uint64_t i = 0; i < iters; i++)
		wrmsr(index, val);
}

/* The guest's EFER, read once (long mode sets LME and LMA, so 0 means not yet; that one RDMSR exit
 * falls in the first, calibration sample), then the last value the loop wrote: no sample pays an
 * exit beyond its WRMSRs, and SCE simply goes on flipping from one sample to the next.  Per vCPU. */
static uint64_t efer_of[KB_MAX_VCPUS];

void loop_efer_toggle(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t *efer = &efer_of[mb->vcpu_id % KB_MAX_VCPUS];

	if (!*efer)
		*efer = rdmsr(MSR_EFER);
	/* SCE only matters to SYSCALL, which the guest never executes. */
	for (uint64_t i = 0; i < iters; i++) {
		*efer ^= EFER_SCE;
		wrmsr(MSR_EFER, *efer);
	}
	mb->args[0] = *efer;
}

/* One port access per call, out of line so that tests/scripts/conformance.test finds it in guest.elf
 * (kvm-unit-tests' inl_from_kernel is inb, outl_to_kernel outb, inl_from_qemu inl). */
#define TIMED __attribute__((noipa))
uint32_t kb_timed_inb(uint16_t port);
uint32_t kb_timed_inw(uint16_t port);
uint32_t kb_timed_inl(uint16_t port);
void kb_timed_outb(uint16_t port, uint32_t v);
void kb_timed_outw(uint16_t port, uint32_t v);
void kb_timed_outl(uint16_t port, uint32_t v);

TIMED uint32_t kb_timed_inb(uint16_t port)
{
	uint8_t b;

	__asm__ volatile("inb %1, %0" : "=a"(b) : "Nd"(port));
	return b;
}

TIMED uint32_t kb_timed_inw(uint16_t port)
{
	uint16_t w;

	__asm__ volatile("inw %1, %0" : "=a"(w) : "Nd"(port));
	return w;
}

TIMED uint32_t kb_timed_inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

TIMED void kb_timed_outb(uint16_t port, uint32_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"((uint8_t)v), "Nd"(port));
}

TIMED void kb_timed_outw(uint16_t port, uint32_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"((uint16_t)v), "Nd"(port));
}

TIMED void kb_timed_outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

void loop_in(struct kb_mailbox *mb, uint64_t iters)
{
	uint16_t port = (uint16_t)mb->param[0];
	uint32_t (*in)(uint16_t) = mb->param[1] == 1 ? kb_timed_inb : mb->param[1] == 2 ? kb_timed_inw : kb_timed_inl;
	uint32_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		v = in(port);
	mb->args[0] = v;
}

void loop_out(struct kb_mailbox *mb, uint64_t iters)
{
	uint16_t port = (uint16_t)mb->param[0];
	uint32_t v = (uint32_t)mb->param[2];
	void (*out)(uint16_t, uint32_t) = mb->param[1] == 1 ? kb_timed_outb : mb->param[1] == 2 ? kb_timed_outw : kb_timed_outl;

	for (uint64_t i = 0; i < iters; i++)
		out(port, v);
}

void loop_mmio_read(struct kb_mailbox *mb, uint64_t iters)
{
	volatile uint32_t *p = (volatile uint32_t *)mb->param[0];
	uint32_t v = 0;

	for (uint64_t i = 0; i < iters; i++)
		v = *p;
	mb->args[0] = v;
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
