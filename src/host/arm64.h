/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64.h: arm64 CPU knowledge: MIDR_EL1 to microarchitecture, the KVM-relevant ID-register fields. */
#ifndef KB_ARM64_H
#define KB_ARM64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* MIDR_EL1's fields (Arm ARM D23.2; the kernel's asm/cputype.h). */
#define KB_MIDR_IMPLEMENTER(m) (((m) >> 24) & 0xffu)
#define KB_MIDR_VARIANT(m) (((m) >> 20) & 0xfu)
#define KB_MIDR_ARCH(m) (((m) >> 16) & 0xfu)
#define KB_MIDR_PART(m) (((m) >> 4) & 0xfffu)
#define KB_MIDR_REVISION(m) ((m) & 0xfu)
#define KB_MIDR(imp, var, part, rev) \
	((uint32_t)(imp) << 24 | (uint32_t)(var) << 20 | 0xfu << 16 | (uint32_t)(part) << 4 | (uint32_t)(rev))

/* One core design of the table (src/host/arm64-parts.c). */
struct kb_arm64_part {
	uint8_t implementer;
	uint16_t part;
	int variant;            /* -1: any variant; else only this one (more specific rows win) */
	const char *id;         /* stable microarchitecture id, e.g. "neoverse-n1" */
	const char *name;       /* e.g. "Neoverse N1" */
	const char *found_in;   /* known products built on it, or NULL */
};

extern const struct kb_arm64_part kb_arm64_parts[];
extern const size_t kb_arm64_nparts;

/* The implementer's name ("Arm", "Ampere", ...), or NULL when unknown. */
const char *kb_arm64_implementer_name(unsigned int implementer);
/* The table's row for a MIDR_EL1 value, or NULL when unknown. */
const struct kb_arm64_part *kb_arm64_part_find(uint32_t midr);

/* The ID registers kvmbench reads, in the order of kb_arm64_reg_names[]. */
enum kb_arm64_reg {
	KB_A64_PFR0, KB_A64_PFR1, KB_A64_MMFR0, KB_A64_MMFR1, KB_A64_MMFR2, KB_A64_DFR0, KB_A64_NREGS
};
extern const char *const kb_arm64_reg_names[KB_A64_NREGS];  /* "id_aa64pfr0_el1", ... */

struct kb_arm64_core {
	int cpu;                /* the logical CPU number ("processor" / cpuN) */
	uint32_t midr;
	uint32_t revidr;
	bool have_revidr;
};

/* What a dump (or this host) says of an arm64 machine. */
struct kb_arm64_cpu {
	struct kb_arm64_core *cores;
	int ncores;
	uint64_t reg[KB_A64_NREGS];
	bool have_reg[KB_A64_NREGS];
	char *hwcaps;           /* the first CPU's "Features" line of /proc/cpuinfo, or NULL */
	char *cmdline;          /* the kernel command line (a dump's "cmdline" line, this host's /proc/cmdline), or NULL */
	const char *source;     /* "dump", "sysfs", "/proc/cpuinfo" */
};

/* The KVM-relevant features; -1 means "not known from the data given". */
struct kb_arm64_virt {
	int el2;                /* ID_AA64PFR0_EL1.EL2: 0 none, 1 AArch64, 2 AArch64 and AArch32 */
	int vhe;                /* ID_AA64MMFR1_EL1.VH */
	int gic;                /* ID_AA64PFR0_EL1.GIC: 0 none, 1 GICv3.0/v4.0, 3 GICv4.1 system registers */
	int ecv;                /* ID_AA64MMFR0_EL1.ECV, or the "ecv" hwcap (1) */
	int sve;                /* ID_AA64PFR0_EL1.SVE, or the "sve" hwcap */
	int pmuver;             /* ID_AA64DFR0_EL1.PMUVer */
	int nv;                 /* ID_AA64MMFR2_EL1.NV: 0 none, 1 FEAT_NV, 2 FEAT_NV2 */
	int mte;                /* ID_AA64PFR1_EL1.MTE */
};

/* Parse a dump: a /proc/cpuinfo of an arm64 machine and/or "NAME VALUE" register lines (the
 * format is in man/kvmbench-info.1).  name is used in messages; damaged input fails with -EINVAL
 * naming name:line. */
int kb_arm64_parse(const char *name, const char *text, struct kb_arm64_cpu *out);
int kb_arm64_read_file(const char *path, struct kb_arm64_cpu *out);
/* This host: sysfs regs/identification and /proc/cpuinfo; -ENODEV on a host that is not arm64. */
int kb_arm64_collect(struct kb_arm64_cpu *out);
/* The same under another root directory (ROOT/proc/cpuinfo, ROOT/sys/...), for tests. */
int kb_arm64_collect_at(const char *root, struct kb_arm64_cpu *out);
void kb_arm64_free(struct kb_arm64_cpu *c);

void kb_arm64_decode_virt(const struct kb_arm64_cpu *c, struct kb_arm64_virt *v);
/* "PMUv3 for Armv8.4", "none", "IMPLEMENTATION DEFINED", ... */
const char *kb_arm64_pmu_name(int pmuver);

/* The mode KVM runs in ("vhe", "nvhe", or kvm-arm.mode='s value: "protected", "none", ...) from the kernel
 * command line cmdline (NULL: none) and c's ID registers, or NULL when not known; *from says how. */
/* What an arm64 machine's firmware tables say of a hypervisor underneath (arm64 has no CPUID leaf for
 * it): the device tree's root compatible list (NUL-separated, dt_len bytes; NULL: none), its
 * /hypervisor node's compatible, DMI's system vendor and product name (each NULL when absent). */
struct kb_arm64_platform {
	const char *dt_compatible;
	size_t dt_len;
	const char *dt_hypervisor;
	const char *dmi_vendor, *dmi_product;
};
struct kb_cpu_virt;
/* Fills v->hypervisor, hv_name and hv_from (hv_signature stays empty). */
void kb_arm64_platform_virt(const struct kb_arm64_platform *p, struct kb_cpu_virt *v);
/* The same from this host's /proc/device-tree and /sys/class/dmi/id (ROOT prefixed: tests). */
void kb_arm64_platform_read(const char *root, struct kb_cpu_virt *v);

/* The host's GIC (src/host/arm64-gic.c): what vGIC KVM can give guests (a vGICv3 needs a GICv3 host)
 * and whether GICv4 direct injection can exist (it needs an ITS). */
struct kb_arm64_gic {
	int version;            /* 2 or 3 (GICv4 hosts are GICv3 in both sources), -1 not found */
	int its;                /* 1 an ITS, 0 none (the device tree says so), -1 not known */
	int vpe;                /* 40: GICv4 vPEs in /proc/interrupts, 41: GICv4.1 ones, 0 none seen */
	char gic_compat[48];    /* the compatible string or interrupt chip it was found as */
	const char *from;       /* where from, or why not */
};
/* From ROOT/proc/device-tree, else ROOT/proc/interrupts ("" for this host). */
void kb_arm64_gic_read(const char *root, struct kb_arm64_gic *g);
/* From a /proc/interrupts text alone; leaves g as it was when it names no GIC. */
void kb_arm64_gic_from_interrupts(const char *text, struct kb_arm64_gic *g);
json_object *kb_arm64_gic_json(const struct kb_arm64_gic *g);
/* Appends the advice g calls for (a GICv2 host, no ITS, GICv4 vPEs in use) to the array a. */
void kb_arm64_gic_advice(const struct kb_arm64_gic *g, json_object *a);

const char *kb_arm64_kvm_mode(const struct kb_arm64_cpu *c, const char *cmdline, const char **from);

json_object *kb_arm64_cpu_json(const struct kb_arm64_cpu *c);
json_object *kb_arm64_virt_json(const struct kb_arm64_cpu *c);
json_object *kb_arm64_pmu_json(const struct kb_arm64_cpu *c);
/* Appends { "id", "text" } advice entries for this machine to the array a. */
void kb_arm64_advice(const struct kb_arm64_cpu *c, json_object *a);
/* The advice on what c->cmdline makes of KVM (kvm-arm.mode=, kvm-arm.vgic_v4_enable=; src/host/arm64-mode.c);
 * nothing when the command line is not known. */
void kb_arm64_boot_advice(const struct kb_arm64_cpu *c, json_object *a);
/* One { "id", "text" } entry appended to a. */
void kb_arm64_advice_add(json_object *a, const char *id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
