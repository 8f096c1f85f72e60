/* host.c: collect the host facts recorded with every result and shown by 'kvmbench info'. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cpu.h"
#include "host.h"
#include "kb.h"
#include "topo.h"

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
			json_object_object_add(o, de->d_name, json_object_new_string(val));
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
			json_object_object_add(o, key_params[i].name, json_object_new_string(val));
	}
	return o;
}

static json_object *error_json(const char *msg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(msg));
	return o;
}

static json_object *kvm_json(struct kb_kvm *kvm, enum kb_backend b)
{
	json_object *k = json_object_new_object();

	json_object_object_add(k, "backend", json_object_new_string(kb_backend_name(b)));
	json_object_object_add(k, "api_version", kvm ? json_object_new_int(kvm->api_version) : NULL);
	json_object_object_add(k, "params", kb_module_params_json("kvm"));
	if (b != KB_BACKEND_UNKNOWN)
		json_object_object_add(k, "backend_params", kb_module_params_json(kb_backend_name(b)));
	if (kvm) {
		unsigned int n;
		const struct kb_cap *caps = kb_kvm_caps(&n);
		json_object *jc = json_object_new_object();

		for (unsigned int i = 0; i < n; i++)
			json_object_object_add(jc, caps[i].name, json_object_new_int(kb_kvm_cap(kvm, caps[i].cap)));
		json_object_object_add(k, "capabilities", jc);
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

int kb_host_describe(struct kb_kvm *kvm, const char *cpuid_file, const char *topology_file, json_object **out)
{
	json_object *o = json_object_new_object();
	json_object *virt = NULL, *params = NULL, *src = json_object_new_object();
	struct kb_host_facts facts = { 0 };
	struct kb_topo_summary ts = { 0 };
	struct kb_cpu_info cpu;
	struct kb_topo *topo = NULL;
	struct utsname u;
	char host[256] = "";
	bool live = !cpuid_file, have_uname = false;
	enum kb_backend b = kvm ? kvm->backend : kb_backend_detect();
	int err;

	*out = NULL;
	err = load_cpu(cpuid_file, &cpu);
	if (err && cpuid_file)
		goto fail;
	if (topology_file || live) {
		int terr = kb_topo_load(&topo, topology_file);

		if (terr && topology_file) {
			err = terr;
			goto fail;
		}
	}

	json_object_object_add(src, "cpuid", json_object_new_string(cpuid_file ? cpuid_file : "this machine"));
	json_object_object_add(src, "topology", topology_file || live ?
			       json_object_new_string(topology_file ? topology_file : "this machine") : NULL);
	json_object_object_add(o, "source", src);
	if (live && !uname(&u)) {
		have_uname = true;
		json_object_object_add(o, "kernel_release", json_object_new_string(u.release));
		json_object_object_add(o, "machine", json_object_new_string(u.machine));
	}
	if (live && !gethostname(host, sizeof(host) - 1))
		json_object_object_add(o, "hostname", json_object_new_string(host));

	if (err) {
		json_object_object_add(o, "cpu", error_json(kb_last_error()));
	} else {
		json_object *c = kb_cpu_json(&cpu);

		if (live)
			json_object_object_add(c, "logical_cpus", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
		json_object_object_add(o, "cpu", c);
		json_object_object_add(o, "pmu", kb_pmu_json(&cpu));
		virt = kb_cpu_virt_json(&cpu);
	}
	if (!virt)
		virt = json_object_new_object();
	if (live) {
		params = key_params_json();
		json_object_object_add(virt, "kvm_backend", json_object_new_string(kb_backend_name(b)));
		json_object_object_add(virt, "kernel_release", have_uname ? json_object_new_string(u.release) : NULL);
		json_object_object_add(virt, "kvm_params", json_object_get(params));
	}
	json_object_object_add(o, "virtualization", virt);
	if (live)
		json_object_object_add(o, "kvm", kvm_json(kvm, b));

	if (topo) {
		kb_topo_summarize(topo, &ts);
		json_object_object_add(o, "topology", kb_topo_json(topo));
	} else if (live) {
		json_object_object_add(o, "topology", error_json(kb_last_error()));
	}

	if (!err) {
		facts.cpu = &cpu;
		facts.backend = live && b != KB_BACKEND_UNKNOWN ? kb_backend_name(b) : NULL;
		facts.params = params;
		facts.numa_nodes = ts.numa_nodes;
		facts.threads_per_core = ts.threads_per_core;
		facts.memory_only_nodes = ts.memory_only;
		json_object_object_add(o, "advice", kb_advice_json(&facts));
	}
	json_object_put(params);
	kb_topo_free(topo);
	*out = o;
	return 0;
fail:
	json_object_put(o);
	json_object_put(src);
	kb_topo_free(topo);
	return err;
}

json_object *kb_host_json(struct kb_kvm *kvm)
{
	json_object *o;

	if (kb_host_describe(kvm, NULL, NULL, &o))
		return error_json(kb_last_error());
	return o;
}
