/* machine.c: lay out guest memory, enter long mode, load the embedded guest image. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kb.h"
#include "machine.h"

extern const uint8_t kb_guest_image[];
extern const uint8_t kb_guest_image_end[];

#define PTE_P   0x1ULL
#define PTE_W   0x2ULL
#define PTE_U   0x4ULL    /* kvm_pvm runs the guest at CPL3: U/S is needed at every level */
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

int kb_machine_add_memory(struct kb_machine *m, struct kb_memslot *s)
{
	uint64_t *pdpt = gpa_ptr(m, KB_PDPT_GPA);
	int err;

	if (s->gpa < m->vm.mem_size || s->gpa % (2ULL << 20) || s->size % (2ULL << 20) || !s->size ||
	    s->gpa + s->size > ((uint64_t)(KB_PD_MAX + KB_PD_HIGH_MAX) << 30))
		return kb_fail(EINVAL, "memslot %u: %llu MiB at GPA 0x%llx must be 2 MiB-aligned, above the base "
			       "memory and below %d GiB (where the guest's page tables end)", s->id,
			       (unsigned long long)(s->size >> 20), (unsigned long long)s->gpa, KB_PD_MAX + KB_PD_HIGH_MAX);
	err = kb_memslot_create(&m->vm, s);
	if (err)
		return err;
	/* The vCPUs have not run yet, or run nothing that touches the new range: no TLB to flush. */
	for (uint64_t g = s->gpa >> 30; g <= (s->gpa + s->size - 1) >> 30; g++)
		if (!pdpt[g])
			map_gib(m, g);
	return 0;
}

int kb_machine_remove_memory(struct kb_machine *m, struct kb_memslot *s)
{
	/* The identity map stays: without a memslot behind it an access is an MMIO exit, reported as such. */
	return kb_memslot_destroy(&m->vm, s);
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

static int setup_long_mode(struct kb_machine *m, struct kb_vcpu *v)
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
	sregs.efer = 0xd01;       /* NXE LMA LME SCE */
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

/*
 * Without this switch kvm_pvm runs ring-0 guest code through KVM's
 * instruction emulator, which "works" but measures the emulator.
 */
/* The page after a vCPU's mailbox; its byte 0 is kvm_pvm's virtual interrupt flag. */
static uint64_t pvm_flags_gpa(int vcpu)
{
	return KB_VCPU_AREA_GPA + (uint64_t)vcpu * KB_VCPU_AREA_SIZE + 0x1000;
}

static int enable_pvm_native(struct kb_vcpu *v)
{
	uint64_t ident = 0;
	int err;

	err = kb_vcpu_get_msr(v, KB_PVM_MSR_IDENT, &ident);
	if (err || ident != KB_PVM_IDENT_VALUE)
		return kb_fail(ENOTSUP, "vCPU %d: kvm_pvm is loaded but MSR 0x%x reads 0x%llx, not \"PVM\": "
			       "this kvm_pvm is not the one kvmbench knows how to drive natively",
			       v->id, KB_PVM_MSR_IDENT, (unsigned long long)ident);
	return kb_vcpu_set_msr(v, KB_PVM_MSR_ENABLE, pvm_flags_gpa(v->id) | 1);
}

struct kb_mailbox *kb_machine_mailbox(struct kb_machine *m, int vcpu)
{
	return (struct kb_mailbox *)(m->vm.mem + KB_VCPU_AREA_GPA + (uint64_t)vcpu * KB_VCPU_AREA_SIZE);
}

uint64_t kb_machine_patience_cycles(const struct kb_machine *m, uint64_t timeout_ns)
{
	return (uint64_t)m->vcpus[0].tsc_khz * (timeout_ns / 16000000ULL);
}

int kb_machine_create(struct kb_kvm *kvm, const struct kb_machine_cfg *cfg, struct kb_machine *m)
{
	size_t image_size = (size_t)(kb_guest_image_end - kb_guest_image);
	uint64_t mem = cfg->mem_size ? cfg->mem_size : KB_DEFAULT_MEM;
	int err;

	memset(m, 0, sizeof(*m));
	m->kvm = kvm;
	m->vm.fd = -1;
	if (cfg->nvcpus < 1 || cfg->nvcpus > KB_MAX_VCPUS)
		return kb_fail(EINVAL, "%d vCPUs requested; kvmbench supports 1 to %d", cfg->nvcpus, KB_MAX_VCPUS);
	if (mem < KB_DATA_GPA || mem > ((uint64_t)KB_PD_MAX << 30))
		return kb_fail(EINVAL, "guest memory of %llu MiB is outside 4 MiB..%d GiB",
			       (unsigned long long)(mem >> 20), KB_PD_MAX);
	if (image_size > KB_IMAGE_MAX)
		return kb_fail(EFBIG, "guest image is %zu bytes, larger than its %llu-byte slot", image_size,
			       (unsigned long long)KB_IMAGE_MAX);

	err = kb_vm_create(kvm, &m->vm, mem, cfg->irqchip, cfg->plan);
	if (err)
		return err;
	if (cfg->dirty_ring_bytes) {
		err = kb_vm_enable_dirty_ring(&m->vm, cfg->dirty_ring_bytes);
		if (err)
			goto fail;
	}
	if (cfg->user_msr) {
		/* KVM_CHECK_EXTENSION only says "supported"; UNKNOWN is the reason an MSR KVM lacks exits with. */
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_X86_USER_SPACE_MSR,
			.args = { KVM_MSR_EXIT_REASON_INVAL | KVM_MSR_EXIT_REASON_UNKNOWN },
		};

		if (kb_kvm_cap(kvm, KVM_CAP_X86_USER_SPACE_MSR) <= 0 || ioctl(m->vm.fd, KVM_ENABLE_CAP, &cap)) {
			err = kb_fail(errno ? errno : ENOTSUP, "KVM_ENABLE_CAP(KVM_CAP_X86_USER_SPACE_MSR): %s",
				      strerror(errno ? errno : ENOTSUP));
			goto fail;
		}
	}
	build_page_tables(m);
	build_gdt(m);
	memcpy(m->vm.mem + KB_IMAGE_GPA, kb_guest_image, image_size);

	m->vcpus = kb_xcalloc(cfg->nvcpus, sizeof(*m->vcpus));
	for (int i = 0; i < cfg->nvcpus; i++)
		m->vcpus[i].fd = -1;
	m->pvm_native = kvm->backend == KB_BACKEND_PVM && !cfg->pvm_emulated;
	m->fault_vector = -1;
	for (int i = 0; i < cfg->nvcpus; i++) {
		struct kb_vcpu *v = &m->vcpus[i];

		err = kb_vcpu_create(&m->vm, i, v);
		if (err)
			goto fail;
		m->nvcpus = i + 1;
		kb_machine_mailbox(m, i)->vcpu_id = i;
		if (m->pvm_native)
			kb_machine_mailbox(m, i)->pvm_vif_gpa = pvm_flags_gpa(i);
		err = setup_long_mode(m, v);
		/* With an in-kernel LAPIC, KVM parks every vCPU but the first until INIT/SIPI. */
		if (!err && cfg->irqchip && i > 0) {
			struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };

			if (ioctl(v->fd, KVM_SET_MP_STATE, &mp))
				err = kb_fail(errno, "vCPU %d: KVM_SET_MP_STATE(RUNNABLE): %s", i, strerror(errno));
		}
		if (!err && m->pvm_native)
			err = enable_pvm_native(v);
		if (err)
			goto fail;
	}
	return 0;
fail:
	kb_machine_destroy(m);
	return err;
}

void kb_machine_destroy(struct kb_machine *m)
{
	for (int i = 0; i < m->nvcpus; i++)
		kb_vcpu_destroy(&m->vcpus[i]);
	free(m->vcpus);
	m->vcpus = NULL;
	m->nvcpus = 0;
	if (m->vm.fd >= 0)
		kb_vm_destroy(&m->vm);
}

static const char *const vector_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "?", "#TS", "#NP",
	"#SS", "#GP", "#PF", "?", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

int kb_machine_call(struct kb_machine *m, int vcpu, uint64_t timeout_ns)
{
	struct kb_vcpu *v = &m->vcpus[vcpu];
	struct kb_mailbox *mb = kb_machine_mailbox(m, vcpu);
	struct kvm_run *run = v->run;
	char state[512];
	int err;

again:
	err = kb_vcpu_run(v, timeout_ns);
	if (err == -ETIMEDOUT) {
		kb_vcpu_describe(v, state, sizeof(state));
		return kb_fail(ETIMEDOUT, "guest hang: vCPU %d did not exit within %.1f s (watchdog); %s",
			       vcpu, timeout_ns / 1e9, state);
	}
	if (err == -EINTR)
		return kb_fail(EINTR, "vCPU %d: interrupted", vcpu);
	if (err)
		return err;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		/* The round-trip tests' port: answered here, cheaply, and the guest goes on. */
		if (run->io.port == KB_USER_PORT) {
			if (run->io.direction == KVM_EXIT_IO_IN)
				memset((uint8_t *)run + run->io.data_offset, 0, (size_t)run->io.size * run->io.count);
			goto again;
		}
		if (run->io.port != KB_UCALL_PORT || run->io.direction != KVM_EXIT_IO_OUT)
			break;
		switch (mb->call) {
		case KB_UC_NEXT:
		case KB_UC_PRINT:
			return (int)mb->call;
		case KB_UC_PROGRESS:
			/* A long loop shows it is alive; the watchdog bounds each KVM_RUN, not the loop. */
			goto again;
		case KB_UC_FAULT: {
			uint64_t vec = mb->args[0];

			m->fault_vector = (int)vec;
			return kb_fail(EFAULT, "guest exception %s (vector %llu) on vCPU %d at rip=0x%llx, error code 0x%llx",
				       vec < 32 && vector_names[vec] ? vector_names[vec] : "?",
				       (unsigned long long)vec, vcpu, (unsigned long long)mb->args[2],
				       (unsigned long long)mb->args[1]);
		}
		case KB_UC_ABORT:
			mb->msg[sizeof(mb->msg) - 1] = 0;
			return kb_fail(EPROTO, "guest assertion failed on vCPU %d: %s", vcpu, mb->msg);
		default:
			return kb_fail(EPROTO, "vCPU %d: unknown guest call %llu", vcpu,
				       (unsigned long long)mb->call);
		}
	case KVM_EXIT_MMIO:
		if (run->mmio.phys_addr >= KB_MMIO_GPA && run->mmio.phys_addr < KB_MMIO_GPA + 0x1000) {
			if (!run->mmio.is_write)
				memset(run->mmio.data, 0, sizeof(run->mmio.data));
			goto again;
		}
		break;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		if (run->msr.index == KB_USER_MSR) {
			run->msr.error = 0;
			if (run->exit_reason == KVM_EXIT_X86_RDMSR)
				run->msr.data = 0;
			goto again;
		}
		break;
	case KVM_EXIT_SHUTDOWN:
		kb_vcpu_describe(v, state, sizeof(state));
		return kb_fail(EFAULT, "guest triple fault (KVM_EXIT_SHUTDOWN); %s", state);
	case KVM_EXIT_FAIL_ENTRY:
		kb_vcpu_describe(v, state, sizeof(state));
		return kb_fail(EIO, "KVM refused to enter the guest (hardware entry failure reason 0x%llx); %s",
			       (unsigned long long)run->fail_entry.hardware_entry_failure_reason, state);
	case KVM_EXIT_INTERNAL_ERROR:
		kb_vcpu_describe(v, state, sizeof(state));
		return kb_fail(EIO, "KVM internal error (suberror %u); %s", run->internal.suberror, state);
	default:
		break;
	}
	if (m->exit_hook) {
		err = m->exit_hook(m, vcpu, m->exit_hook_arg);
		if (err > 0)
			goto again;
		if (err < 0)
			return err;
	}
	kb_vcpu_describe(v, state, sizeof(state));
	if (run->exit_reason == KVM_EXIT_IO)
		return kb_fail(EPROTO, "unexpected guest port %s of port 0x%x; %s",
			       run->io.direction == KVM_EXIT_IO_OUT ? "write" : "read", run->io.port, state);
	if (run->exit_reason == KVM_EXIT_MMIO)
		return kb_fail(EPROTO, "unexpected guest MMIO %s at 0x%llx; %s", run->mmio.is_write ? "write" : "read",
			       (unsigned long long)run->mmio.phys_addr, state);
	if (run->exit_reason == KVM_EXIT_X86_RDMSR || run->exit_reason == KVM_EXIT_X86_WRMSR)
		return kb_fail(EPROTO, "unexpected guest access to MSR 0x%x that KVM refused; %s", run->msr.index, state);
	return kb_fail(EPROTO, "unexpected exit reason %s (%u); %s",
		       kb_exit_reason_name(run->exit_reason), run->exit_reason, state);
}
