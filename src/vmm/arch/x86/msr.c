/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msr.c: read and write one MSR of a vCPU, read one of KVM's feature MSRs (kvm.h's MSR calls). */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/kb.h"
#include "vmm/kvm.h"

int kb_vcpu_set_msr(struct kb_vcpu *vcpu, uint32_t index, uint64_t value)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = { .hdr.nmsrs = 1, .e.index = index, .e.data = value };

	int r = ioctl(vcpu->fd, KVM_SET_MSRS, &m);

	if (r < 0)
		return kb_fail(errno, "vCPU %d: KVM_SET_MSRS 0x%x = 0x%llx: %s", vcpu->id, index,
			       (unsigned long long)value, strerror(errno));
	if (r != 1)
		return kb_fail(ENOENT, "vCPU %d: KVM_SET_MSRS 0x%x = 0x%llx was refused",
			       vcpu->id, index, (unsigned long long)value);
	return 0;
}

int kb_vcpu_get_msr(struct kb_vcpu *vcpu, uint32_t index, uint64_t *value)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = { .hdr.nmsrs = 1, .e.index = index };

	int r = ioctl(vcpu->fd, KVM_GET_MSRS, &m);

	if (r < 0)
		return kb_fail(errno, "vCPU %d: KVM_GET_MSRS 0x%x: %s", vcpu->id, index, strerror(errno));
	if (r != 1)
		return kb_fail(ENOENT, "vCPU %d: KVM_GET_MSRS 0x%x was refused (KVM has no such MSR)", vcpu->id, index);
	*value = m.e.data;
	return 0;
}

int kb_kvm_feature_msr(struct kb_kvm *kvm, uint32_t index, uint64_t *value)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = { .hdr.nmsrs = 1, .e.index = index };

	int r = kb_kvm_cap(kvm, KVM_CAP_GET_MSR_FEATURES) > 0 ? ioctl(kvm->fd, KVM_GET_MSRS, &m) : 0;

	if (r < 0)
		return kb_fail(errno, "KVM_GET_MSRS 0x%x on /dev/kvm: %s", index, strerror(errno));
	if (r != 1)
		return kb_fail(ENOENT, "KVM does not report feature MSR 0x%x", index);
	*value = m.e.data;
	return 0;
}
