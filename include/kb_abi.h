/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kb_abi.h: the contract between the host VMM and the guest image (layout, call channel, ops). */
#ifndef KB_ABI_H
#define KB_ABI_H

#include <stdint.h>

#include "kb_loops.h"

/*
 * Guest physical layout.  Everything is identity mapped (GVA == GPA) with
 * 2 MiB pages.  The PML4 sits at an 8 KiB-aligned address because kvm_pvm
 * treats CR3 bit 12 as "guest user page table".
 */
#define KB_GDT_GPA        0x1000ULL
#define KB_IDT_GPA        0x2000ULL
#define KB_TSS_GPA        0x3000ULL
#define KB_PML4_GPA       0x10000ULL
#define KB_PDPT_GPA       0x11000ULL
#define KB_PD_GPA         0x12000ULL   /* one PD per GiB follows */
#define KB_PD_MAX         14           /* base memory: at most 14 GiB (test memory: KB_PD_HIGH_*) */
#define KB_IMAGE_GPA      0x100000ULL  /* guest image is linked here */
#define KB_IMAGE_MAX      0x100000ULL
/* Per vCPU, up to KB_MAX_VCPUS (KVM_CAP_MAX_VCPUS may allow fewer): a mailbox page and a PVM flags
 * page, then a stack; 24 MiB for 1024 vCPUs, inside the base memory's first 2 MiB pages. */
#define KB_MAX_VCPUS      1024
#define KB_VCPU_AREA_GPA  0x1000000ULL
#define KB_VCPU_AREA_SIZE 0x2000ULL
#define KB_STACK_GPA      (KB_VCPU_AREA_GPA + KB_MAX_VCPUS * KB_VCPU_AREA_SIZE)
#define KB_STACK_SIZE     0x4000ULL
/* One PD per GiB above the first KB_PD_MAX, for the memory suites' test memory; up to KB_DATA_GPA. */
#define KB_PD_HIGH_GPA    (KB_STACK_GPA + KB_MAX_VCPUS * KB_STACK_SIZE)
#define KB_PD_HIGH_MAX    256
#define KB_DATA_GPA       0x2a00000ULL /* free guest memory for suites, to the end of the base memory */
_Static_assert(KB_IMAGE_GPA + KB_IMAGE_MAX <= KB_VCPU_AREA_GPA, "the guest image overlaps the vCPU areas");
_Static_assert(KB_PD_HIGH_GPA + KB_PD_HIGH_MAX * 0x1000ULL <= KB_DATA_GPA, "the high PDs overlap the suites' data");
/* Test memory of the memory suites: extra memslots from 4 GiB (1 GiB-aligned, above the xAPIC
 * page) up to the end of what the page tables cover (266 GiB of it). */
#define KB_MEM_GPA        0x100000000ULL
#define KB_MEM_MAX        (((uint64_t)(KB_PD_MAX + KB_PD_HIGH_MAX) << 30) - KB_MEM_GPA)
#define KB_PAGE_SIZE      4096ULL

#define KB_SEL_CODE       0x10
#define KB_SEL_DATA       0x18
#define KB_SEL_TSS        0x20

/* The call channel: the guest fills its mailbox, then writes the call number to this port. */
#define KB_UCALL_PORT     0x7f0
/* A port and an MMIO address that kvmbench's userspace answers (round-trip tests). */
#define KB_USER_PORT      0x7f4
#define KB_MMIO_GPA       0x3fe00000ULL   /* inside the first GiB, never inside a memslot */
/* An MSR no KVM implements; with KVM_CAP_X86_USER_SPACE_MSR its accesses reach userspace. */
#define KB_USER_MSR       0x4b420001
/* A port the in-kernel PIC answers: the ELCR of the master PIC (edge/level control), as kvm-unit-tests'
 * inl_from_kernel and outl_to_kernel use; writing it makes the PIC re-evaluate nothing. */
#define KB_KERNEL_PORT    0x4d0
/* The ACPI PM timer's port (QEMU's PIIX4/ICH9 PM base 0xb000 + 8), answered by kvmbench's userspace. */
#define KB_PMTIMER_PORT   0xb008
/* A port and an MMIO address whose writes KVM completes itself through an ioeventfd (pci-io, pci-mem:
 * the test device's BARs as QEMU wires them); the MMIO page follows the userspace-answered one. */
#define KB_IOEVENTFD_PORT 0xe000
#define KB_IOEVENTFD_GPA  (KB_MMIO_GPA + 0x1000)

/*
 * arm64 (issue #16): the same layout from KB_IMAGE_GPA up (image, vCPU areas, stacks, suites' data);
 * the host's stage-1 identity map instead of x86's page tables, and devices below KB_MMIO_GPA
 * in the first GiB, which base memory must stay under (KB_ARM64_MEM_MAX).
 */
#define KB_ARM64_PGT_GPA      0x10000ULL      /* level 0 table; level 1 at +0x1000, level 2 (GiB 0) at +0x2000 */
#define KB_ARM64_GICD_GPA     0x3f000000ULL   /* vGICv3 distributor, 64 KiB */
#define KB_ARM64_GITS_GPA     0x3f020000ULL   /* its ITS, 128 KiB (64 KiB aligned) */
#define KB_ARM64_GICR_GPA     0x3f100000ULL   /* redistributors, 128 KiB per vCPU */
#define KB_ARM64_GICR_SIZE    0x20000ULL
#define KB_ARM64_MAX_VCPUS    ((KB_MMIO_GPA - KB_ARM64_GICR_GPA) / KB_ARM64_GICR_SIZE)   /* 104 */
#define KB_ARM64_MEM_MAX      KB_ARM64_GICD_GPA
#define KB_ARM64_DEVICE_GPA   0x3f000000ULL   /* from here to 1 GiB: device memory in the stage-1 map */
/* arm64's call channel: the guest writes the call number (32 bits) here, an address no memslot
 * or device backs, so every write is a KVM_EXIT_MMIO to kvmbench (x86: an OUT to KB_UCALL_PORT). */
#define KB_UCALL_GPA          (KB_MMIO_GPA + 0x2000)
/* The GIC's interrupt numbers the arm64 guest uses: the SGI between vCPUs (kvm-unit-tests
 * micro-bench's gic_ipi_send_single(1, 1)), the virtual timer's PPI (KVM's default, as QEMU's
 * virt board), the LPI and its ITS device/event (micro-bench's lpi_prep: 8199, device 2, event 20,
 * collection 1 on PE 1), and GICv3's "no interrupt pending" INTID. */
#define KB_GIC_SGI            1
#define KB_GIC_VTIMER_PPI     27
#define KB_GIC_LPI_INTID      8199
#define KB_GIC_ITS_DEVICE     2
#define KB_GIC_ITS_EVENT      20
#define KB_GIC_ITS_COLLECTION 1
#define KB_GIC_SPURIOUS       1023
/* The ITS tables the guest hands the ITS (GITS_BASER device and collection tables, the command
 * queue) and the redistributors' LPI tables (GICR_PROPBASER, GICR_PENDBASER per vCPU), in KB_DATA_GPA's
 * memory after struct kb_shared: 64 KiB each, pending tables 64 KiB per vCPU. */
#define KB_GIC_TABLES_GPA     (KB_DATA_GPA + 0x100000ULL)

/* What KB_LOOP_GIC does per iteration (kvm-unit-tests arm/micro-bench.c's tests of the GIC). */
enum kb_gic_test {
	KB_GIC_EOI = 1,    /* write KB_GIC_SPURIOUS to ICC_EOIR1_EL1: nothing is in service */
	KB_GIC_IPI,        /* vCPU 0: SGI KB_GIC_SGI to vCPU 1 (ICC_SGI1R_EL1), wait for its handler; vCPU 1
			    * spins with interrupts on */
	KB_GIC_LPI_ITS,    /* vCPU 0: an ITS INT command (device, event) to the queue, GITS_CWRITER written;
			    * the LPI goes to vCPU 1, which spins with interrupts on; vCPU 0 waits for its handler */
	KB_GIC_TIMER,      /* the virtual timer's compare value param[2] ticks ahead, enabled; spin until its
			    * interrupt (on this vCPU) is taken */
};

enum kb_ucall {
	KB_UC_NEXT = 1,   /* previous op done (results in mailbox); what next? */
	KB_UC_FAULT,      /* args: vector, error code, rip, cr2-ish; arm64: ESR_EL1's class, ESR_EL1, ELR_EL1, FAR_EL1 */
	KB_UC_ABORT,      /* msg holds "file:line: text" */
	KB_UC_PRINT,      /* msg holds text for the host's debug log */
	KB_UC_PROGRESS,   /* a long loop is still running: the host enters the guest again at once */
};

enum kb_op {
	KB_OP_NONE = 0,
	KB_OP_QUIT,       /* guest halts forever */
	KB_OP_LOOP,       /* run loop 'test' for 'iters' iterations, timed */
};

enum kb_apic_mode {
	KB_XAPIC = 0,        /* registers through MMIO at 0xfee00000 */
	KB_X2APIC = 1,       /* registers through MSRs 0x800.. */
};

/* How a self-IPI is sent (param[4]); the TPR goes with it: the APIC's TPR register for the xAPIC
 * route, MOV CR8 (kvm-unit-tests' apic_set_tpr on x86-64) for the x2APIC ones. */
enum kb_self_ipi_route {
	KB_ROUTE_XAPIC_ICR = 0,     /* one MMIO write of the ICR, destination shorthand self */
	KB_ROUTE_X2APIC_ICR,        /* MFENCE; WRMSR 0x830 (the ICR), shorthand self: kvm-unit-tests'
				     * apic_icr_write() once the x2APIC is on */
	KB_ROUTE_SELF_IPI_MSR,      /* WRMSR 0x83f (SELF_IPI): kvm-unit-tests' x2apic_self_ipi() */
};

enum kb_apic_test {
	KB_APIC_SELF_IPI_STI_NOP = 1,   /* CLI; self-IPI; STI; NOP takes it */
	KB_APIC_SELF_IPI_STI_HLT,       /* CLI; self-IPI; STI; HLT takes it */
	KB_APIC_SELF_IPI_TPR,           /* IF=1: TPR raised, self-IPI (held back), TPR lowered: taken */
	KB_APIC_SELF_IPI_TPR_STI_NOP,   /* CLI; TPR raised; self-IPI; TPR lowered; STI; NOP */
	KB_APIC_SELF_IPI_TPR_STI_HLT,   /* ... STI; HLT */
	KB_APIC_EOI,                    /* self_ipi_sti_nop over the x2APIC ICR; only the handler's EOI
					 * (one interrupt in service) is timed: mailbox tsc_eoi */
	KB_APIC_EOI_IDLE,               /* an EOI write with nothing in service */
	KB_APIC_TSCDEADLINE,            /* IF=1: deadline param[2] cycles ahead, busy-wait for it */
	KB_APIC_TSCDEADLINE_IMMED,      /* IF=1: deadline "now", serialised by CPUID, no wait */
	KB_APIC_TSCDEADLINE_HLT,        /* deadline param[2] cycles ahead, waited for in STI; HLT */
	KB_APIC_IPI,                    /* vCPU 1 idles in HLT; vCPU 0 sends and waits for its handler */
	KB_APIC_IPI_HALT,               /* KB_APIC_IPI, then 2000 TSC cycles of busy wait */
	KB_APIC_IPI_SPIN,               /* vCPU 1 spins with IF=1; vCPU 0 sends and waits for its handler */
	KB_APIC_SELF_IPI_COALESCED,     /* a self-IPI every iteration, IF=1 only every other one: two
					 * IPIs meet in the IRR and one is lost (selftest/irq_coalesced) */
};

/* What KB_LOOP_MEM does to every 4 KiB page of its range; args[0] returns the pages written,
 * args[1] the pages read or called, args[2] the pages whose content the guest found wrong, args[3]
 * the GPA of the first of them, args[4] what it found there (see kb_mem_word()). */
enum kb_mem_op {
	KB_MEM_POPULATE = 1,  /* write the page's stub (KB_MEM_STUB_LEN bytes, kb_mem_stub()) to its start */
	KB_MEM_EXECUTE,       /* call the page's stub; it must return kb_mem_stub_value() of its own GPA */
	KB_MEM_DIRTY,         /* write kb_mem_word(GPA, value) to the pages kb_mem_page_written() selects, read
			       * the others; both first check the page still holds what the last pass left */
};

/*
 * What KB_MEM_DIRTY writes to the first 8 bytes of the page at 'gpa' in pass 'value' (populate is
 * pass 0): the pass + 1 in bits 40 and up, the page's frame number below, so that a value found in
 * the wrong place names the page and the pass it came from (0x0000020000100005: pass 1, GPA 0x100005000).
 */
static inline uint64_t kb_mem_word(uint64_t gpa, uint64_t value)
{
	return ((value + 1) << 40) | ((gpa >> 12) & ((1ULL << 40) - 1));
}

/* Whether 'found' is what a page at 'gpa' may hold when pass 'value' comes to it: the previous
 * pass's word (nothing before populate: 0), or this pass's when another vCPU shares the page. */
static inline int kb_mem_word_ok(uint64_t found, uint64_t gpa, uint64_t value)
{
	return found == kb_mem_word(gpa, value) || found == (value ? kb_mem_word(gpa, value - 1) : 0);
}

/*
 * KB_MEM_POPULATE's stub, a function that returns a number naming its page (the low 32 bits of its
 * frame number), so that an execute landing on another page's stub returns the wrong number.  Its
 * instructions are the guest's: 'arch' is the image's KB_LOOP_X86 or KB_LOOP_ARM64 (include/kb_loops.h,
 * the same bits as the host's enum kb_arch); the stub's length is returned.
 *   x86:   mov eax, imm32; ret                                  (6 bytes)
 *   arm64: movz w0, #lo16; movk w0, #hi16, lsl #16; ret         (12 bytes, little-endian words)
 */
#define KB_MEM_STUB_MAX 12
static inline uint32_t kb_mem_stub_value(uint64_t gpa)
{
	return (uint32_t)(gpa >> 12);
}
static inline void kb_mem_stub_put32(uint8_t *out, uint32_t w)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(w >> (8 * i));
}
static inline int kb_mem_stub(unsigned int arch, uint64_t gpa, uint8_t out[KB_MEM_STUB_MAX])
{
	uint32_t v = kb_mem_stub_value(gpa);

	if (arch == KB_LOOP_ARM64) {
		kb_mem_stub_put32(out, 0x52800000u | (v & 0xffffu) << 5);   /* movz w0, #lo16 */
		kb_mem_stub_put32(out + 4, 0x72a00000u | (v >> 16) << 5);   /* movk w0, #hi16, lsl #16 */
		kb_mem_stub_put32(out + 8, 0xd65f03c0u);                    /* ret */
		return 12;
	}
	out[0] = 0xb8;   /* mov eax, imm32 */
	kb_mem_stub_put32(out + 1, v);
	out[5] = 0xc3;   /* ret */
	return 6;
}

/*
 * Whether KB_MEM_DIRTY writes page 'page' (counted from the start of its range) at 'percent'
 * percent: exactly floor(n * percent / 100) of the first n pages, spread evenly.  The host
 * computes the pages it expects to find dirty with the same function.
 */
static inline int kb_mem_page_written(uint64_t page, uint64_t percent)
{
	return (page + 1) * percent / 100 != page * percent / 100;
}

/* kvm-unit-tests' vmexit vectors: IPI_TEST_VECTOR for self-IPIs and the TSC-deadline timer, and
 * lib/x86/smp.c's IPI_VECTOR for on_cpu() between vCPUs. */
#define KB_TEST_VECTOR    0xb0
#define KB_SMP_VECTOR     0x20
#define KB_SPURIOUS_VECTOR 0xff

/* Between the vCPUs of a two-vCPU test, at KB_DATA_GPA. */
struct kb_shared {
	volatile uint64_t receiver_ready;   /* vCPU 1 has its APIC and interrupts on */
	volatile uint64_t irq_received;     /* arm64: the receiver's handler took the SGI or LPI (micro-bench's irq_received) */
	volatile uint64_t its_ready;        /* arm64: vCPU 0 has mapped the ITS device, collection and LPI */
	volatile uint64_t its_cwriter;      /* arm64: vCPU 0's next command queue offset */
	volatile uint64_t ipi_sent;         /* the IPIs (SGIs, LPIs) vCPU 0 has seen handled in this sample */
};

struct kb_mailbox {
	/* guest -> host */
	uint64_t call;
	uint64_t args[6];
	uint64_t tsc_begin;      /* guest TSC around the last loop */
	uint64_t tsc_end;
	uint64_t done_iters;
	/* host -> guest */
	uint64_t op;
	uint64_t test;
	uint64_t iters;
	uint64_t param[6];
	uint64_t vcpu_id;
	uint64_t pvm_vif_gpa;    /* kvm_pvm: the byte that is this vCPU's interrupt flag; 0 elsewhere */
	volatile uint64_t irq_count;   /* interrupts the guest's handler has taken */
	uint64_t apic_ready;     /* the guest set up its APIC (once per VM, outside the samples) */
	volatile uint64_t shadow_violations;   /* interrupts taken inside STI's shadow, before HLT */
	volatile uint64_t late_irq_nudges;     /* times a spinning IPI receiver had to exit to get its interrupt */
	volatile uint64_t ipi_resends;         /* times the IPI sender sent again: the first never arrived */
	uint64_t part_timed;     /* the loop's cycles are its EOIs' (tsc_eoi), not tsc_end - tsc_begin */
	/* kvm-unit-tests' sub-timings, TSC cycles summed since the VM started: the self-IPI sends and
	 * on_cpu() of ipi ("ipi"), the EOIs of the KB_TEST_VECTOR handler ("eoi") */
	volatile uint64_t tsc_ipi;
	volatile uint64_t tsc_eoi;
	char msg[256];
};

#endif
