/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kb_loops.h: the one list of guest loops; the enum, the guest's prototypes and its dispatch table
 * are generated from it.  A new loop is one row here plus its function loop_<name>() in guest/. */
#ifndef KB_LOOPS_H
#define KB_LOOPS_H

/* X(NAME, name): enum KB_LOOP_NAME, guest function loop_name(); parameters as commented. */
#define KB_LOOP_LIST(X) \
	X(CPUID, cpuid)               /* param[0] leaf, param[1] subleaf */ \
	X(SPIN, spin)                 /* never returns: for the watchdog */ \
	X(UD2, ud2)                   /* raises #UD: for the exception path */ \
	X(NOP, nop)                   /* empty loop: measurement floor */ \
	X(RDMSR, rdmsr)               /* param[0] MSR index */ \
	X(WRMSR, wrmsr)               /* param[0] MSR index, param[1] value */ \
	X(EFER_TOGGLE, efer_toggle)   /* WRMSR EFER flipping SCE every iteration */ \
	X(IN, in)                     /* param[0] port, param[1] width in bytes (1, 2, 4) */ \
	X(OUT, out)                   /* param[0] port, param[1] width, param[2] value */ \
	X(MMIO_READ, mmio_read)       /* param[0] guest physical address, 4-byte read */ \
	X(HYPERCALL, hypercall)       /* param[0] 1: VMMCALL (AMD), 0: VMCALL (Intel) */ \
	X(MOV_TO_CR8, mov_to_cr8) \
	X(MOV_FROM_CR8, mov_from_cr8) \
	X(APIC, apic)                 /* param[0] enum kb_apic_mode, [1] enum kb_apic_test, [2] TSC delta, \
				       * [3] TSC cycles after which an IPI is taken as lost (0: never), \
				       * [4] enum kb_self_ipi_route */ \
	X(MEM, mem)                   /* param[0] enum kb_mem_op, [1] first GPA, [2] bytes, [3] value, \
				       * [4] write percent, [5] TSC cycles between KB_UC_PROGRESS calls */ \
	X(TRIPLE, triple)             /* loads an empty IDT, then raises #UD: the shutdown path */ \
	X(RDMSR_VARY, rdmsr_vary)     /* param[0] MSR; one RDMSR per iteration in every 4th call, two in the \
				       * others: a loop whose least disturbed sample is not its typical one */ \
	X(RDMSR_PLUS, rdmsr_plus)     /* param[0] MSR, param[1] N: one RDMSR per iteration and one more \
				       * every N-th: a known, real extra amount of work (1 + 1/N exits) */ \
	X(MOV_DR, mov_dr)             /* MOV to DR7 */ \
	X(WBINVD, wbinvd) \
	X(INVD, invd) \
	X(TOGGLE_CR0_WP, toggle_cr0_wp)   /* two MOV to CR0: WP cleared, WP set */ \
	X(TOGGLE_CR4_PGE, toggle_cr4_pge) /* two MOV to CR4: PGE flipped, restored */ \
	X(WRMSR_PAIR, wrmsr_pair)     /* param[0] MSR: WRMSR of param[1], then of param[2] */ \
	X(MMIO_WRITE, mmio_write)     /* param[0] guest physical address, param[1] byte written */ \
	X(PLE_ROUND_ROBIN, ple_round_robin)   /* param[0] vCPUs in the ring: PAUSE until the token comes */

/* Loops the guest knows, selected by mailbox.test; 0 is no loop. */
enum kb_loop {
	KB_LOOP_NONE = 0,
#define KB_LOOP_ENUM(NAME, name) KB_LOOP_##NAME,
	KB_LOOP_LIST(KB_LOOP_ENUM)
#undef KB_LOOP_ENUM
	KB_LOOP_MAX
};

#endif
