/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestloops.h: the guest-side suite's timed instruction loops, one file per architecture (bench/arch/). */
#ifndef KB_BENCH_GUESTLOOPS_H
#define KB_BENCH_GUESTLOOPS_H

#include <stdint.h>

/* n CPUIDs of leaf/subleaf; r[] gets the last answer (eax..edx).  0, or on an architecture without the
 * instruction -ENOTSUP with a kb_fail() message, whatever n (0 asks whether the loop exists: the test
 * is then skipped with that reason). */
int kb_guest_cpuid_loop(uint64_t n, uint32_t leaf, uint32_t subleaf, uint32_t r[4]);
/* n RDTSCPs; x86 only, as above. */
int kb_guest_rdtscp_loop(uint64_t n);

#endif
