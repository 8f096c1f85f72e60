/* apic.c: guest loops of the self-IPI suite: interrupts through the local APIC, xAPIC or x2APIC. */
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
#define APIC_SELF_IPI 0x3f0   /* x2APIC only */

#define ICR_DEST_SELF (1u << 18)
#define LVT_TSC_DEADLINE (2u << 17)

/* Every vCPU of a VM uses the same mode, so one variable serves them all. */
static int x2apic;

static inline void wrmsr(uint32_t index, uint64_t val)
{
	__asm__ volatile("wrmsr" : : "c"(index), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)) : "memory");
}

static inline uint64_t rdmsr(uint32_t index)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(index) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void apic_write(uint32_t reg, uint32_t val)
{
	if (x2apic)
		wrmsr(0x800 + (reg >> 4), val);
	else
		*(volatile uint32_t *)(XAPIC_MMIO + reg) = val;
}

void guest_apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
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

static void send_self_ipi(void)
{
	if (x2apic)
		wrmsr(0x800 + (APIC_SELF_IPI >> 4), KB_IPI_VECTOR);
	else
		apic_write(APIC_ICR, ICR_DEST_SELF | KB_IPI_VECTOR);
}

static void send_ipi(uint32_t dest)
{
	if (x2apic) {
		wrmsr(0x800 + (APIC_ICR >> 4), ((uint64_t)dest << 32) | KB_IPI_VECTOR);
	} else {
		apic_write(APIC_ICR2, dest << 24);
		apic_write(APIC_ICR, KB_IPI_VECTOR);
	}
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

static void wait_for_irq(struct kb_mailbox *mb, uint64_t seen, int halt, volatile uint8_t *vif)
{
	while (mb->irq_count == seen) {
		if (halt)
			irq_enable_and_halt(vif);
		else {
			irq_enable(vif);
			nop();
		}
		irq_disable(vif);
	}
}

/*
 * vCPU 0 sends, vCPU 1 receives.  Each knows how many IPIs make a sample
 * (iters), so the receiver stops after the last one without a wake-up IPI
 * that would add its own exits to every sample.
 */
static void two_vcpu_ipi(struct kb_mailbox *mb, uint64_t iters, int halt, volatile uint8_t *vif)
{
	struct kb_shared *sh = (struct kb_shared *)KB_DATA_GPA;
	struct kb_mailbox *rx = (struct kb_mailbox *)(KB_VCPU_AREA_GPA + KB_VCPU_AREA_SIZE);
	uint64_t patience = mb->param[3];

	if (mb->vcpu_id == 1) {
		uint64_t last = mb->irq_count + iters;

		if (halt) {
			sh->receiver_ready = 1;
			while (mb->irq_count < last) {
				irq_enable_and_halt(vif);
				irq_disable(vif);
			}
		} else {
			uint64_t since = rdtsc_ordered(), seen = mb->irq_count;

			irq_enable(vif);
			sh->receiver_ready = 1;
			while (mb->irq_count < last) {
				__asm__ volatile("pause");
				if (mb->irq_count != seen) {
					seen = mb->irq_count;
					since = rdtsc_ordered();
				} else if (patience && rdtsc_ordered() - since > patience / 4) {
					uint32_t r[4];

					/* Far longer than any delivery: the kick that should have brought
					 * the interrupt to this running vCPU was lost.  An exit lets KVM
					 * deliver it on the way back in: STI where it traps (kvm_pvm),
					 * CPUID on VMX and SVM.  Counted, so the result shows it. */
					mb->late_irq_nudges++;
					irq_enable(vif);
					cpuid_count(0, 0, r);
					since = rdtsc_ordered();
				}
			}
			irq_disable(vif);
		}
		/* The host starts the next sample only after both vCPUs are back, so this is seen in time. */
		sh->receiver_ready = 0;
		return;
	}
	if (mb->vcpu_id != 0)
		return;
	while (!sh->receiver_ready)
		__asm__ volatile("pause");
	for (uint64_t i = 0; i < iters; i++) {
		uint64_t seen = rx->irq_count, sent;

		send_ipi(1);
		sent = rdtsc_ordered();
		/* Far longer than the receiver's own nudge above: the IPI never reached it, or the
		 * halted receiver was never woken.  Sent again (a vector still pending is not
		 * delivered twice); counted. */
		while (rx->irq_count == seen) {
			__asm__ volatile("pause");
			if (patience && rdtsc_ordered() - sent > patience) {
				mb->ipi_resends++;
				send_ipi(1);
				sent = rdtsc_ordered();
			}
		}
	}
}

void loop_apic(struct kb_mailbox *mb, uint64_t iters)
{
	enum kb_apic_test test = (enum kb_apic_test)mb->param[1];
	uint64_t delta = mb->param[2];

	volatile uint8_t *vif = (volatile uint8_t *)mb->pvm_vif_gpa;

	/* Set up once, in the first (calibration) sample, so that no sample pays for it. */
	if (!mb->apic_ready) {
		apic_enable(mb->param[0] == KB_X2APIC);
		if (test == KB_APIC_TSCDEADLINE || test == KB_APIC_TSCDEADLINE_IMMED)
			apic_write(APIC_LVTT, LVT_TSC_DEADLINE | KB_TIMER_VECTOR);
		mb->apic_ready = 1;
	}
	/* Interrupts stay off between loops: the guest starts with IF=0 and every loop ends so. */
	switch (test) {
	case KB_APIC_SELF_IPI_STI_NOP:
		for (uint64_t i = 0; i < iters; i++) {
			send_self_ipi();
			irq_enable(vif);
			nop();
			irq_disable(vif);
		}
		break;
	case KB_APIC_SELF_IPI_STI_HLT:
		for (uint64_t i = 0; i < iters; i++) {
			send_self_ipi();
			irq_enable_and_halt(vif);
			irq_disable(vif);
		}
		break;
	case KB_APIC_SELF_IPI_TPR:
		irq_enable(vif);
		for (uint64_t i = 0; i < iters; i++) {
			apic_write(APIC_TPR, 0xff);
			send_self_ipi();
			apic_write(APIC_TPR, 0);
		}
		irq_disable(vif);
		break;
	case KB_APIC_SELF_IPI_TPR_STI_NOP:
		for (uint64_t i = 0; i < iters; i++) {
			apic_write(APIC_TPR, 0xff);
			send_self_ipi();
			apic_write(APIC_TPR, 0);
			irq_enable(vif);
			nop();
			irq_disable(vif);
		}
		break;
	case KB_APIC_SELF_IPI_TPR_STI_HLT:
		for (uint64_t i = 0; i < iters; i++) {
			apic_write(APIC_TPR, 0xff);
			send_self_ipi();
			apic_write(APIC_TPR, 0);
			irq_enable_and_halt(vif);
			irq_disable(vif);
		}
		break;
	case KB_APIC_EOI:
		for (uint64_t i = 0; i < iters; i++)
			guest_apic_eoi();
		break;
	case KB_APIC_TSCDEADLINE:
	case KB_APIC_TSCDEADLINE_IMMED:
		for (uint64_t i = 0; i < iters; i++) {
			uint64_t seen = mb->irq_count;

			/* A deadline already in the past fires as soon as it is written. */
			wrmsr(MSR_TSC_DEADLINE, test == KB_APIC_TSCDEADLINE ? rdtsc() + delta : 1);
			wait_for_irq(mb, seen, test == KB_APIC_TSCDEADLINE, vif);
		}
		break;
	case KB_APIC_IPI:
	case KB_APIC_IPI_HALT:
		two_vcpu_ipi(mb, iters, test == KB_APIC_IPI_HALT, vif);
		break;
	default:
		GUEST_ASSERT(!"unknown APIC test");
	}
}
