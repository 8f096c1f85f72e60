/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-vmexit.c: guest loops of kvm-unit-tests' vmexit tests that need an instruction of their own. */
#include "guest.h"

#define X86_CR0_WP  (1ULL << 16)
#define X86_CR4_PGE (1ULL << 7)

/*
 * As in loop-apic.c, the timed part of each test named after kvm-unit-tests is one out-of-line
 * function per iteration, kb_timed_<test name> (noipa), which tests/scripts/conformance.test finds
 * in guest.elf and holds to its row of docs/conformance.md.
 */
#define TIMED __attribute__((noipa))

void kb_timed_vmcall(void);
void kb_timed_vmmcall(void);
void kb_timed_mov_dr(void);
void kb_timed_wbinvd(void);
void kb_timed_invd(void);
void kb_timed_toggle_cr0_wp(uint64_t cr0);
void kb_timed_toggle_cr4_pge(uint64_t cr4);

/* vmcall: hypercall number 0 in RAX, which KVM does not implement: it answers -KVM_ENOSYS in the
 * kernel.  VMCALL on Intel, VMMCALL on AMD, as upstream picks by vendor. */
TIMED void kb_timed_vmcall(void)
{
	uint64_t a = 0;

	__asm__ volatile("vmcall" : "+a"(a) : : "memory");
}

TIMED void kb_timed_vmmcall(void)
{
	uint64_t a = 0;

	__asm__ volatile("vmmcall" : "+a"(a) : : "memory");
}

void loop_hypercall(struct kb_mailbox *mb, uint64_t iters)
{
	void (*call)(void) = mb->param[0] ? kb_timed_vmmcall : kb_timed_vmcall;

	for (uint64_t i = 0; i < iters; i++)
		call();
}

/* mov_dr: MOV to DR7 of 0x400 (its reset value, no breakpoint enabled). */
TIMED void kb_timed_mov_dr(void)
{
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400ULL) : "memory");
}

void loop_mov_dr(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	for (uint64_t i = 0; i < iters; i++)
		kb_timed_mov_dr();
}

TIMED void kb_timed_wbinvd(void)
{
	__asm__ volatile("wbinvd" : : : "memory");
}

void loop_wbinvd(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	for (uint64_t i = 0; i < iters; i++)
		kb_timed_wbinvd();
}

/* INVD drops dirty cache lines unwritten on bare metal; this image only ever runs under a hypervisor,
 * which intercepts it (VMX unconditionally, SVM and kvm_pvm by choice) and treats it as WBINVD or NOP. */
TIMED void kb_timed_invd(void)
{
	__asm__ volatile("invd" : : : "memory");
}

void loop_invd(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	for (uint64_t i = 0; i < iters; i++)
		kb_timed_invd();
}

/* toggle_cr0_wp: two MOV to CR0, clearing CR0.WP and setting it again. */
TIMED void kb_timed_toggle_cr0_wp(uint64_t cr0)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(cr0 & ~X86_CR0_WP) : "memory");
	__asm__ volatile("mov %0, %%cr0" : : "r"(cr0 | X86_CR0_WP) : "memory");
}

void loop_toggle_cr0_wp(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t cr0;

	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	for (uint64_t i = 0; i < iters; i++)
		kb_timed_toggle_cr0_wp(cr0);
	mb->args[0] = cr0;
}

/* toggle_cr4_pge: two MOV to CR4, flipping CR4.PGE and restoring it (a global flush); the value
 * read once before the loop, as upstream's cr4_shadow. */
TIMED void kb_timed_toggle_cr4_pge(uint64_t cr4)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(cr4 ^ X86_CR4_PGE) : "memory");
	__asm__ volatile("mov %0, %%cr4" : : "r"(cr4) : "memory");
}

void loop_toggle_cr4_pge(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t cr4;

	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	for (uint64_t i = 0; i < iters; i++)
		kb_timed_toggle_cr4_pge(cr4);
	mb->args[0] = cr4;
}

/* wr_ibrs_msr: two WRMSR per iteration to one MSR, param[1] then param[2]. */
void loop_wrmsr_pair(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t index = (uint32_t)mb->param[0];

	for (uint64_t i = 0; i < iters; i++) {
		wrmsr(index, mb->param[1]);
		wrmsr(index, mb->param[2]);
	}
}

/* pci-mem: a byte write to an MMIO address with no memory behind it. */
void loop_mmio_write(struct kb_mailbox *mb, uint64_t iters)
{
	volatile uint8_t *p = (volatile uint8_t *)mb->param[0];
	uint8_t v = (uint8_t)mb->param[1];

	for (uint64_t i = 0; i < iters; i++)
		*p = v;
}

/*
 * ple_round_robin: a token goes round the param[0] vCPUs; each iteration waits in a PAUSE loop until
 * the token reaches this vCPU, then hands it on.  vCPU 0 holds it first.  Every vCPU runs as many
 * iterations as the others, so the ring is where it started after each sample.
 */
struct ple_counter {
	volatile int64_t n1;   /* times the token was handed to this vCPU */
	int64_t n2;            /* times this vCPU has taken it */
} __attribute__((aligned(64)));

static struct ple_counter ple_ring[KB_MAX_VCPUS] = { { 1, 0 } };

void kb_timed_ple_round_robin(struct ple_counter *p, struct ple_counter *next);
TIMED void kb_timed_ple_round_robin(struct ple_counter *p, struct ple_counter *next)
{
	while (p->n1 == p->n2)
		__asm__ volatile("pause" : : : "memory");
	p->n2 = p->n1;
	next->n1++;   /* only the token's holder writes it */
}

void loop_ple_round_robin(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t me = mb->vcpu_id, n = mb->param[0] ? mb->param[0] : 1;
	struct ple_counter *p = &ple_ring[me], *next = &ple_ring[me + 1 == n ? 0 : me + 1];

	for (uint64_t i = 0; i < iters; i++)
		kb_timed_ple_round_robin(p, next);
	mb->args[0] = (uint64_t)p->n2;
}
