/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid.c: a vCPU as created: KVM's supported CPUID (fetched at open) and the TSC rate it reports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/kb.h"
#include "vmm/arch.h"
#include "vmm/kvm.h"

static int get_supported_cpuid(struct kb_kvm *kvm)
{
	for (int nent = 128; nent <= 4096; nent *= 2) {
		struct kvm_cpuid2 *c = kb_xcalloc(1, sizeof(*c) + nent * sizeof(c->entries[0]));

		c->nent = nent;
		if (!ioctl(kvm->fd, KVM_GET_SUPPORTED_CPUID, c)) {
			kvm->supported_cpuid = c;
			return 0;
		}
		free(c);
		if (errno != E2BIG)
			return kb_fail(errno, "KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
	}
	return kb_fail(E2BIG, "KVM_GET_SUPPORTED_CPUID: more than 4096 entries");
}

int kb_arch_kvm_open(struct kb_kvm *kvm)
{
	int err = get_supported_cpuid(kvm);

	if (err)
		return err;
	/* KVM emulates the TSC-deadline timer but leaves its CPUID bit (leaf 1 ECX bit 24) to
	 * userspace; without it the guest's LVT timer cannot enter TSC-deadline mode. */
	if (kb_kvm_cap(kvm, KVM_CAP_TSC_DEADLINE_TIMER) > 0)
		for (uint32_t i = 0; i < kvm->supported_cpuid->nent; i++)
			if (kvm->supported_cpuid->entries[i].function == 1)
				kvm->supported_cpuid->entries[i].ecx |= 1u << 24;
	return 0;
}

void kb_arch_kvm_close(struct kb_kvm *kvm)
{
	free(kvm->supported_cpuid);
	kvm->supported_cpuid = NULL;
}

int kb_arch_vcpu_init(struct kb_vcpu *vcpu)
{
	int r;

	if (ioctl(vcpu->fd, KVM_SET_CPUID2, vcpu->vm->kvm->supported_cpuid))
		return kb_fail(errno, "vCPU %d: KVM_SET_CPUID2: %s", vcpu->id, strerror(errno));
	r = ioctl(vcpu->fd, KVM_GET_TSC_KHZ, 0);
	if (r <= 0)
		return kb_fail(errno ? errno : EINVAL, "vCPU %d: KVM_GET_TSC_KHZ: %s", vcpu->id, strerror(errno));
	vcpu->tsc_khz = (uint32_t)r;
	return 0;
}

bool kb_kvm_guest_cpuid_bit(const struct kb_kvm *kvm, uint32_t leaf, int reg, int bit)
{
	for (uint32_t i = 0; kvm->supported_cpuid && i < kvm->supported_cpuid->nent; i++) {
		const struct kvm_cpuid_entry2 *e = &kvm->supported_cpuid->entries[i];
		uint32_t regs[4] = { e->eax, e->ebx, e->ecx, e->edx };

		if (e->function == leaf && e->index == 0)
			return (regs[reg] >> bit) & 1;
	}
	return false;
}
