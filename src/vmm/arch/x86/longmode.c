/* SPDX-License-Identifier: GPL-2.0-or-later */
/* longmode.c: x86-64 entry state: identity-mapping page tables, GDT and TSS, segments and CRs. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "core/kb.h"
#include "vmm/arch.h"
#include "vmm/machine.h"
#include "vmm/arch/x86/x86.h"

#define PTE_P   0x1ULL
#define PTE_W   0x2ULL
#define PTE_U   0x4ULL    /* kvm_pvm runs the guest at CPL3: U/S is needed at every level */
#define PTE_A   0x20ULL
#define PTE_D   0x40ULL
#define PTE_PS  0x80ULL

static uint64_t *gpa_ptr(struct kb_machine *m, uint64_t gpa)
{
	return (uint64_t *)(m->vm.mem + gpa);
}

/* Identity-map GiB number g with 2 MiB pages (writable, executable). */
static void map_gib(struct kb_machine *m, uint64_t g)
{
	uint64_t *pdpt = gpa_ptr(m, KB_PDPT_GPA);
	uint64_t pd_gpa = g < KB_PD_MAX ? KB_PD_GPA + g * 0x1000 : KB_PD_HIGH_GPA + (g - KB_PD_MAX) * 0x1000;
	uint64_t *pd = gpa_ptr(m, pd_gpa);

	pdpt[g] = pd_gpa | PTE_P | PTE_W | PTE_U;
	for (int i = 0; i < 512; i++)
		pd[i] = ((g << 30) + ((uint64_t)i << 21)) | PTE_P | PTE_W | PTE_U | PTE_PS;
}

static void build_page_tables(struct kb_machine *m)
{
	uint64_t *pml4 = gpa_ptr(m, KB_PML4_GPA);
	/* At least 4 GiB, so the xAPIC page at 0xfee00000 is mapped. */
	uint64_t gib = (m->vm.mem_size + (1ULL << 30) - 1) >> 30;

	if (gib < 4)
		gib = 4;

	pml4[0] = KB_PDPT_GPA | PTE_P | PTE_W | PTE_U;
	for (uint64_t g = 0; g < gib; g++)
		map_gib(m, g);
}

/* The PD of GiB g, hooked into the PDPT (its entries as they are: zero for a new one). */
static uint64_t *pd_of(struct kb_machine *m, uint64_t g)
{
	uint64_t *pdpt = gpa_ptr(m, KB_PDPT_GPA);
	uint64_t pd_gpa = g < KB_PD_MAX ? KB_PD_GPA + g * 0x1000 : KB_PD_HIGH_GPA + (g - KB_PD_MAX) * 0x1000;

	pdpt[g] = pd_gpa | PTE_P | PTE_W | PTE_U;
	return gpa_ptr(m, pd_gpa);
}

/* Identity-map [gpa, gpa + size) with 4 KiB pages: one page table per 2 MiB, in a memslot of their
 * own above everything the guest maps.  Accessed and dirty bits are set already, so that no page
 * walk writes to the tables (nor dirties them for dirty logging). */
static int map_4k(struct kb_machine *m, uint64_t gpa, uint64_t size)
{
	uint64_t chunks = size >> 21, bytes = (chunks * 4096 + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
	struct kb_memslot *s = &m->pt[m->npt];
	uint64_t base = m->npt ? m->pt[m->npt - 1].gpa + m->pt[m->npt - 1].size : KB_PT_GPA;
	int err;

	if (m->npt == KB_PT_SLOTS)
		return kb_fail(ENOSPC, "4 KiB guest pages: more than %d memslots of page tables", KB_PT_SLOTS);
	*s = (struct kb_memslot){ .id = KB_PT_SLOT_ID0 + (uint32_t)m->npt, .gpa = base, .size = bytes };
	s->hva = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->hva == MAP_FAILED)
		return kb_fail(errno, "4 KiB guest pages: mmap of %llu KiB of page tables: %s",
			       (unsigned long long)(bytes >> 10), strerror(errno));
	err = kb_memslot_create(&m->vm, s);
	if (err) {
		munmap(s->hva, bytes);
		return err;
	}
	m->npt++;
	for (uint64_t c = 0; c < chunks; c++) {
		uint64_t va = gpa + (c << 21), *pt = (uint64_t *)((uint8_t *)s->hva + c * 4096);

		for (int i = 0; i < 512; i++)
			pt[i] = (va + ((uint64_t)i << 12)) | PTE_P | PTE_W | PTE_U | PTE_A | PTE_D;
		pd_of(m, va >> 30)[(va >> 21) & 511] = (s->gpa + c * 4096) | PTE_P | PTE_W | PTE_U | PTE_A;
	}
	return 0;
}

int kb_arch_machine_map(struct kb_machine *m, uint64_t gpa, uint64_t size)
{
	uint64_t *pdpt = gpa_ptr(m, KB_PDPT_GPA);

	/* The vCPUs have not run yet, or run nothing that touches the new range: no TLB to flush. */
	if (m->guest_page == KB_GUEST_PAGE_4K)
		return map_4k(m, gpa, size);
	for (uint64_t g = gpa >> 30; g <= (gpa + size - 1) >> 30; g++)
		if (!pdpt[g])
			map_gib(m, g);
	return 0;
}

static void build_gdt(struct kb_machine *m)
{
	uint64_t *gdt = gpa_ptr(m, KB_GDT_GPA);
	uint64_t base = KB_TSS_GPA, limit = 0x67;

	gdt[KB_SEL_CODE / 8] = 0x00af9b000000ffffULL;   /* 64-bit code, DPL0 */
	gdt[KB_SEL_DATA / 8] = 0x00cf93000000ffffULL;   /* data, DPL0 */
	/* 64-bit TSS (busy): a 16-byte descriptor. */
	gdt[KB_SEL_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x8bULL << 40) |
			      (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[KB_SEL_TSS / 8 + 1] = base >> 32;
}

void kb_x86_build_tables(struct kb_machine *m)
{
	build_page_tables(m);
	build_gdt(m);
}

static void seg(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code;
	s->db = !code;
}

int kb_x86_enter_long_mode(struct kb_vcpu *v, uint64_t efer)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs))
		return kb_fail(errno, "vCPU %d: KVM_GET_SREGS: %s", v->id, strerror(errno));
	seg(&sregs.cs, KB_SEL_CODE, 0xb, true);
	seg(&sregs.ds, KB_SEL_DATA, 0x3, false);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	memset(&sregs.tr, 0, sizeof(sregs.tr));
	sregs.tr.selector = KB_SEL_TSS;
	sregs.tr.base = KB_TSS_GPA;
	sregs.tr.limit = 0x67;
	sregs.tr.type = 0xb;
	sregs.tr.present = 1;
	memset(&sregs.ldt, 0, sizeof(sregs.ldt));
	sregs.ldt.type = 0x2;
	sregs.ldt.unusable = 1;
	sregs.gdt.base = KB_GDT_GPA;
	sregs.gdt.limit = 0x2f;
	sregs.idt.base = KB_IDT_GPA;
	sregs.idt.limit = 0xfff;
	sregs.cr0 = 0x80050033;   /* PG WP AM NE ET MP PE */
	sregs.cr3 = KB_PML4_GPA;
	sregs.cr4 = 0x6a0;        /* PAE PGE OSFXSR OSXMMEXCPT (kvm_pvm refuses PCIDE) */
	sregs.efer = efer;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs))
		return kb_fail(errno, "vCPU %d: KVM_SET_SREGS (long mode): %s", v->id, strerror(errno));

	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	regs.rip = KB_IMAGE_GPA;
	regs.rsp = KB_STACK_GPA + (uint64_t)(v->id + 1) * KB_STACK_SIZE - 16;
	regs.rdi = v->id;
	regs.rsi = KB_VCPU_AREA_GPA + (uint64_t)v->id * KB_VCPU_AREA_SIZE;
	if (ioctl(v->fd, KVM_SET_REGS, &regs))
		return kb_fail(errno, "vCPU %d: KVM_SET_REGS: %s", v->id, strerror(errno));
	return 0;
}
