/* SPDX-License-Identifier: GPL-2.0-or-later */
/* advice.h: "what matters on this host": the facts the advice rules look at, and the advice. */
#ifndef KB_ADVICE_H
#define KB_ADVICE_H

#include <json-c/json.h>

#include "host/arm64.h"
#include "host/cpu-info.h"
#include "vmm/kvm.h"

/* ---- "what matters on this host" ---- */

struct kb_host_facts {
	const struct kb_cpu_info *cpu;  /* NULL: not known (a topology file alone): CPU rules are left out */
	const struct kb_arm64_cpu *arm64; /* an arm64 machine's CPUs (src/host/arm64-decode.c's rules), or NULL */
	const struct kb_arm64_gic *arm64_gic; /* this arm64 host's GIC (src/host/arm64-gic.c's rules), or NULL */
	const char *backend;        /* "kvm_intel", "kvm_amd", "kvm_pvm", NULL when unknown/offline */
	json_object *params;        /* module parameter name -> string value; may be NULL */
	int numa_nodes;             /* 0: unknown */
	int threads_per_core;       /* 0: unknown */
	const char *memory_only_nodes; /* list such as "2-3"; NULL or "" when none */
	int guest_cpuid;            /* enum kb_guest_cpuid (vmm/kvm.h): where the probe found a guest's CPUID goes;
	                             * read by the probed rules only (kb_advice_add_probed()) */
};

/* The advice that applies, as an array of { "id", "text" }. */
json_object *kb_advice_json(const struct kb_host_facts *f);
/* The advice on what a probe guest counted, added to 'advice' once it has run (after the rest was made):
 * backend and guest_cpuid as in kb_host_facts. */
void kb_advice_add_probed(json_object *advice, const char *backend, int guest_cpuid);

#endif
