/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend.c: arm64's /dev/kvm: the capabilities kvmbench reports, and what x86 has that arm64 lacks. */
#include <errno.h>

#include "core/kb.h"
#include "vmm/kvm.h"

/* Only the memory slots are required at open: what the arm64 machine needs besides (KVM_CREATE_DEVICE for
 * its vGICv3 and ITS, PSCI 0.2 at KVM_ARM_VCPU_INIT) fails with its own message when a test builds one. */
static const struct kb_cap caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY", true },
	{ KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT", false },
	{ KVM_CAP_BINARY_STATS_FD, "KVM_CAP_BINARY_STATS_FD", false },
	{ KVM_CAP_NR_VCPUS, "KVM_CAP_NR_VCPUS", false },
	{ KVM_CAP_MAX_VCPUS, "KVM_CAP_MAX_VCPUS", false },
	{ KVM_CAP_ARM_VM_IPA_SIZE, "KVM_CAP_ARM_VM_IPA_SIZE", false },
	{ KVM_CAP_ARM_PMU_V3, "KVM_CAP_ARM_PMU_V3", false },
	{ KVM_CAP_ARM_EL1_32BIT, "KVM_CAP_ARM_EL1_32BIT", false },
	{ KVM_CAP_ARM_PSCI_0_2, "KVM_CAP_ARM_PSCI_0_2", false },
	{ KVM_CAP_ARM_SVE, "KVM_CAP_ARM_SVE", false },
	{ KVM_CAP_ARM_PTRAUTH_ADDRESS, "KVM_CAP_ARM_PTRAUTH_ADDRESS", false },
	{ KVM_CAP_ARM_MTE, "KVM_CAP_ARM_MTE", false },
	{ KVM_CAP_ARM_NISV_TO_USER, "KVM_CAP_ARM_NISV_TO_USER", false },
	{ KVM_CAP_DEVICE_CTRL, "KVM_CAP_DEVICE_CTRL", false },
	{ KVM_CAP_SIGNAL_MSI, "KVM_CAP_SIGNAL_MSI", false },
	{ KVM_CAP_IRQFD, "KVM_CAP_IRQFD", false },
	{ KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD", false },
	{ KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2", false },
	{ KVM_CAP_DIRTY_LOG_RING, "KVM_CAP_DIRTY_LOG_RING", false },
	{ KVM_CAP_DIRTY_LOG_RING_ACQ_REL, "KVM_CAP_DIRTY_LOG_RING_ACQ_REL", false },
};

const struct kb_cap *kb_kvm_caps(unsigned int *n)
{
	*n = ARRAY_SIZE(caps);
	return caps;
}

enum kb_backend kb_backend_detect(void)
{
	/* On arm64 the kvm module itself serves /dev/kvm (VHE or nVHE); there is no vendor module. */
	return KB_BACKEND_ARM64;
}

const char *kb_kvm_missing_hint(void)
{
	/* CONFIG_KVM=y in Debian's arm64 kernel: no module to load; KVM initialises only at EL2. */
	return "KVM on arm64 needs the kernel booted at EL2, in VHE or nVHE mode: 'dmesg | grep kvm' says which "
	       "or why not; in a VM, the hypervisor must offer EL2 (QEMU: -M virt,virtualization=on)";
}

int kb_apic_virt_detect(enum kb_backend b)
{
	/* No local APIC: the GIC's virtualization (GICv4.1 direct injection) is not read yet. */
	return -1;
}

bool kb_kvm_guest_cpuid_bit(const struct kb_kvm *kvm, uint32_t leaf, int reg, int bit)
{
	return false;
}

int kb_vcpu_set_msr(struct kb_vcpu *vcpu, uint32_t index, uint64_t value)
{
	return kb_fail(ENOTSUP, "MSR 0x%x: arm64 has no MSRs (x86 only)", index);
}

int kb_vcpu_get_msr(struct kb_vcpu *vcpu, uint32_t index, uint64_t *value)
{
	return kb_fail(ENOTSUP, "MSR 0x%x: arm64 has no MSRs (x86 only)", index);
}

int kb_kvm_feature_msr(struct kb_kvm *kvm, uint32_t index, uint64_t *value)
{
	return kb_fail(ENOTSUP, "feature MSR 0x%x: arm64 has no MSRs (x86 only)", index);
}
