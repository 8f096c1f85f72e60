/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-cpuid-dump.c: a raw CPUID dump, as 'info --cpuid-file' reads it: kb_cpuid_parse() on the
 * text (xz-compressed input goes through kb_cpuid_read_file() and liblzma instead), then what
 * info does with a dump that parses: libcpuid's decoding, PMU, virtualization and advice. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "host/cpu.h"
#include "fuzz.h"

static void describe(const struct kb_cpuid_set *s, bool whole)
{
	struct kb_cpu_info info;
	struct kb_host_facts facts = { .cpu = &info, .backend = "kvm_amd", .numa_nodes = 2, .threads_per_core = 2 };
	uint32_t r[4];

	/* What the decoders ask for, and a few leaves they do not. */
	kb_cpuid_get(&s->cpu[0], 0x40000000u, 0, r);
	kb_cpuid_get(&s->cpu[0], 0x8000001du, 3, r);
	if (kb_cpu_identify(s, &info))
		return;
	/* A dump info accepts (whole, and decoded) has counts a machine can have: never 0 cores, more
	 * cores than threads, or a package without a core. */
	if (whole && (info.cores < 1 || info.threads < info.cores || info.packages < 1 || info.packages > info.cores))
		abort();
	json_object_put(kb_cpu_json(&info));
	json_object_put(kb_pmu_json(&info));
	json_object_put(kb_cpu_virt_json(&info));
	json_object_put(kb_advice_json(&facts));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	struct kb_cpuid_set s;
	int err;

	if (size >= sizeof(xz_magic) && !memcmp(data, xz_magic, sizeof(xz_magic))) {
		char path[4096];

		kb_fuzz_dir_clear();
		if (kb_fuzz_write("dump.xz", data, size))
			return 0;
		snprintf(path, sizeof(path), "%s/dump.xz", kb_fuzz_dir());
		err = kb_cpuid_read_file(&s, path);
	} else {
		char *text = kb_fuzz_cstr(data, size);

		err = kb_cpuid_parse(&s, text);
		free(text);
	}
	if (!err) {
		/* What info refuses, and what it would decode were it not refused (the decoder's own guards). */
		describe(&s, !kb_cpuid_check_whole(&s));
		kb_cpuid_free(&s);
	}
	return 0;
}
