/* guest.h: what guest code shares: port I/O, the call channel, small CPU helpers. */
#ifndef KB_GUEST_H
#define KB_GUEST_H

#include <stdint.h>
#include "kb_abi.h"

static inline void outl(uint16_t port, uint32_t val)
{
	__asm__ volatile("outl %0, %1" : : "a"(val), "Nd"(port) : "memory");
}

static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	/* lfence keeps the TSC read from floating around the measured loop. */
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid_count(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub) : "memory");
}

void guest_ucall(struct kb_mailbox *mb, enum kb_ucall call);
void guest_abort(const char *file, int line, const char *what);

#define GUEST_ASSERT(cond) \
	do { if (!(cond)) guest_abort(__FILE__, __LINE__, #cond); } while (0)

/* A measured loop: run 'iters' iterations with the parameters the host gave. */
typedef void (*guest_loop_fn)(struct kb_mailbox *mb, uint64_t iters);

void loop_cpuid(struct kb_mailbox *mb, uint64_t iters);
void loop_rdmsr(struct kb_mailbox *mb, uint64_t iters);
void loop_wrmsr(struct kb_mailbox *mb, uint64_t iters);
void loop_efer_toggle(struct kb_mailbox *mb, uint64_t iters);
void loop_in(struct kb_mailbox *mb, uint64_t iters);
void loop_out(struct kb_mailbox *mb, uint64_t iters);
void loop_mmio_read(struct kb_mailbox *mb, uint64_t iters);
void loop_hypercall(struct kb_mailbox *mb, uint64_t iters);
void loop_mov_to_cr8(struct kb_mailbox *mb, uint64_t iters);
void loop_mov_from_cr8(struct kb_mailbox *mb, uint64_t iters);
void loop_apic(struct kb_mailbox *mb, uint64_t iters);
void loop_mem(struct kb_mailbox *mb, uint64_t iters);
void guest_apic_eoi(void);
void guest_sti_hlt(void);    /* entry.S */

#endif
