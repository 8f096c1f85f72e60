/* cpu.h: what the CPU is: raw CPUID (this machine or a dump), generation, PMU, virtualization, advice. */
#ifndef KB_CPU_H
#define KB_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* One CPUID result: leaf (EAX in), subleaf (ECX in), EAX/EBX/ECX/EDX out. */
struct kb_cpuid_entry {
	uint32_t leaf, subleaf;
	uint32_t r[4];
};

/* The CPUID of one logical CPU. */
struct kb_cpuid_cpu {
	int os_index;               /* the OS's CPU number, or the dump's block number */
	struct kb_cpuid_entry *e;
	size_t n, cap;
};

/* The raw CPUID of a whole machine: one block per logical CPU (old dumps hold only one). */
struct kb_cpuid_set {
	struct kb_cpuid_cpu *cpu;
	size_t ncpus, cap;
	bool per_cpu;               /* blocks really are distinct logical CPUs */
	char source[256];           /* "this machine" or the file name */
};

/* Read a whole file; xz-compressed files are decompressed.  *buf is NUL-terminated; free() it. */
int kb_read_file(const char *path, char **buf, size_t *len);

/* Read a raw CPUID dump: libcpuid's "basic_cpuid[N]=" format, AIDA64's "Logical CPU #N" and
 * "CPUID Registers / Logical CPU #N" blocks, or InstLatX64's "CPU#000 AffMask" blocks; the file
 * may be xz-compressed.  Everything after the first line of dashes is ignored. */
int kb_cpuid_read_file(struct kb_cpuid_set *s, const char *path);
int kb_cpuid_parse(struct kb_cpuid_set *s, const char *text);
/* Execute CPUID (through libcpuid) on every CPU this process may run on. */
int kb_cpuid_collect(struct kb_cpuid_set *s);
void kb_cpuid_free(struct kb_cpuid_set *s);
/* Look a leaf up; false when the CPU did not report it (beyond its maximum leaf, or absent). */
bool kb_cpuid_get(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/* ---- microarchitecture ---- */

/* The microarchitecture ("zen4", "sapphire-rapids", ... or "unknown") and codename of a part. */
struct kb_uarch {
	const char *id;             /* from kb_uarch_vocabulary(); "unknown" when not in the table */
	const char *name;           /* for people: "Zen 4" */
	const char *codename;       /* "Genoa"; "unknown" when the table has none */
};
void kb_uarch_lookup(const char *vendor, int family, int model, int stepping, const char *brand,
		     struct kb_uarch *u);
/* The fixed vocabulary of microarchitecture ids, NULL-terminated. */
const char *const *kb_uarch_vocabulary(void);
/* Check the table: every row names a known id, ranges are sane and rows for one part agree. */
int kb_uarch_table_validate(void);

/* ---- one machine's CPU, decoded ---- */

enum { KB_CPU_MAX_TYPES = 4 };

struct kb_cpu_type {
	char purpose[16];           /* "general", "performance", "efficiency" (libcpuid) */
	int cores, threads;         /* in the whole machine */
};

struct kb_pmu {
	/* Intel architectural PMU, CPUID 0xA */
	int arch_version;
	int gp_counters, gp_width;
	int fixed_counters, fixed_width;
	/* AMD, CPUID 0x80000022 (and 0x80000001 ECX[23] before it) */
	bool amd_leaf;              /* 0x80000022 is reported */
	bool perfmon_v2;
	bool lbr_v2;
	int core_counters;          /* AMD: core counters; Intel: = gp_counters */
	int nb_counters;
	/* what it means for a vPMU */
	bool global_ctrl;           /* one MSR enables/disables every counter */
};

struct kb_cpu_virt {
	bool vmx, svm;
	bool hypervisor;            /* CPUID.1:ECX[31]: this machine is a guest */
	char hv_signature[13];
	const char *hv_name;        /* "KVM", "Hyper-V", ...; "unknown" when present but not recognised */
};

struct kb_cpu_info {
	char vendor[16];
	char brand[64];
	int family, model, stepping;          /* display family/model (extended fields folded in) */
	int base_family, base_model;
	struct kb_uarch uarch;
	char libcpuid_codename[64];
	int packages;
	int cores_per_package, threads_per_package;
	int cores, threads;                   /* whole machine, as far as the data tells */
	int ntypes;
	struct kb_cpu_type types[KB_CPU_MAX_TYPES];
	bool hybrid;
	struct kb_pmu pmu;
	struct kb_cpu_virt virt;
};

int kb_cpu_identify(const struct kb_cpuid_set *s, struct kb_cpu_info *info);

json_object *kb_cpu_json(const struct kb_cpu_info *c);
json_object *kb_pmu_json(const struct kb_cpu_info *c);
/* The CPU's side of virtualization: VMX/SVM, the hypervisor this machine runs under. */
json_object *kb_cpu_virt_json(const struct kb_cpu_info *c);

/* ---- "what matters on this host" ---- */

struct kb_host_facts {
	const struct kb_cpu_info *cpu;
	const char *backend;        /* "kvm_intel", "kvm_amd", "kvm_pvm", NULL when unknown/offline */
	json_object *params;        /* module parameter name -> string value; may be NULL */
	int numa_nodes;             /* 0: unknown */
	int threads_per_core;       /* 0: unknown */
	const char *memory_only_nodes; /* list such as "2-3"; NULL or "" when none */
};

/* The advice that applies, as an array of { "id", "text" }. */
json_object *kb_advice_json(const struct kb_host_facts *f);

#endif
