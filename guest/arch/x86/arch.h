/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch.h (x86): the instructions guest code needs, as inline functions: port I/O, the TSC, CPUID,
 * MSRs.  Only guest/arch/x86/ and the common guest code include it. */
#ifndef KB_GUEST_ARCH_H
#define KB_GUEST_ARCH_H

#include <stdint.h>

/* The loops of include/kb_loops.h this image has. */
#define GUEST_ARCH_LOOPS KB_LOOP_X86

static inline void outl(uint16_t port, uint32_t val)
{
	__asm__ volatile("outl %0, %1" : : "a"(val), "Nd"(port) : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
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

/* The cycle counter the guest times its loops with. */
static inline uint64_t arch_cycles_ordered(void)
{
	return rdtsc_ordered();
}

/* The cycle counter, unordered: for looks at the clock that time nothing. */
static inline uint64_t arch_cycles(void)
{
	return rdtsc();
}

/* Code the guest wrote at 'addr' is executable after it: x86 keeps its instruction fetches coherent
 * with its stores (a stub written, then called, needs nothing between). */
static inline void arch_code_written(uint64_t addr)
{
	(void)addr;
}

static inline void arch_code_ready(void)
{
}

/* Tell the host a call is waiting in the mailbox (the call channel's doorbell). */
static inline void arch_ucall_doorbell(uint32_t call)
{
	outl(KB_UCALL_PORT, call);
}

/* Stop this vCPU for good. */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

#endif
