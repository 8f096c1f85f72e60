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
#define KB_PD_MAX         14           /* page tables cover at most 14 GiB */
#define KB_VCPU_AREA_GPA  0x20000ULL   /* per vCPU: mailbox page, PVM flags page */
#define KB_VCPU_AREA_SIZE 0x2000ULL
#define KB_MAX_VCPUS      64
#define KB_IMAGE_GPA      0x100000ULL  /* guest image is linked here */
#define KB_IMAGE_MAX      0x100000ULL
#define KB_STACK_GPA      0x200000ULL
#define KB_STACK_SIZE     0x4000ULL
#define KB_DATA_GPA       0x400000ULL  /* free guest memory for suites */

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
	KB_LOOP_MAX
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
	char msg[256];
};

#endif
