/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu.c: CPU identification against real CPUID dumps (testdata/cpuid: the folder and each file's
 * expected block are the oracle), the microarchitecture table, the advice table, and this machine. */
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/cpu.h"
#include "core/json.h"
#include "core/kb.h"
#include "tap.h"

/* The folders of testdata/cpuid name a core family; these generations belong to each. */
static const struct {
	const char *folder;
	const char *ids[7];
} folder_ids[] = {
	{ "zen", { "zen", "zen+" } },
	{ "zen2", { "zen2" } },
	{ "zen3", { "zen3" } },
	{ "zen4", { "zen4" } },
	{ "zen5", { "zen5" } },
	{ "sandy-bridge", { "sandy-bridge", "ivy-bridge" } },
	{ "haswell", { "haswell" } },
	{ "broadwell", { "broadwell" } },
	{ "skylake", { "skylake", "kaby-lake", "coffee-lake", "comet-lake", "cascade-lake", "cooper-lake" } },
	{ "sunny-cove", { "ice-lake" } },
	{ "willow-cove", { "tiger-lake" } },
	{ "golden-cove", { "alder-lake", "sapphire-rapids" } },
	{ "raptor-cove", { "raptor-lake", "emerald-rapids" } },
};

/* Words of libcpuid's expected codename (field 31) and the generation they mean. */
static const struct {
	const char *word, *id;
} codename_ids[] = {
	{ "Sandy Bridge", "sandy-bridge" }, { "Ivy Bridge", "ivy-bridge" }, { "Haswell", "haswell" },
	{ "Broadwell", "broadwell" }, { "Skylake", "skylake" }, { "Kaby Lake", "kaby-lake" },
	{ "Coffee Lake", "coffee-lake" }, { "Comet Lake", "comet-lake" }, { "Cascade Lake", "cascade-lake" },
	{ "Ice Lake", "ice-lake" }, { "Tiger Lake", "tiger-lake" }, { "Alder Lake", "alder-lake" },
	{ "Raptor Lake", "raptor-lake" }, { "Sapphire Rapids", "sapphire-rapids" },
	{ "Naples", "zen" }, { "Summit Ridge", "zen" }, { "Pinnacle Ridge", "zen+" }, { "Rome", "zen2" },
	{ "Matisse", "zen2" }, { "Renoir", "zen2" }, { "Milan", "zen3" }, { "Vermeer", "zen3" },
	{ "Cezanne", "zen3" }, { "Genoa", "zen4" }, { "Raphael", "zen4" }, { "Phoenix", "zen4" },
	{ "Turin", "zen5" }, { "Granite Ridge", "zen5" }, { "Strix", "zen5" },
};

/* Intel architectural PMU version by generation (Intel SDM: v3 from Nehalem, v4 from Skylake, v5 from Ice Lake). */
static const struct {
	const char *id;
	int version;
} intel_pmu_versions[] = {
	{ "sandy-bridge", 3 }, { "ivy-bridge", 3 }, { "haswell", 3 }, { "broadwell", 3 }, { "skylake", 4 },
	{ "kaby-lake", 4 }, { "coffee-lake", 4 }, { "cascade-lake", 4 }, { "ice-lake", 5 }, { "alder-lake", 5 },
	{ "sapphire-rapids", 5 }, { "raptor-lake", 5 },
};

enum { FIELDS = 34, MAX_BLOCKS = 8 };

/* The library's message for a failed call, "ok" for a successful one. */
static const char *why(int rc)
{
	return rc ? kb_last_error() : "ok";
}

struct expected {
	int nblocks;
	char f[MAX_BLOCKS][FIELDS][128];
};

static int ndumps;

static void read_expected(const char *text, struct expected *e)
{
	const char *p = text;
	int line = -1;

	memset(e, 0, sizeof(*e));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		while (len && p[len - 1] == '\r')
			len--;
		if (len == 80 && strspn(p, "-") >= 80) {
			if (e->nblocks < MAX_BLOCKS)
				e->nblocks++;
			line = 0;
		} else if (line >= 0 && line < FIELDS && e->nblocks) {
			snprintf(e->f[e->nblocks - 1][line], sizeof(e->f[0][0]), "%.*s", (int)len, p);
			line++;
		}
		p = nl ? nl + 1 : p + len;
	}
}

static bool in_list(const char *id, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (!strcmp(list[i], id))
			return true;
	return false;
}

/* Expected core counts that libcpuid's own fixtures got wrong, corrected by the public fact. */
static const struct {
	const char *file;
	int cores;
} core_count_fixes[] = {
	{ "intel-core-i7-3770k-cpu.test", 4 },  /* Intel ARK: 4 cores, 8 threads; the file expects 8 cores */
};

/* Expected blocks are one per package and core purpose: sum them per purpose, as kvmbench reports. */
static void check_counts(const char *name, const struct expected *e, const struct kb_cpu_info *c)
{
	for (int b = 0; b < e->nblocks; b++) {
		const char *purpose = e->f[b][2];
		int cores = 0, threads = 0, mine = -1;
		bool seen = false;

		for (int i = 0; i < b; i++)
			seen |= !strcmp(e->f[i][2], purpose);
		if (seen)
			continue;
		for (int i = b; i < e->nblocks; i++)
			if (!strcmp(e->f[i][2], purpose)) {
				cores += atoi(e->f[i][8]);
				threads += atoi(e->f[i][9]);
			}
		for (size_t i = 0; i < ARRAY_SIZE(core_count_fixes); i++)
			if (strstr(name, core_count_fixes[i].file) && e->nblocks == 1)
				cores = core_count_fixes[i].cores;
		for (int t = 0; t < c->ntypes; t++)
			if (!strcmp(c->types[t].purpose, purpose))
				mine = t;
		ok(mine >= 0 && c->types[mine].cores == cores && c->types[mine].threads == threads,
		   "%s: %s cores: %d cores, %d threads (want %d, %d)", name, purpose,
		   mine >= 0 ? c->types[mine].cores : -1, mine >= 0 ? c->types[mine].threads : -1, cores, threads);
	}
}

static void check_pmu(const char *name, const struct kb_cpu_info *c)
{
	if (!strcmp(c->vendor, "AuthenticAMD")) {
		bool want = !strcmp(c->uarch.id, "zen4") || !strcmp(c->uarch.id, "zen5");

		ok(c->pmu.perfmon_v2 == want && c->pmu.global_ctrl == want && c->pmu.core_counters == 6,
		   "%s: PerfMonV2 %d, global_ctrl %d, %d core counters (PerfMonV2 from Zen 4 on; 6 counters)", name,
		   c->pmu.perfmon_v2, c->pmu.global_ctrl, c->pmu.core_counters);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(intel_pmu_versions); i++)
		if (!strcmp(intel_pmu_versions[i].id, c->uarch.id)) {
			ok(c->pmu.arch_version == intel_pmu_versions[i].version && c->pmu.global_ctrl &&
			   c->pmu.gp_counters >= 4 && c->pmu.fixed_counters >= 3,
			   "%s: arch PMU v%d (want v%d), %d GP + %d fixed counters, global_ctrl", name, c->pmu.arch_version,
			   intel_pmu_versions[i].version, c->pmu.gp_counters, c->pmu.fixed_counters);
			return;
		}
	ok(0, "%s: no expected PMU version for %s in this test", name, c->uarch.id);
}

/* How many slots of its blocks' indexes a set's leaves took to add: at most 2 a leaf on average
 * (every real dump here: 1.5 to 1.7; one slot for every leaf, and the first blocks 64 slots
 * for about 60 leaves, so any clustering shows). */
static void index_probes_ok(const struct kb_cpuid_set *s, const char *name)
{
	size_t n = 0, probes = 0;

	for (size_t i = 0; i < s->ncpus; i++) {
		n += s->cpu[i].n;
		probes += s->cpu[i].probes;
	}
	ok(probes <= 2 * n, "%s: %zu leaves in %zu blocks took %zu probes to add (at most 2 a leaf)", name, n,
	   s->ncpus, probes);
}

static void check_dump(const char *path)
{
	char *dup = kb_xstrdup(path), *dir, *folder, *text;
	const char *name = strstr(path, "cpuid/") ? strstr(path, "cpuid/") + 6 : path;
	const char *want_id = NULL, *cn, *paren;
	struct kb_cpuid_set s;
	struct kb_cpu_info c;
	struct expected e;
	size_t len;
	int fi = -1, rc;

	ndumps++;
	dir = dirname(dup);
	folder = basename(dir);
	for (size_t i = 0; i < ARRAY_SIZE(folder_ids); i++)
		if (!strcmp(folder_ids[i].folder, folder))
			fi = (int)i;
	rc = kb_read_file(path, &text, &len);
	if (!ok(rc == 0, "%s: read (%s)", name, why(rc)))
		goto out;
	read_expected(text, &e);
	free(text);
	if (!ok(e.nblocks > 0, "%s: has an expected block", name))
		goto out;
	rc = kb_cpuid_read_file(&s, path);
	if (!ok(rc == 0, "%s: parsed (%s)", name, why(rc)))
		goto out;
	rc = kb_cpu_identify(&s, &c);
	if (!ok(rc == 0, "%s: identified (%s)", name, why(rc))) {
		kb_cpuid_free(&s);
		goto out;
	}
	/* Each block's leaves went into its index in a few probes each (index_probes_ok()). */
	index_probes_ok(&s, name);
	kb_cpuid_free(&s);

	ok(c.family == atoi(e.f[0][6]) && c.model == atoi(e.f[0][7]) && c.stepping == atoi(e.f[0][5]),
	   "%s: family/model/stepping %d/%d/%d (want %s/%s/%s)", name, c.family, c.model, c.stepping,
	   e.f[0][6], e.f[0][7], e.f[0][5]);
	ok(fi >= 0 && in_list(c.uarch.id, folder_ids[fi].ids, ARRAY_SIZE(folder_ids[fi].ids)),
	   "%s: %s belongs to folder %s%s", name, c.uarch.id, folder, fi < 0 ? " (folder unknown to this test)" : "");
	cn = e.f[0][31];
	for (size_t i = 0; i < ARRAY_SIZE(codename_ids); i++)
		if (strstr(cn, codename_ids[i].word)) {
			want_id = codename_ids[i].id;
			break;
		}
	ok(want_id && !strcmp(want_id, c.uarch.id), "%s: microarchitecture %s (expected codename '%s' means %s)",
	   name, c.uarch.id, cn, want_id ? want_id : "nothing known to this test");
	paren = strchr(cn, '(');
	ok(strcmp(c.uarch.codename, "unknown") && strstr(paren ? paren : cn, c.uarch.codename),
	   "%s: codename '%s' agrees with '%s'", name, c.uarch.codename, cn);
	check_counts(name, &e, &c);
	{
		/* libcpuid expects one block per package and core purpose: as many of the first purpose
		 * as there are packages (a one-CPU dump tells of one). */
		int pkgs = 0;

		for (int b = 0; b < e.nblocks; b++)
			pkgs += !strcmp(e.f[b][2], e.f[0][2]);
		ok(c.packages == pkgs, "%s: %d packages (want %d), counted from %s", name, c.packages, pkgs,
		   c.counted_from);
	}
	ok(c.hybrid == (c.ntypes > 1) && (e.nblocks > 1 && strcmp(e.f[1][2], e.f[0][2])) == c.hybrid,
	   "%s: hybrid %s", name, c.hybrid ? "yes" : "no");
	check_pmu(name, &c);
	ok(!c.virt.hypervisor && (!strcmp(c.vendor, "GenuineIntel") ? c.virt.vmx : c.virt.svm),
	   "%s: bare metal with %s", name, !strcmp(c.vendor, "GenuineIntel") ? "VMX" : "SVM");
out:
	free(dup);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);

	if (type == FTW_F && ((n > 5 && !strcmp(path + n - 5, ".test")) || (n > 8 && !strcmp(path + n - 8, ".test.xz"))))
		check_dump(path);
	return 0;
}

static void check_table(void)
{
	static const struct {
		const char *vendor;
		int family, model, stepping;
		const char *brand, *id;
	} facts[] = {
		{ "AuthenticAMD", 0x17, 0x01, 1, "AMD EPYC 7601 32-Core Processor", "zen" },
		{ "AuthenticAMD", 0x17, 0x08, 2, "AMD Ryzen 7 2700X Eight-Core Processor", "zen+" },
		{ "AuthenticAMD", 0x17, 0x31, 0, "AMD EPYC 7742 64-Core Processor", "zen2" },
		{ "AuthenticAMD", 0x19, 0x01, 1, "AMD EPYC-Milan Processor", "zen3" },
		{ "AuthenticAMD", 0x19, 0x11, 1, "AMD EPYC 9124 16-Core Processor", "zen4" },
		{ "AuthenticAMD", 0x19, 0xa0, 2, "AMD EPYC 9754 128-Core Processor", "zen4" },
		{ "AuthenticAMD", 0x1a, 0x02, 1, "AMD EPYC 9575F 64-Core Processor", "zen5" },
		{ "AuthenticAMD", 0x1a, 0xf0, 0, "", "unknown" },
		{ "AuthenticAMD", 0x15, 0x02, 0, "AMD FX-8350", "unknown" },
		{ "HygonGenuine", 0x18, 0x00, 1, "Hygon C86 7185", "zen" },
		{ "GenuineIntel", 6, 0x3e, 4, "Intel(R) Xeon(R) CPU E5-2680 v2", "ivy-bridge" },
		{ "GenuineIntel", 6, 0x4f, 1, "Intel(R) Xeon(R) CPU E5-2699 v4", "broadwell" },
		{ "GenuineIntel", 6, 0x55, 4, "Intel(R) Xeon(R) Gold 6154", "skylake" },
		{ "GenuineIntel", 6, 0x55, 7, "Intel(R) Xeon(R) Gold 6230", "cascade-lake" },
		{ "GenuineIntel", 6, 0x55, 11, "Intel(R) Xeon(R) Platinum 8380H", "cooper-lake" },
		{ "GenuineIntel", 6, 0x55, 9, "", "unknown" },
		{ "GenuineIntel", 6, 0x8f, 8, "Intel(R) Xeon(R) Platinum 8480+", "sapphire-rapids" },
		{ "GenuineIntel", 6, 0xcf, 2, "INTEL(R) XEON(R) PLATINUM 8592+", "emerald-rapids" },
		{ "GenuineIntel", 6, 0xad, 1, "Intel(R) Xeon(R) 6980P", "granite-rapids" },
		{ "GenuineIntel", 6, 0xb7, 1, "13th Gen Intel(R) Core(TM) i9-13900K", "raptor-lake" },
		{ "GenuineIntel", 6, 0x9e, 13, "Intel(R) Core(TM) i9-9900K", "coffee-lake" },
		{ "GenuineIntel", 6, 0xff, 0, "", "unknown" },
		{ "GenuineIntel", 15, 0x02, 9, "Intel(R) Pentium(R) 4", "unknown" },
		{ "CentaurHauls", 6, 0x0f, 0, "VIA Nano", "unknown" },
	};
	static const char *const issue_ids[] = {
		"zen", "zen+", "zen2", "zen3", "zen4", "zen5", "sandy-bridge", "ivy-bridge", "haswell", "broadwell",
		"skylake", "cascade-lake", "cooper-lake", "ice-lake", "sapphire-rapids", "emerald-rapids",
		"granite-rapids", "alder-lake", "raptor-lake", "unknown",
	};
	const char *const *vocab = kb_uarch_vocabulary();
	size_t nv = 0, missing = 0;

	while (vocab[nv])
		nv++;
	int rc = kb_uarch_table_validate();

	ok(rc == 0, "the microarchitecture table is consistent: %s", why(rc));
	for (size_t i = 0; i < ARRAY_SIZE(issue_ids); i++)
		missing += !in_list(issue_ids[i], vocab, nv);
	ok(!missing, "the vocabulary has every generation kvmbench promises (%zu missing)", missing);
	for (size_t i = 0; i < ARRAY_SIZE(facts); i++) {
		struct kb_uarch u;

		kb_uarch_lookup(facts[i].vendor, facts[i].family, facts[i].model, facts[i].stepping, facts[i].brand, &u);
		is_str(u.id, facts[i].id, facts[i].brand[0] ? facts[i].brand : "a part outside the table");
	}
}

static void check_parser(void)
{
	struct kb_cpuid_set s;
	uint32_t r[4];
	const char *libcpuid_text =
		"version=0.6.2\n"
		"basic_cpuid[0]=00000001 756e6547 6c65746e 49656e69\n"
		"basic_cpuid[1]=000306c3 00100800 7ffafbff bfebfbff\n"
		"basic_cpuid[2]=76036301 00f0b5ff 00000000 00c10000\n"
		"intel_fn4[1]=1c004122 01c0003f 0000003f 00000000\n";

	ok(kb_cpuid_parse(&s, libcpuid_text) == 0 && s.ncpus == 1 && !s.per_cpu, "a libcpuid dump is one CPU");
	ok(kb_cpuid_get(&s.cpu[0], 1, 0, r) && r[0] == 0x306c3, "leaf 1 read");
	ok(!kb_cpuid_get(&s.cpu[0], 2, 0, r), "a leaf past the maximum (1) is not trusted");
	ok(!kb_cpuid_get(&s.cpu[0], 0x80000000u, 0, r), "an absent extended range is not invented");
	kb_cpuid_free(&s);
	ok(kb_cpuid_parse(&s, "CPU#000 AffMask: 0x1\nCPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
			      "CPU#001 AffMask: 0x2\nCPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
			      "CPUID 00000001: 000306C3-01100800-7FFAFBFF-BFEBFBFF\n") == 0 &&
	   s.ncpus == 2 && s.per_cpu && s.cpu[1].os_index == 1 && kb_cpuid_get(&s.cpu[1], 1, 0, r) && r[1] == 0x01100800,
	   "InstLatX64 'CPU#nnn AffMask' blocks are CPUs");
	kb_cpuid_free(&s);
	ok(kb_cpuid_parse(&s, "------[ Logical CPU #0 ]------\nCPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n"
			      "CPUID 00000004: 1C004121-01C0003F-0000003F-00000000\n"
			      "CPUID 00000004: 1C004122-01C0003F-0000003F-00000000\n") == 0 &&
	   kb_cpuid_get(&s.cpu[0], 4, 0, r) && r[0] == 0x1c004121 && kb_cpuid_get(&s.cpu[0], 4, 1, r) && r[0] == 0x1c004122,
	   "old AIDA64 dumps: a repeated leaf without [SL nn] is the next subleaf");
	kb_cpuid_free(&s);
	ok(kb_cpuid_parse(&s, "hello\nworld\n") < 0 && strstr(kb_last_error(), "not a raw CPUID dump"),
	   "text without CPUID is refused: %s", kb_last_error());
	ok(kb_cpuid_read_file(&s, "/nonexistent/dump.test") == -ENOENT && strstr(kb_last_error(), "/nonexistent/dump.test"),
	   "a missing dump is named: %s", kb_last_error());
}

/* A block's leaves are found through its hash index: every leaf of a big block (the ranges real CPUs
 * report, with many subleaves) is found, replaced in place and kept in the order it came, and
 * adding one takes a few probes, not a scan of every leaf before it (the cpuid-dump fuzz target
 * spent most of a 128-CPU dump's execution in that scan). */
static void check_index(void)
{
	static const uint32_t bases[] = { 0, 0x40000000u, 0x80000000u, 0xc0000000u };
	struct kb_cpuid_set s = { 0 };
	struct kb_cpuid_cpu *c = kb_cpuid_add_cpu(&s, 0);
	size_t n = 0, found = 0, in_order = 0;
	uint32_t r[4] = { 0 };
	const struct kb_cpuid_entry *e;

	for (size_t b = 0; b < ARRAY_SIZE(bases); b++)
		for (uint32_t leaf = bases[b]; leaf < bases[b] + 32; leaf++)
			for (uint32_t sub = 0; sub < 32; sub++, n++) {
				r[0] = leaf ^ sub;
				kb_cpuid_add_entry(c, leaf, sub, r);
			}
	r[0] = 0x1234;
	kb_cpuid_add_entry(c, 0x80000001u, 7, r);
	for (size_t b = 0; b < ARRAY_SIZE(bases); b++)
		for (uint32_t leaf = bases[b]; leaf < bases[b] + 32; leaf++)
			for (uint32_t sub = 0; sub < 32; sub++) {
				e = kb_cpuid_find(c, leaf, sub);
				found += e && e->leaf == leaf && e->subleaf == sub &&
					 e->r[0] == (leaf == 0x80000001u && sub == 7 ? 0x1234 : (leaf ^ sub));
				in_order += e && (size_t)(e - c->e) == b * 32 * 32 + (leaf - bases[b]) * 32 + sub;
			}
	ok(c->n == n && found == n && in_order == n, "%zu leaves: all found (%zu), in the order added (%zu), "
	   "a repeated one replaced", n, found, in_order);
	ok(!kb_cpuid_find(c, 0x20, 0) && !kb_cpuid_find(c, 0, 32) && !kb_cpuid_find(c, 0x80000000u, 0x80000000u),
	   "absent leaves and subleaves are not found");
	ok(c->probes <= 2 * (n + 1), "adding %zu leaves took %zu probes (at most 2 a leaf)", n + 1, c->probes);
	kb_cpuid_free(&s);
	ok(!kb_cpuid_find(kb_cpuid_add_cpu(&s, 0), 0, 0), "an empty block has no leaf");
	kb_cpuid_free(&s);
}

static bool has_advice(json_object *a, const char *id, const char *text)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		const char *oid = kb_json_get_str(o, "id"), *otext = kb_json_get_str(o, "text");

		if (oid && !strcmp(oid, id))
			return !text || (otext && strstr(otext, text));
	}
	return false;
}

static void check_advice(void)
{
	struct kb_cpu_info c = { 0 };
	struct kb_host_facts f = { .cpu = &c };
	json_object *params = json_object_new_object(), *a;

	strcpy(c.vendor, "AuthenticAMD");
	kb_uarch_lookup(c.vendor, 0x19, 0x01, 1, "AMD EPYC 7713", &c.uarch);
	c.pmu.core_counters = 6;
	a = kb_advice_json(&f);
	ok(has_advice(a, "amd-no-perfmonv2", "Zen 3: no PerfMonV2 — a vPMU fast path based on global_ctrl cannot help here"),
	   "Zen 3 without PerfMonV2: the global_ctrl fast path cannot help");
	ok(!has_advice(a, "amd-perfmonv2", NULL) && !has_advice(a, "nested", NULL), "and nothing that does not apply");
	json_object_put(a);

	kb_uarch_lookup(c.vendor, 0x19, 0x11, 1, "AMD EPYC 9124", &c.uarch);
	c.virt.hypervisor = true;
	c.virt.hv_name = "KVM";
	json_object_object_add(params, "enable_pmu", json_object_new_string("N"));
	json_object_object_add(params, "tdp_mmu", json_object_new_string("N"));
	f.params = params;
	f.backend = "kvm_amd";
	f.numa_nodes = 2;
	f.threads_per_core = 2;
	f.memory_only_nodes = "2";
	a = kb_advice_json(&f);
	ok(has_advice(a, "amd-perfmonv2-hidden", "hidden by KVM"), "Zen 4 whose PerfMonV2 a hypervisor hides");
	ok(has_advice(a, "nested", "KVM") && has_advice(a, "vpmu-disabled", NULL) && has_advice(a, "tdp-mmu-off", NULL),
	   "nested, enable_pmu=N and tdp_mmu=N are pointed out");
	ok(has_advice(a, "numa", "2 NUMA nodes") && has_advice(a, "smt", "2 threads") && has_advice(a, "memory-only-nodes", "(2)"),
	   "NUMA, SMT and memory-only nodes are pointed out");
	json_object_put(a);
	json_object_put(params);
}

static void check_this_machine(void)
{
	struct kb_cpuid_set s;
	struct kb_cpu_info c;
	char line[4096], vendor[64] = "";
	int family = -1, model = -1, stepping = -1, hv = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f) {
		printf("ok %d # SKIP /proc/cpuinfo is not readable\n", ++tap_n);
		return;
	}
	while (fgets(line, sizeof(line), f) && strcmp(line, "\n")) {
		sscanf(line, "vendor_id : %63s", vendor);
		sscanf(line, "cpu family : %d", &family);
		sscanf(line, "model : %d", &model);
		sscanf(line, "stepping : %d", &stepping);
		if (!strncmp(line, "flags", 5))
			hv = strstr(line, " hypervisor") != NULL;
	}
	fclose(f);
	int rc = kb_cpuid_collect(&s);

	if (!rc)
		rc = kb_cpu_identify(&s, &c);
	if (!ok(rc == 0, "this machine's CPUID: %s", why(rc)))
		return;
	ok(!strcmp(c.vendor, vendor) && c.family == family && c.model == model && c.stepping == stepping,
	   "this machine: %s %d/%d/%d matches /proc/cpuinfo (%s %d/%d/%d), %s, %s", c.vendor, c.family, c.model,
	   c.stepping, vendor, family, model, stepping, c.uarch.id, c.uarch.codename);
	ok(c.virt.hypervisor == hv && (!hv || c.virt.hv_name), "hypervisor %s (cpuinfo flag: %d)",
	   c.virt.hypervisor ? c.virt.hv_name : "none", hv);
	ok((long)s.ncpus <= sysconf(_SC_NPROCESSORS_ONLN) && c.threads == (int)s.ncpus,
	   "CPUID read on each of %zu CPUs", s.ncpus);
	kb_cpuid_free(&s);
}

int main(void)
{
	const char *td = getenv("KB_TESTDATA");
	char dir[4096];

	check_table();
	check_parser();
	check_index();
	check_advice();
	check_this_machine();
	snprintf(dir, sizeof(dir), "%s/cpuid", td ? td : "");
	if (!td || access(dir, R_OK)) {
		printf("not ok %d - KB_TESTDATA/cpuid is not available (%s): the dumps are in tests/testdata\n", ++tap_n, td ? dir : "KB_TESTDATA unset");
	} else {
		nftw(dir, visit, 16, FTW_PHYS);
		ok(ndumps > 0, "%d CPUID dumps checked", ndumps);
	}
	return tap_done();
}
