/* cmd-info.c: 'kvmbench info': what this host is: kernel, KVM backend and capabilities, CPU. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "host.h"
#include "kb.h"

struct info_cfg {
	bool json;
	const char *kvm_path;
};

static const struct kb_opt info_opts[] = {
	{ "json", 'j', KB_OPT_FLAG, offsetof(struct info_cfg, json), NULL, "print JSON", NULL, 0, 0 },
	{ "kvm", 0, KB_OPT_STRING, offsetof(struct info_cfg, kvm_path), "DEV", "the KVM device", "/dev/kvm", 0, 0 },
};

static const char *jstr_at(json_object *o, const char *a, const char *b)
{
	json_object *v;

	if (!json_object_object_get_ex(o, a, &v))
		return "?";
	if (b && !json_object_object_get_ex(v, b, &v))
		return "?";
	return v ? json_object_get_string(v) : "?";
}

static void print_object(const char *title, json_object *o)
{
	printf("%s:\n", title);
	json_object_object_foreach(o, key, val)
		printf("  %-36s %s\n", key, val ? json_object_get_string(val) : "-");
}

static int cmd_info(void *cfgp, int argc, char **argv)
{
	struct info_cfg *c = cfgp;
	struct kb_kvm kvm;
	bool have_kvm;
	json_object *host, *k, *v;

	(void)argv;
	if (argc)
		kb_die("info takes no operands ('kvmbench info --help')");
	have_kvm = !kb_kvm_open(&kvm, c->kvm_path);
	host = kb_host_json(have_kvm ? &kvm : NULL);
	if (!have_kvm)
		json_object_object_add(host, "kvm_error", json_object_new_string(kb_last_error()));
	if (c->json) {
		printf("%s\n", json_object_to_json_string_ext(host, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("kernel:        %s %s\n", jstr_at(host, "kernel_release", NULL), jstr_at(host, "machine", NULL));
		printf("cpu:           %s (%s)\n", jstr_at(host, "cpu", "brand"), jstr_at(host, "cpu", "vendor"));
		printf("family/model:  %s/%s stepping %s\n", jstr_at(host, "cpu", "family"),
		       jstr_at(host, "cpu", "model"), jstr_at(host, "cpu", "stepping"));
		printf("kvm backend:   %s\n", jstr_at(host, "kvm", "backend"));
		if (have_kvm)
			printf("kvm api:       %d\n", kvm.api_version);
		else
			printf("kvm:           unusable: %s\n", kb_last_error());
		json_object_object_get_ex(host, "kvm", &k);
		if (json_object_object_get_ex(k, "capabilities", &v))
			print_object("capabilities", v);
		if (json_object_object_get_ex(k, "params", &v))
			print_object("kvm module parameters", v);
		if (json_object_object_get_ex(k, "backend_params", &v))
			print_object("backend module parameters", v);
	}
	json_object_put(host);
	if (have_kvm)
		kb_kvm_close(&kvm);
	return 0;
}

const struct kb_cmd kb_cmd_info = {
	.name = "info",
	.summary = "Describe this host: kernel, KVM backend, API version and capabilities, CPU.",
	.usage = "[OPTIONS]",
	.opts = info_opts,
	.nopts = ARRAY_SIZE(info_opts),
	.cfg_size = sizeof(struct info_cfg),
	.exec = cmd_info,
};
