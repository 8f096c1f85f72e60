/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suite.c: what the engine derives from a suite's test declaration: the exits one iteration must
 * cause on this backend, the machine it needs, and whether this host can run the test at all. */
#include <stdio.h>
#include <unistd.h>

#include "core/kb.h"
#include "run/suite.h"
#include "vmm/kvm.h"
#include "vmm/machine.h"

#define MSR_IA32_ARCH_CAPABILITIES 0x10a
#define ARCH_CAP_TSX_CTRL_MSR      (1ULL << 7)

struct kb_exit_range kb_test_expected_exits(const struct kb_test_def *t, const struct kb_kvm *kvm)
{
	struct kb_exit_range r;

	if (!t->exits_on.set)
		return (struct kb_exit_range){ t->exits_per_iter, t->exits_per_iter };
	switch (kvm->backend) {
	case KB_BACKEND_INTEL: r = t->exits_on.intel; break;
	case KB_BACKEND_AMD: r = t->exits_on.amd; break;
	case KB_BACKEND_PVM:
		r = t->exits_on.pvm;
		if (t->exits_on.pvm_cpuids > 0 && kvm->guest_cpuid == KB_GUEST_CPUID_EXITS)
			r.lo = r.hi;
		else if (t->exits_on.pvm_cpuids > 0 && kvm->guest_cpuid == KB_GUEST_CPUID_BELOW)
			r.lo = r.hi = r.hi - t->exits_on.pvm_cpuids;
		return r;
	case KB_BACKEND_ARM64: return t->exits_on.arm64;
	default: return (struct kb_exit_range){ t->exits_per_iter, t->exits_per_iter };
	}
	if (t->exits_on.exact_without_apic_virt && kvm->apic_virt == 0)
		r.lo = r.hi;
	return r;
}

void kb_test_machine_cfg(const struct kb_run_ctx *ctx, const struct kb_test_def *t, int nvcpus,
			 struct kb_machine_cfg *cfg)
{
	*cfg = (struct kb_machine_cfg){
		.nvcpus = t->vcpus ? t->vcpus : nvcpus,
		.irqchip = (t->needs & KB_NEED_IRQCHIP) != 0,
		.user_msr = (t->needs & KB_NEED_USER_MSR) != 0,
		.ioeventfd = t->ioeventfd,
	};
}

const char *kb_suite_unavailable(const struct kb_suite *s)
{
	static char why[160];
	enum kb_arch self = kb_arch_self();

	if (s->arches & self)
		return NULL;
	if (s->arches == KB_ARCH_X86 || s->arches == KB_ARCH_ARM64)
		snprintf(why, sizeof(why), "%s only: its guest loops and exits are %s's, and this kvmbench is built for %s",
			 kb_arch_name(s->arches), kb_arch_name(s->arches), kb_arch_name(self));
	else
		snprintf(why, sizeof(why), "not for %s, the architecture this kvmbench is built for", kb_arch_name(self));
	return why;
}

const char *kb_test_unmet_need(const struct kb_run_ctx *ctx, const struct kb_test_def *t)
{
	struct kb_kvm *kvm = ctx->kvm;
	uint64_t arch_cap = 0;

	if ((t->needs & KB_NEED_IRQCHIP) && kb_kvm_cap(kvm, KVM_CAP_IRQCHIP) <= 0)
		return "needs an in-kernel irqchip (KVM_CAP_IRQCHIP), which this KVM lacks";
	if ((t->needs & KB_NEED_TSC_DEADLINE) && kb_kvm_cap(kvm, KVM_CAP_TSC_DEADLINE_TIMER) <= 0)
		return "needs the TSC deadline timer (KVM_CAP_TSC_DEADLINE_TIMER), which this KVM lacks";
	if ((t->needs & KB_NEED_USER_MSR) && kb_kvm_cap(kvm, KVM_CAP_X86_USER_SPACE_MSR) <= 0)
		return "needs MSR exits to userspace (KVM_CAP_X86_USER_SPACE_MSR), which this KVM lacks";
	if ((t->needs & KB_NEED_2VCPUS) && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return "needs two vCPUs on two host CPUs, and this host has one";
	if ((t->needs & KB_NEED_X2APIC) && !kb_kvm_guest_cpuid_bit(kvm, 1, 2, 21))
		return "needs x2APIC, which this KVM does not offer the guest (CPUID.1:ECX bit 21)";
	if ((t->needs & KB_NEED_TSX_CTRL) && !kb_kvm_guest_cpuid_bit(kvm, 7, 3, 29))
		return "needs IA32_TSX_CTRL, and this KVM does not offer the guest IA32_ARCH_CAPABILITIES (CPUID.7.0:EDX bit 29)";
	if ((t->needs & KB_NEED_TSX_CTRL) &&
	    (kb_kvm_feature_msr(kvm, MSR_IA32_ARCH_CAPABILITIES, &arch_cap) || !(arch_cap & ARCH_CAP_TSX_CTRL_MSR)))
		return "needs IA32_TSX_CTRL, which this host's KVM does not offer (IA32_ARCH_CAPABILITIES bit 7, "
		       "TSX_CTRL_MSR, clear in KVM_GET_MSRS of /dev/kvm: a CPU without TSX or without the control)";
	if ((t->needs & KB_NEED_SPEC_CTRL) && !kb_kvm_guest_cpuid_bit(kvm, 7, 3, 26))
		return "needs IA32_SPEC_CTRL (IBRS), which this KVM does not offer the guest "
		       "(CPUID.7.0:EDX bit 26 clear in KVM_GET_SUPPORTED_CPUID)";
	if ((t->needs & KB_NEED_IBPB) && !kb_kvm_guest_cpuid_bit(kvm, 7, 3, 26) &&
	    !kb_kvm_guest_cpuid_bit(kvm, 0x80000008, 1, 12))
		return "needs IBPB through IA32_PRED_CMD, which this KVM does not offer the guest "
		       "(CPUID.7.0:EDX bit 26 and CPUID.80000008:EBX bit 12 clear in KVM_GET_SUPPORTED_CPUID)";
	if ((t->needs & KB_NEED_IOEVENTFD) && kb_kvm_cap(kvm, KVM_CAP_IOEVENTFD) <= 0)
		return "needs writes completed in the kernel (KVM_CAP_IOEVENTFD), which this KVM lacks";
	if ((t->needs & KB_NEED_HYPERCALL) && kvm->backend == KB_BACKEND_PVM)
		return "VMCALL/VMMCALL never reach kvm_pvm (the outer hypervisor answers them): nothing to measure";
	return NULL;
}
