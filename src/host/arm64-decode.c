/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-decode.c: what an arm64 machine's MIDR_EL1 and ID registers mean for KVM: the cores, VHE,
 * the GIC interface, ECV, SVE, PMUv3, nesting; as JSON and as advice. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/arm64.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"

static int field(const struct kb_arm64_cpu *c, enum kb_arm64_reg r, unsigned int shift)
{
	return c->have_reg[r] ? (int)((c->reg[r] >> shift) & 0xf) : -1;
}

/* A word of the hwcaps line ("sve", not "svei8mm"): 1 present, 0 absent, -1 no hwcaps line. */
static int hwcap(const struct kb_arm64_cpu *c, const char *word)
{
	size_t n = strlen(word);

	if (!c->hwcaps)
		return -1;
	for (const char *p = c->hwcaps; (p = strstr(p, word)); p += n)
		if ((p == c->hwcaps || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

void kb_arm64_decode_virt(const struct kb_arm64_cpu *c, struct kb_arm64_virt *v)
{
	/* Field positions: the Arm ARM's register descriptions (the kernel's arch/arm64/tools/sysreg). */
	v->el2 = field(c, KB_A64_PFR0, 8);
	v->gic = field(c, KB_A64_PFR0, 24);
	v->sve = field(c, KB_A64_PFR0, 32);
	v->mte = field(c, KB_A64_PFR1, 8);
	v->ecv = field(c, KB_A64_MMFR0, 60);
	v->vhe = field(c, KB_A64_MMFR1, 8);
	v->nv = field(c, KB_A64_MMFR2, 24);
	v->pmuver = field(c, KB_A64_DFR0, 8);
	/* Without the registers, the hwcaps the kernel derived from them (EL0-visible features only). */
	if (v->sve < 0)
		v->sve = hwcap(c, "sve");
	if (v->ecv < 0)
		v->ecv = hwcap(c, "ecv");
}

const char *kb_arm64_pmu_name(int pmuver)
{
	switch (pmuver) {
	case -1: return NULL;
	case 0: return "none";
	case 1: return "PMUv3";
	case 4: return "PMUv3 for Armv8.1";
	case 5: return "PMUv3 for Armv8.4";
	case 6: return "PMUv3 for Armv8.5";
	case 7: return "PMUv3 for Armv8.7";
	case 8: return "PMUv3 for Armv8.8";
	case 9: return "PMUv3 for Armv8.9";
	case 0xf: return "IMPLEMENTATION DEFINED (not PMUv3)";
	default: return "reserved PMUVer value";
	}
}

static const char *gic_name(int gic)
{
	switch (gic) {
	case -1: return NULL;
	case 0: return "none (no GIC system-register interface)";
	case 1: return "GICv3.0/v4.0 system registers";
	case 3: return "GICv4.1 system registers";
	default: return "reserved GIC value";
	}
}

static char *midr_str(uint32_t m)
{
	return kb_xasprintf("%#010x", m);
}

/* The distinct core designs of the machine, in order of first appearance. */
struct ctype {
	uint32_t model;         /* implementer and part */
	uint32_t midr;          /* the first CPU's whole MIDR */
	struct kb_buf cpus;
	int count, last;
};

static int core_types(const struct kb_arm64_cpu *c, struct ctype **out)
{
	struct ctype *t = NULL;
	size_t cap = 0;
	int n = 0;

	for (int i = 0; i < c->ncores; i++) {
		uint32_t m = c->cores[i].midr & 0xff00fff0u;
		int k;

		for (k = 0; k < n && t[k].model != m; k++)
			;
		if (k == n) {
			t = kb_xgrow(t, (size_t)n + 1, &cap, sizeof(*t));
			memset(&t[k], 0, sizeof(t[k]));
			t[k].model = m;
			t[k].midr = c->cores[i].midr;
			t[k].last = -2;
			n++;
		}
		/* "0-3,8": runs of consecutive CPU numbers */
		if (c->cores[i].cpu == t[k].last + 1 && t[k].count) {
			char *s = t[k].cpus.p;
			char *dash = strrchr(s, '-'), *comma = strrchr(s, ',');

			if (dash && (!comma || dash > comma))
				t[k].cpus.len = (size_t)(dash - s);
			kb_buf_printf(&t[k].cpus, "-%d", c->cores[i].cpu);
		} else {
			kb_buf_printf(&t[k].cpus, "%s%d", t[k].count ? "," : "", c->cores[i].cpu);
		}
		t[k].last = c->cores[i].cpu;
		t[k].count++;
	}
	*out = t;
	return n;
}

static void set_core(json_object *o, uint32_t midr)
{
	const struct kb_arm64_part *p = kb_arm64_part_find(midr);
	const char *imp = kb_arm64_implementer_name(KB_MIDR_IMPLEMENTER(midr));
	char *s = midr_str(midr), rp[16];

	kb_json_set_str(o, "midr_el1", s);
	free(s);
	kb_json_set(o, "implementer", json_object_new_string_len(rp, snprintf(rp, sizeof(rp), "%#04x",
								       KB_MIDR_IMPLEMENTER(midr))));
	kb_json_set_str(o, "implementer_name", imp);
	kb_json_set(o, "part", json_object_new_string_len(rp, snprintf(rp, sizeof(rp), "%#05x", KB_MIDR_PART(midr))));
	kb_json_set_int(o, "variant", (int)KB_MIDR_VARIANT(midr));
	kb_json_set_int(o, "revision", (int)KB_MIDR_REVISION(midr));
	snprintf(rp, sizeof(rp), "r%up%u", KB_MIDR_VARIANT(midr), KB_MIDR_REVISION(midr));
	kb_json_set_str(o, "variant_revision", rp);
	kb_json_set_str(o, "microarchitecture", p ? p->id : "unknown");
	kb_json_set_str(o, "microarchitecture_name", p ? p->name : "unknown");
	kb_json_set_str(o, "found_in", p ? p->found_in : NULL);
}

json_object *kb_arm64_cpu_json(const struct kb_arm64_cpu *c)
{
	json_object *o = json_object_new_object(), *types = json_object_new_array();
	struct ctype *t;
	int n = core_types(c, &t);
	const char *imp = kb_arm64_implementer_name(KB_MIDR_IMPLEMENTER(c->cores[0].midr));

	kb_json_set_str(o, "arch", "arm64");
	kb_json_set_str(o, "vendor", imp ? imp : "unknown");
	set_core(o, c->cores[0].midr);
	if (c->cores[0].have_revidr) {
		char *s = midr_str(c->cores[0].revidr);

		kb_json_set_str(o, "revidr_el1", s);
		free(s);
	}
	kb_json_set_int(o, "logical_cpus", c->ncores);
	kb_json_set(o, "hybrid", json_object_new_boolean(n > 1));
	for (int k = 0; k < n; k++) {
		json_object *e = json_object_new_object();

		set_core(e, t[k].midr);
		kb_json_set_str(e, "cpus", t[k].cpus.p);
		kb_json_set_int(e, "count", t[k].count);
		json_object_array_add(types, e);
		free(t[k].cpus.p);
	}
	free(t);
	kb_json_set(o, "core_types", types);
	kb_json_set_str(o, "counted_from", c->source);
	return o;
}

static json_object *level(int v)
{
	return v < 0 ? NULL : json_object_new_int(v);
}

static json_object *flag(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v > 0);
}

json_object *kb_arm64_virt_json(const struct kb_arm64_cpu *c)
{
	json_object *o = json_object_new_object(), *regs = json_object_new_object();
	struct kb_arm64_virt v;

	kb_arm64_decode_virt(c, &v);
	kb_json_set(o, "el2", flag(v.el2));
	kb_json_set(o, "vhe", flag(v.vhe));
	kb_json_set(o, "gic_sysreg", level(v.gic));
	kb_json_set_str(o, "gic", gic_name(v.gic));
	kb_json_set(o, "gicv4_1", v.gic < 0 ? NULL : json_object_new_boolean(v.gic >= 3));
	kb_json_set(o, "ecv", level(v.ecv));
	kb_json_set(o, "sve", flag(v.sve));
	kb_json_set(o, "nested_virt", level(v.nv));
	kb_json_set(o, "mte", level(v.mte));
	for (int r = 0; r < KB_A64_NREGS; r++) {
		char s[24];

		if (c->have_reg[r]) {
			snprintf(s, sizeof(s), "%#018llx", (unsigned long long)c->reg[r]);
			kb_json_set_str(regs, kb_arm64_reg_names[r], s);
		}
	}
	kb_json_set(o, "id_registers", regs);
	return o;
}

json_object *kb_arm64_pmu_json(const struct kb_arm64_cpu *c)
{
	json_object *o = json_object_new_object();
	struct kb_arm64_virt v;

	kb_arm64_decode_virt(c, &v);
	kb_json_set(o, "pmuver", level(v.pmuver));
	kb_json_set_str(o, "pmuv3", kb_arm64_pmu_name(v.pmuver));
	return o;
}

void kb_arm64_advice_add(json_object *a, const char *id, const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = kb_xvasprintf(fmt, ap);
	va_end(ap);
	kb_json_set_str(o, "id", id);
	kb_json_set_str(o, "text", text);
	json_object_array_add(a, o);
	free(text);
}

void kb_arm64_advice(const struct kb_arm64_cpu *c, json_object *a)
{
	const struct kb_arm64_part *p = kb_arm64_part_find(c->cores[0].midr);
	struct kb_arm64_virt v;
	struct ctype *t;
	int n = core_types(c, &t);
	const char *from, *mode = kb_arm64_kvm_mode(c, c->cmdline, &from);

	for (int k = 0; k < n; k++)
		free(t[k].cpus.p);
	free(t);
	kb_arm64_decode_virt(c, &v);
	if (!p)
		kb_arm64_advice_add(a, "arm64-unknown-core", "MIDR_EL1 %#010x (implementer %#04x, part %#05x): a core unknown to kvmbench's "
		    "table (src/host/arm64-parts.c); advice that depends on the core is left out", c->cores[0].midr,
		    KB_MIDR_IMPLEMENTER(c->cores[0].midr), KB_MIDR_PART(c->cores[0].midr));
	if (n > 1)
		kb_arm64_advice_add(a, "arm64-heterogeneous", "%d core designs (big.LITTLE or DynamIQ): exit costs depend on the core "
		    "a vCPU runs on; pin vCPUs to one kind with --cpus", n);
	if (v.el2 == 0)
		kb_arm64_advice_add(a, "arm64-no-el2", "ID_AA64PFR0_EL1.EL2 = 0: no EL2, so KVM cannot run guests on this machine");
	if (v.vhe == 1 && !strcmp(mode, "vhe"))  /* VH = 1 with kvm-arm.mode=: kb_arm64_boot_advice says what it chose */
		kb_arm64_advice_add(a, "arm64-vhe", "VHE (ID_AA64MMFR1_EL1.VH = 1): the host kernel runs at EL2 and KVM in VHE mode "
		    "unless booted with kvm-arm.mode=nvhe or protected, which makes every exit dearer");
	else if (v.vhe == 0)
		kb_arm64_advice_add(a, "arm64-nvhe", "no VHE (ID_AA64MMFR1_EL1.VH = 0): KVM runs split (nVHE), every exit switches "
		    "between EL1 and EL2 worlds; exit costs are not comparable with VHE hosts");
	else if (v.vhe < 0)
		kb_arm64_advice_add(a, "arm64-vhe-unknown", "VHE or nVHE: not known from this data (the kernel hides EL2 fields from "
		    "user space; give id_aa64mmfr1_el1 in a dump, or see dmesg's 'VHE mode initialized')");
	if (v.gic == 3)
		kb_arm64_advice_add(a, "arm64-gicv4.1", "GICv4.1 CPU interface (ID_AA64PFR0_EL1.GIC = 3): direct injection of vLPIs "
		    "and vSGIs is possible when the ITS is GICv4.1 too and kvm-arm.vgic_v4_enable=1; IPIs and LPIs "
		    "then skip the hypervisor");
	else if (v.gic == 1)
		kb_arm64_advice_add(a, "arm64-gicv3", "GICv3/v4.0 CPU interface (ID_AA64PFR0_EL1.GIC = 1): no GICv4.1, so no direct "
		    "vSGI injection: guest IPIs exit to KVM; vLPIs can be injected directly only with a GICv4.0 ITS");
	else if (v.gic == 0)
		kb_arm64_advice_add(a, "arm64-no-gicv3", "no GIC system-register interface (ID_AA64PFR0_EL1.GIC = 0): no vGICv3 for "
		    "guests, only a memory-mapped GICv2 if the platform has one");
	if (v.ecv >= 1)
		kb_arm64_advice_add(a, "arm64-ecv", "FEAT_ECV%s: KVM can offset the guest's counters in hardware instead of trapping "
		    "counter accesses", v.ecv >= 2 ? " with CNTPOFF_EL2" : "");
	if (v.pmuver == 0 || v.pmuver == 0xf)
		kb_arm64_advice_add(a, "arm64-no-pmuv3", "%s PMU: KVM offers guests no vPMU, vPMU tests measure nothing here",
		    v.pmuver ? "an IMPLEMENTATION DEFINED" : "no");
	else if (v.pmuver >= 1)
		kb_arm64_advice_add(a, "arm64-pmuv3", "%s (ID_AA64DFR0_EL1.PMUVer = %d): KVM emulates the guest's PMUv3 "
				    "with host perf events and traps every guest PMU register access, so vPMU tests measure "
				    "those traps; the guest's version is capped at this one and at the kernel's limit "
				    "(PMUv3 for Armv8.4 in Debian 6.1.192, Armv8.5 in 6.12.117)%s", kb_arm64_pmu_name(v.pmuver),
				    v.pmuver, v.pmuver >= 6 ? ": with a kernel that allows Armv8.5, guests get 64-bit event "
				    "counters" : "");
	if (v.sve == 1)
		kb_arm64_advice_add(a, "arm64-sve", "SVE: guests get it only when the VMM asks for it (KVM_ARM_VCPU_SVE); "
				    "KVM switches FP/SVE state lazily, so a vCPU that used SVE has its vector registers "
				    "saved when KVM_RUN returns to user space (user exits such as mmio_read_user), not on "
				    "exits KVM answers itself (hvc)");
	if (v.nv == 2)
		kb_arm64_advice_add(a, "arm64-nv2", "FEAT_NV2: nested virtualization with the EL2 register file in memory is possible");
	kb_arm64_boot_advice(c, a);
}
