/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c: 'kvmbench info': what this host (or a CPUID dump / topology file) is: CPU generation,
 * PMU, virtualization, KVM backend and parameters, topology, and what matters for benchmarking. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "host/host.h"
#include "run/probe.h"
#include "core/json.h"
#include "core/kb.h"

struct info_cfg {
	bool json;
	bool all;
	const char *kvm_path;
	const char *cpuid_file;
	const char *arm64_cpu_file;
	const char *topology_file;
};

static const struct kb_opt info_opts[] = {
	{ "json", 'j', KB_OPT_FLAG, offsetof(struct info_cfg, json), NULL, "print JSON", NULL, 0, 0 },
	{ "all", 'a', KB_OPT_FLAG, offsetof(struct info_cfg, all), NULL,
	  "also list KVM capabilities and every module parameter", NULL, 0, 0 },
	{ "kvm", 0, KB_OPT_STRING, offsetof(struct info_cfg, kvm_path), "DEV", "the KVM device", "/dev/kvm", 0, 0 },
	{ "cpuid-file", 0, KB_OPT_STRING, offsetof(struct info_cfg, cpuid_file), "FILE",
	  "describe the CPU of a raw CPUID dump (libcpuid, AIDA64 or InstLatX64 format; .xz too) instead of this one",
	  NULL, 0, 0 },
	{ "arm64-cpu-file", 0, KB_OPT_STRING, offsetof(struct info_cfg, arm64_cpu_file), "FILE",
	  "describe the CPUs of an arm64 machine from its /proc/cpuinfo and/or register lines "
	  "(midr_el1 0x..., id_aa64mmfr1_el1 0x...; .xz too) instead of this one", NULL, 0, 0 },
	{ "topology-file", 0, KB_OPT_STRING, offsetof(struct info_cfg, topology_file), "FILE",
	  "describe the topology of an hwloc XML export instead of this machine's", NULL, 0, 0 },
};

static const char *str(json_object *o, const char *path)
{
	json_object *v = kb_json_path(o, path);

	return v ? json_object_get_string(v) : "?";
}

static const char *yesno(json_object *o, const char *path)
{
	json_object *v = kb_json_path(o, path);

	return !v ? "?" : json_object_get_boolean(v) ? "yes" : "no";
}

static void row(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void row(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("  %-24s ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void print_object(const char *title, json_object *o)
{
	printf("%s:\n", title);
	json_object_object_foreach(o, key, val)
		printf("  %-36s %s\n", key, val ? json_object_get_string(val) : "-");
}

/* An arm64 machine's CPU: MIDR_EL1 decoded, and each core design of a heterogeneous one. */
static void print_cpu_arm64(json_object *h)
{
	json_object *types = kb_json_path(h, "cpu.core_types");

	row("implementer", "%s (%s)", str(h, "cpu.implementer"), str(h, "cpu.vendor"));
	row("MIDR_EL1", "%s: part %s, %s", str(h, "cpu.midr_el1"), str(h, "cpu.part"), str(h, "cpu.variant_revision"));
	row("microarchitecture", "%s (%s)%s%s", str(h, "cpu.microarchitecture"), str(h, "cpu.microarchitecture_name"),
	    kb_json_path(h, "cpu.found_in") ? "; in " : "", kb_json_path(h, "cpu.found_in") ? str(h, "cpu.found_in") : "");
	row("logical CPUs", "%s", str(h, "cpu.logical_cpus"));
	for (size_t i = 0; types && json_object_array_length(types) > 1 && i < json_object_array_length(types); i++) {
		json_object *t = json_object_array_get_idx(types, i);

		row(i ? "" : "core types (heterogeneous)", "CPUs %s: %s %s (%s)", str(t, "cpus"),
		    str(t, "microarchitecture_name"), str(t, "variant_revision"), str(t, "midr_el1"));
	}
	row("counted from", "%s", str(h, "cpu.counted_from"));
}

static const char *known(json_object *o, const char *path, const char *yes, const char *no)
{
	json_object *v = kb_json_path(o, path);

	return !v ? "not known from this data" : json_object_get_boolean(v) ? yes : no;
}

/* The host's GIC as kb_arm64_gic_json() gave it: "GICv3 with an ITS (the device tree: arm,gic-v3)". */
static void print_host_gic(json_object *g)
{
	json_object *its = kb_json_get(g, "its"), *vpe = kb_json_get(g, "vpe");

	if (!kb_json_get(g, "version")) {
		row("host GIC", "%s", str(g, "from"));
		return;
	}
	row("host GIC", "GICv%d%s%s%s%s (%s: %s)", json_object_get_int(kb_json_get(g, "version")),
	    !its ? ", ITS not known" : json_object_get_boolean(its) ? " with an ITS" : " without an ITS",
	    vpe ? ", " : "", vpe ? json_object_get_string(vpe) : "", vpe ? " vPEs in use" : "", str(g, "from"),
	    str(g, "found_as"));
}

static void print_virt_arm64(json_object *h)
{
	json_object *nv = kb_json_path(h, "virtualization.nested_virt");

	printf("Virtualization (arm64)\n");
	row("EL2", "%s", known(h, "virtualization.el2", "yes", "no: KVM cannot run guests"));
	row("VHE", "%s", known(h, "virtualization.vhe", "yes (the CPU has FEAT_VHE)", "no (KVM in nVHE mode)"));
	if (kb_json_path(h, "virtualization.kvm_mode_from"))
		row("KVM mode", "%s (%s)", kb_json_path(h, "virtualization.kvm_mode") ? str(h, "virtualization.kvm_mode")
			: "?", str(h, "virtualization.kvm_mode_from"));
	row("GIC CPU interface", "%s", kb_json_path(h, "virtualization.gic") ? str(h, "virtualization.gic")
									 : "not known from this data");
	if (kb_json_path(h, "virtualization.host_gic"))
		print_host_gic(kb_json_path(h, "virtualization.host_gic"));
	row("GICv4.1 direct injection", "%s", known(h, "virtualization.gicv4_1", "possible (GICv4.1 CPU interface)",
						 "not possible (no GICv4.1 CPU interface)"));
	json_object *ecv = kb_json_path(h, "virtualization.ecv");

	row("ECV", "%s", !ecv ? "not known from this data" : json_object_get_int(ecv) >= 2 ? "FEAT_ECV with CNTPOFF_EL2"
			  : json_object_get_int(ecv) ? "FEAT_ECV" : "no");
	row("SVE", "%s", known(h, "virtualization.sve", "yes", "no"));
	row("PMU", "%s", kb_json_path(h, "pmu.pmuv3") ? str(h, "pmu.pmuv3") : "not known from this data");
	row("nested virtualization", "%s", !nv ? "not known from this data" : json_object_get_int(nv) >= 2 ? "FEAT_NV2"
			  : json_object_get_int(nv) ? "FEAT_NV" : "no");
}

static void print_cpu(json_object *h)
{
	json_object *types = kb_json_path(h, "cpu.core_types");
	int family = json_object_get_int(kb_json_path(h, "cpu.family"));
	int model = json_object_get_int(kb_json_path(h, "cpu.model"));

	if (!kb_json_path(h, "cpu"))
		return;
	printf("CPU\n");
	if (kb_json_path(h, "cpu.error")) {
		row("error", "%s", str(h, "cpu.error"));
		return;
	}
	if (!strcmp(str(h, "cpu.arch"), "arm64")) {
		print_cpu_arm64(h);
		return;
	}
	row("vendor", "%s", str(h, "cpu.vendor"));
	row("brand", "%s", str(h, "cpu.brand"));
	row("family/model/stepping", "%#x/%#x/%s (%d/%d)", family, model, str(h, "cpu.stepping"), family, model);
	row("microarchitecture", "%s (%s, codename %s)", str(h, "cpu.microarchitecture"),
	    str(h, "cpu.microarchitecture_name"), str(h, "cpu.codename"));
	row("libcpuid's codename", "%s", str(h, "cpu.libcpuid_codename"));
	row("packages/cores/threads", "%s / %s / %s", str(h, "cpu.packages"), str(h, "cpu.cores"), str(h, "cpu.threads"));
	for (size_t i = 0; types && i < json_object_array_length(types); i++) {
		json_object *t = json_object_array_get_idx(types, i);

		row(i ? "" : json_object_get_boolean(kb_json_path(h, "cpu.hybrid")) ? "core types (hybrid)" : "core type",
		    "%s: %s cores, %s threads", str(t, "purpose"), str(t, "cores"), str(t, "threads"));
	}
	row("counted from", "%s", str(h, "cpu.counted_from"));
}

static void print_pmu(json_object *h)
{
	if (!kb_json_path(h, "pmu") || !strcmp(str(h, "cpu.arch"), "arm64"))
		return;  /* arm64: under Virtualization (arm64) */
	printf("PMU\n");
	if (kb_json_path(h, "pmu.perfmon_v2")) {
		row("AMD PerfMonV2", "%s%s", yesno(h, "pmu.perfmon_v2"),
		    json_object_get_boolean(kb_json_path(h, "pmu.cpuid_0x80000022")) ? "" : " (no CPUID 0x80000022)");
		row("core counters", "%s", str(h, "pmu.core_counters"));
	} else {
		row("architectural PMU", "version %s", str(h, "pmu.arch_perfmon_version"));
		row("counters", "%s general-purpose (%s bits), %s fixed (%s bits)", str(h, "pmu.gp_counters"),
		    str(h, "pmu.gp_counter_width"), str(h, "pmu.fixed_counters"), str(h, "pmu.fixed_counter_width"));
	}
	row("global control", "%s", yesno(h, "pmu.global_ctrl"));
	row("vPMU cost", "%s", str(h, "pmu.vpmu"));
}

static void print_virt(json_object *h, struct kb_kvm *kvm, bool have_kvm, const struct kb_cpuid_probe *probe)
{
	json_object *params = kb_json_path(h, "virtualization.kvm_params"), *caps = kb_json_path(h, "kvm.capabilities");
	bool arm64 = !strcmp(str(h, "cpu.arch"), "arm64");
	char line[1024] = "";
	size_t len = 0;

	if (!kb_json_path(h, "virtualization"))
		return;
	if (arm64) {
		print_virt_arm64(h);
	} else {
		printf("Virtualization\n");
		row("VMX / SVM", "%s / %s", yesno(h, "virtualization.vmx"), yesno(h, "virtualization.svm"));
		if (json_object_get_boolean(kb_json_path(h, "virtualization.under_hypervisor")))
			row("runs under a hypervisor", "yes: %s (CPUID 0x40000000 \"%s\")",
			    str(h, "virtualization.hypervisor"), str(h, "virtualization.hypervisor_signature"));
		else
			row("runs under a hypervisor", "%s",
			    kb_json_path(h, "virtualization.under_hypervisor") ? "no" : "?");
	}
	if (!kb_json_path(h, "kvm"))
		return;
	if (have_kvm)
		row("KVM backend", "%s, API version %d", str(h, "kvm.backend"), kvm->api_version);
	else
		row("KVM backend", "%s, unusable: %s", str(h, "kvm.backend"), str(h, "kvm_error"));
	row("kernel", "%s %s", str(h, "kernel_release"), str(h, "machine"));
	if (probe && !arm64) {
		char what[400];

		kb_cpuid_probe_describe(probe, str(h, "kvm.backend"), what, sizeof(what));
		row("guest CPUID", "%s", what);
	}
	if (params) {
		json_object_object_foreach(params, key, val)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s=%s", len ? " " : "", key,
						json_object_get_string(val));
		row("KVM parameters", "%s", len ? line : "(none readable)");
	}
	if (arm64 && caps) {
		len = 0;
		json_object_object_foreach(caps, key, val)
			if (len < sizeof(line) && (!strncmp(key, "KVM_CAP_ARM_", 12) || !strcmp(key, "KVM_CAP_MAX_VCPUS")))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s=%s", len ? " " : "",
							key + 8, json_object_get_string(val));
		row("KVM capabilities", "%s", line);
	}
}

static void print_topology(json_object *h)
{
	json_object *nodes = kb_json_path(h, "topology.nodes"), *kinds = kb_json_path(h, "topology.core_kinds");
	const char *memonly = str(h, "topology.memory_only_nodes");

	if (!kb_json_path(h, "topology"))
		return;
	printf("Topology%s%s\n", strcmp(str(h, "topology.source"), "this machine") ? ": " : "",
	       strcmp(str(h, "topology.source"), "this machine") ? str(h, "topology.source") : "");
	if (kb_json_path(h, "topology.error")) {
		row("error", "%s", str(h, "topology.error"));
		return;
	}
	row("packages/nodes/cores/PUs", "%s / %s / %s / %s", str(h, "topology.packages"), str(h, "topology.numa_nodes"),
	    str(h, "topology.cores"), str(h, "topology.pus"));
	if (json_object_get_boolean(kb_json_path(h, "topology.smt")))
		row("SMT", "yes, %s threads per core", str(h, "topology.threads_per_core"));
	else
		row("SMT", "no");
	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		json_object *mem = kb_json_path(n, "memory_bytes");
		char name[32], size[32] = "memory size unknown";

		snprintf(name, sizeof(name), "node %s", str(n, "node"));
		if (mem)
			snprintf(size, sizeof(size), "%.1f GiB", (double)json_object_get_uint64(mem) / (1 << 30));
		if (json_object_get_boolean(kb_json_path(n, "memory_only")) && kb_json_path(n, "near_node"))
			row(name, "memory only (no CPUs), %s; belongs to node %s%s%s (by %s)", size, str(n, "near_node"),
			    kb_json_path(n, "package") ? ", package " : "", kb_json_path(n, "package") ? str(n, "package") : "",
			    str(n, "near_by"));
		else if (json_object_get_boolean(kb_json_path(n, "memory_only")))
			row(name, "memory only (no CPUs), %s", size);
		else
			row(name, "CPUs %s: %s cores, %s PUs, %s", str(n, "cpus"), str(n, "cores"), str(n, "pus"), size);
	}
	row("memory-only nodes", "%s", *memonly ? memonly : "none");
	for (size_t i = 0; kinds && json_object_array_length(kinds) > 1 && i < json_object_array_length(kinds); i++) {
		json_object *k = json_object_array_get_idx(kinds, i);

		row(i ? "" : "core kinds", "CPUs %s: %s (efficiency %s)", str(k, "cpus"),
		    kb_json_path(k, "core_type") ? str(k, "core_type") : "unnamed", str(k, "efficiency"));
	}
}

static void print_advice(json_object *h, bool foreign)
{
	json_object *a = kb_json_path(h, "advice");

	if (!a)
		return;
	printf("%s\n", foreign ? "What matters on that machine (from the files alone)" : "What matters on this host");
	if (!json_object_array_length(a))
		printf("  - nothing special\n");
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("  - %s\n", str(json_object_array_get_idx(a, i), "text"));
}

static void print_this_host(json_object *h)
{
	if (!kb_json_path(h, "this_host"))
		return;
	printf("This host (not the machine above)\n");
	row("CPU", "%s (%s)", str(h, "this_host.cpu"), str(h, "this_host.microarchitecture"));
	row("kernel / KVM backend", "%s / %s", str(h, "this_host.kernel_release"), str(h, "this_host.kvm_backend"));
}

/* info's probe guest is not stopped by a signal: it is bounded by this instead. */
#define KB_PROBE_TIMEOUT_NS (10ULL * 1000000000ULL)
static volatile sig_atomic_t info_stop;

static int cmd_info(void *cfgp, int argc, char **argv)
{
	struct info_cfg *c = cfgp;
	bool offline = c->cpuid_file || c->arm64_cpu_file, foreign = offline || c->topology_file;
	const char *cpu_file = c->cpuid_file ? c->cpuid_file : c->arm64_cpu_file;
	struct kb_host_files files = { c->cpuid_file, c->arm64_cpu_file, c->topology_file };
	struct kb_kvm kvm;
	struct kb_cpuid_probe probe;
	bool have_kvm = false;
	json_object *host;

	(void)argv;
	if (argc)
		kb_die("info takes no operands ('kvmbench info --help')");
	if (c->cpuid_file && c->arm64_cpu_file)
		kb_die("--cpuid-file (x86) and --arm64-cpu-file describe one machine's CPU each: give one of them");
	if (!offline) {
		have_kvm = !kb_kvm_open(&kvm, c->kvm_path);
		if (!have_kvm)
			kb_debug("%s", kb_last_error());
	}
	/* Where a guest's CPUID goes is counted, not assumed. */
	if (have_kvm) {
		const struct kb_run_opts opts = { .timeout_ns = KB_PROBE_TIMEOUT_NS };
		const struct kb_run_ctx ctx = { .kvm = &kvm, .opts = &opts, .vcpus = 1, .stop = &info_stop };

		kb_probe_guest_cpuid(&ctx, &probe);
	}
	{
		char kvm_err[1024];

		snprintf(kvm_err, sizeof(kvm_err), "%s", have_kvm || offline ? "" : kb_last_error());
		if (kb_host_describe(have_kvm ? &kvm : NULL, &files, &host, NULL, NULL))
			kb_die("%s", kb_last_error());
		/* /dev/kvm is this host's: with another machine described, its error goes with this host. */
		if (kvm_err[0])
			kb_json_set_str(foreign && kb_json_get(host, "this_host") ? kb_json_get(host, "this_host") : host,
					"kvm_error", kvm_err);
		/* Its advice is this host's: not mixed into another machine's (files described). */
		if (have_kvm)
			kb_cpuid_probe_record(&probe, kb_backend_name(kvm.backend), kb_json_get(host, "kvm"),
					      foreign ? NULL : kb_json_get(host, "advice"));
	}
	for (size_t i = 0; kb_json_path(host, "warnings") && i < json_object_array_length(kb_json_path(host, "warnings")); i++)
		kb_warn("%s", json_object_get_string(json_object_array_get_idx(kb_json_path(host, "warnings"), i)));
	if (c->json) {
		printf("%s\n", json_object_to_json_string_ext(host, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		if (foreign)
			printf("kvmbench info: another machine, from %s%s%s%s alone; this host's own facts are at the end\n\n",
			       cpu_file ? cpu_file : "", cpu_file && c->topology_file ? " and " : "",
			       c->topology_file ? c->topology_file : "", "");
		print_cpu(host);
		print_pmu(host);
		print_virt(host, &kvm, have_kvm, have_kvm ? &probe : NULL);
		print_topology(host);
		print_advice(host, foreign);
		if (foreign)
			print_this_host(host);
		if (c->all && kb_json_path(host, "kvm.capabilities"))
			print_object("KVM capabilities", kb_json_path(host, "kvm.capabilities"));
		if (c->all && kb_json_path(host, "kvm.params"))
			print_object("kvm module parameters", kb_json_path(host, "kvm.params"));
		if (c->all && kb_json_path(host, "kvm.backend_params"))
			print_object("backend module parameters", kb_json_path(host, "kvm.backend_params"));
	}
	json_object_put(host);
	if (have_kvm)
		kb_kvm_close(&kvm);
	return 0;
}

const struct kb_cmd kb_cmd_info = {
	.name = "info",
	.summary = "Describe this host: CPU generation, PMU, virtualization, KVM, topology, what matters.",
	.usage = "[OPTIONS]",
	.description = "With --cpuid-file (a raw CPUID dump) or --arm64-cpu-file (an arm64 machine's /proc/cpuinfo "
		       "and/or MIDR_EL1 and ID-register lines), and/or --topology-file (an hwloc XML export), "
		       "describe another machine from those files alone: none of this host's CPU, kernel or KVM "
		       "facts are mixed in, the advice comes from the files' facts, and this host is summed up "
		       "apart at the end.  A dump and a topology whose counts disagree get a warning.",
	.opts = info_opts,
	.nopts = ARRAY_SIZE(info_opts),
	.cfg_size = sizeof(struct info_cfg),
	.exec = cmd_info,
};
