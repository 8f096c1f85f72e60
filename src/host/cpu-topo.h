/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-topo.h: a machine's packages, cores and core kinds from the per-CPU CPUID of its logical
 * CPUs: x2APIC IDs and the topology levels of leaf 0xB/0x1F (Intel) or 0x80000026 (AMD). */
#ifndef KB_CPU_TOPO_H
#define KB_CPU_TOPO_H

#include <stdbool.h>

#include "host/cpuid.h"

enum { KB_CPU_TOPO_MAX_KINDS = 4, KB_CPU_TOPO_MAX_WARNINGS = 4 };

struct kb_cpu_kind {
	char purpose[16];           /* "performance" or "efficiency", as libcpuid names them */
	int rank;                   /* AMD 0x80000026 EBX[23:16] power-efficiency ranking; Intel: -1 */
	int cores, threads;
};

struct kb_cpu_topo {
	int threads, cores, packages;
	int smt_shift, package_shift;   /* of the first CPU: x2APIC ID bits below the core and the package */
	const char *levels_leaf;        /* "0x1f", "0xb", "0x80000026", or "initial APIC ID" */
	int nkinds;                     /* 0: one kind of core (not hybrid) */
	struct kb_cpu_kind kinds[KB_CPU_TOPO_MAX_KINDS];
	int nwarnings;
	char warnings[KB_CPU_TOPO_MAX_WARNINGS][256];
};

/* Count what the blocks of s describe.  Fails with -EINVAL and a message naming the CPUs when the
 * blocks cannot be one machine (two of them with one x2APIC ID); doubts go into t->warnings. */
int kb_cpu_topo_derive(const struct kb_cpuid_set *s, struct kb_cpu_topo *t);

#endif
