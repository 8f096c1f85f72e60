/* kb_abi.h: the contract between the host VMM and the guest image (layout, call channel, ops). */
#ifndef KB_ABI_H
#define KB_ABI_H

#include <stdint.h>

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
#define KB_VCPU_AREA_GPA  0x20000ULL   /* per vCPU: mailbox page, PVM flags page */
#define KB_VCPU_AREA_SIZE 0x2000ULL
#define KB_MAX_VCPUS      64
#define KB_IMAGE_GPA      0x100000ULL  /* guest image is linked here */
#define KB_IMAGE_MAX      0x100000ULL
#define KB_STACK_GPA      0x200000ULL
#define KB_STACK_SIZE     0x4000ULL
/* One PD per GiB above the first KB_PD_MAX, for the memory suites' test memory; up to KB_DATA_GPA. */
#define KB_PD_HIGH_GPA    (KB_STACK_GPA + KB_MAX_VCPUS * KB_STACK_SIZE)
#define KB_PD_HIGH_MAX    256
#define KB_DATA_GPA       0x400000ULL  /* free guest memory for suites */
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
/* A port the in-kernel PIC answers (the master PIC's interrupt mask register). */
#define KB_KERNEL_PORT    0x21

enum kb_ucall {
	KB_UC_NEXT = 1,   /* previous op done (results in mailbox); what next? */
	KB_UC_FAULT,      /* args: vector, error code, rip, cr2-ish */
	KB_UC_ABORT,      /* msg holds "file:line: text" */
	KB_UC_PRINT,      /* msg holds text for the host's debug log */
	KB_UC_PROGRESS,   /* a long loop is still running: the host enters the guest again at once */
};

enum kb_op {
	KB_OP_NONE = 0,
	KB_OP_QUIT,       /* guest halts forever */
	KB_OP_LOOP,       /* run loop 'test' for 'iters' iterations, timed */
};

/* Loops the guest knows, selected by mailbox.test. */
enum kb_loop {
	KB_LOOP_CPUID = 1,   /* param[0] leaf, param[1] subleaf */
	KB_LOOP_SPIN,        /* never returns: for the watchdog */
	KB_LOOP_UD2,         /* raises #UD: for the exception path */
	KB_LOOP_NOP,         /* empty loop: measurement floor */
	KB_LOOP_RDMSR,       /* param[0] MSR index */
	KB_LOOP_WRMSR,       /* param[0] MSR index, param[1] value */
	KB_LOOP_EFER_TOGGLE, /* WRMSR EFER flipping SCE every iteration */
	KB_LOOP_IN,          /* param[0] port, param[1] width in bytes (1, 2, 4) */
	KB_LOOP_OUT,         /* param[0] port, param[1] width, param[2] value */
	KB_LOOP_MMIO_READ,   /* param[0] guest physical address, 4-byte read */
	KB_LOOP_HYPERCALL,   /* param[0] 1: VMMCALL (AMD), 0: VMCALL (Intel) */
	KB_LOOP_MOV_TO_CR8,
	KB_LOOP_MOV_FROM_CR8,
	KB_LOOP_APIC,        /* param[0] enum kb_apic_mode, param[1] enum kb_apic_test, param[2] TSC delta,
			      * [3] TSC cycles after which an IPI is taken as lost (0: never) */
	KB_LOOP_MEM,         /* param[0] enum kb_mem_op, [1] first GPA, [2] bytes, [3] value, [4] write percent,
			      * [5] TSC cycles between KB_UC_PROGRESS calls (0: none) */
	KB_LOOP_TRIPLE,      /* loads an empty IDT, then raises #UD: a triple fault, for the shutdown path */
	KB_LOOP_MAX
};

enum kb_apic_mode {
	KB_XAPIC = 0,        /* registers through MMIO at 0xfee00000 */
	KB_X2APIC = 1,       /* registers through MSRs 0x800.. */
};

enum kb_apic_test {
	KB_APIC_SELF_IPI_STI_NOP = 1,   /* IPI to self with IF=0, then STI; NOP takes it */
	KB_APIC_SELF_IPI_STI_HLT,       /* ... STI; HLT takes it */
	KB_APIC_SELF_IPI_TPR,           /* IF=1, TPR raised: the IPI waits; lowering the TPR takes it */
	KB_APIC_SELF_IPI_TPR_STI_NOP,   /* IF=0, TPR raised, IPI, TPR lowered, STI; NOP */
	KB_APIC_SELF_IPI_TPR_STI_HLT,   /* ... STI; HLT */
	KB_APIC_EOI,                    /* an EOI write with nothing in service */
	KB_APIC_TSCDEADLINE,            /* TSC-deadline timer armed param[2] cycles ahead, wait in HLT */
	KB_APIC_TSCDEADLINE_IMMED,      /* deadline already passed: the interrupt comes at once */
	KB_APIC_IPI,                    /* vCPU 0 interrupts vCPU 1, which spins with IF=1 */
	KB_APIC_IPI_HALT,               /* vCPU 0 interrupts vCPU 1, which waits in HLT */
};

/* What KB_LOOP_MEM does to every 4 KiB page of its range; args[0] returns the pages written,
 * args[1] the pages read or called. */
enum kb_mem_op {
	KB_MEM_POPULATE = 1,  /* write a RET (0xc3) to the page's first byte */
	KB_MEM_EXECUTE,       /* call the page's first byte */
	KB_MEM_DIRTY,         /* write the 8-byte value to the pages kb_mem_page_written() selects, read the others */
};

/*
 * Whether KB_MEM_DIRTY writes page 'page' (counted from the start of its range) at 'percent'
 * percent: exactly floor(n * percent / 100) of the first n pages, spread evenly.  The host
 * computes the pages it expects to find dirty with the same function.
 */
static inline int kb_mem_page_written(uint64_t page, uint64_t percent)
{
	return (page + 1) * percent / 100 != page * percent / 100;
}

#define KB_IPI_VECTOR     0xf0
#define KB_TIMER_VECTOR   0xef
#define KB_SPURIOUS_VECTOR 0xff

/* Between the vCPUs of a two-vCPU test, at KB_DATA_GPA. */
struct kb_shared {
	volatile uint64_t receiver_ready;   /* vCPU 1 has its APIC and interrupts on */
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
	char msg[256];
};

#endif
