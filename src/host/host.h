/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.h: facts about the host a result carries: kernel, KVM backend and parameters, CPU, PMU,
 * virtualization, topology and what matters for benchmarking on it. */
#ifndef KB_HOST_H
#define KB_HOST_H

#include <stdbool.h>
#include <json-c/json.h>

#include "host/cpu-info.h"
#include "vmm/kvm.h"

/* This host; kvm may be NULL when /dev/kvm could not be opened.  Never NULL: a part that cannot be
 * found out carries an "error" member instead.  cpu, when given, receives the decoded CPU, and
 * *cpu_ok says whether it could be decoded. */
json_object *kb_host_json(struct kb_kvm *kvm, struct kb_cpu_info *cpu, bool *cpu_ok);

/* The files describing another machine; all NULL: this host. */
struct kb_host_files {
	const char *cpuid;      /* a raw x86 CPUID dump */
	const char *arm64_cpu;  /* an arm64 /proc/cpuinfo and/or register dump (src/host/arm64-dump.c) */
	const char *topology;   /* an hwloc XML export */
};

/*
 * The same description, or one of another machine: with a CPU file (a raw CPUID dump or an arm64
 * dump) and/or a topology file (hwloc XML), only what those files tell (no kernel, KVM or CPU of this host mixed
 * in, and advice from those facts alone); this host's own facts then go apart, into "this_host".
 * A dump and a topology whose counts disagree get a "warnings" entry.  Fails with -errno when a
 * named file cannot be used.
 */
int kb_host_describe(struct kb_kvm *kvm, const struct kb_host_files *files, json_object **out,
		     struct kb_cpu_info *cpu_out, bool *cpu_ok);

/* Module parameters of 'module' under /sys/module, as an object of strings. */
json_object *kb_module_params_json(const char *module);

#endif
