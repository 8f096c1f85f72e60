/* SPDX-License-Identifier: GPL-2.0-or-later */
/* advice.c: the "what matters on this host" table: rules on CPU, KVM parameters and topology. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "host/advice.h"
#include "host/uarch.h"
#include "core/json.h"
#include "core/kb.h"

static const char *param(const struct kb_host_facts *f, const char *name)
{
	json_object *v = kb_json_get(f->params, name);

	return v ? json_object_get_string(v) : NULL;
}

static bool param_is(const struct kb_host_facts *f, const char *name, const char *const *values)
{
	const char *v = param(f, name);

	for (; v && *values; values++)
		if (!strcasecmp(v, *values))
			return true;
	return false;
}

static const char *const on_values[] = { "Y", "1", "force", "on", NULL };
static const char *const off_values[] = { "N", "0", "off", NULL };

static bool is_amd(const struct kb_host_facts *f) { return kb_vendor_is_amd(f->cpu->vendor); }
static bool is_intel(const struct kb_host_facts *f) { return !strcmp(f->cpu->vendor, KB_VENDOR_INTEL); }
static bool pmv2_expected(const struct kb_host_facts *f) { return kb_uarch_has_perfmon_v2(f->cpu->uarch.id); }
static bool backend_is(const struct kb_host_facts *f, const char *b) { return f->backend && !strcmp(f->backend, b); }

static bool a_amd_no_pmv2(const struct kb_host_facts *f) { return is_amd(f) && !f->cpu->pmu.perfmon_v2 && !pmv2_expected(f); }
static bool a_amd_pmv2_hidden(const struct kb_host_facts *f) { return is_amd(f) && !f->cpu->pmu.perfmon_v2 && pmv2_expected(f); }
static bool a_amd_pmv2(const struct kb_host_facts *f) { return is_amd(f) && f->cpu->pmu.perfmon_v2; }
static bool a_intel_global(const struct kb_host_facts *f) { return is_intel(f) && f->cpu->pmu.global_ctrl; }
static bool a_intel_no_pmu(const struct kb_host_facts *f) { return is_intel(f) && !f->cpu->pmu.arch_version; }
static bool a_pmu_off(const struct kb_host_facts *f) { return param_is(f, "enable_pmu", off_values); }
static bool a_nested(const struct kb_host_facts *f) { return f->cpu->virt.hypervisor; }
static bool a_pvm(const struct kb_host_facts *f) { return backend_is(f, "kvm_pvm"); }
static bool a_pvm_cpuid_exits(const struct kb_host_facts *f) { return a_pvm(f) && f->guest_cpuid == KB_GUEST_CPUID_EXITS; }
static bool a_pvm_cpuid_below(const struct kb_host_facts *f) { return a_pvm(f) && f->guest_cpuid == KB_GUEST_CPUID_BELOW; }
static bool a_no_hw_virt(const struct kb_host_facts *f)
{
	return !f->cpu->virt.vmx && !f->cpu->virt.svm && !backend_is(f, "kvm_pvm");
}
static bool a_nx_huge(const struct kb_host_facts *f) { return param_is(f, "nx_huge_pages", on_values); }
static bool a_tdp_mmu_off(const struct kb_host_facts *f) { return !a_pvm(f) && param_is(f, "tdp_mmu", off_values); }
static bool a_shadow_paging(const struct kb_host_facts *f) { return param_is(f, "ept", off_values) || param_is(f, "npt", off_values); }
static bool a_eager_split(const struct kb_host_facts *f) { return param_is(f, "eager_page_split", on_values); }
static bool a_apicv_off(const struct kb_host_facts *f)
{
	return (backend_is(f, "kvm_intel") && param_is(f, "enable_apicv", off_values)) ||
	       (backend_is(f, "kvm_amd") && param_is(f, "avic", off_values));
}
static bool a_tpr_threshold(const struct kb_host_facts *f)
{
	return backend_is(f, "kvm_intel") && param_is(f, "enable_apicv", off_values);
}
static bool a_hybrid(const struct kb_host_facts *f) { return f->cpu->hybrid; }
static bool a_smt(const struct kb_host_facts *f) { return f->threads_per_core > 1; }
static bool a_numa(const struct kb_host_facts *f) { return f->numa_nodes > 1; }
static bool a_memory_only(const struct kb_host_facts *f) { return f->memory_only_nodes && *f->memory_only_nodes; }
static bool a_unknown(const struct kb_host_facts *f) { return !strcmp(f->cpu->uarch.id, "unknown"); }

/* The project's table: when a rule applies, its text (with {tokens} filled in) is shown. */
static const struct advice_rule {
	const char *id;
	bool (*applies)(const struct kb_host_facts *f);
	const char *text;
	bool topology_only;         /* looks at the topology facts only, not at the CPU */
	bool probed;                /* looks at what a probe guest counted (the backend and guest_cpuid) only */
} advice_rules[] = {
	{ "unknown-microarchitecture", a_unknown,
	  "{vendor} family {family} model {model}: microarchitecture unknown to kvmbench's table (src/host/uarch.c); "
	  "advice that depends on the generation is left out" },
	{ "amd-no-perfmonv2", a_amd_no_pmv2,
	  "{uarch}: no PerfMonV2 — a vPMU fast path based on global_ctrl cannot help here; the guest "
	  "starts and stops each of its {counters} counters with its own MSR exit" },
	{ "amd-perfmonv2-hidden", a_amd_pmv2_hidden,
	  "{uarch} has PerfMonV2, but CPUID here does not report it{under}: vPMU results here do not "
	  "show what a bare-metal {uarch} host does" },
	{ "amd-perfmonv2", a_amd_pmv2,
	  "{uarch}: PerfMonV2 with {counters} core counters — one global_ctrl write starts or stops all "
	  "of them, so a global_ctrl-based vPMU fast path can pay off here" },
	{ "intel-global-ctrl", a_intel_global,
	  "{uarch}: architectural PMU v{pmu_version}, {counters} general-purpose and {fixed} fixed counters; "
	  "IA32_PERF_GLOBAL_CTRL lets a global_ctrl-based vPMU fast path apply" },
	{ "intel-no-pmu", a_intel_no_pmu,
	  "CPUID 0xA shows no architectural PMU{under}: vPMU tests have nothing to measure" },
	{ "vpmu-disabled", a_pmu_off,
	  "kvm.enable_pmu=N: guests get no vPMU, so vPMU tests measure nothing on this host" },
	{ "nested", a_nested,
	  "this host itself runs under {hypervisor}: every exit also pays the outer hypervisor, so compare "
	  "results only with runs on the same setup" },
	{ "kvm-pvm", a_pvm,
	  "kvm_pvm backend (software, pagetable-based): guest ring 0 runs at CPL3 and privileged "
	  "instructions trap; VMCALL/VMMCALL never reach it; rates are not comparable with VMX/SVM hosts" },
	{ "kvm-pvm-cpuid-exits", a_pvm_cpuid_exits,
	  "a guest's CPUID exits to kvm_pvm on this host (counted: 'guest CPUID' under Virtualization), so the cpuid "
	  "suite measures kvm_pvm's CPUID exits; on other kvm_pvm hosts the outer hypervisor answers it: compare "
	  "CPUID rates only with hosts where it exits too", false, true },
	{ "kvm-pvm-cpuid-below", a_pvm_cpuid_below,
	  "a guest's CPUID never reaches kvm_pvm on this host: the hypervisor underneath answers it (counted: 'guest "
	  "CPUID' under Virtualization), so the cpuid suite has no KVM exit to measure and reports its tests invalid", false, true },
	{ "no-hardware-virtualization", a_no_hw_virt,
	  "neither VMX nor SVM is visible: kvm_intel/kvm_amd cannot run guests here" },
	{ "shadow-paging", a_shadow_paging,
	  "two-dimensional paging is off (ept/npt=N): guest page-table writes trap to the shadow MMU" },
	{ "tdp-mmu-off", a_tdp_mmu_off,
	  "tdp_mmu=N: the legacy MMU serialises faults and dirty logging on one lock; memory-suite "
	  "numbers differ from hosts with the TDP MMU" },
	{ "nx-huge-pages", a_nx_huge,
	  "nx_huge_pages is on (iTLB multihit mitigation): executable guest huge pages are split into 4K "
	  "pages, so execute-from-memory tests pay extra faults" },
	{ "eager-page-split", a_eager_split,
	  "eager_page_split=Y: enabling dirty logging splits huge pages up front, so the first dirty-log "
	  "round is expensive and later rounds cheaper" },
	{ "apicv-off", a_apicv_off,
	  "APIC virtualization is off (enable_apicv/avic): guest APIC accesses, EOIs and IPIs exit, so "
	  "interrupt tests measure the slow path" },
	{ "vmx-stale-tpr-threshold", a_tpr_threshold,
	  "kvm_intel with enable_apicv=N (no virtual-interrupt delivery): a kernel with the KVM_REQ_EVENT series "
	  "but without bb365a506b1e (\"KVM: x86: Unconditionally recompute CR8 intercept on PPR update\", v7.2; "
	  "in Debian 6.12.117, not in 6.1.192) can leave a stale TPR threshold and fail VM entry in the self_ipi_tpr "
	  "tests; kvmbench patches verify says whether this kernel has it" },
	{ "hybrid", a_hybrid,
	  "hybrid CPU ({core_types}): rates depend on the core type; kvmbench plan puts vCPUs on the "
	  "fastest kind first where hwloc knows the kinds ('core kinds' under Topology), and otherwise "
	  "pin them to one kind with --cpus" },
	{ "smt", a_smt,
	  "SMT is on ({tpc} threads per core): a busy sibling slows a vCPU, so kvmbench plan leaves the "
	  "siblings of vCPU cores idle", true },
	{ "numa", a_numa,
	  "{numa_nodes} NUMA nodes: remote memory skews memory suites; kvmbench plan keeps vCPUs and guest "
	  "memory on one node", true },
	{ "memory-only-nodes", a_memory_only,
	  "memory-only NUMA nodes ({memory_only}): never used for vCPUs, and guest memory stays on the "
	  "vCPUs' node unless --mem-node K puts it on one (kvmbench info shows whose node each is)", true },
};

static void token_value(const struct kb_host_facts *f, const char *tok, char *out, size_t n)
{
	const struct kb_cpu_info *c = f->cpu;

	out[0] = 0;
	if (!strcmp(tok, "uarch"))
		snprintf(out, n, "%s", c->uarch.name);
	else if (!strcmp(tok, "vendor"))
		snprintf(out, n, "%s", c->vendor);
	else if (!strcmp(tok, "family"))
		snprintf(out, n, "%#x", c->family);
	else if (!strcmp(tok, "model"))
		snprintf(out, n, "%#x", c->model);
	else if (!strcmp(tok, "counters"))
		snprintf(out, n, "%d", c->pmu.core_counters);
	else if (!strcmp(tok, "fixed"))
		snprintf(out, n, "%d", c->pmu.fixed_counters);
	else if (!strcmp(tok, "pmu_version"))
		snprintf(out, n, "%d", c->pmu.arch_version);
	else if (!strcmp(tok, "hypervisor"))
		snprintf(out, n, "%s", c->virt.hv_name ? c->virt.hv_name : "a hypervisor");
	else if (!strcmp(tok, "under") && c->virt.hypervisor)
		snprintf(out, n, " (hidden by %s, the hypervisor this host runs under)",
			 c->virt.hv_name ? c->virt.hv_name : "a hypervisor");
	else if (!strcmp(tok, "numa_nodes"))
		snprintf(out, n, "%d", f->numa_nodes);
	else if (!strcmp(tok, "tpc"))
		snprintf(out, n, "%d", f->threads_per_core);
	else if (!strcmp(tok, "memory_only"))
		snprintf(out, n, "%s", f->memory_only_nodes ? f->memory_only_nodes : "");
	else if (!strcmp(tok, "core_types"))
		for (int i = 0; i < c->ntypes; i++) {
			size_t len = strlen(out);

			snprintf(out + len, n - len, "%s%d %s cores", i ? ", " : "", c->types[i].cores,
				 c->types[i].purpose);
		}
}

static void fill_text(const struct kb_host_facts *f, const char *tmpl, char *out, size_t n)
{
	size_t len = 0;

	out[0] = 0;
	for (const char *p = tmpl; *p && len + 1 < n;) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;

		if (end && end - p < 32) {
			char tok[32], val[256];

			memcpy(tok, p + 1, (size_t)(end - p - 1));
			tok[end - p - 1] = 0;
			token_value(f, tok, val, sizeof(val));
			len += (size_t)snprintf(out + len, n - len, "%s", val);
			p = end + 1;
		} else {
			out[len++] = *p++;
			out[len] = 0;
		}
		if (len >= n)
			len = n - 1;
	}
}

/* Rule i's entry on a, when it applies. */
static void add_rule(const struct kb_host_facts *f, size_t i, json_object *a)
{
	char text[512];
	json_object *o;

	if ((!f->cpu && !advice_rules[i].topology_only && !advice_rules[i].probed) || !advice_rules[i].applies(f))
		return;
	fill_text(f, advice_rules[i].text, text, sizeof(text));
	o = json_object_new_object();
	kb_json_set_str(o, "id", advice_rules[i].id);
	kb_json_set_str(o, "text", text);
	json_object_array_add(a, o);
}

void kb_advice_add_probed(json_object *advice, const char *backend, int guest_cpuid)
{
	const struct kb_host_facts f = { .backend = backend, .guest_cpuid = guest_cpuid };

	for (size_t i = 0; i < ARRAY_SIZE(advice_rules); i++)
		if (advice_rules[i].probed)
			add_rule(&f, i, advice);
}

json_object *kb_advice_json(const struct kb_host_facts *f)
{
	json_object *a = json_object_new_array();

	/* The probed rules wait for their probe: kb_advice_add_probed(). */
	for (size_t i = 0; i < ARRAY_SIZE(advice_rules); i++)
		if (!advice_rules[i].probed)
			add_rule(f, i, a);
	if (f->arm64)
		kb_arm64_advice(f->arm64, a);
	if (f->arm64_gic)
		kb_arm64_gic_advice(f->arm64_gic, a);
	return a;
}
