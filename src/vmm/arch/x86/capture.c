/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c: x86 state at a failing exit, for a capture file: every register, the special registers
 * and the guest page tables' walk of the addresses that matter (RIP, RSP, CR2). */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/buf.h"
#include "vmm/arch.h"
#include "vmm/kvm.h"
#include "vmm/machine.h"

/* The host address of guest-physical 'gpa' for 8 bytes, in the base memory or a page-table memslot;
 * NULL elsewhere (the test memory holds data, never page tables). */
static const uint64_t *table_entry(const struct kb_machine *m, uint64_t gpa)
{
	if (gpa + 8 <= m->vm.mem_size)
		return (const uint64_t *)(m->vm.mem + gpa);
	for (int i = 0; i < m->npt; i++)
		if (gpa >= m->pt[i].gpa && gpa + 8 <= m->pt[i].gpa + m->pt[i].size)
			return (const uint64_t *)((uint8_t *)m->pt[i].hva + (gpa - m->pt[i].gpa));
	return NULL;
}

static void walk(const struct kb_machine *m, uint64_t cr3, const char *what, uint64_t va, struct kb_buf *b)
{
	static const char *const level[] = { "PML4E", "PDPTE", "PDE", "PTE" };
	uint64_t table = cr3 & 0x000ffffffffff000ULL;

	kb_buf_printf(b, "walk of %s 0x%llx (CR3 0x%llx):\n", what, (unsigned long long)va, (unsigned long long)cr3);
	for (int l = 0; l < 4; l++) {
		int shift = 39 - 9 * l;
		uint64_t gpa = table + ((va >> shift) & 511) * 8, e;
		const uint64_t *p = table_entry(m, gpa);

		if (!p) {
			kb_buf_printf(b, "  %-5s at GPA 0x%llx: outside the memory kvmbench keeps page tables in\n",
				      level[l], (unsigned long long)gpa);
			return;
		}
		e = *p;
		kb_buf_printf(b, "  %-5s at GPA 0x%llx = 0x%016llx%s%s%s%s%s\n", level[l], (unsigned long long)gpa,
			      (unsigned long long)e, e & 1 ? " P" : " not-present", e & 2 ? " W" : "", e & 4 ? " U" : "",
			      (e >> 63) ? " NX" : "", l > 0 && l < 3 && (e & 0x80) ? " PS" : "");
		if (!(e & 1))
			return;
		if (l > 0 && l < 3 && (e & 0x80)) {
			uint64_t size = 1ULL << shift;

			kb_buf_printf(b, "  -> GPA 0x%llx (a %s page)\n",
				      (unsigned long long)((e & 0x000fffffffffffffULL & ~(size - 1) & ~(1ULL << 63)) | (va & (size - 1))),
				      l == 1 ? "1 GiB" : "2 MiB");
			return;
		}
		table = e & 0x000ffffffffff000ULL;
	}
	kb_buf_printf(b, "  -> GPA 0x%llx (a 4 KiB page)\n", (unsigned long long)(table | (va & 0xfff)));
}

static void seg(struct kb_buf *b, const char *name, const struct kvm_segment *s)
{
	kb_buf_printf(b, "%-3s sel=0x%04x base=0x%llx limit=0x%x type=%u s=%u dpl=%u p=%u l=%u db=%u g=%u\n", name,
		      s->selector, (unsigned long long)s->base, s->limit, s->type, s->s, s->dpl, s->present, s->l,
		      s->db, s->g);
}

int kb_arch_vcpu_capture(const struct kb_machine *m, struct kb_vcpu *v, struct kb_buf *b)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	if (ioctl(v->fd, KVM_GET_REGS, &r) || ioctl(v->fd, KVM_GET_SREGS, &s)) {
		kb_buf_printf(b, "registers unavailable (KVM_GET_REGS/KVM_GET_SREGS): %s\n", strerror(errno));
		return -errno;
	}
	kb_buf_printf(b, "KVM_GET_REGS:\n"
		      "rax=0x%016llx rbx=0x%016llx rcx=0x%016llx rdx=0x%016llx\n"
		      "rsi=0x%016llx rdi=0x%016llx rbp=0x%016llx rsp=0x%016llx\n"
		      "r8 =0x%016llx r9 =0x%016llx r10=0x%016llx r11=0x%016llx\n"
		      "r12=0x%016llx r13=0x%016llx r14=0x%016llx r15=0x%016llx\n"
		      "rip=0x%016llx rflags=0x%llx\n",
		      (unsigned long long)r.rax, (unsigned long long)r.rbx, (unsigned long long)r.rcx,
		      (unsigned long long)r.rdx, (unsigned long long)r.rsi, (unsigned long long)r.rdi,
		      (unsigned long long)r.rbp, (unsigned long long)r.rsp, (unsigned long long)r.r8,
		      (unsigned long long)r.r9, (unsigned long long)r.r10, (unsigned long long)r.r11,
		      (unsigned long long)r.r12, (unsigned long long)r.r13, (unsigned long long)r.r14,
		      (unsigned long long)r.r15, (unsigned long long)r.rip, (unsigned long long)r.rflags);
	kb_buf_printf(b, "KVM_GET_SREGS:\n");
	seg(b, "cs", &s.cs);
	seg(b, "ds", &s.ds);
	seg(b, "es", &s.es);
	seg(b, "fs", &s.fs);
	seg(b, "gs", &s.gs);
	seg(b, "ss", &s.ss);
	seg(b, "tr", &s.tr);
	seg(b, "ldt", &s.ldt);
	kb_buf_printf(b, "gdt base=0x%llx limit=0x%x  idt base=0x%llx limit=0x%x\n", (unsigned long long)s.gdt.base,
		      s.gdt.limit, (unsigned long long)s.idt.base, s.idt.limit);
	kb_buf_printf(b, "cr0=0x%llx cr2=0x%llx cr3=0x%llx cr4=0x%llx cr8=0x%llx efer=0x%llx apic_base=0x%llx\n",
		      (unsigned long long)s.cr0, (unsigned long long)s.cr2, (unsigned long long)s.cr3,
		      (unsigned long long)s.cr4, (unsigned long long)s.cr8, (unsigned long long)s.efer,
		      (unsigned long long)s.apic_base);
	if (!(s.cr0 & 0x80000000ULL)) {
		kb_buf_printf(b, "paging is off (CR0.PG clear): no page-table walk\n");
		/* kvm_amd's shutdown_interception() reinitialises the VMCB before userspace sees the exit. */
		if (r.rip == 0xfff0 && s.cs.base == 0xffff0000ULL)
			kb_buf_printf(b, "these are the vCPU's reset registers: KVM on AMD SVM reinitialises the VMCB on a "
				      "SHUTDOWN intercept before the exit reaches userspace, so they do not say where the "
				      "guest was; KVM's tracepoints do (kvm_inj_exception, kvm_page_fault, kvm_exit)\n");
		return 0;
	}
	kb_buf_printf(b, "guest page tables:\n");
	walk(m, s.cr3, "RIP", r.rip, b);
	walk(m, s.cr3, "RSP", r.rsp, b);
	walk(m, s.cr3, "CR2 (the last page fault's address)", s.cr2, b);
	return 0;
}
