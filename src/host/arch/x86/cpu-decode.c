/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-decode.c: one machine's CPU from its raw CPUID: libcpuid's identification, PMU, virtualization. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libcpuid/libcpuid.h>

#include "host/cpu-info.h"
#include "host/cpu-topo.h"
#include "core/kb.h"

static const struct {
	const char *signature;      /* CPUID 0x40000000 EBX:ECX:EDX, NULs dropped */
	const char *name;
} hypervisors[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Linux KVM Hv", "KVM (Hyper-V interface)" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "TCGTCGTCGTCG", "QEMU TCG" },
	{ "bhyve bhyve ", "bhyve" },
	{ " lrpepyh  vr", "Parallels" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "QNXQVMBSQG", "QNX" },
	{ "Jailhouse", "Jailhouse" },
	{ "EVMMEVMMEVMM", "Intel KGT" },
};

static void hv_signature(const struct kb_cpuid_cpu *c, uint32_t leaf, char sig[13])
{
	uint32_t r[4];
	size_t n = 0;

	sig[0] = 0;
	if (!kb_cpuid_get(c, leaf, 0, r))
		return;
	for (int reg = 1; reg <= 3; reg++)
		for (int b = 0; b < 4; b++) {
			char ch = (char)(r[reg] >> (8 * b));

			if (ch)
				sig[n++] = isprint((unsigned char)ch) ? ch : '?';
		}
	sig[n] = 0;
}

static const char *hv_name(const char *sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(hypervisors); i++)
		if (!strcmp(sig, hypervisors[i].signature))
			return hypervisors[i].name;
	return "unknown";
}

static void decode_virt(const struct kb_cpuid_cpu *c, struct kb_cpu_virt *v)
{
	uint32_t r[4];

	memset(v, 0, sizeof(*v));
	if (kb_cpuid_get(c, 1, 0, r)) {
		v->vmx = r[2] & (1u << 5);
		v->hypervisor = r[2] & (1u << 31);
	}
	if (kb_cpuid_get(c, 0x80000001u, 0, r))
		v->svm = r[2] & (1u << 2);
	if (!v->hypervisor)
		return;
	hv_signature(c, 0x40000000u, v->hv_signature);
	v->hv_name = hv_name(v->hv_signature);
	/* KVM offering Hyper-V enlightenments answers "Microsoft Hv" first and names itself at 0x40000100. */
	if (!strcmp(v->hv_name, "Hyper-V")) {
		char second[13];

		hv_signature(c, 0x40000100u, second);
		if (!strcmp(hv_name(second), "KVM"))
			v->hv_name = "KVM (Hyper-V interface)";
	}
}

static void decode_pmu(const struct kb_cpuid_cpu *c, bool amd, struct kb_pmu *p)
{
	uint32_t r[4];

	memset(p, 0, sizeof(*p));
	if (!amd) {
		if (!kb_cpuid_get(c, 0xa, 0, r))
			return;
		p->arch_version = r[0] & 0xff;
		p->gp_counters = (r[0] >> 8) & 0xff;
		p->gp_width = (r[0] >> 16) & 0xff;
		if (p->arch_version > 1) {
			p->fixed_counters = r[3] & 0x1f;
			p->fixed_width = (r[3] >> 5) & 0xff;
		}
		/* From version 5 ECX is a bitmap of fixed counters, possibly beyond EDX's contiguous count. */
		for (int bit = 31; p->arch_version >= 5 && bit >= 0; bit--)
			if (r[2] & (1u << bit)) {
				if (bit + 1 > p->fixed_counters)
					p->fixed_counters = bit + 1;
				break;
			}
		p->core_counters = p->gp_counters;
		p->global_ctrl = p->arch_version >= 2;
		return;
	}
	if (kb_cpuid_get(c, 0x80000001u, 0, r))
		p->core_counters = (r[2] & (1u << 23)) ? 6 : 4;   /* PerfCtrExtCore */
	if (kb_cpuid_get(c, 0x80000022u, 0, r)) {
		p->amd_leaf = true;
		p->perfmon_v2 = r[0] & 1;
		p->lbr_v2 = r[0] & 2;
		if (p->perfmon_v2)
			p->core_counters = r[1] & 0xf;
		p->nb_counters = (r[1] >> 10) & 0x3f;
	}
	p->global_ctrl = p->perfmon_v2;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

static void fill_raw(const struct kb_cpuid_cpu *c, struct cpu_raw_data_t *raw)
{
	uint32_t r[4];

	memset(raw, 0, sizeof(*raw));
	for (uint32_t i = 0; i < MAX_CPUID_LEVEL; i++)
		if (kb_cpuid_get(c, i, 0, r))
			memcpy(raw->basic_cpuid[i], r, sizeof(r));
	for (uint32_t i = 0; i < MAX_EXT_CPUID_LEVEL; i++)
		if (kb_cpuid_get(c, 0x80000000u + i, 0, r))
			memcpy(raw->ext_cpuid[i], r, sizeof(r));
	/* libcpuid 0.6 keeps one cache mask per leaf 4 subleaf in an array of 5 (L1I, L1D, L2, L3,
	 * L4): a sixth cache description overruns its stack (found by fuzzing).  CPUs describe at
	 * most those five, so a dump with more is damaged; the rest is not handed on. */
	for (uint32_t i = 0; i < MAX_INTELFN4_LEVEL && i < 5; i++)
		if (kb_cpuid_get(c, 4, i, r))
			memcpy(raw->intel_fn4[i], r, sizeof(r));
	/* libcpuid 0.6 divides by the logical processor count (EBX[15:0]) of each leaf 0xB level it
	 * walks (found by fuzzing: SIGFPE in cpu_identify()).  Hardware counts at least one at every
	 * level, so a subleaf that counts none ends the list, as the level-type-0 subleaf does. */
	for (uint32_t i = 0; i < MAX_INTELFN11_LEVEL; i++) {
		if (!kb_cpuid_get(c, 0xb, i, r) || !(r[1] & 0xffff))
			break;
		memcpy(raw->intel_fn11[i], r, sizeof(r));
	}
	for (uint32_t i = 0; i < MAX_INTELFN12H_LEVEL; i++)
		if (kb_cpuid_get(c, 0x12, i, r))
			memcpy(raw->intel_fn12h[i], r, sizeof(r));
	for (uint32_t i = 0; i < MAX_INTELFN14H_LEVEL; i++)
		if (kb_cpuid_get(c, 0x14, i, r))
			memcpy(raw->intel_fn14h[i], r, sizeof(r));
	for (uint32_t i = 0; i < MAX_AMDFN8000001DH_LEVEL; i++)
		if (kb_cpuid_get(c, 0x8000001du, i, r))
			memcpy(raw->amd_fn8000001dh[i], r, sizeof(r));
}

static void quiet_libcpuid(const char *msg)
{
	kb_debug("libcpuid: %s", msg);
}

/* libcpuid lists one CPU type per purpose and package: fold them into purposes for the machine. */
static void fold_types(const struct system_id_t *sys, struct kb_cpu_info *info)
{
	for (int i = 0; i < sys->num_cpu_types; i++) {
		const struct cpu_id_t *t = &sys->cpu_types[i];
		const char *purpose = cpu_purpose_str(t->purpose);
		struct kb_cpu_type *k = NULL;

		for (int j = 0; j < info->ntypes; j++)
			if (!strcmp(info->types[j].purpose, purpose))
				k = &info->types[j];
		if (!k && info->ntypes < KB_CPU_MAX_TYPES) {
			k = &info->types[info->ntypes++];
			snprintf(k->purpose, sizeof(k->purpose), "%s", purpose);
		}
		if (!k)
			continue;
		k->cores += t->num_cores;
		k->threads += t->num_logical_cpus;
		if (!strcmp(purpose, info->types[0].purpose))
			info->packages++;
	}
}

/*
 * Whether libcpuid 0.6 can take these blocks as the logical CPUs of one machine without crashing
 * (each case found by fuzzing, SIGFPE or SIGSEGV in cpu_identify_all()):
 * - its per-CPU pass divides by each CPU type's core count, 0 for a vendor it cannot count cores
 *   of: every block must be of one vendor it counts, with at least one core;
 * - it reads leaf 0xB subleaf by subleaf and masks the x2APIC ID with an SMT mask that only an
 *   SMT level sets, and indexes hash tables with the signed IDs it derives (-1 when no core level
 *   sets one): subleaf 0 must be the SMT level and a core level must follow (as the SDM has it),
 *   and the x2APIC ID must fit in 31 bits;
 * - it numbers CPU types (a new one at each change of package or core kind) in a uint8_t: far
 *   fewer than 256 of them, and no more blocks than its logical_cpu_t counts.
 * Otherwise the first block is decoded alone.
 */
static bool per_cpu_decodable(const struct kb_cpuid_set *s, struct cpu_raw_data_t *raw)
{
	uint32_t first[4], r[4], prev_pkg = 0, prev_kind = 0;
	int types = 0;

	/* Leaf 0xB as libcpuid walks it: raw[].intel_fn11, subleaves while EAX and EBX are set. */
	if (s->ncpus > 8192 || !kb_cpuid_get(&s->cpu[0], 0, 0, first))
		return false;
	for (size_t i = 0; i < s->ncpus; i++) {
		const struct kb_cpuid_cpu *c = &s->cpu[i];
		uint32_t shift = 0, apic = 0, kind, sub;
		bool core_level = false;
		struct cpu_id_t id;

		if (!kb_cpuid_get(c, 0, 0, r) || memcmp(r + 1, first + 1, 3 * sizeof(r[0])))
			return false;
		if (cpu_identify(&raw[i], &id) || id.num_cores < 1 ||
		    (id.vendor != VENDOR_INTEL && id.vendor != VENDOR_AMD && id.vendor != VENDOR_HYGON))
			return false;
		for (sub = 0; sub < MAX_INTELFN11_LEVEL && raw[i].intel_fn11[sub][0] && raw[i].intel_fn11[sub][1]; sub++) {
			const uint32_t *l = raw[i].intel_fn11[sub];

			if ((sub == 0 && ((l[2] >> 8) & 0xff) != 1) || (l[3] & 0x80000000u))
				return false;
			core_level |= ((l[2] >> 8) & 0xff) == 2;
			shift = l[0] & 0x1f;
			apic = l[3];
		}
		if (sub && !core_level)
			return false;
		kind = raw[i].basic_cpuid[0x1a][0] >> 24;
		if (!i || apic >> shift != prev_pkg || kind != prev_kind)
			types++;
		prev_pkg = apic >> shift;
		prev_kind = kind;
	}
	return types <= 64;
}

/*
 * libcpuid stops its walk of leaf 0xB at a level with no bits (a CPU with SMT off: one package
 * then), and knows no AMD core kinds.  Blocks that are the logical CPUs of one machine are
 * counted from their own x2APIC IDs and topology levels instead: packages are the distinct
 * package IDs, cores the distinct core IDs, and the kinds those of CPUID.
 */
static int count_from_apic_ids(const struct kb_cpuid_set *s, struct kb_cpu_info *info)
{
	struct kb_cpu_topo t;
	int err = kb_cpu_topo_derive(s, &t);

	/* A dump that repeats a CPU is damaged; this machine's own CPUID is what it is (a hypervisor
	 * may give every vCPU one APIC ID): libcpuid's counts stand, with the doubt recorded. */
	if (err && s->live) {
		snprintf(info->warnings[info->nwarnings++], sizeof(info->warnings[0]), "%s", kb_last_error());
		return 0;
	}
	if (err)
		return err;
	for (int i = 0; i < t.nwarnings && i < KB_CPU_MAX_WARNINGS; i++)
		snprintf(info->warnings[info->nwarnings++], sizeof(info->warnings[0]), "%s", t.warnings[i]);
	if (!t.cores)
		return 0;
	info->packages = t.packages;
	info->cores = t.cores;
	info->threads = t.threads;
	if (t.nkinds) {
		info->ntypes = t.nkinds < KB_CPU_MAX_TYPES ? t.nkinds : KB_CPU_MAX_TYPES;
		for (int i = 0; i < info->ntypes; i++) {
			snprintf(info->types[i].purpose, sizeof(info->types[i].purpose), "%s", t.kinds[i].purpose);
			info->types[i].cores = t.kinds[i].cores;
			info->types[i].threads = t.kinds[i].threads;
			info->types[i].rank = t.kinds[i].rank;
		}
	} else {
		info->ntypes = 1;
		info->types[0].cores = t.cores;
		info->types[0].threads = t.threads;
	}
	snprintf(info->counted_from, sizeof(info->counted_from), "x2APIC IDs and CPUID %s levels of %d logical CPUs",
		 t.levels_leaf, t.threads);
	return 0;
}

int kb_cpu_identify(const struct kb_cpuid_set *s, struct kb_cpu_info *info)
{
	struct cpu_raw_data_array_t arr = { 0 };
	struct system_id_t sys = { 0 };
	const struct cpu_id_t *id;
	bool per_cpu = s->per_cpu;
	int err = 0;

	memset(info, 0, sizeof(*info));
	if (!s->ncpus)
		return kb_fail(EINVAL, "no CPUID data to identify");
	cpuid_set_warn_function(quiet_libcpuid);
	arr.raw = kb_xcalloc(per_cpu ? s->ncpus : 1, sizeof(*arr.raw));
	for (size_t i = 0; i < (per_cpu ? s->ncpus : 1); i++)
		fill_raw(&s->cpu[i], &arr.raw[i]);
	if (per_cpu && !per_cpu_decodable(s, arr.raw)) {
		kb_debug("%s: the CPU blocks are not one machine libcpuid can count; decoding the first alone",
			 s->source);
		per_cpu = false;
	}
	arr.with_affinity = per_cpu;
	arr.num_raw = (logical_cpu_t)(per_cpu ? s->ncpus : 1);
	if (cpu_identify_all(&arr, &sys) || sys.num_cpu_types < 1) {
		err = kb_fail(EINVAL, "%s: libcpuid cannot decode this CPUID data: %s", s->source, cpuid_error());
		goto out;
	}
	id = &sys.cpu_types[0];
	snprintf(info->vendor, sizeof(info->vendor), "%s", id->vendor_str);
	snprintf(info->brand, sizeof(info->brand), "%s", id->brand_str);
	trim(info->brand);
	snprintf(info->libcpuid_codename, sizeof(info->libcpuid_codename), "%s", id->cpu_codename);
	info->family = id->ext_family;
	info->model = id->ext_model;
	info->stepping = id->stepping;
	info->base_family = id->family;
	info->base_model = id->model;
	kb_uarch_lookup(info->vendor, info->family, info->model, info->stepping, info->brand, &info->uarch);

	fold_types(&sys, info);
	if (!per_cpu) {
		/* An old single-CPU dump tells one package's counts, nothing about how many packages. */
		info->types[0].cores = id->num_cores;
		info->types[0].threads = id->num_logical_cpus;
		info->packages = 1;
	}
	for (int i = 0; i < info->ntypes; i++) {
		info->types[i].rank = -1;
		info->cores += info->types[i].cores;
		info->threads += info->types[i].threads;
	}
	snprintf(info->counted_from, sizeof(info->counted_from), "libcpuid, %s",
		 per_cpu ? "from every logical CPU" : "from one logical CPU");
	if (s->per_cpu) {
		err = count_from_apic_ids(s, info);
		if (err)
			goto out;
	}
	if (info->packages < 1)
		info->packages = 1;
	info->cores_per_package = info->cores / info->packages;
	info->threads_per_package = info->threads / info->packages;
	info->hybrid = info->ntypes > 1;
	/* Counts no machine has (libcpuid's from damaged data): a dump is refused, this machine's doubt
	 * is recorded. */
	if (info->cores < 1 || info->threads < info->cores || info->packages > info->cores) {
		char why[512];

		snprintf(why, sizeof(why), "%.256s: the CPUID data counts %d cores and %d threads in %d packages, which no "
			 "machine has: it is damaged", s->source, info->cores, info->threads, info->packages);
		if (!s->live) {
			err = kb_fail(EINVAL, "%s", why);
			goto out;
		}
		if (info->nwarnings < KB_CPU_MAX_WARNINGS)
			snprintf(info->warnings[info->nwarnings++], sizeof(info->warnings[0]), "%.255s", why);
	}

	decode_pmu(&s->cpu[0], id->vendor == VENDOR_AMD || id->vendor == VENDOR_HYGON, &info->pmu);
	decode_virt(&s->cpu[0], &info->virt);
out:
	if (sys.cpu_types)
		cpuid_free_system_id(&sys);
	free(arr.raw);
	return err;
}
