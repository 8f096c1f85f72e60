/* host.h: facts about the host a result carries: kernel, KVM backend and parameters, CPU, PMU,
 * virtualization, topology and what matters for benchmarking on it. */
#ifndef KB_HOST_H
#define KB_HOST_H

#include <json-c/json.h>

#include "kvm.h"

/* This host; kvm may be NULL when /dev/kvm could not be opened.  Never NULL: a part that cannot be
 * found out carries an "error" member instead. */
json_object *kb_host_json(struct kb_kvm *kvm);

/*
 * The same description, optionally of another machine: cpuid_file (a raw CPUID dump) replaces this
 * CPU, topology_file (hwloc XML) this topology.  With a dump, the kernel and KVM facts (which a dump
 * cannot tell) are left out.  Fails with -errno when a named file cannot be used.
 */
int kb_host_describe(struct kb_kvm *kvm, const char *cpuid_file, const char *topology_file, json_object **out);

/* Module parameters of 'module' under /sys/module, as an object of strings. */
json_object *kb_module_params_json(const char *module);

#endif
