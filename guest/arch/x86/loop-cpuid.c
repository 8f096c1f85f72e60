/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-cpuid.c: the guest loop of the CPUID-rate suite (the cpuid suite's tests). */
#include "guest.h"

void loop_cpuid(struct kb_mailbox *mb, uint64_t iters)
{
	uint32_t leaf = (uint32_t)mb->param[0], sub = (uint32_t)mb->param[1];
	uint32_t r[4] = { 0 };

	for (uint64_t i = 0; i < iters; i++)
		cpuid_count(leaf, sub, r);
	/* The host checks these against what it told KVM, to see who answered. */
	for (int i = 0; i < 4; i++)
		mb->args[i] = r[i];
}
