/* host.c: collect the host facts recorded with every result and shown by 'kvmbench info'. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <libcpuid/libcpuid.h>

#include "host.h"
#include "kb.h"

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

static json_object *cpu_json(void)
{
	json_object *o = json_object_new_object();
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;

	if (cpuid_get_raw_data(&raw) || cpu_identify(&raw, &id)) {
		json_object_object_add(o, "error", json_object_new_string(cpuid_error()));
		return o;
	}
	json_object_object_add(o, "vendor", json_object_new_string(id.vendor_str));
	json_object_object_add(o, "brand", json_object_new_string(id.brand_str));
	json_object_object_add(o, "family", json_object_new_int(id.ext_family));
	json_object_object_add(o, "model", json_object_new_int(id.ext_model));
	json_object_object_add(o, "stepping", json_object_new_int(id.stepping));
	json_object_object_add(o, "libcpuid_codename", json_object_new_string(id.cpu_codename));
	json_object_object_add(o, "logical_cpus", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(o, "hypervisor_present", json_object_new_boolean(id.flags[CPU_FEATURE_HYPERVISOR]));
	return o;
}

json_object *kb_host_json(struct kb_kvm *kvm)
{
	json_object *o = json_object_new_object();
	json_object *k = json_object_new_object();
	struct utsname u;
	char host[256] = "";
	enum kb_backend b = kvm ? kvm->backend : kb_backend_detect();

	if (!uname(&u)) {
		json_object_object_add(o, "kernel_release", json_object_new_string(u.release));
		json_object_object_add(o, "machine", json_object_new_string(u.machine));
	}
	if (!gethostname(host, sizeof(host) - 1))
		json_object_object_add(o, "hostname", json_object_new_string(host));
	json_object_object_add(o, "cpu", cpu_json());
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
	json_object_object_add(o, "kvm", k);
	return o;
}
