/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuarch.c: x86's identity (kb_arch_self) and its counter, the TSC. */
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
