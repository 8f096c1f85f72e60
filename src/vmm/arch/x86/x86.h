/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86.h: what the x86 files of the VMM share among themselves (not for the generic code). */
#ifndef KB_VMM_X86_H
#define KB_VMM_X86_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/machine.h"

/* longmode.c: the identity map, the GDT and TSS, and a vCPU's long-mode entry state. */
void kb_x86_build_tables(struct kb_machine *m);
int kb_x86_enter_long_mode(struct kb_vcpu *v, uint64_t efer);

/* pmu.c: the guest's PMU (run --vpmu). */
void kb_x86_cpuid_hide_pmu(struct kvm_cpuid2 *c);
bool kb_x86_cpuid_is_amd(const struct kvm_cpuid2 *c);
/* The PMU a guest given table c sees; amd: the table's vendor. */
void kb_x86_cpuid_pmu(const struct kvm_cpuid2 *c, bool amd, struct kb_guest_pmu *p);
/* VM-wide (before the vCPUs exist) and per vCPU (after kb_arch_vcpu_init()). */
int kb_x86_pmu_machine_setup(struct kb_machine *m, const struct kb_machine_cfg *cfg);
int kb_x86_pmu_vcpu_setup(struct kb_vcpu *v, const struct kb_machine_cfg *cfg);

/* pvm.c: kvm_pvm's native ring-0 switch. */
uint64_t kb_x86_pvm_flags_gpa(int vcpu);
int kb_x86_pvm_enable_native(struct kb_vcpu *v);

#endif
