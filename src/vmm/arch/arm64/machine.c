/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.c: the arm64 benchmark machine, which does not exist yet: each hook refuses with the reason. */
#include <errno.h>

#include "core/kb.h"
#include "vmm/arch.h"

#define KB_ARM64_NO_MACHINE "the arm64 benchmark machine (KVM_ARM_VCPU_INIT, vGICv3, the arm64 guest image) " \
	"is not built yet (issue #16)"

int kb_arch_machine_setup(struct kb_machine *m, const struct kb_machine_cfg *cfg)
{
	return kb_fail(ENOTSUP, KB_ARM64_NO_MACHINE);
}

int kb_arch_machine_vcpu_setup(struct kb_machine *m, int vcpu, const struct kb_machine_cfg *cfg)
{
	return kb_fail(ENOTSUP, KB_ARM64_NO_MACHINE);
}

int kb_arch_machine_map(struct kb_machine *m, uint64_t gpa, uint64_t size)
{
	return kb_fail(ENOTSUP, KB_ARM64_NO_MACHINE);
}
