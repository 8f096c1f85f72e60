/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcpu.c: arm64 /dev/kvm and vCPU hooks: the counter rate, the registers and exceptions for error messages. */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "vmm/arch.h"
#include "vmm/arch/arm64/arm64.h"
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

#define CORE_REG(field) KB_ARM64_CORE_REG(field)

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

/* ESR_EL1's exception classes the guest can meet (Arm ARM D17.2.37), by EC. */
static const char *ec_name(uint64_t ec)
{
	switch (ec) {
	case 0x00: return "unknown reason (UDF, an undefined instruction)";
	case 0x01: return "WFI/WFE trapped";
	case 0x07: return "FP/SIMD access trapped";
	case 0x0e: return "illegal execution state";
	case 0x15: return "SVC";
	case 0x16: return "HVC";
	case 0x18: return "MSR/MRS trapped";
	case 0x20: return "instruction abort from a lower EL";
	case 0x21: return "instruction abort";
	case 0x22: return "PC alignment fault";
	case 0x24: return "data abort from a lower EL";
	case 0x25: return "data abort";
	case 0x26: return "SP alignment fault";
	case 0x2f: return "SError";
	case 0x3c: return "BRK";
	default: return "?";
	}
}

void kb_arch_fault_text(const uint64_t args[4], int vcpu, char *buf, size_t size)
{
	/* args (guest/arch/arm64/traps.c): ESR_EL1.EC, or 0x100 + the vector of an asynchronous one;
	 * ESR_EL1, ELR_EL1, FAR_EL1. */
	if (args[0] >= 0x100)
		snprintf(buf, size, "guest exception through vector %llu (%s) on vCPU %d at elr=0x%llx",
			 (unsigned long long)(args[0] - 0x100),
			 (args[0] & 3) == 1 ? "IRQ" : (args[0] & 3) == 2 ? "FIQ" : "SError",
			 vcpu, (unsigned long long)args[2]);
	else
		snprintf(buf, size, "guest exception %s (EC 0x%02llx) on vCPU %d at elr=0x%llx, esr=0x%llx, far=0x%llx",
			 ec_name(args[0]), (unsigned long long)args[0], vcpu, (unsigned long long)args[2],
			 (unsigned long long)args[1], (unsigned long long)args[3]);
}
