/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h: what reaches this host's KVM, counted in a small guest rather than assumed: whether a
 * guest's CPUID exits to it (kvm_pvm under an outer hypervisor: on some hosts the outer one answers). */
#ifndef KB_RUN_PROBE_H
#define KB_RUN_PROBE_H

#include <stdint.h>
#include <json-c/json.h>

#include "run/run.h"

/* CPUIDs the probe's guest runs: a few milliseconds where each exits, fewer where none does. */
#define KB_PROBE_CPUIDS 512

struct kb_cpuid_probe {
	int verdict;         /* enum kb_guest_cpuid (vmm/kvm.h) */
	uint64_t cpuids;     /* CPUIDs the guest ran; 0: the probe did not run */
	uint64_t exits;      /* KVM exits they caused: the call's own exit and host interrupts' taken off */
	char why[400];       /* unknown: why the count could not tell */
};

/* The verdict of 'exits' KVM exits for 'cpuids' CPUIDs: at least half an exit each, CPUID exits to
 * this KVM; at most a tenth, it is answered underneath; between, or none ran: unknown. */
int kb_cpuid_probe_judge(uint64_t cpuids, uint64_t exits);

/* Count on ctx->kvm (x86 only: elsewhere unknown with the reason) and record the verdict in
 * ctx->kvm->guest_cpuid.  0, or -errno with kb_fail()'s message when the probe's guest could not run
 * (a KVM call failed, it hung, a signal stopped it): then the verdict is unknown and p->why says why. */
int kb_probe_guest_cpuid(const struct kb_run_ctx *ctx, struct kb_cpuid_probe *p);

/* {"verdict": "exits"|"answered_below"|"unknown", "cpuids": N, "exits": N, "reason": "..."} */
json_object *kb_cpuid_probe_json(const struct kb_cpuid_probe *p);
/* The probe with the host facts: as "guest_cpuid" in kvm_facts (the host's "kvm" object) and its advice on
 * 'advice' (the host's array; the backend's name as kb_backend_name() gives it); either may be NULL. */
void kb_cpuid_probe_record(const struct kb_cpuid_probe *p, const char *backend, json_object *kvm_facts,
			   json_object *advice);
/* The verdict in words, for info and the advice: "exits to kvm_pvm (512 exits for 512 CPUIDs)". */
void kb_cpuid_probe_describe(const struct kb_cpuid_probe *p, const char *backend, char *buf, size_t size);

#endif
