/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-apic.c: guest loops of the self-IPI suite: interrupts through the local APIC, xAPIC or x2APIC. */
#include "guest.h"

#define MSR_APIC_BASE      0x1b
#define MSR_TSC_DEADLINE   0x6e0
#define APIC_BASE_EN       (1ULL << 11)
#define APIC_BASE_EXTD     (1ULL << 10)
#define XAPIC_MMIO         0xfee00000ULL

/* Register offsets as in the xAPIC page; x2APIC MSR = 0x800 + offset / 16. */
#define APIC_TPR    0x80
#define APIC_EOI    0xb0
#define APIC_SVR    0xf0
#define APIC_ICR    0x300
#define APIC_ICR2   0x310
#define APIC_LVTT   0x320
#define X2APIC_MSR(reg)  (0x800 + ((reg) >> 4))
#define X2APIC_SELF_IPI  0x83f

#define ICR_ASSERT    (1u << 14)
#define ICR_DEST_SELF (1u << 18)
#define LVT_TSC_DEADLINE (2u << 17)

/*
 * The timed part of every test named after kvm-unit-tests is one function per iteration,
 * kb_timed_<test name>, kept out of line (noipa: never inlined, cloned or specialised) so that
 * tests/scripts/conformance.test finds its instructions in guest.elf and holds them to the row of
 * docs/conformance.md.  Upstream calls its test function once per iteration too.
 */
#define TIMED __attribute__((noipa))

/* Every vCPU of a VM uses the same mode, so one variable serves them all. */
static int x2apic;

static void apic_write(uint32_t reg, uint32_t val)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(reg), val);
	else
		*(volatile uint32_t *)(XAPIC_MMIO + reg) = val;
}

void guest_apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/* kvm-unit-tests' eoi sub-timing: TSC around the EOI write, inside the handler (x2APIC). */
TIMED uint64_t kb_timed_eoi(void)
{
	uint64_t t0 = rdtsc();

	wrmsr(X2APIC_MSR(APIC_EOI), 0);
	return rdtsc() - t0;
}

/* The same in xAPIC mode (upstream's eoi() follows the APIC's mode too). */
static uint64_t timed_xapic_eoi(void)
{
	uint64_t t0 = rdtsc();

	*(volatile uint32_t *)(XAPIC_MMIO + APIC_EOI) = 0;
	return rdtsc() - t0;
}

uint64_t guest_apic_timed_eoi(void)
{
	return x2apic ? kb_timed_eoi() : timed_xapic_eoi();
}

static void apic_enable(int x2)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;

	x2apic = x2;
	if (x2)
		base |= APIC_BASE_EXTD;
	wrmsr(MSR_APIC_BASE, base);
	apic_write(APIC_SVR, 0x100 | KB_SPURIOUS_VECTOR);
	apic_write(APIC_TPR, 0);
}

/*
 * kvm_pvm keeps each vCPU's interrupt flag in a byte of shared memory: STI
 * alone does not open the window there.  Elsewhere the byte does not exist
 * (vif is NULL).  It is per vCPU, so it is passed around, never global.
 */
static inline void irq_enable(volatile uint8_t *vif)
{
	if (vif)
		*vif = 1;
	__asm__ volatile("sti" : : : "memory");
}

static inline void irq_disable(volatile uint8_t *vif)
{
	__asm__ volatile("cli" : : : "memory");
	if (vif)
		*vif = 0;
}

/* STI's one-instruction shadow covers the HLT: an interrupt already pending wakes it. */
static inline void irq_enable_and_halt(volatile uint8_t *vif)
{
	if (vif)
		*vif = 1;
	guest_sti_hlt();
}

static inline void nop(void)
{
	__asm__ volatile("nop" : : : "memory");
}

static inline void mfence(void)
{
	__asm__ volatile("mfence" : : : "memory");
}

/* kvm-unit-tests' apic_set_tpr() on x86-64: the priority class through CR8. */
static inline void tpr_cr8(uint64_t class)
{
	__asm__ volatile("mov %0, %%cr8" : : "r"(class) : "memory");
}

/* The three ways to send a self-IPI (enum kb_self_ipi_route), and the TPR that goes with each. */
static inline void send_x2apic_icr(void)
{
	mfence();
	wrmsr(X2APIC_MSR(APIC_ICR), ICR_ASSERT | ICR_DEST_SELF | KB_TEST_VECTOR);
}

static inline void send_self_ipi_msr(void)
{
	wrmsr(X2APIC_SELF_IPI, KB_TEST_VECTOR);
}

static inline void send_xapic_icr(void)
{
	*(volatile uint32_t *)(XAPIC_MMIO + APIC_ICR) = ICR_DEST_SELF | KB_TEST_VECTOR;
}

#define TPR_HI_CR8()    tpr_cr8(0x0f)
#define TPR_LO_CR8()    tpr_cr8(0)
#define TPR_HI_APIC()   (*(volatile uint32_t *)(XAPIC_MMIO + APIC_TPR) = 0xff)
#define TPR_LO_APIC()   (*(volatile uint32_t *)(XAPIC_MMIO + APIC_TPR) = 0)

/*
 * kvm-unit-tests' ipi sub-timing: upstream's apic_self_ipi() and x2apic_self_ipi() read the TSC
 * around the send, inside the timed loop, and add the difference to tsc_ipi; so does this (the
 * vCPU's mailbox holds the sum).
 */
#define TIMED_SEND(mb, send) \
	do { uint64_t t0_ = rdtsc(); send(); (mb)->tsc_ipi += rdtsc() - t0_; } while (0)

/* The five self-IPI tests of one route: prefix names them (kb_timed_<prefix>self_ipi_*). */
#define SELF_IPI_FAMILY(prefix, send, tpr_hi, tpr_lo) \
	TIMED void kb_timed_##prefix##self_ipi_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif) \
	{ irq_disable(vif); TIMED_SEND(mb, send); irq_enable(vif); nop(); } \
	TIMED void kb_timed_##prefix##self_ipi_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif) \
	{ irq_disable(vif); TIMED_SEND(mb, send); irq_enable_and_halt(vif); } \
	TIMED void kb_timed_##prefix##self_ipi_tpr(struct kb_mailbox *mb, volatile uint8_t *vif) \
	{ (void)vif; tpr_hi(); TIMED_SEND(mb, send); tpr_lo(); nop(); } \
	TIMED void kb_timed_##prefix##self_ipi_tpr_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif) \
	{ irq_disable(vif); tpr_hi(); TIMED_SEND(mb, send); tpr_lo(); irq_enable(vif); nop(); } \
	TIMED void kb_timed_##prefix##self_ipi_tpr_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif) \
	{ irq_disable(vif); tpr_hi(); TIMED_SEND(mb, send); tpr_lo(); irq_enable_and_halt(vif); }

typedef void (*self_ipi_fn)(struct kb_mailbox *mb, volatile uint8_t *vif);

/* Global, so that the names stay in guest.elf's symbol table; declared for -Wmissing-prototypes. */
void kb_timed_self_ipi_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_self_ipi_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_self_ipi_tpr(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_self_ipi_tpr_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_self_ipi_tpr_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_x2apic_self_ipi_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_x2apic_self_ipi_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_x2apic_self_ipi_tpr(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_x2apic_self_ipi_tpr_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_x2apic_self_ipi_tpr_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_xapic_self_ipi_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_xapic_self_ipi_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_xapic_self_ipi_tpr(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_xapic_self_ipi_tpr_sti_nop(struct kb_mailbox *mb, volatile uint8_t *vif);
void kb_timed_xapic_self_ipi_tpr_sti_hlt(struct kb_mailbox *mb, volatile uint8_t *vif);

SELF_IPI_FAMILY(, send_x2apic_icr, TPR_HI_CR8, TPR_LO_CR8)
SELF_IPI_FAMILY(x2apic_, send_self_ipi_msr, TPR_HI_CR8, TPR_LO_CR8)
SELF_IPI_FAMILY(xapic_, send_xapic_icr, TPR_HI_APIC, TPR_LO_APIC)

/* [route][test - 1] for the five self-IPI tests. */
static self_ipi_fn const self_ipi_fns[3][5] = {
	[KB_ROUTE_XAPIC_ICR] = { kb_timed_xapic_self_ipi_sti_nop, kb_timed_xapic_self_ipi_sti_hlt,
				 kb_timed_xapic_self_ipi_tpr, kb_timed_xapic_self_ipi_tpr_sti_nop,
				 kb_timed_xapic_self_ipi_tpr_sti_hlt },
	[KB_ROUTE_X2APIC_ICR] = { kb_timed_self_ipi_sti_nop, kb_timed_self_ipi_sti_hlt, kb_timed_self_ipi_tpr,
				  kb_timed_self_ipi_tpr_sti_nop, kb_timed_self_ipi_tpr_sti_hlt },
	[KB_ROUTE_SELF_IPI_MSR] = { kb_timed_x2apic_self_ipi_sti_nop, kb_timed_x2apic_self_ipi_sti_hlt,
				    kb_timed_x2apic_self_ipi_tpr, kb_timed_x2apic_self_ipi_tpr_sti_nop,
				    kb_timed_x2apic_self_ipi_tpr_sti_hlt },
};

/* kvm-unit-tests' tscdeadline: armed 'delta' cycles ahead, busy-waited for with IF=1. */
void kb_timed_tscdeadline(struct kb_mailbox *mb, uint64_t delta);
TIMED void kb_timed_tscdeadline(struct kb_mailbox *mb, uint64_t delta)
{
	uint64_t seen = mb->irq_count;

	wrmsr(MSR_TSC_DEADLINE, rdtsc() + delta);
	while (mb->irq_count == seen)
		__asm__ volatile("" : : : "memory");
}

/* kvm-unit-tests' tscdeadline_immed: a deadline of "now", serialised by CPUID(0, 0), no wait. */
void kb_timed_tscdeadline_immed(void);
TIMED void kb_timed_tscdeadline_immed(void)
{
	uint32_t r[4];

	wrmsr(MSR_TSC_DEADLINE, rdtsc());
	cpuid_count(0, 0, r);
}

/* kvm-unit-tests' on_cpu(1, nop, 0) with the x2APIC on: MFENCE; WRMSR of the ICR (fixed, physical
 * destination vCPU 1, IPI_VECTOR 0x20), then spin until the target's handler has run.  A target that
 * never answers within 'patience' cycles gets the IPI again (counted). */
static inline __attribute__((always_inline)) void on_cpu1(struct kb_mailbox *mb, volatile struct kb_mailbox *rx,
							   uint64_t patience)
{
	uint64_t seen = rx->irq_count, sent = 0;
	unsigned int spins = 0;

	mfence();
	wrmsr(X2APIC_MSR(APIC_ICR), (1ULL << 32) | ICR_ASSERT | KB_SMP_VECTOR);
	while (rx->irq_count == seen) {
		/* The clock is read only now and then, so the spin stays a spin on the flag. */
		if (patience && ++spins % 4096 == 0) {
			if (!sent)
				sent = rdtsc();
			else if (rdtsc() - sent > patience) {
				mb->ipi_resends++;
				wrmsr(X2APIC_MSR(APIC_ICR), (1ULL << 32) | ICR_ASSERT | KB_SMP_VECTOR);
				sent = 0;
			}
		}
	}
}

/* kvm-unit-tests' ipi: on_cpu(), with the TSC read around it for the ipi sub-timing (tsc_ipi). */
void kb_timed_ipi(struct kb_mailbox *mb, volatile struct kb_mailbox *rx, uint64_t patience);
TIMED void kb_timed_ipi(struct kb_mailbox *mb, volatile struct kb_mailbox *rx, uint64_t patience)
{
	uint64_t t0 = rdtsc();

	on_cpu1(mb, rx, patience);
	mb->tsc_ipi += rdtsc() - t0;
}

/* kvm-unit-tests' ipi_halt: on_cpu() (no sub-timing upstream), then 2000 TSC cycles of busy wait, so
 * that the target is back in HLT before the next IPI. */
void kb_timed_ipi_halt(struct kb_mailbox *mb, volatile struct kb_mailbox *rx, uint64_t patience);
TIMED void kb_timed_ipi_halt(struct kb_mailbox *mb, volatile struct kb_mailbox *rx, uint64_t patience)
{
	uint64_t t;

	on_cpu1(mb, rx, patience);
	t = rdtsc() + 2000;
	while (rdtsc() < t)
		;
}

static void send_ipi(uint32_t dest, uint32_t vector)
{
	if (x2apic) {
		wrmsr(X2APIC_MSR(APIC_ICR), ((uint64_t)dest << 32) | vector);
	} else {
		apic_write(APIC_ICR2, dest << 24);
		apic_write(APIC_ICR, vector);
	}
}

static void wait_for_irq(struct kb_mailbox *mb, uint64_t seen, volatile uint8_t *vif)
{
	while (mb->irq_count == seen) {
		irq_enable_and_halt(vif);
		irq_disable(vif);
	}
}

/* ipi_spin's receiver: spins with IF=1; a lost kick is recovered by an exit of its own (counted). */
static void spin_receiver(struct kb_mailbox *mb, uint64_t last, uint64_t patience, volatile uint8_t *vif)
{
	uint64_t since = rdtsc_ordered(), seen = mb->irq_count;

	irq_enable(vif);
	while (mb->irq_count < last) {
		__asm__ volatile("pause");
		if (mb->irq_count != seen) {
			seen = mb->irq_count;
			since = rdtsc_ordered();
		} else if (patience && rdtsc_ordered() - since > patience / 4) {
			uint32_t r[4];

			/* Far longer than any delivery: the kick that should have brought the
			 * interrupt to this running vCPU was lost.  An exit lets KVM deliver it on
			 * the way back in: STI where it traps (kvm_pvm), CPUID on VMX and SVM. */
			mb->late_irq_nudges++;
			irq_enable(vif);
			cpuid_count(0, 0, r);
			since = rdtsc_ordered();
		}
	}
	irq_disable(vif);
}

/* ipi_spin's sender: today's kvmbench IPI, the test vector, waiting for the handler to run. */
static void spin_sender(struct kb_mailbox *mb, volatile struct kb_mailbox *rx, uint64_t patience)
{
	uint64_t seen = rx->irq_count, sent;

	send_ipi(1, KB_TEST_VECTOR);
	sent = rdtsc_ordered();
	while (rx->irq_count == seen) {
		__asm__ volatile("pause");
		if (patience && rdtsc_ordered() - sent > patience) {
			mb->ipi_resends++;
			send_ipi(1, KB_TEST_VECTOR);
			sent = rdtsc_ordered();
		}
	}
}

/*
 * vCPU 0 sends, vCPU 1 receives.  Each knows how many IPIs make a sample
 * (iters), so the receiver stops after the last one without a wake-up IPI
 * that would add its own exits to every sample.
 */
static void two_vcpu_ipi(struct kb_mailbox *mb, uint64_t iters, enum kb_apic_test test, volatile uint8_t *vif)
{
	struct kb_shared *sh = (struct kb_shared *)KB_DATA_GPA;
	volatile struct kb_mailbox *rx = (volatile struct kb_mailbox *)(KB_VCPU_AREA_GPA + KB_VCPU_AREA_SIZE);
	uint64_t patience = mb->param[3];

	if (mb->vcpu_id == 1) {
		uint64_t last = mb->irq_count + iters;

		if (test == KB_APIC_IPI_SPIN) {
			sh->receiver_ready = 1;
			spin_receiver(mb, last, patience, vif);
		} else {
			/* kvm-unit-tests' idle vCPU: in STI; HLT until the next IPI.  IF=0 between
			 * the count and the HLT, or the last IPI could come in between and leave
			 * this vCPU halted for good (CLI exits on kvm_pvm only). */
			sh->receiver_ready = 1;
			while (mb->irq_count < last) {
				irq_enable_and_halt(vif);
				irq_disable(vif);
			}
		}
		/* A resent IPI can be taken twice (the first had only been slow), and the count reach
		 * 'last' while the sender still has IPIs to send: this vCPU stays, interrupts on,
		 * until the sender has seen its last one handled.  Without resends the sender is a
		 * store away by now; spinning here adds no exit.  (Leaving at 'last' left the sender
		 * of selftest/ipi_impatient waiting for good: a guest hang in 3 of 8 runs.) */
		irq_enable(vif);
		while (sh->ipi_sent < iters)
			__asm__ volatile("pause");
		irq_disable(vif);
		/* The host starts the next sample only after both vCPUs are back, so this is seen in time. */
		sh->receiver_ready = 0;
		return;
	}
	if (mb->vcpu_id != 0)
		return;
	sh->ipi_sent = 0;
	while (!sh->receiver_ready)
		__asm__ volatile("pause");
	for (uint64_t i = 0; i < iters; i++) {
		if (test == KB_APIC_IPI)
			kb_timed_ipi(mb, rx, patience);
		else if (test == KB_APIC_IPI_HALT)
			kb_timed_ipi_halt(mb, rx, patience);
		else
			spin_sender(mb, rx, patience);
		sh->ipi_sent = i + 1;
	}
}

static void self_ipi_loop(struct kb_mailbox *mb, uint64_t iters, enum kb_apic_test test, volatile uint8_t *vif)
{
	uint64_t route = mb->param[4];
	self_ipi_fn fn;

	GUEST_ASSERT(route < 3);
	fn = self_ipi_fns[route][test - KB_APIC_SELF_IPI_STI_NOP];
	/* self_ipi_tpr runs with IF=1 throughout, as upstream's main() leaves it. */
	if (test == KB_APIC_SELF_IPI_TPR)
		irq_enable(vif);
	for (uint64_t i = 0; i < iters; i++)
		fn(mb, vif);
	irq_disable(vif);
}

void loop_apic(struct kb_mailbox *mb, uint64_t iters)
{
	enum kb_apic_test test = (enum kb_apic_test)mb->param[1];
	uint64_t delta = mb->param[2];

	volatile uint8_t *vif = (volatile uint8_t *)mb->pvm_vif_gpa;

	/* Set up once, in the first (calibration) sample, so that no sample pays for it. */
	if (!mb->apic_ready) {
		apic_enable(mb->param[0] == KB_X2APIC);
		tpr_cr8(0);
		if (test == KB_APIC_TSCDEADLINE || test == KB_APIC_TSCDEADLINE_IMMED || test == KB_APIC_TSCDEADLINE_HLT)
			apic_write(APIC_LVTT, LVT_TSC_DEADLINE | KB_TEST_VECTOR);
		mb->apic_ready = 1;
	}
	/* Interrupts stay off between loops: the guest starts with IF=0 and every loop ends so. */
	switch (test) {
	case KB_APIC_SELF_IPI_STI_NOP:
	case KB_APIC_SELF_IPI_STI_HLT:
	case KB_APIC_SELF_IPI_TPR:
	case KB_APIC_SELF_IPI_TPR_STI_NOP:
	case KB_APIC_SELF_IPI_TPR_STI_HLT:
		self_ipi_loop(mb, iters, test, vif);
		break;
	case KB_APIC_EOI:
		/* The handler times its EOI (guest_irq, tsc_eoi); part_timed tells the host that this
		 * loop's cycles are those, not the whole iteration's (it clears it before every call). */
		GUEST_ASSERT(x2apic);
		mb->part_timed = 1;
		for (uint64_t i = 0; i < iters; i++)
			kb_timed_self_ipi_sti_nop(mb, vif);
		irq_disable(vif);
		break;
	case KB_APIC_EOI_IDLE:
		for (uint64_t i = 0; i < iters; i++)
			guest_apic_eoi();
		break;
	case KB_APIC_SELF_IPI_COALESCED:
		for (uint64_t i = 0; i < iters; i++) {
			send_xapic_icr();
			if (i & 1) {
				irq_enable(vif);
				nop();
				irq_disable(vif);
			}
		}
		break;
	case KB_APIC_TSCDEADLINE:
		irq_enable(vif);
		for (uint64_t i = 0; i < iters; i++)
			kb_timed_tscdeadline(mb, delta);
		irq_disable(vif);
		break;
	case KB_APIC_TSCDEADLINE_IMMED:
		irq_enable(vif);
		for (uint64_t i = 0; i < iters; i++)
			kb_timed_tscdeadline_immed();
		irq_disable(vif);
		break;
	case KB_APIC_TSCDEADLINE_HLT:
		for (uint64_t i = 0; i < iters; i++) {
			uint64_t seen = mb->irq_count;

			wrmsr(MSR_TSC_DEADLINE, rdtsc() + delta);
			wait_for_irq(mb, seen, vif);
		}
		break;
	case KB_APIC_IPI:
	case KB_APIC_IPI_HALT:
	case KB_APIC_IPI_SPIN:
		two_vcpu_ipi(mb, iters, test, vif);
		break;
	default:
		GUEST_ASSERT(!"unknown APIC test");
	}
}
