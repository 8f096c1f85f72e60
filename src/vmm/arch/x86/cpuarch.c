/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuarch.c: x86's identity (kb_arch_self), its counter (the TSC), and no model of execute faults. */
#include <x86intrin.h>

#include "vmm/cpuarch.h"

enum kb_arch kb_arch_self(void)
{
	return KB_ARCH_X86;
}

uint64_t kb_cpu_counter(void)
{
	return __rdtsc();
}

int kb_arch_exec_faults_per_mapping(const char **why)
{
	*why = "not modelled on x86: EPT and NPT map a written page executable, except where NX huge pages split it";
	return -1;
}
