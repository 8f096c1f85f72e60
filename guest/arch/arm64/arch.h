/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch.h (arm64): the instructions guest code needs, as inline functions: the counter, system
 * registers, device-memory accesses, the call channel's MMIO doorbell.  Only guest/arch/arm64/ and
 * the common guest code include it. */
#ifndef KB_GUEST_ARCH_H
#define KB_GUEST_ARCH_H

#include <stdint.h>

/* The loops of include/kb_loops.h this image has. */
#define GUEST_ARCH_LOOPS KB_LOOP_ARM64

#define read_sysreg(r) ({ uint64_t __v; __asm__ volatile("mrs %0, " #r : "=r"(__v) : : "memory"); __v; })
#define write_sysreg(v, r) __asm__ volatile("msr " #r ", %0" : : "r"((uint64_t)(v)) : "memory")

static inline void isb(void)
{
	__asm__ volatile("isb" : : : "memory");
}

/*
 * Device accesses as single LDR/STR with a plain base register: an access KVM has to answer must
 * come with a valid syndrome (ESR_EL2.ISV), which loads and stores with writeback do not give.
 */
static inline uint32_t mmio_read32(uint64_t gpa)
{
	uint32_t v;

	__asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(gpa) : "memory");
	return v;
}

static inline void mmio_write32(uint64_t gpa, uint32_t v)
{
	__asm__ volatile("str %w0, [%1]" : : "rZ"(v), "r"(gpa) : "memory");
}

static inline void mmio_write64(uint64_t gpa, uint64_t v)
{
	__asm__ volatile("str %x0, [%1]" : : "rZ"(v), "r"(gpa) : "memory");
}

static inline uint64_t mmio_read64(uint64_t gpa)
{
	uint64_t v;

	__asm__ volatile("ldr %x0, [%1]" : "=r"(v) : "r"(gpa) : "memory");
	return v;
}

static inline void mmio_write8(uint64_t gpa, uint8_t v)
{
	__asm__ volatile("strb %w0, [%1]" : : "rZ"(v), "r"(gpa) : "memory");
}

/* The cycle counter the guest times its loops with: the virtual count, ordered by ISBs (as
 * kvm-unit-tests' micro-bench reads its counter between two ISBs). */
static inline uint64_t arch_cycles_ordered(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0; isb" : "=r"(v) : : "memory");
	return v;
}

/* The virtual count, unordered: for looks at the clock that time nothing. */
static inline uint64_t arch_cycles(void)
{
	return read_sysreg(cntvct_el0);
}

/*
 * Code the guest wrote at 'addr' (a stub, within one cache line: the smallest line is 16 bytes and
 * the stubs are 16-byte aligned at a page's start) made visible to instruction fetches, as the
 * architecture requires (ARM DDI 0487, "Concurrent modification and execution of instructions"):
 * the data cache line cleaned to the point of unification, then the instruction cache line
 * invalidated; arch_code_ready()'s ISB on the executing vCPU, before its first call.
 */
static inline void arch_code_written(uint64_t addr)
{
	__asm__ volatile("dc cvau, %0; dsb ish; ic ivau, %0; dsb ish" : : "r"(addr) : "memory");
}

static inline void arch_code_ready(void)
{
	isb();
}

/* Tell the host a call is waiting in the mailbox: one 32-bit write to KB_UCALL_GPA (KVM_EXIT_MMIO). */
static inline void arch_ucall_doorbell(uint32_t call)
{
	__asm__ volatile("dsb sy" : : : "memory");
	mmio_write32(KB_UCALL_GPA, call);
}

static inline void irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" : : : "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" : : : "memory");
}

/* Stop this vCPU for good. */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	for (;;)
		__asm__ volatile("msr daifset, #0xf; wfi" : : : "memory");
}

#endif
