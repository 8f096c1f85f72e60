/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kb_loops.h: the one list of guest loops; the enum, the guest's prototypes and its dispatch table
 * are generated from it.  A new loop is one row here plus its function loop_<name>() in guest/. */
#ifndef KB_LOOPS_H
#define KB_LOOPS_H

/* The architectures whose guest image has a loop (the bits of enum kb_arch, src/vmm/cpuarch.h). */
#define KB_LOOP_X86   1u
#define KB_LOOP_ARM64 2u
#define KB_LOOP_BOTH  (KB_LOOP_X86 | KB_LOOP_ARM64)

/* X(NAME, name, ARCHES): enum KB_LOOP_NAME, guest function loop_name() in the images of ARCHES;
 * parameters as commented.  New rows go at the end: the numbers are the host's and guest's contract. */
#define KB_LOOP_LIST(X) \
	X(CPUID, cpuid, KB_LOOP_X86)               /* param[0] leaf, param[1] subleaf */ \
	X(SPIN, spin, KB_LOOP_BOTH)                 /* never returns: for the watchdog */ \
	X(UD2, ud2, KB_LOOP_X86)                   /* raises #UD: for the exception path */ \
	X(NOP, nop, KB_LOOP_BOTH)                   /* empty loop: measurement floor */ \
	X(RDMSR, rdmsr, KB_LOOP_X86)               /* param[0] MSR index */ \
	X(WRMSR, wrmsr, KB_LOOP_X86)               /* param[0] MSR index, param[1] value */ \
	X(EFER_TOGGLE, efer_toggle, KB_LOOP_X86)   /* WRMSR EFER flipping SCE every iteration */ \
	X(IN, in, KB_LOOP_X86)                     /* param[0] port, param[1] width in bytes (1, 2, 4) */ \
	X(OUT, out, KB_LOOP_X86)                   /* param[0] port, param[1] width, param[2] value */ \
	X(MMIO_READ, mmio_read, KB_LOOP_BOTH)       /* param[0] guest physical address, 4-byte read */ \
	X(HYPERCALL, hypercall, KB_LOOP_X86)       /* param[0] 1: VMMCALL (AMD), 0: VMCALL (Intel) */ \
	X(MOV_TO_CR8, mov_to_cr8, KB_LOOP_X86) \
	X(MOV_FROM_CR8, mov_from_cr8, KB_LOOP_X86) \
	X(APIC, apic, KB_LOOP_X86)                 /* param[0] enum kb_apic_mode, [1] enum kb_apic_test, [2] TSC delta, \
				       * [3] TSC cycles after which an IPI is taken as lost (0: never), \
				       * [4] enum kb_self_ipi_route */ \
	X(MEM, mem, KB_LOOP_BOTH)                  /* param[0] enum kb_mem_op, [1] first GPA, [2] bytes, [3] value, \
				       * [4] write percent, [5] TSC cycles between KB_UC_PROGRESS calls */ \
	X(TRIPLE, triple, KB_LOOP_X86)             /* loads an empty IDT, then raises #UD: the shutdown path */ \
	X(RDMSR_VARY, rdmsr_vary, KB_LOOP_X86)     /* param[0] MSR; one RDMSR per iteration in every 4th call, two in the \
				       * others: a loop whose least disturbed sample is not its typical one */ \
	X(RDMSR_PLUS, rdmsr_plus, KB_LOOP_X86)     /* param[0] MSR, param[1] N: one RDMSR per iteration and one more \
				       * every N-th: a known, real extra amount of work (1 + 1/N exits) */ \
	X(MOV_DR, mov_dr, KB_LOOP_X86)             /* MOV to DR7 */ \
	X(WBINVD, wbinvd, KB_LOOP_X86) \
	X(INVD, invd, KB_LOOP_X86) \
	X(TOGGLE_CR0_WP, toggle_cr0_wp, KB_LOOP_X86)   /* two MOV to CR0: WP cleared, WP set */ \
	X(TOGGLE_CR4_PGE, toggle_cr4_pge, KB_LOOP_X86) /* two MOV to CR4: PGE flipped, restored */ \
	X(WRMSR_PAIR, wrmsr_pair, KB_LOOP_X86)     /* param[0] MSR: WRMSR of param[1], then of param[2] */ \
	X(MMIO_WRITE, mmio_write, KB_LOOP_BOTH)     /* param[0] guest physical address, param[1] byte written */ \
	X(PLE_ROUND_ROBIN, ple_round_robin, KB_LOOP_X86)   /* param[0] vCPUs in the ring: PAUSE until the token comes */ \
	X(HVC, hvc, KB_LOOP_ARM64)    /* param[0] SMCCC function id in w0, HVC #0 */ \
	X(GIC, gic, KB_LOOP_ARM64)    /* param[0] enum kb_gic_test, [1] TSC (CNTVCT) cycles after which an \
				       * interrupt is taken as lost, [2] timer: counter ticks ahead */ \
	X(UDF, udf, KB_LOOP_ARM64)    /* UDF #0: an undefined instruction, for the exception path */

/* Loops the guest knows, selected by mailbox.test; 0 is no loop. */
enum kb_loop {
	KB_LOOP_NONE = 0,
#define KB_LOOP_ENUM(NAME, name, ARCHES) KB_LOOP_##NAME,
	KB_LOOP_LIST(KB_LOOP_ENUM)
#undef KB_LOOP_ENUM
	KB_LOOP_MAX
};

/* The architectures (KB_LOOP_X86, KB_LOOP_ARM64) whose guest image has loop l; 0 for no loop. */
static inline unsigned int kb_loop_arches(enum kb_loop l)
{
	switch (l) {
#define KB_LOOP_CASE(NAME, name, ARCHES) case KB_LOOP_##NAME: return ARCHES;
	KB_LOOP_LIST(KB_LOOP_CASE)
#undef KB_LOOP_CASE
	default: return 0;
	}
}

#endif
