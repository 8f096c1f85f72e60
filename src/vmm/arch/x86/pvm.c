/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pvm.c: kvm_pvm's switch from emulating the guest's ring 0 to running it natively. */
#include <errno.h>

#include "core/kb.h"
#include "vmm/arch/x86/x86.h"

/*
 * Without this switch kvm_pvm runs ring-0 guest code through KVM's
 * instruction emulator, which "works" but measures the emulator.
 */
/* The page after a vCPU's mailbox; its byte 0 is kvm_pvm's virtual interrupt flag. */
uint64_t kb_x86_pvm_flags_gpa(int vcpu)
{
	return KB_VCPU_AREA_GPA + (uint64_t)vcpu * KB_VCPU_AREA_SIZE + 0x1000;
}

int kb_x86_pvm_enable_native(struct kb_vcpu *v)
{
	uint64_t ident = 0;
	int err;

	err = kb_vcpu_get_msr(v, KB_PVM_MSR_IDENT, &ident);
	/* A KVM_GET_MSRS that fails is an error; one that refuses the MSR means another kvm_pvm. */
	if (err && err != -ENOENT)
		return err;
	if (err || ident != KB_PVM_IDENT_VALUE)
		return kb_fail(ENOTSUP, "vCPU %d: kvm_pvm is loaded but MSR 0x%x reads 0x%llx, not \"PVM\": "
			       "this kvm_pvm is not the one kvmbench knows how to drive natively",
			       v->id, KB_PVM_MSR_IDENT, (unsigned long long)ident);
	return kb_vcpu_set_msr(v, KB_PVM_MSR_ENABLE, kb_x86_pvm_flags_gpa(v->id) | 1);
}
