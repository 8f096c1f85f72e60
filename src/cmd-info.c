/* cmd-info.c: 'kvmbench info': what this host (or a CPUID dump / topology file) is: CPU generation,
 * PMU, virtualization, KVM backend and parameters, topology, and what matters for benchmarking. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "host.h"
#include "kb.h"

struct info_cfg {
	bool json;
	bool all;
	const char *kvm_path;
	const char *cpuid_file;
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
	{ "topology-file", 0, KB_OPT_STRING, offsetof(struct info_cfg, topology_file), "FILE",
	  "describe the topology of an hwloc XML export instead of this machine's", NULL, 0, 0 },
};

/* A member by dotted path ("cpu.brand"), or NULL. */
static json_object *at(json_object *o, const char *path)
{
	char key[64];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path += n + (dot ? 1 : 0);
	}
	return o;
}

static const char *str(json_object *o, const char *path)
{
	json_object *v = at(o, path);

	return v ? json_object_get_string(v) : "?";
}

static const char *yesno(json_object *o, const char *path)
{
	json_object *v = at(o, path);

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

static void print_cpu(json_object *h)
{
	json_object *types = at(h, "cpu.core_types");
	int family = json_object_get_int(at(h, "cpu.family")), model = json_object_get_int(at(h, "cpu.model"));

	printf("CPU\n");
	if (at(h, "cpu.error")) {
		row("error", "%s", str(h, "cpu.error"));
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

		row(i ? "" : json_object_get_boolean(at(h, "cpu.hybrid")) ? "core types (hybrid)" : "core type",
		    "%s: %s cores, %s threads", str(t, "purpose"), str(t, "cores"), str(t, "threads"));
	}
}

static void print_pmu(json_object *h)
{
	if (!at(h, "pmu"))
		return;
	printf("PMU\n");
	if (at(h, "pmu.perfmon_v2")) {
		row("AMD PerfMonV2", "%s%s", yesno(h, "pmu.perfmon_v2"),
		    json_object_get_boolean(at(h, "pmu.cpuid_0x80000022")) ? "" : " (no CPUID 0x80000022)");
		row("core counters", "%s", str(h, "pmu.core_counters"));
	} else {
		row("architectural PMU", "version %s", str(h, "pmu.arch_perfmon_version"));
		row("counters", "%s general-purpose (%s bits), %s fixed (%s bits)", str(h, "pmu.gp_counters"),
		    str(h, "pmu.gp_counter_width"), str(h, "pmu.fixed_counters"), str(h, "pmu.fixed_counter_width"));
	}
	row("global control", "%s", yesno(h, "pmu.global_ctrl"));
	row("vPMU cost", "%s", str(h, "pmu.vpmu"));
}

static void print_virt(json_object *h, struct kb_kvm *kvm, bool have_kvm)
{
	json_object *params = at(h, "virtualization.kvm_params");
	char line[1024] = "";
	size_t len = 0;

	printf("Virtualization\n");
	row("VMX / SVM", "%s / %s", yesno(h, "virtualization.vmx"), yesno(h, "virtualization.svm"));
	if (json_object_get_boolean(at(h, "virtualization.under_hypervisor")))
		row("runs under a hypervisor", "yes: %s (CPUID 0x40000000 \"%s\")", str(h, "virtualization.hypervisor"),
		    str(h, "virtualization.hypervisor_signature"));
	else
		row("runs under a hypervisor", "%s", at(h, "virtualization.under_hypervisor") ? "no" : "?");
	if (!at(h, "kvm"))
		return;
	if (have_kvm)
		row("KVM backend", "%s, API version %d", str(h, "kvm.backend"), kvm->api_version);
	else
		row("KVM backend", "%s, unusable: %s", str(h, "kvm.backend"), str(h, "kvm_error"));
	row("kernel", "%s %s", str(h, "kernel_release"), str(h, "machine"));
	if (params) {
		json_object_object_foreach(params, key, val)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s=%s", len ? " " : "", key,
						json_object_get_string(val));
		row("KVM parameters", "%s", len ? line : "(none readable)");
	}
}

static void print_topology(json_object *h)
{
	json_object *nodes = at(h, "topology.nodes"), *kinds = at(h, "topology.core_kinds");
	const char *memonly = str(h, "topology.memory_only_nodes");

	if (!at(h, "topology"))
		return;
	printf("Topology%s%s\n", strcmp(str(h, "topology.source"), "this machine") ? ": " : "",
	       strcmp(str(h, "topology.source"), "this machine") ? str(h, "topology.source") : "");
	if (at(h, "topology.error")) {
		row("error", "%s", str(h, "topology.error"));
		return;
	}
	row("packages/nodes/cores/PUs", "%s / %s / %s / %s", str(h, "topology.packages"), str(h, "topology.numa_nodes"),
	    str(h, "topology.cores"), str(h, "topology.pus"));
	if (json_object_get_boolean(at(h, "topology.smt")))
		row("SMT", "yes, %s threads per core", str(h, "topology.threads_per_core"));
	else
		row("SMT", "no");
	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		json_object *mem = at(n, "memory_bytes");
		char name[32], size[32] = "memory size unknown";

		snprintf(name, sizeof(name), "node %s", str(n, "node"));
		if (mem)
			snprintf(size, sizeof(size), "%.1f GiB", (double)json_object_get_uint64(mem) / (1 << 30));
		if (json_object_get_boolean(at(n, "memory_only")))
			row(name, "memory only (no CPUs), %s", size);
		else
			row(name, "CPUs %s: %s cores, %s PUs, %s", str(n, "cpus"), str(n, "cores"), str(n, "pus"), size);
	}
	row("memory-only nodes", "%s", *memonly ? memonly : "none");
	for (size_t i = 0; kinds && json_object_array_length(kinds) > 1 && i < json_object_array_length(kinds); i++) {
		json_object *k = json_object_array_get_idx(kinds, i);

		row(i ? "" : "core kinds", "CPUs %s: %s (efficiency %s)", str(k, "cpus"),
		    at(k, "core_type") ? str(k, "core_type") : "unnamed", str(k, "efficiency"));
	}
}

static void print_advice(json_object *h)
{
	json_object *a = at(h, "advice");

	if (!a)
		return;
	printf("What matters on this host\n");
	if (!json_object_array_length(a))
		printf("  - nothing special\n");
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("  - %s\n", str(json_object_array_get_idx(a, i), "text"));
}

static int cmd_info(void *cfgp, int argc, char **argv)
{
	struct info_cfg *c = cfgp;
	bool offline = c->cpuid_file;
	struct kb_kvm kvm;
	bool have_kvm = false;
	json_object *host;

	(void)argv;
	if (argc)
		kb_die("info takes no operands ('kvmbench info --help')");
	if (!offline) {
		have_kvm = !kb_kvm_open(&kvm, c->kvm_path);
		if (!have_kvm)
			kb_debug("%s", kb_last_error());
	}
	{
		char kvm_err[1024];

		snprintf(kvm_err, sizeof(kvm_err), "%s", have_kvm || offline ? "" : kb_last_error());
		if (kb_host_describe(have_kvm ? &kvm : NULL, c->cpuid_file, c->topology_file, &host))
			kb_die("%s", kb_last_error());
		if (kvm_err[0])
			json_object_object_add(host, "kvm_error", json_object_new_string(kvm_err));
	}
	if (c->json) {
		printf("%s\n", json_object_to_json_string_ext(host, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		if (offline)
			printf("kvmbench info: the CPU of %s, as if on that machine\n\n", c->cpuid_file);
		print_cpu(host);
		print_pmu(host);
		print_virt(host, &kvm, have_kvm);
		print_topology(host);
		print_advice(host);
		if (c->all && at(host, "kvm.capabilities"))
			print_object("KVM capabilities", at(host, "kvm.capabilities"));
		if (c->all && at(host, "kvm.params"))
			print_object("kvm module parameters", at(host, "kvm.params"));
		if (c->all && at(host, "kvm.backend_params"))
			print_object("backend module parameters", at(host, "kvm.backend_params"));
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
	.description = "With --cpuid-file, describe the CPU of a raw CPUID dump as if on that machine "
		       "(kernel and KVM facts are then left out); with --topology-file, the topology of an "
		       "hwloc XML export.",
	.opts = info_opts,
	.nopts = ARRAY_SIZE(info_opts),
	.cfg_size = sizeof(struct info_cfg),
	.exec = cmd_info,
};
