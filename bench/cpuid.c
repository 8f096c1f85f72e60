/* cpuid.c: the CPUID exit-rate suite: how many CPUID exits per second KVM handles. */
#include <stddef.h>

#include "suite.h"

struct cpuid_cfg {
	uint64_t leaf;
	uint64_t subleaf;
};

static struct cpuid_cfg cfg;

static const struct kb_opt opts[] = {
	{ "leaf", 0, KB_OPT_U64, offsetof(struct cpuid_cfg, leaf), "LEAF",
	  "CPUID leaf (EAX) the guest executes", "0", 0, 0xffffffff },
	{ "subleaf", 0, KB_OPT_U64, offsetof(struct cpuid_cfg, subleaf), "N",
	  "CPUID subleaf (ECX)", "0", 0, 0xffffffff },
};

static const struct kb_test_def tests[] = {
	{ "cpuid", "CPUID in a tight loop; every iteration exits to KVM, which answers in the kernel",
	  KB_LOOP_CPUID, 1.0, 0, false },
};

static void cpuid_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			 json_object *echo)
{
	param[0] = cfg.leaf;
	param[1] = cfg.subleaf;
	json_object_object_add(echo, "leaf", json_object_new_uint64(cfg.leaf));
	json_object_object_add(echo, "subleaf", json_object_new_uint64(cfg.subleaf));
}

const struct kb_suite kb_suite_cpuid = {
	.name = "cpuid",
	.summary = "CPUID exit rate: exits per second, cycles and ns per exit",
	.tests = tests,
	.ntests = sizeof(tests) / sizeof(tests[0]),
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.cfg = &cfg,
	.params = cpuid_params,
};
