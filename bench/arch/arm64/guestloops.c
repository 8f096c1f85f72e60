/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestloops.c: arm64 has neither CPUID nor RDTSCP: the loops refuse, and the guest suite skips their tests
 * with the reason (its floors and hackbench run). */
#include <errno.h>

#include "core/kb.h"
#include "bench/guestloops.h"

int kb_guest_cpuid_loop(uint64_t n, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	return kb_fail(ENOTSUP, "CPUID is an x86 instruction: arm64 has none to time");
}

int kb_guest_rdtscp_loop(uint64_t n)
{
	return kb_fail(ENOTSUP, "RDTSCP is an x86 instruction: arm64 has none to time");
}
