/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestloops.c: the guest-side suite's x86 instruction loops (CPUID, RDTSCP), out of line. */
#include "bench/guestloops.h"

__attribute__((noinline)) int kb_guest_cpuid_loop(uint64_t n, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	uint32_t a = 0, b = 0, c = 0, d = 0;

	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(subleaf));
	r[0] = a;
	r[1] = b;
	r[2] = c;
	r[3] = d;
	return 0;
}

__attribute__((noinline)) int kb_guest_rdtscp_loop(uint64_t n)
{
	uint32_t lo, hi, aux;

	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return 0;
}
