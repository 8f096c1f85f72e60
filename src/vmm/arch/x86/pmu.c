/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmu.c: the guest's PMU (run --vpmu): what KVM's CPUID table offers a guest, and taking it away. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/kb.h"
#include "vmm/arch/x86/x86.h"

#define AMD_VENDOR_EBX 0x68747541u     /* "Auth" of "AuthenticAMD" */

static struct kvm_cpuid_entry2 *leaf(const struct kvm_cpuid2 *c, uint32_t function)
{
	for (uint32_t i = 0; i < c->nent; i++)
		if (c->entries[i].function == function && c->entries[i].index == 0)
			return (struct kvm_cpuid_entry2 *)&c->entries[i];
	return NULL;
}

void kb_x86_cpuid_hide_pmu(struct kvm_cpuid2 *c)
{
	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		switch (e->function) {
		case 0x1:           /* PDCM: IA32_PERF_CAPABILITIES */
			e->ecx &= ~(1u << 15);
			break;
		case 0xa:           /* Intel's architectural PMU */
		case 0x23:          /* and its extended leaf */
		case 0x80000022:    /* AMD's PerfMonV2 and counter counts */
			e->eax = e->ebx = e->ecx = e->edx = 0;
			break;
		case 0x80000001:    /* AMD: PerfCtrExtCore, PerfCtrExtNB, PerfCtrExtLLC */
			e->ecx &= ~((1u << 23) | (1u << 24) | (1u << 28));
			break;
		}
	}
}

bool kb_x86_cpuid_is_amd(const struct kvm_cpuid2 *c)
{
	const struct kvm_cpuid_entry2 *e = leaf(c, 0);

	return e && e->ebx == AMD_VENDOR_EBX;
}

void kb_x86_cpuid_pmu(const struct kvm_cpuid2 *c, bool amd, struct kb_guest_pmu *p)
{
	const struct kvm_cpuid_entry2 *e;

	memset(p, 0, sizeof(*p));
	if (!amd) {
		e = leaf(c, 0xa);
		p->version = e ? (int)(e->eax & 0xff) : 0;
		p->counters = p->version ? (int)((e->eax >> 8) & 0xff) : 0;
		return;
	}
	/* AMD: four legacy counters are architectural; PerfCtrExtCore makes six, PerfMonV2 says how many. */
	e = leaf(c, 0x80000022);
	if (e && (e->eax & 1)) {
		p->version = 2;
		p->counters = (int)(e->ebx & 0xf);
		return;
	}
	e = leaf(c, 0x80000001);
	p->version = 1;
	p->counters = e && (e->ecx & (1u << 23)) ? 6 : 4;
}

/* kvm.enable_pmu: 1, 0, or -1 when the parameter cannot be read (kernels before 5.17 lack it). */
static int enable_pmu_param(void)
{
	char v[8];

	if (kb_read_text("/sys/module/kvm/parameters/enable_pmu", v, sizeof(v)))
		return -1;
	return v[0] == 'Y' || v[0] == 'y' || v[0] == '1';
}

void kb_guest_pmu_describe(struct kb_kvm *kvm, int vpmu, struct kb_guest_pmu *p)
{
	bool amd = kb_x86_cpuid_is_amd(kvm->supported_cpuid);

	if (vpmu == KB_VPMU_OFF) {
		memset(p, 0, sizeof(*p));
		p->off_by = kb_kvm_cap(kvm, KVM_CAP_PMU_CAPABILITY) > 0 ?
			    "--vpmu off: KVM_CAP_PMU_CAPABILITY disabled the vPMU, PMU CPUID leaves zeroed" :
			    "--vpmu off: PMU CPUID leaves zeroed (this KVM lacks KVM_CAP_PMU_CAPABILITY)";
		return;
	}
	kb_x86_cpuid_pmu(kvm->supported_cpuid, amd, p);
	/* KVM zeroes Intel's leaf 0xA itself without a vPMU; AMD's legacy counters need the parameter. */
	if (enable_pmu_param() == 0) {
		p->version = p->counters = 0;
		p->off_by = "kvm.enable_pmu=N: KVM gives guests no vPMU";
	} else if (!p->counters) {
		p->off_by = "KVM_GET_SUPPORTED_CPUID offers no PMU (leaf 0xA version 0)";
	}
}

int kb_x86_pmu_machine_setup(struct kb_machine *m, const struct kb_machine_cfg *cfg)
{
	struct kb_guest_pmu p;

	if (cfg->vpmu == KB_VPMU_ON) {
		kb_guest_pmu_describe(m->kvm, KB_VPMU_HOST, &p);
		if (!p.counters)
			return kb_fail(ENOTSUP, "--vpmu on: the guest cannot have a PMU here: %s", p.off_by);
		return 0;
	}
	if (cfg->vpmu != KB_VPMU_OFF)
		return 0;
	if (kb_kvm_cap(m->kvm, KVM_CAP_PMU_CAPABILITY) > 0) {
		struct kvm_enable_cap cap = { .cap = KVM_CAP_PMU_CAPABILITY, .args = { KVM_PMU_CAP_DISABLE } };

		if (ioctl(m->vm.fd, KVM_ENABLE_CAP, &cap))
			return kb_fail(errno, "--vpmu off: KVM_ENABLE_CAP(KVM_CAP_PMU_CAPABILITY, DISABLE): %s",
				       strerror(errno));
		return 0;
	}
	/* Intel's vPMU follows leaf 0xA; AMD's four legacy counters exist whatever CPUID says. */
	if (kb_x86_cpuid_is_amd(m->kvm->supported_cpuid) && enable_pmu_param() != 0)
		return kb_fail(ENOTSUP, "--vpmu off: on AMD the vPMU's legacy counters stay without "
			       "KVM_CAP_PMU_CAPABILITY, which this KVM lacks");
	return 0;
}

int kb_x86_pmu_vcpu_setup(struct kb_vcpu *v, const struct kb_machine_cfg *cfg)
{
	const struct kvm_cpuid2 *sup = v->vm->kvm->supported_cpuid;
	size_t bytes = sizeof(*sup) + sup->nent * sizeof(sup->entries[0]);
	struct kvm_cpuid2 *c;
	int err = 0;

	if (cfg->vpmu != KB_VPMU_OFF)
		return 0;
	c = kb_xcalloc(1, bytes);
	memcpy(c, sup, bytes);
	kb_x86_cpuid_hide_pmu(c);
	/* Before the first KVM_RUN KVM takes a new table; kb_arch_vcpu_init() set the full one. */
	if (ioctl(v->fd, KVM_SET_CPUID2, c))
		err = kb_fail(errno, "vCPU %d: KVM_SET_CPUID2 without the PMU: %s", v->id, strerror(errno));
	free(c);
	return err;
}
