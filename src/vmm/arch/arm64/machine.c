/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.c: the arm64 benchmark machine: the stage-1 map and the vGICv3 for the VM, and each vCPU
 * initialised (KVM_ARM_VCPU_INIT, PSCI 0.2) and started at the image's entry at EL1. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/kb.h"
#include "vmm/arch.h"
#include "vmm/arch/arm64/arm64.h"
#include "vmm/machine.h"

/* PSTATE at entry: EL1 with SP_EL1 (EL1h), D, A, I and F masked. */
#define PSTATE_EL1H_MASKED 0x3c5ULL

const char *const kb_machine_ucall_stat = "mmio_exit_user";

int kb_arch_machine_setup(struct kb_machine *m, const struct kb_machine_cfg *cfg)
{
	if (m->vm.irqchip)
		return kb_fail(EINVAL, "KVM_CREATE_IRQCHIP makes a GICv2 on arm64: the arm64 machine brings its own "
			       "vGICv3 and a test must not ask for the x86 irqchip");
	if (cfg->nvcpus > (int)KB_ARM64_MAX_VCPUS)
		return kb_fail(EINVAL, "%d vCPUs requested; the arm64 machine has room for %d redistributors",
			       cfg->nvcpus, (int)KB_ARM64_MAX_VCPUS);
	if (m->vm.mem_size > KB_ARM64_MEM_MAX)
		return kb_fail(EINVAL, "guest memory of %llu MiB reaches the arm64 machine's devices at 0x%llx: "
			       "at most %llu MiB", (unsigned long long)(m->vm.mem_size >> 20),
			       (unsigned long long)KB_ARM64_GICD_GPA, (unsigned long long)(KB_ARM64_MEM_MAX >> 20));
	if (cfg->vpmu == KB_VPMU_ON)
		return kb_fail(ENOTSUP, "--vpmu on: the arm64 machine gives its vCPUs no PMUv3 yet");
	kb_arm64_stage1_build(m);
	return kb_arm64_gic_create(m);
}

static int set_reg(struct kb_vcpu *v, uint64_t id, uint64_t val, const char *what)
{
	struct kvm_one_reg r = { .id = id, .addr = (uint64_t)(uintptr_t)&val };

	if (ioctl(v->fd, KVM_SET_ONE_REG, &r))
		return kb_fail(errno, "vCPU %d: setting %s (KVM_SET_ONE_REG): %s", v->id, what, strerror(errno));
	return 0;
}

/*
 * Every vCPU is started directly at the image's entry, none powered off for PSCI CPU_ON: each vCPU
 * has its own thread, mailbox and stack from the start, as on x86, so the host drives them all the
 * same way and no vCPU's sample depends on vCPU 0 having booted the others.
 */
int kb_arch_machine_vcpu_setup(struct kb_machine *m, int vcpu, const struct kb_machine_cfg *cfg)
{
	struct kb_vcpu *v = &m->vcpus[vcpu];
	struct kvm_vcpu_init init;
	int err;

	if (ioctl(m->vm.fd, KVM_ARM_PREFERRED_TARGET, &init))
		return kb_fail(errno, "KVM_ARM_PREFERRED_TARGET: %s", strerror(errno));
	init.features[0] |= 1u << KVM_ARM_VCPU_PSCI_0_2;
	if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init))
		return kb_fail(errno, "vCPU %d: KVM_ARM_VCPU_INIT (target %u, PSCI 0.2): %s", vcpu, init.target,
			       strerror(errno));
	if ((err = set_reg(v, KB_ARM64_CORE_REG(regs.pc), KB_IMAGE_GPA, "PC")) ||
	    (err = set_reg(v, KB_ARM64_CORE_REG(regs.pstate), PSTATE_EL1H_MASKED, "PSTATE")) ||
	    (err = set_reg(v, KB_ARM64_CORE_REG(sp_el1), KB_STACK_GPA + (uint64_t)(vcpu + 1) * KB_STACK_SIZE - 16, "SP_EL1")) ||
	    (err = set_reg(v, KB_ARM64_CORE_REG(regs.regs[0]), (uint64_t)vcpu, "x0")) ||
	    (err = set_reg(v, KB_ARM64_CORE_REG(regs.regs[1]), KB_VCPU_AREA_GPA + (uint64_t)vcpu * KB_VCPU_AREA_SIZE,
			   "x1")) ||
	    (err = set_reg(v, KB_ARM64_CORE_REG(regs.regs[2]), KB_ARM64_PGT_GPA, "x2")))
		return err;
	/* The vGIC is initialised once every vCPU exists (KVM refuses vCPUs created after). */
	if (vcpu == cfg->nvcpus - 1)
		return kb_arm64_gic_init(m);
	return 0;
}

int kb_arch_machine_map(struct kb_machine *m, uint64_t gpa, uint64_t size)
{
	/* The stage-1 map covers all of it from the start: only check. */
	return kb_arm64_stage1_check(gpa, size);
}
