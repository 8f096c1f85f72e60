/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid.c: the CPUID exit-rate suite: how many CPUID exits per second KVM handles. */
#include <stddef.h>

#include "core/json.h"
#include "run/suite.h"

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

/* param[2] set: a preset leaf (param[0]) that --leaf does not change. */
#define PRESET 1

static const struct kb_test_def tests[] = {
	{ "cpuid", "CPUID in a tight loop; every iteration exits to KVM, which answers in the kernel",
	  KB_LOOP_CPUID, 1.0, 0, false },
	/* Above every basic and extended range: KVM looks the leaf up in vain and answers as the
	 * vendor's CPUs do (Intel: the highest basic leaf, AMD: zeros), the leaf the vPMU CPUID-rate
	 * regression report timed. */
	{ "cpuid_0x29a", "CPUID leaf 0x29a, beyond every leaf range, in a tight loop: the out-of-range lookup",
	  KB_LOOP_CPUID, 1.0, 0, false, .param = { 0x29a, 0, PRESET } },
};

static void cpuid_params(const struct kb_run_ctx *ctx, const struct kb_test_def *t, uint64_t param[6],
			 json_object *echo)
{
	if (t->param[2] != PRESET) {
		param[0] = cfg.leaf;
		param[1] = cfg.subleaf;
	}
	kb_json_set_u64(echo, "leaf", param[0]);
	kb_json_set_u64(echo, "subleaf", param[1]);
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
	.arches = KB_ARCH_X86,
};
