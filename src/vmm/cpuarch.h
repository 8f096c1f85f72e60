/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuarch.h: the CPU architecture this kvmbench was built for, and that CPU's free-running counter. */
#ifndef KB_VMM_CPUARCH_H
#define KB_VMM_CPUARCH_H

#include <stdint.h>

/* Architectures as bits, so that a suite can name the ones it runs on (struct kb_suite.arches). */
enum kb_arch {
	KB_ARCH_X86 = 1u << 0,
	KB_ARCH_ARM64 = 1u << 1,
};

/* The architecture of this build (src/vmm/arch/<arch>/cpuarch.c). */
enum kb_arch kb_arch_self(void);
/* "x86", "arm64", or "?" for anything else. */
const char *kb_arch_name(enum kb_arch a);

/* The CPU's free-running counter as user space reads it: x86 the TSC (RDTSC), arm64 the virtual
 * count (CNTVCT_EL0).  Only differences of two reads on one host mean anything. */
uint64_t kb_cpu_counter(void);

/*
 * How many exits KVM takes at the first instruction fetch from a stage-2 (TDP) mapping that a guest
 * write made: arm64 1 where the CPUs lack CTR_EL0.DIC (user_mem_abort() maps a data fault's page
 * non-executable, and the first fetch is a permission fault that makes it executable and invalidates
 * the instruction cache), 0 where they have it (mapped executable at once); -1 where kvmbench does
 * not model it (x86: EPT and NPT map writable pages executable, NX huge pages aside).  *why: the
 * register and value it was decided from.
 */
int kb_arch_exec_faults_per_mapping(const char **why);

#endif
