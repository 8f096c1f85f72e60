/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcpu.c: arm64 /dev/kvm and vCPU hooks: the counter rate, the registers for error messages. */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "vmm/arch.h"
#include "vmm/kvm.h"

int kb_arch_kvm_open(struct kb_kvm *kvm)
{
	/* Nothing to fetch for every vCPU: arm64 has no supported-CPUID table. */
	return 0;
}

void kb_arch_kvm_close(struct kb_kvm *kvm)
{
}

int kb_arch_vcpu_init(struct kb_vcpu *vcpu)
{
	uint64_t hz;

	/* The generic timer's frequency, as the guest's counter (CNTVCT_EL0) runs: the "TSC" rate. */
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	vcpu->tsc_khz = (uint32_t)(hz / 1000);
	return 0;
}

static int one_reg(struct kb_vcpu *vcpu, uint64_t id, uint64_t *v)
{
	struct kvm_one_reg r = { .id = id, .addr = (uint64_t)(uintptr_t)v };

	return ioctl(vcpu->fd, KVM_GET_ONE_REG, &r) ? -errno : 0;
}

#define CORE_REG(field) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
			 (offsetof(struct kvm_regs, field) / sizeof(uint32_t)))

int kb_arch_vcpu_regs(struct kb_vcpu *vcpu, char *buf, size_t size)
{
	uint64_t pc, sp, pstate;
	int err;

	if ((err = one_reg(vcpu, CORE_REG(regs.pc), &pc)) || (err = one_reg(vcpu, CORE_REG(regs.sp), &sp)) ||
	    (err = one_reg(vcpu, CORE_REG(regs.pstate), &pstate)))
		return err;
	snprintf(buf, size, "pc=0x%llx sp=0x%llx pstate=0x%llx", (unsigned long long)pc, (unsigned long long)sp,
		 (unsigned long long)pstate);
	return 0;
}

const char *kb_arch_vector_name(uint64_t vector)
{
	/* The arm64 guest image (its exception vectors) is not built yet: nothing reports a vector. */
	return "?";
}
