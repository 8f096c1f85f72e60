/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.c: the benchmark machine: VM, guest image, vCPUs, the call channel (entry state: arch/). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/kb.h"
#include "vmm/arch.h"
#include "vmm/machine.h"

extern const uint8_t kb_guest_image[];
extern const uint8_t kb_guest_image_end[];

int kb_machine_add_memory(struct kb_machine *m, struct kb_memslot *s)
{
	int err;

	if (s->gpa < m->vm.mem_size || s->gpa % (2ULL << 20) || s->size % (2ULL << 20) || !s->size ||
	    s->gpa + s->size > ((uint64_t)(KB_PD_MAX + KB_PD_HIGH_MAX) << 30))
		return kb_fail(EINVAL, "memslot %u: %llu MiB at GPA 0x%llx must be 2 MiB-aligned, above the base "
			       "memory and below %d GiB (where the guest's page tables end)", s->id,
			       (unsigned long long)(s->size >> 20), (unsigned long long)s->gpa, KB_PD_MAX + KB_PD_HIGH_MAX);
	err = kb_memslot_create(&m->vm, s);
	if (err)
		return err;
	err = kb_arch_machine_map(m, s->gpa, s->size);
	if (err)
		kb_memslot_destroy(&m->vm, s);
	return err;
}

int kb_machine_remove_memory(struct kb_machine *m, struct kb_memslot *s)
{
	/* The identity map stays: without a memslot behind it an access is an MMIO exit, reported as such. */
	return kb_memslot_destroy(&m->vm, s);
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
	m->guest_page = cfg->guest_page;
	m->capture_dir = cfg->capture_dir;
	snprintf(m->capture_label, sizeof(m->capture_label), "%s", cfg->label ? cfg->label : "?");
	m->ioeventfd.fd = -1;
	m->irqchip_fd[0] = m->irqchip_fd[1] = -1;
	if (cfg->nvcpus < 1 || cfg->nvcpus > KB_MAX_VCPUS)
		return kb_fail(EINVAL, "%d vCPUs requested; kvmbench supports 1 to %d", cfg->nvcpus, KB_MAX_VCPUS);
	if (kb_kvm_cap(kvm, KVM_CAP_MAX_VCPUS) > 0 && cfg->nvcpus > kb_kvm_cap(kvm, KVM_CAP_MAX_VCPUS))
		return kb_fail(EINVAL, "%d vCPUs requested; this KVM allows at most %d in a VM (KVM_CAP_MAX_VCPUS)",
			       cfg->nvcpus, kb_kvm_cap(kvm, KVM_CAP_MAX_VCPUS));
	if (mem < KB_DATA_GPA || mem > ((uint64_t)KB_PD_MAX << 30))
		return kb_fail(EINVAL, "guest memory of %llu MiB is outside 4 MiB..%d GiB",
			       (unsigned long long)(mem >> 20), KB_PD_MAX);
	if (image_size > KB_IMAGE_MAX)
		return kb_fail(EFBIG, "guest image is %zu bytes, larger than its %llu-byte slot", image_size,
			       (unsigned long long)KB_IMAGE_MAX);

	m->nvcpus_planned = cfg->nvcpus;
	err = kb_vm_create(kvm, &m->vm, mem, cfg->irqchip, cfg->mem_node);
	if (err)
		return err;
	if (cfg->dirty_ring_bytes) {
		int max_bytes;

		err = kb_vm_enable_dirty_ring(&m->vm, kb_kvm_dirty_ring_cap(kvm, &max_bytes), cfg->dirty_ring_bytes);
		if (err)
			goto fail;
	}
	err = kb_arch_machine_setup(m, cfg);
	if (err)
		goto fail;
	if (cfg->ioeventfd.len) {
		m->ioeventfd = cfg->ioeventfd;
		err = kb_ioeventfd_add(&m->vm, &m->ioeventfd);
		if (err)
			goto fail;
	}
	memcpy(m->vm.mem + KB_IMAGE_GPA, kb_guest_image, image_size);

	m->vcpus = kb_xcalloc(cfg->nvcpus, sizeof(*m->vcpus));
	for (int i = 0; i < cfg->nvcpus; i++)
		m->vcpus[i].fd = -1;
	m->fault_vector = -1;
	for (int i = 0; i < cfg->nvcpus; i++) {
		struct kb_vcpu *v = &m->vcpus[i];

		err = kb_vcpu_create(&m->vm, i, v);
		if (err)
			goto fail;
		m->nvcpus = i + 1;
		kb_machine_mailbox(m, i)->vcpu_id = i;
		err = kb_arch_machine_vcpu_setup(m, i, cfg);
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
	for (int i = 0; i < 2; i++)
		if (m->irqchip_fd[i] >= 0)
			close(m->irqchip_fd[i]);
	m->irqchip_fd[0] = m->irqchip_fd[1] = -1;
	if (m->vm.fd >= 0)
		kb_vm_destroy(&m->vm);
	for (int i = 0; i < m->npt; i++)
		munmap(m->pt[i].hva, m->pt[i].size);
	m->npt = 0;
	kb_ioeventfd_close(&m->ioeventfd);
}

/* With --capture: vCPU 'vcpu''s whole state at the failing exit 'what' into a file of its own in
 * m->capture_dir; 'note' then says where, for the error message ("" without --capture). */
static void capture(struct kb_machine *m, int vcpu, const char *what, char *note, size_t size)
{
	static unsigned seq;
	struct kb_buf b = { 0 };
	char when[40], path[4096];

	note[0] = 0;
	if (!m->capture_dir)
		return;
	kb_iso_now(when, sizeof(when));
	kb_buf_printf(&b, "kvmbench capture: %s\ntest: %s\nvCPU: %d\ntime: %s\nlast exit: %s (%u)\n", what,
		      m->capture_label, vcpu, when,
		      kb_exit_reason_name(m->vcpus[vcpu].run->exit_reason), m->vcpus[vcpu].run->exit_reason);
	kb_arch_vcpu_capture(m, &m->vcpus[vcpu], &b);
	snprintf(path, sizeof(path), "%s/capture-%d-%u-vcpu%d.txt", m->capture_dir, (int)getpid(),
		 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), vcpu);
	if (kb_write_atomic_data(path, "the capture", b.p, b.len, 0644))
		snprintf(note, size, "; the capture failed: %s", kb_last_error());
	else
		snprintf(note, size, "; full state in %s", path);
	free(b.p);
}

/* A call the guest made on the channel: > 0 the call (KB_UC_NEXT, KB_UC_PRINT), 0 enter the guest
 * again (KB_UC_PROGRESS), < 0 -errno with the message (an exception, an assertion). */
static int guest_call(struct kb_machine *m, int vcpu, struct kb_mailbox *mb)
{
	char note[4200], what[512];

	switch (mb->call) {
	case KB_UC_NEXT:
	case KB_UC_PRINT:
		return (int)mb->call;
	case KB_UC_PROGRESS:
		/* A long loop shows it is alive; the watchdog bounds each KVM_RUN, not the loop. */
		return 0;
	case KB_UC_FAULT:
		m->fault_vector = (int)mb->args[0];
		capture(m, vcpu, "guest exception", note, sizeof(note));
		kb_arch_fault_text(mb->args, vcpu, what, sizeof(what));
		return kb_fail(EFAULT, "%s%s", what, note);
	case KB_UC_ABORT:
		mb->msg[sizeof(mb->msg) - 1] = 0;
		return kb_fail(EPROTO, "guest assertion failed on vCPU %d: %s", vcpu, mb->msg);
	default:
		return kb_fail(EPROTO, "vCPU %d: unknown guest call %llu", vcpu, (unsigned long long)mb->call);
	}
}

int kb_machine_call(struct kb_machine *m, int vcpu, uint64_t timeout_ns)
{
	char note[4200];
	struct kb_vcpu *v = &m->vcpus[vcpu];
	struct kb_mailbox *mb = kb_machine_mailbox(m, vcpu);
	struct kvm_run *run = v->run;
	char state[512];
	int err;

again:
	err = kb_vcpu_run(v, timeout_ns);
	if (err == -ETIMEDOUT) {
		kb_vcpu_describe(v, state, sizeof(state));
		return kb_fail(ETIMEDOUT, "guest hang: vCPU %d did not exit within %.1f s (watchdog, after %d look%s "
			       "of %.2f s more: %s); %s", vcpu, timeout_ns / 1e9, v->watchdog_looks,
			       v->watchdog_looks == 1 ? "" : "s", timeout_ns / 1e9 / KB_WATCHDOG_LOOK_DIV,
			       !v->watchdog_looks ? "this kernel does not say whether its thread waited for a CPU" :
			       v->watchdog_looks < KB_WATCHDOG_MAX_EXTRA * KB_WATCHDOG_LOOK_DIV ?
			       "its thread was not waiting for a CPU" :
			       "the most it gets, its thread waiting for a CPU or not", state);
	}
	if (err == -EINTR)
		return kb_fail(EINTR, "vCPU %d: interrupted", vcpu);
	if (err)
		return err;

	/* The call channel: x86's guest writes its call to port KB_UCALL_PORT (KVM_EXIT_IO), arm64's
	 * to the address KB_UCALL_GPA (KVM_EXIT_MMIO); both then read the same mailbox. */
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		/* The round-trip tests' port: answered here, cheaply, and the guest goes on. */
		if (run->io.port == KB_USER_PORT) {
			if (run->io.direction == KVM_EXIT_IO_IN)
				memset((uint8_t *)run + run->io.data_offset, 0, (size_t)run->io.size * run->io.count);
			goto again;
		}
		/* The ACPI PM timer, read as QEMU answers it: the counter's value now (a write is ignored). */
		if (run->io.port == KB_PMTIMER_PORT && run->io.size == 4) {
			if (run->io.direction == KVM_EXIT_IO_IN)
				for (uint32_t i = 0; i < run->io.count; i++) {
					uint32_t val = kb_pmtimer_value(kb_now_ns());

					memcpy((uint8_t *)run + run->io.data_offset + 4 * i, &val, 4);
				}
			goto again;
		}
		if (run->io.port != KB_UCALL_PORT || run->io.direction != KVM_EXIT_IO_OUT)
			break;
		err = guest_call(m, vcpu, mb);
		if (!err)
			goto again;
		return err;
	case KVM_EXIT_MMIO:
		if (run->mmio.phys_addr == KB_UCALL_GPA && run->mmio.is_write) {
			err = guest_call(m, vcpu, mb);
			if (!err)
				goto again;
			return err;
		}
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
		capture(m, vcpu, "guest triple fault (KVM_EXIT_SHUTDOWN)", note, sizeof(note));
		return kb_fail(EFAULT, "guest triple fault (KVM_EXIT_SHUTDOWN); %s%s", state, note);
	case KVM_EXIT_FAIL_ENTRY:
		kb_vcpu_describe(v, state, sizeof(state));
		capture(m, vcpu, "KVM refused to enter the guest (KVM_EXIT_FAIL_ENTRY)", note, sizeof(note));
		return kb_fail(EIO, "KVM refused to enter the guest (hardware entry failure reason 0x%llx); %s%s",
			       (unsigned long long)run->fail_entry.hardware_entry_failure_reason, state, note);
	case KVM_EXIT_INTERNAL_ERROR:
		kb_vcpu_describe(v, state, sizeof(state));
		capture(m, vcpu, "KVM internal error (KVM_EXIT_INTERNAL_ERROR)", note, sizeof(note));
		return kb_fail(EIO, "KVM internal error (suberror %u); %s%s", run->internal.suberror, state, note);
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
