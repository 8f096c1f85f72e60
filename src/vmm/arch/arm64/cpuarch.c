/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuarch.c: arm64's identity (kb_arch_self), its counter (the generic timer's virtual count) and its
 * instruction-cache coherence as KVM sees it. */
#include "vmm/cpuarch.h"

enum kb_arch kb_arch_self(void)
{
	return KB_ARCH_ARM64;
}

uint64_t kb_cpu_counter(void)
{
	uint64_t v;

	/* The ISB keeps the read from being done ahead of the code before it. */
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

int kb_arch_exec_faults_per_mapping(const char **why)
{
	uint64_t ctr;

	/* Linux gives user space the system-wide safe value (trapping and emulating the read where the
	 * CPUs differ), which is what KVM's ARM64_HAS_CACHE_DIC decision is made of. */
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	if (ctr >> 29 & 1) {
		*why = "CTR_EL0.DIC = 1: KVM maps guest pages executable at their first fault";
		return 0;
	}
	*why = "CTR_EL0.DIC = 0: KVM maps a written page non-executable, and its first fetch faults";
	return 1;
}
