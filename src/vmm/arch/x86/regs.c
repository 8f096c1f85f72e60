/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regs.c: x86 state for error messages: the key registers of a vCPU, a guest exception's report. */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "vmm/arch.h"
#include "vmm/kvm.h"

int kb_arch_vcpu_regs(struct kb_vcpu *vcpu, char *buf, size_t size)
{
	struct kvm_regs regs;
	struct kvm_sregs sregs;

	if (ioctl(vcpu->fd, KVM_GET_REGS, &regs) || ioctl(vcpu->fd, KVM_GET_SREGS, &sregs))
		return -errno;
	snprintf(buf, size,
		 "rip=0x%llx rsp=0x%llx rflags=0x%llx rax=0x%llx rcx=0x%llx "
		 "cr0=0x%llx cr3=0x%llx cr4=0x%llx efer=0x%llx",
		 (unsigned long long)regs.rip, (unsigned long long)regs.rsp,
		 (unsigned long long)regs.rflags, (unsigned long long)regs.rax,
		 (unsigned long long)regs.rcx, (unsigned long long)sregs.cr0,
		 (unsigned long long)sregs.cr3, (unsigned long long)sregs.cr4,
		 (unsigned long long)sregs.efer);
	return 0;
}

static const char *const vector_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "?", "#TS", "#NP",
	"#SS", "#GP", "#PF", "?", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

static const char *vector_name(uint64_t vector)
{
	return vector < 32 && vector_names[vector] ? vector_names[vector] : "?";
}

void kb_arch_fault_text(const uint64_t args[4], int vcpu, char *buf, size_t size)
{
	snprintf(buf, size, "guest exception %s (vector %llu) on vCPU %d at rip=0x%llx, error code 0x%llx",
		 vector_name(args[0]), (unsigned long long)args[0], vcpu, (unsigned long long)args[2],
		 (unsigned long long)args[1]);
}
