/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuarch.c: arm64's identity (kb_arch_self) and its counter, the generic timer's virtual count. */
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
