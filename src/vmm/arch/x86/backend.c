/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend.c: x86's /dev/kvm: the capabilities kvmbench checks, which vendor module serves it. */
#include <sys/stat.h>

#include "core/kb.h"
#include "vmm/kvm.h"

static const struct kb_cap caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY", true },
	{ KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID", true },
	{ KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT", true },
	{ KVM_CAP_GET_TSC_KHZ, "KVM_CAP_GET_TSC_KHZ", true },
	{ KVM_CAP_BINARY_STATS_FD, "KVM_CAP_BINARY_STATS_FD", true },
	{ KVM_CAP_NR_VCPUS, "KVM_CAP_NR_VCPUS", false },
	{ KVM_CAP_MAX_VCPUS, "KVM_CAP_MAX_VCPUS", false },
	{ KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP", false },
	{ KVM_CAP_X86_USER_SPACE_MSR, "KVM_CAP_X86_USER_SPACE_MSR", false },
	{ KVM_CAP_SPLIT_IRQCHIP, "KVM_CAP_SPLIT_IRQCHIP", false },
	{ KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2", false },
	{ KVM_CAP_DIRTY_LOG_RING, "KVM_CAP_DIRTY_LOG_RING", false },
	{ KVM_CAP_TSC_DEADLINE_TIMER, "KVM_CAP_TSC_DEADLINE_TIMER", false },
	{ KVM_CAP_PMU_CAPABILITY, "KVM_CAP_PMU_CAPABILITY", false },
	{ KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD", false },
	{ KVM_CAP_GET_MSR_FEATURES, "KVM_CAP_GET_MSR_FEATURES", false },
};

const struct kb_cap *kb_kvm_caps(unsigned int *n)
{
	*n = ARRAY_SIZE(caps);
	return caps;
}

const char *kb_kvm_missing_hint(void)
{
	return "load kvm_intel or kvm_amd, and check that virtualization is on in the firmware";
}

int kb_apic_virt_detect(enum kb_backend b)
{
	/* VMX's APICv and SVM's AVIC, as the loaded module's parameters say ('Y'/'N', '1'/'0'). */
	const char *path = b == KB_BACKEND_INTEL ? "/sys/module/kvm_intel/parameters/enable_apicv" :
			   b == KB_BACKEND_AMD ? "/sys/module/kvm_amd/parameters/avic" : NULL;
	char v[16];

	if (b == KB_BACKEND_PVM)
		return 0;
	if (!path || kb_read_text(path, v, sizeof(v)))
		return -1;
	return v[0] == 'Y' || v[0] == 'y' || v[0] == '1';
}

enum kb_backend kb_backend_detect(void)
{
	struct stat st;

	/* Vendor modules register under /sys/module once loaded; /dev/kvm is served by exactly one. */
	if (!stat("/sys/module/kvm_pvm", &st))
		return KB_BACKEND_PVM;
	if (!stat("/sys/module/kvm_amd", &st))
		return KB_BACKEND_AMD;
	if (!stat("/sys/module/kvm_intel", &st))
		return KB_BACKEND_INTEL;
	return KB_BACKEND_UNKNOWN;
}
