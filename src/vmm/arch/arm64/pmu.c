/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmu.c: the PMU an arm64 guest could be given, as far as /dev/kvm tells without a vCPU. */
#include <string.h>

#include "vmm/kvm.h"
#include "vmm/machine.h"

void kb_guest_pmu_describe(struct kb_kvm *kvm, int vpmu, struct kb_guest_pmu *p)
{
	memset(p, 0, sizeof(*p));
	if (vpmu == KB_VPMU_OFF)
		p->off_by = "--vpmu off: no PMUv3 feature given at KVM_ARM_VCPU_INIT";
	else if (!kvm || kb_kvm_cap(kvm, KVM_CAP_ARM_PMU_V3) <= 0)
		p->off_by = "this KVM lacks KVM_CAP_ARM_PMU_V3: guests get no PMU";
	else
		p->off_by = "the arm64 benchmark machine asks for no PMUv3 at KVM_ARM_VCPU_INIT: its guests see no PMU";
}
