/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.c: collect the host facts recorded with every result and shown by 'kvmbench info'. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host/advice.h"
#include "host/arm64.h"
#include "host/cpu-info.h"
#include "host/cpuid.h"
#include "vmm/cpuarch.h"
#include "host/host.h"
#include "core/json.h"
#include "core/kb.h"
#include "host/topology.h"

json_object *kb_module_params_json(const char *module)
{
	json_object *o = json_object_new_object();
	char dir[256], path[512], val[256];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", module);
	d = opendir(dir);
	if (!d)
		return o;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!kb_read_text(path, val, sizeof(val)))
			kb_json_set_str(o, de->d_name, val);
	}
	closedir(d);
	return o;
}

/* The module parameters that change what KVM benchmarks measure; a module lacking one just omits it. */
static const struct {
	const char *module;
	const char *name;
} key_params[] = {
	{ "kvm", "tdp_mmu" },
	{ "kvm", "eager_page_split" },
	{ "kvm", "nx_huge_pages" },
	{ "kvm", "enable_pmu" },
	{ "kvm", "halt_poll_ns" },
	{ "kvm", "mmio_caching" },
	{ "kvm_intel", "ept" },
	{ "kvm_intel", "enable_apicv" },
	{ "kvm_intel", "enable_ipiv" },
	{ "kvm_intel", "pml" },
	{ "kvm_intel", "unrestricted_guest" },
	{ "kvm_intel", "vnmi" },
	{ "kvm_intel", "nested" },
	{ "kvm_amd", "npt" },
	{ "kvm_amd", "avic" },
	{ "kvm_amd", "nrips" },
	{ "kvm_amd", "vls" },
	{ "kvm_amd", "vgif" },
	{ "kvm_amd", "lbrv" },
	{ "kvm_amd", "nested" },
	{ "kvm_pvm", "pvm_native" },
};

static json_object *key_params_json(void)
{
	json_object *o = json_object_new_object();
	char path[256], val[256];

	for (size_t i = 0; i < ARRAY_SIZE(key_params); i++) {
		snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", key_params[i].module, key_params[i].name);
		if (!kb_read_text(path, val, sizeof(val)))
			kb_json_set_str(o, key_params[i].name, val);
	}
	return o;
}

static json_object *error_json(const char *msg)
{
	json_object *o = json_object_new_object();

	kb_json_set_str(o, "error", msg);
	return o;
}

static json_object *kvm_json(struct kb_kvm *kvm, enum kb_backend b)
{
	json_object *k = json_object_new_object();

	kb_json_set_str(k, "backend", kb_backend_name(b));
	kb_json_set(k, "api_version", kvm ? json_object_new_int(kvm->api_version) : NULL);
	kb_json_set(k, "params", kb_module_params_json("kvm"));
	if (kb_backend_module(b))
		kb_json_set(k, "backend_params", kb_module_params_json(kb_backend_module(b)));
	if (kvm) {
		unsigned int n;
		const struct kb_cap *caps = kb_kvm_caps(&n);
		json_object *jc = json_object_new_object();

		for (unsigned int i = 0; i < n; i++)
			kb_json_set_int(jc, caps[i].name, kb_kvm_cap(kvm, caps[i].cap));
		kb_json_set(k, "capabilities", jc);
	}
	return k;
}

static int load_cpu(const char *cpuid_file, struct kb_cpu_info *cpu)
{
	struct kb_cpuid_set s;
	int err = cpuid_file ? kb_cpuid_read_file(&s, cpuid_file) : kb_cpuid_collect(&s);

	if (err)
		return err;
	err = kb_cpu_identify(&s, cpu);
	kb_cpuid_free(&s);
	return err;
}

/* A CPU dump and a topology of one machine agree on its packages, cores and threads. */
static void check_same_machine(const char *cpuid_file, const struct kb_cpu_info *cpu, const char *topology_file,
			       const struct kb_topo_summary *ts, json_object *warnings)
{
	char w[1024];

	if (cpu->packages == ts->packages && cpu->cores == ts->cores && cpu->threads == ts->pus)
		return;
	snprintf(w, sizeof(w), "the CPUID dump %s (%d packages, %d cores, %d threads) and the topology %s (%d packages, "
		 "%d cores, %d PUs) disagree: they look like different machines, and what is said here of one may "
		 "not hold for the other", cpuid_file, cpu->packages, cpu->cores, cpu->threads, topology_file,
		 ts->packages, ts->cores, ts->pus);
	json_object_array_add(warnings, json_object_new_string(w));
}

/* This host's own facts, apart from a description of another machine: what it is and runs. */
static json_object *this_host_json(struct kb_kvm *kvm, enum kb_backend b)
{
	json_object *o = json_object_new_object();
	struct kb_cpu_info cpu;
	struct utsname u;

	if (!load_cpu(NULL, &cpu)) {
		kb_json_set_str(o, "cpu", cpu.brand);
		kb_json_set_str(o, "microarchitecture", cpu.uarch.id);
	}
	if (!uname(&u))
		kb_json_set_str(o, "kernel_release", u.release);
	kb_json_set_str(o, "kvm_backend", kb_backend_name(b));
	kb_json_set(o, "kvm_api_version", kvm ? json_object_new_int(kvm->api_version) : NULL);
	return o;
}

/* A CPU dump of an arm64 machine and a topology of the same machine agree on its CPUs. */
static void check_same_arm64(const char *arm64_file, const struct kb_arm64_cpu *a, const char *topology_file,
			     const struct kb_topo_summary *ts, json_object *warnings)
{
	char w[1024];

	if (a->ncores == ts->pus)
		return;
	snprintf(w, sizeof(w), "the arm64 CPU dump %s (%d CPUs) and the topology %s (%d PUs) disagree: they look like "
		 "different machines, and what is said here of one may not hold for the other", arm64_file, a->ncores,
		 topology_file, ts->pus);
	json_object_array_add(warnings, json_object_new_string(w));
}

int kb_host_describe(struct kb_kvm *kvm, const struct kb_host_files *files, json_object **out,
		     struct kb_cpu_info *cpu_out, bool *cpu_ok)
{
	const char *cpuid_file = files ? files->cpuid : NULL, *topology_file = files ? files->topology : NULL;
	const char *arm64_file = files ? files->arm64_cpu : NULL;
	struct kb_arm64_cpu arm = { 0 };
	struct kb_arm64_gic gic;
	bool have_arm = false;
	json_object *o = json_object_new_object();
	json_object *virt = NULL, *params = NULL, *src = json_object_new_object();
	json_object *warnings = json_object_new_array();
	struct kb_host_facts facts = { 0 };
	struct kb_topo_summary ts = { 0 };
	struct kb_cpu_info cpu;
	struct kb_topo *topo = NULL;
	struct utsname u;
	char host[256] = "";
	/* live: this host is described; otherwise only what the files tell of another machine. */
	bool live = !cpuid_file && !arm64_file && !topology_file, have_uname = false, have_cpu = live || cpuid_file;
	enum kb_backend b = kvm ? kvm->backend : kb_backend_detect();
	int err = 0, live_arm_err = 0;
	char live_arm_msg[512] = "";

	*out = NULL;
	if (cpu_ok)
		*cpu_ok = false;
	/* A live arm64 host has no CPUID: its CPU is MIDR_EL1 and the ID registers, as a dump's would be. */
	if (live && kb_arch_self() == KB_ARCH_ARM64) {
		have_cpu = false;
		live_arm_err = kb_arm64_collect(&arm);
		have_arm = !live_arm_err;
		if (live_arm_err)
			snprintf(live_arm_msg, sizeof(live_arm_msg), "%s", kb_last_error());
	}
	if (have_cpu)
		err = load_cpu(cpuid_file, &cpu);
	if (err && cpuid_file)
		goto fail;
	if (have_cpu && !err && cpu_out)
		*cpu_out = cpu;
	if (cpu_ok)
		*cpu_ok = have_cpu && !err;
	if (arm64_file) {
		if ((err = kb_arm64_read_file(arm64_file, &arm)))
			goto fail;
		have_arm = true;
	}
	if (topology_file || live) {
		int terr = kb_topo_load(&topo, topology_file);

		if (terr && topology_file) {
			err = terr;
			goto fail;
		}
	}

	kb_json_set_str(src, "machine", live ? "this host" : "another machine");
	kb_json_set_str(src, "cpuid", cpuid_file ? cpuid_file : live ? "this machine" : NULL);
	if (arm64_file)
		kb_json_set_str(src, "arm64_cpu", arm64_file);
	kb_json_set_str(src, "topology", topology_file ? topology_file : live ? "this machine" : NULL);
	kb_json_set(o, "source", src);
	if (live && !uname(&u)) {
		have_uname = true;
		kb_json_set_str(o, "kernel_release", u.release);
		kb_json_set_str(o, "machine", u.machine);
	}
	if (live && !gethostname(host, sizeof(host) - 1))
		kb_json_set_str(o, "hostname", host);

	if (have_cpu && err) {
		kb_json_set(o, "cpu", error_json(kb_last_error()));
	} else if (have_cpu) {
		json_object *c = kb_cpu_json(&cpu);

		if (live)
			kb_json_set_int(c, "logical_cpus", (int)sysconf(_SC_NPROCESSORS_ONLN));
		kb_json_set(o, "cpu", c);
		kb_json_set(o, "pmu", kb_pmu_json(&cpu));
		virt = kb_cpu_virt_json(&cpu);
		for (int i = 0; i < cpu.nwarnings; i++)
			json_object_array_add(warnings, json_object_new_string(cpu.warnings[i]));
	}
	if (live_arm_err) {
		json_object *c = error_json(live_arm_msg);

		kb_json_set_str(c, "arch", "arm64");
		kb_json_set(o, "cpu", c);
		virt = json_object_new_object();
	}
	if (have_arm) {
		kb_json_set(o, "cpu", kb_arm64_cpu_json(&arm));
		kb_json_set(o, "pmu", kb_arm64_pmu_json(&arm));
		virt = kb_arm64_virt_json(&arm);
	}
	/* This host's /proc/cmdline, or the one a dump names: kvm-arm.mode= decides before the registers. */
	if (have_arm && (live || arm.cmdline)) {
		const char *from;

		kb_json_set_str(virt, "kvm_mode", kb_arm64_kvm_mode(&arm, arm.cmdline, &from));
		kb_json_set_str(virt, "kvm_mode_from", from);
	}
	/* This host's firmware tables, never with a dump (they would be this machine's, not the dump's). */
	if (have_arm && live) {
		struct kb_cpu_virt plat;

		/* No CPUID hypervisor bit: whether this machine is a guest, from its device tree and DMI. */
		kb_arm64_platform_read("", &plat);
		kb_json_set_bool(virt, "under_hypervisor", plat.hypervisor);
		kb_json_set_str(virt, "hypervisor", plat.hypervisor ? plat.hv_name : NULL);
		kb_json_set_str(virt, "hypervisor_from", plat.hv_from);
		kb_arm64_gic_read("", &gic);
		kb_json_set(virt, "host_gic", kb_arm64_gic_json(&gic));
	}
	if (!virt && have_cpu)
		virt = json_object_new_object();
	if (live) {
		params = key_params_json();
		kb_json_set_str(virt, "kvm_backend", kb_backend_name(b));
		kb_json_set_str(virt, "kernel_release", have_uname ? u.release : NULL);
		kb_json_set(virt, "kvm_params", json_object_get(params));
	}
	if (virt)
		kb_json_set(o, "virtualization", virt);
	if (live)
		kb_json_set(o, "kvm", kvm_json(kvm, b));

	if (topo) {
		kb_topo_summarize(topo, &ts);
		kb_json_set(o, "topology", kb_topo_json(topo));
	} else if (live) {
		kb_json_set(o, "topology", error_json(kb_last_error()));
	}
	if (cpuid_file && topo && !err)
		check_same_machine(cpuid_file, &cpu, topology_file, &ts, warnings);
	if (have_arm && topo)
		check_same_arm64(arm64_file, &arm, topology_file, &ts, warnings);

	/* The advice is about the machine described, from its own facts only. */
	if ((have_cpu && !err) || have_arm || topo) {
		facts.cpu = have_cpu && !err ? &cpu : NULL;
		facts.arm64 = have_arm ? &arm : NULL;
		facts.arm64_gic = have_arm && live ? &gic : NULL;
		facts.backend = live && b != KB_BACKEND_UNKNOWN ? kb_backend_name(b) : NULL;
		facts.params = params;
		facts.numa_nodes = ts.numa_nodes;
		facts.threads_per_core = ts.threads_per_core;
		facts.memory_only_nodes = ts.memory_only;
		kb_json_set(o, "advice", kb_advice_json(&facts));
	}
	if (!live)
		kb_json_set(o, "this_host", this_host_json(kvm, b));
	if (json_object_array_length(warnings))
		kb_json_set(o, "warnings", json_object_get(warnings));
	json_object_put(warnings);
	json_object_put(params);
	kb_topo_free(topo);
	kb_arm64_free(&arm);
	*out = o;
	return 0;
fail:
	kb_arm64_free(&arm);
	json_object_put(o);
	json_object_put(src);
	json_object_put(warnings);
	kb_topo_free(topo);
	return err;
}

json_object *kb_host_json(struct kb_kvm *kvm, struct kb_cpu_info *cpu, bool *cpu_ok)
{
	json_object *o;

	if (kb_host_describe(kvm, NULL, &o, cpu, cpu_ok))
		return error_json(kb_last_error());
	return o;
}
