/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-info.h: one machine's CPU decoded from its raw CPUID: generation, core types, PMU,
 * virtualization; and the same as JSON. */
#ifndef KB_CPU_INFO_H
#define KB_CPU_INFO_H

#include <stdbool.h>
#include <json-c/json.h>

#include "host/cpuid.h"
#include "host/uarch.h"

/* ---- one machine's CPU, decoded ---- */

enum { KB_CPU_MAX_TYPES = 4 };

struct kb_cpu_type {
	char purpose[16];           /* "general", "performance", "efficiency" (libcpuid) */
	int cores, threads;         /* in the whole machine */
	int rank;                   /* AMD hybrids: CPUID 0x80000026 efficiency ranking; -1: none */
};

enum { KB_CPU_MAX_WARNINGS = 4 };

struct kb_pmu {
	/* Intel architectural PMU, CPUID 0xA */
	int arch_version;
	int gp_counters, gp_width;
	int fixed_counters, fixed_width;
	/* AMD, CPUID 0x80000022 (and 0x80000001 ECX[23] before it) */
	bool amd_leaf;              /* 0x80000022 is reported */
	bool perfmon_v2;
	bool lbr_v2;
	int core_counters;          /* AMD: core counters; Intel: = gp_counters */
	int nb_counters;
	/* what it means for a vPMU */
	bool global_ctrl;           /* one MSR enables/disables every counter */
};

struct kb_cpu_virt {
	bool vmx, svm;
	bool hypervisor;            /* CPUID.1:ECX[31]: this machine is a guest */
	char hv_signature[13];
	const char *hv_name;        /* "KVM", "Hyper-V", ...; "unknown" when present but not recognised */
	const char *hv_from;        /* what told: NULL for CPUID 0x40000000 (x86); arm64: the device tree or DMI */
};

struct kb_cpu_info {
	char vendor[16];
	char brand[64];
	int family, model, stepping;          /* display family/model (extended fields folded in) */
	int base_family, base_model;
	struct kb_uarch uarch;
	char libcpuid_codename[64];
	int packages;
	int cores_per_package, threads_per_package;
	int cores, threads;                   /* whole machine, as far as the data tells */
	int ntypes;
	struct kb_cpu_type types[KB_CPU_MAX_TYPES];
	bool hybrid;
	char counted_from[96];                /* how the counts were made: "x2APIC IDs and CPUID 0xb levels of 36 CPUs" */
	int nwarnings;                        /* doubts about the data (a dump missing CPUs) */
	char warnings[KB_CPU_MAX_WARNINGS][256];
	struct kb_pmu pmu;
	struct kb_cpu_virt virt;
};

int kb_cpu_identify(const struct kb_cpuid_set *s, struct kb_cpu_info *info);

json_object *kb_cpu_json(const struct kb_cpu_info *c);
json_object *kb_pmu_json(const struct kb_cpu_info *c);
/* The CPU's side of virtualization: VMX/SVM, the hypervisor this machine runs under. */
json_object *kb_cpu_virt_json(const struct kb_cpu_info *c);

#endif
