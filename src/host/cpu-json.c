/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-json.c: the decoded CPU, its PMU and its virtualization features as JSON. */
#include <string.h>

#include "host/cpu-info.h"
#include "core/json.h"

json_object *kb_cpu_json(const struct kb_cpu_info *c)
{
	json_object *o = json_object_new_object();
	json_object *types = json_object_new_array();

	kb_json_set_str(o, "vendor", c->vendor);
	kb_json_set_str(o, "brand", c->brand);
	kb_json_set_int(o, "family", c->family);
	kb_json_set_int(o, "model", c->model);
	kb_json_set_int(o, "stepping", c->stepping);
	kb_json_set_str(o, "microarchitecture", c->uarch.id);
	kb_json_set_str(o, "microarchitecture_name", c->uarch.name);
	kb_json_set_str(o, "codename", c->uarch.codename);
	kb_json_set_str(o, "libcpuid_codename", c->libcpuid_codename);
	kb_json_set_int(o, "packages", c->packages);
	kb_json_set_int(o, "cores", c->cores);
	kb_json_set_int(o, "threads", c->threads);
	kb_json_set_int(o, "cores_per_package", c->cores_per_package);
	kb_json_set_int(o, "threads_per_package", c->threads_per_package);
	kb_json_set_bool(o, "hybrid", c->hybrid);
	for (int i = 0; i < c->ntypes; i++) {
		json_object *t = json_object_new_object();

		kb_json_set_str(t, "purpose", c->types[i].purpose);
		kb_json_set_int(t, "cores", c->types[i].cores);
		kb_json_set_int(t, "threads", c->types[i].threads);
		if (c->types[i].rank >= 0)
			kb_json_set_int(t, "efficiency_rank", c->types[i].rank);
		json_object_array_add(types, t);
	}
	kb_json_set(o, "core_types", types);
	kb_json_set_str(o, "counted_from", c->counted_from);
	if (c->nwarnings) {
		json_object *w = json_object_new_array();

		for (int i = 0; i < c->nwarnings; i++)
			json_object_array_add(w, json_object_new_string(c->warnings[i]));
		kb_json_set(o, "warnings", w);
	}
	kb_json_set_bool(o, "hypervisor_present", c->virt.hypervisor);
	return o;
}

static const char *vpmu_note(const struct kb_cpu_info *c)
{
	bool amd = kb_vendor_is_amd(c->vendor);

	if (c->pmu.global_ctrl)
		return amd ? "PerfMonV2: one write to PERF_CNTR_GLOBAL_CTL starts or stops every counter, so a "
			     "guest's PMU switch costs one MSR exit, and a global_ctrl-based vPMU fast path applies"
			   : "IA32_PERF_GLOBAL_CTRL starts or stops every counter with one write, so a guest's PMU "
			     "switch costs one MSR exit, and a global_ctrl-based vPMU fast path applies";
	if (amd)
		return "no PerfMonV2: the guest starts and stops each counter through its own event-select MSR, "
		       "one exit per counter; a global_ctrl-based vPMU fast path cannot help";
	if (!c->pmu.arch_version)
		return "no architectural PMU visible in CPUID 0xA: a guest gets no vPMU from this CPU description";
	return "architectural PMU v1 has no global control: one MSR exit per counter start or stop";
}

json_object *kb_pmu_json(const struct kb_cpu_info *c)
{
	json_object *o = json_object_new_object();
	bool amd = kb_vendor_is_amd(c->vendor);

	if (amd) {
		kb_json_set_bool(o, "cpuid_0x80000022", c->pmu.amd_leaf);
		kb_json_set_bool(o, "perfmon_v2", c->pmu.perfmon_v2);
		kb_json_set_bool(o, "lbr_v2", c->pmu.lbr_v2);
		kb_json_set_int(o, "core_counters", c->pmu.core_counters);
		kb_json_set_int(o, "northbridge_counters", c->pmu.nb_counters);
	} else {
		kb_json_set_int(o, "arch_perfmon_version", c->pmu.arch_version);
		kb_json_set_int(o, "gp_counters", c->pmu.gp_counters);
		kb_json_set_int(o, "gp_counter_width", c->pmu.gp_width);
		kb_json_set_int(o, "fixed_counters", c->pmu.fixed_counters);
		kb_json_set_int(o, "fixed_counter_width", c->pmu.fixed_width);
	}
	kb_json_set_bool(o, "global_ctrl", c->pmu.global_ctrl);
	kb_json_set_str(o, "vpmu", vpmu_note(c));
	return o;
}

json_object *kb_cpu_virt_json(const struct kb_cpu_info *c)
{
	json_object *o = json_object_new_object();

	kb_json_set_bool(o, "vmx", c->virt.vmx);
	kb_json_set_bool(o, "svm", c->virt.svm);
	kb_json_set_bool(o, "under_hypervisor", c->virt.hypervisor);
	kb_json_set_str(o, "hypervisor", c->virt.hypervisor ? c->virt.hv_name : NULL);
	kb_json_set_str(o, "hypervisor_signature", c->virt.hypervisor ? c->virt.hv_signature : NULL);
	return o;
}
