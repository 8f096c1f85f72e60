/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64.c: arm64 CPU identification: every row of the MIDR table, the ID-register fields, the
 * dump reader on damaged input, and the real dumps of testdata/arm64 (their posters' CPUs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/arm64.h"
#include "host/cpu-info.h"
#include "core/json.h"
#include "core/kb.h"
#include "tap.h"
#include "testfs.h"

static void table_rows(void)
{
	for (size_t i = 0; i < kb_arm64_nparts; i++) {
		const struct kb_arm64_part *p = &kb_arm64_parts[i];
		int var = p->variant >= 0 ? p->variant : (int)(i % 16);
		bool good = true;

		/* Every revision of the row's variant (any variant for an any-variant row that no
		 * variant-specific row of the same part claims) decodes to this row. */
		for (unsigned int rev = 0; rev < 16; rev++) {
			uint32_t midr = KB_MIDR(p->implementer, var, p->part, rev);
			const struct kb_arm64_part *got = kb_arm64_part_find(midr);

			if (p->variant < 0)
				for (size_t j = 0; j < kb_arm64_nparts; j++)
					if (kb_arm64_parts[j].implementer == p->implementer &&
					    kb_arm64_parts[j].part == p->part && kb_arm64_parts[j].variant == var)
						midr = KB_MIDR(p->implementer, (var + 1) % 16, p->part, rev);
			got = kb_arm64_part_find(midr);
			good &= got == p && KB_MIDR_IMPLEMENTER(midr) == p->implementer && KB_MIDR_PART(midr) == p->part &&
				KB_MIDR_REVISION(midr) == rev;
		}
		ok(good, "row %zu %#04x/%#05x%s decodes to %s (%s)", i, p->implementer, p->part,
		   p->variant >= 0 ? " (one variant)" : "", p->id, p->name);
		ok(kb_arm64_implementer_name(p->implementer) && p->id[0] && p->name[0],
		   "row %s names its implementer (%s)", p->id, kb_arm64_implementer_name(p->implementer));
		for (size_t j = 0; j < i; j++) {
			const struct kb_arm64_part *q = &kb_arm64_parts[j];

			if ((q->implementer == p->implementer && q->part == p->part && q->variant == p->variant) ||
			    !strcmp(q->id, p->id))
				ok(0, "rows %zu and %zu are the same core (%s, %s)", j, i, q->id, p->id);
		}
	}
}

static void table_facts(void)
{
	/* Spot checks against cputype.h, each a row a typo would move. */
	static const struct { uint32_t midr; const char *id; } facts[] = {
		{ 0x413fd0c1, "neoverse-n1" }, { 0x411fd401, "neoverse-v1" }, { 0x410fd4f0, "neoverse-v2" },
		{ 0x410fd490, "neoverse-n2" }, { 0x410fd840, "neoverse-v3" }, { 0x410fd8e0, "neoverse-n3" },
		{ 0xc00fac30, "ampereone" },   { 0x461f0010, "a64fx" },       { 0x481fd010, "tsv110" },
		{ 0x4e0f0040, "carmel" },      { 0x611f0220, "m1-icestorm" }, { 0x612f0330, "m2-avalanche" },
		{ 0x510f8000, "falkor-v1-kryo-2xx-gold" }, { 0x6d0fd490, "cobalt-100" },
		{ 0x500f0000, "xgene-potenza" }, { 0x503f0000, "xgene" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(facts); i++) {
		const struct kb_arm64_part *p = kb_arm64_part_find(facts[i].midr);

		is_str(p ? p->id : NULL, facts[i].id, "MIDR decodes");
	}
	ok(!kb_arm64_part_find(0x41fffff0), "an unknown Arm part is unknown");
	ok(!kb_arm64_part_find(0x700f6630), "an unknown implementer (0x70) is unknown");
}

static int parse(const char *text, struct kb_arm64_cpu *c)
{
	kb_clear_error();
	return kb_arm64_parse("dump.txt", text, c);
}

#define BLOCK(n, part) "processor\t: " #n "\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n" \
	"CPU part\t: " part "\nCPU revision\t: 1\n\n"

static void refused(const char *text, const char *want, const char *what)
{
	struct kb_arm64_cpu c;
	int err = parse(text, &c);

	ok(err == -EINVAL && strstr(kb_last_error(), want), "refused: %s: %s", what, kb_last_error());
	if (!err)
		kb_arm64_free(&c);
}

static void damaged(void)
{
	struct kb_arm64_cpu c;

	ok(!parse(BLOCK(0, "0xd0c") BLOCK(1, "0xd0c"), &c) && c.ncores == 2 && c.cores[1].cpu == 1 &&
	   c.cores[0].midr == 0x413fd0c1, "two blocks: 2 CPUs, MIDR 0x413fd0c1");
	kb_arm64_free(&c);
	refused(BLOCK(0, "0xd0c") "processor\t: 1\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n",
		"dump.txt:8: processor 1 has no 'CPU part'", "truncated in a block");
	refused(BLOCK(0, "0xd0c") "processor\t: 1\n", "dump.txt:8: processor 1 has neither", "truncated after 'processor'");
	refused(BLOCK(0, "0xd0c") "processor\t: 1\nCPU part\t: 0xd", "dump.txt:9: the last line has no line end",
		"cut in the middle of a line");
	refused(BLOCK(0, "0xzz"), "dump.txt:5: CPU part wants a number", "non-hex part");
	refused(BLOCK(0, "0x1d0c"), "dump.txt:5: CPU part 0x1d0c is out of range", "part wider than 12 bits");
	refused(BLOCK(0, "-0x1"), "dump.txt:5: CPU part wants a number", "negative part");
	refused(BLOCK(0, "0xd0c") "midr_el1 0x410fd081\n", "dump.txt:8: midr_el1 0x410fd081 conflicts with processor 0",
		"midr_el1 of another core inside a block");
	refused(BLOCK(0, "0xd0c") BLOCK(0, "0xd0c"), "dump.txt:8: processor 0 is described twice", "one CPU twice");
	refused("processor : 0\nCPU part : 0xd0c\nCPU part : 0xd40\n", "dump.txt:3: processor 0's CPU part 0xd40 conflicts",
		"two parts for one CPU");
	refused("midr_el1 0x413fd0c1\nid_aa64mmfr1_el1 0x10212122\nid_aa64mmfr1_el1 0x10212022\n",
		"dump.txt:3: id_aa64mmfr1_el1 0x10212022 conflicts with line 2", "two values of one register");
	refused("midr_el1 0x1413fd0c1\n", "dump.txt:1: midr_el1 0x1413fd0c1 is out of range", "MIDR wider than 32 bits");
	refused("midr_el1\n", "dump.txt:1: 'midr_el1' has no value", "a register without its value");
	refused("id_aa64pfr0_el1 = 0x11112222g\n", "dump.txt:1: id_aa64pfr0_el1 wants a number", "non-hex register");
	refused("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n\n", "dump.txt:1: processor 0 has neither",
		"an x86 /proc/cpuinfo");
	refused("", "dump.txt: no arm64 CPU in it", "an empty file");
	refused("CPU implementer : 0x41\x01\n", "dump.txt:1: not a text line", "a control character");
	{
		const char *t = "processor : 0\nmidr_el1 0x412fd050\nprocessor : 1\nmidr_el1 0x412fd050\n"
				"processor : 2\nmidr_el1 0x412fd050\nprocessor : 4\nmidr_el1 0x414fd0b1\n"
				"processor : 5\nmidr_el1 0x412fd050\nprocessor : 7\nmidr_el1 0x412fd050\n"
				"processor : 8\nmidr_el1 0x412fd050\n";
		json_object *j = NULL, *types;

		if (!parse(t, &c)) {
			j = kb_arm64_cpu_json(&c);
			kb_arm64_free(&c);
		}
		types = j ? kb_json_get(j, "core_types") : NULL;
		ok(types && json_object_array_length(types) == 2 &&
		   !strcmp(json_object_get_string(kb_json_get(json_object_array_get_idx(types, 0), "cpus")), "0-2,5,7-8") &&
		   !strcmp(json_object_get_string(kb_json_get(json_object_array_get_idx(types, 1), "cpus")), "4") &&
		   json_object_get_int(kb_json_get(json_object_array_get_idx(types, 0), "count")) == 6,
		   "core types list their CPUs as runs: %s", j ? json_object_to_json_string(types) : kb_last_error());
		json_object_put(j);
	}
	ok(!parse("midr_el1 0x413fd0c1\nmidr_el1 0x414fd0b1\nrevidr_el1 0x1\n", &c) && c.ncores == 2 &&
	   c.cores[1].midr == 0x414fd0b1 && c.cores[1].have_revidr && !c.cores[0].have_revidr,
	   "bare midr_el1 lines: one CPU each, revidr_el1 goes with the last");
	kb_arm64_free(&c);
}

static struct kb_arm64_virt regs(const char *text)
{
	struct kb_arm64_cpu c;
	struct kb_arm64_virt v = { 0 };
	char *t = kb_xasprintf("midr_el1 0x413fd0c1\n%s", text);

	if (!parse(t, &c)) {
		kb_arm64_decode_virt(&c, &v);
		kb_arm64_free(&c);
	} else {
		ok(0, "register dump parses: %s", kb_last_error());
	}
	free(t);
	return v;
}

static bool has_advice(const char *text, const char *id)
{
	struct kb_arm64_cpu c;
	json_object *a = json_object_new_array();
	char *t = kb_xasprintf("midr_el1 0x413fd0c1\n%s", text);
	bool found = false;

	if (!parse(t, &c)) {
		kb_arm64_advice(&c, a);
		for (size_t i = 0; i < json_object_array_length(a); i++)
			found |= !strcmp(json_object_get_string(kb_json_get(json_object_array_get_idx(a, i), "id")), id);
		kb_arm64_free(&c);
	}
	json_object_put(a);
	free(t);
	return found;
}

static void fields(void)
{
	struct kb_arm64_virt v = regs("");

	ok(v.el2 == -1 && v.vhe == -1 && v.gic == -1 && v.ecv == -1 && v.sve == -1 && v.pmuver == -1 && v.nv == -1,
	   "no registers, no hwcaps: every feature unknown");
	v = regs("id_aa64mmfr1_el1 0x100\nid_aa64pfr0_el1 0x0000000103000200\nid_aa64mmfr0_el1 0x2000000000000000\n"
		 "id_aa64dfr0_el1 0x500\nid_aa64mmfr2_el1 0x2000000\n");
	ok(v.vhe == 1 && v.el2 == 2 && v.gic == 3 && v.sve == 1 && v.ecv == 2 && v.pmuver == 5 && v.nv == 2,
	   "each field from its bits: VH[11:8] EL2[11:8] GIC[27:24] SVE[35:32] ECV[63:60] PMUVer[11:8] NV[27:24]");
	v = regs("id_aa64mmfr1_el1 0xf0ff\nid_aa64pfr0_el1 0xf0fff0ff\n");
	ok(v.vhe == 0 && v.el2 == 0 && v.gic == 0 && v.sve == 0, "neighbouring bits set, the fields 0");
	v = regs("Features\t: fp asimd svei8mm svebf16\n");
	ok(v.sve == 0 && v.ecv == 0, "hwcaps: 'svei8mm' is not 'sve'");
	v = regs("Features\t: fp asimd sve ecv\n");
	ok(v.sve == 1 && v.ecv == 1, "hwcaps: sve and ecv as whole words");
	is_str(kb_arm64_pmu_name(5), "PMUv3 for Armv8.4", "PMUVer 5");
	is_str(kb_arm64_pmu_name(0xf), "IMPLEMENTATION DEFINED (not PMUv3)", "PMUVer 0xf");
	ok(has_advice("id_aa64mmfr1_el1 0x100\n", "arm64-vhe") && !has_advice("id_aa64mmfr1_el1 0x100\n", "arm64-nvhe"),
	   "VH=1: VHE advice");
	ok(has_advice("id_aa64mmfr1_el1 0x0\n", "arm64-nvhe"), "VH=0: nVHE advice");
	ok(has_advice("", "arm64-vhe-unknown"), "no MMFR1: VHE unknown, said so");
	ok(has_advice("id_aa64pfr0_el1 0x3000000\n", "arm64-gicv4.1") &&
	   !has_advice("id_aa64pfr0_el1 0x1000000\n", "arm64-gicv4.1") &&
	   has_advice("id_aa64pfr0_el1 0x1000000\n", "arm64-gicv3"), "GIC=3: GICv4.1 direct injection; GIC=1: not");
	ok(has_advice("id_aa64pfr0_el1 0x0\n", "arm64-no-el2"), "EL2=0: KVM cannot run guests");
	ok(has_advice("id_aa64dfr0_el1 0xf00\n", "arm64-no-pmuv3"), "PMUVer=0xf: no vPMU");
}

/* The real dumps (tests/testdata/SOURCES): what their posters' machines are. */
static const struct {
	const char *file, *id, *midr;
	int ncores, ntypes;
	int sve;
} real[] = {
	{ "aws-graviton2-t4g.small.cpuinfo", "neoverse-n1", "0x413fd0c1", 2, 1, 0 },
	{ "aws-graviton3-c7g.2xlarge.cpuinfo", "neoverse-v1", "0x411fd401", 1, 1, 1 },
	{ "ampereone-a192-32x.cpuinfo", "ampereone-a", "0xc00fac40", 1, 1, 0 },
	{ "altera-agilex5-e.cpuinfo", "cortex-a55", "0x412fd050", 4, 2, 0 },
	{ "amlogic-s905x-le-potato.cpuinfo", "cortex-a53", "0x410fd034", 4, 1, 0 },
	{ "rockchip-rk3588-rock5b.cpuinfo", "cortex-a55", "0x412fd050", 4, 1, 0 },
};

static void real_dumps(void)
{
	const char *dir = getenv("KB_TESTDATA");

	if (!dir || !*dir) {
		ok(0, "KB_TESTDATA names the test data folder (make check sets it)");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(real); i++) {
		char *path = kb_xasprintf("%s/arm64/%s", dir, real[i].file);
		struct kb_arm64_cpu c;
		struct kb_arm64_virt v;
		json_object *j;

		if (kb_arm64_read_file(path, &c)) {
			ok(0, "%s: %s", real[i].file, kb_last_error());
			free(path);
			continue;
		}
		j = kb_arm64_cpu_json(&c);
		kb_arm64_decode_virt(&c, &v);
		ok(!strcmp(json_object_get_string(kb_json_get(j, "microarchitecture")), real[i].id) &&
		   !strcmp(json_object_get_string(kb_json_get(j, "midr_el1")), real[i].midr) && c.ncores == real[i].ncores &&
		   (int)json_object_array_length(kb_json_get(j, "core_types")) == real[i].ntypes && v.sve == real[i].sve,
		   "%s: %s, %s, %d CPUs of %d core types, SVE %d", real[i].file,
		   json_object_get_string(kb_json_get(j, "microarchitecture")),
		   json_object_get_string(kb_json_get(j, "midr_el1")), c.ncores,
		   (int)json_object_array_length(kb_json_get(j, "core_types")), v.sve);
		json_object_put(j);
		kb_arm64_free(&c);
		free(path);
	}
}

static void put(const char *dir, const char *path, const char *text)
{
	char *full = kb_xasprintf("%s/%s", dir, path);

	testfs_write(full, text, strlen(text));
	free(full);
}

/* A live arm64 host, under a root made here: sysfs's MIDR_EL1 wins over /proc/cpuinfo's fields. */
static void live(void)
{
	char root[] = "/tmp/kb-arm64-root.XXXXXX";
	struct kb_arm64_cpu c;
	int err;

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	put(root, "proc/cpuinfo", BLOCK(0, "0xd0c") BLOCK(1, "0xd0c"));
	put(root, "sys/devices/system/cpu/cpu1/regs/identification/midr_el1", "0x00000000413fd0c2\n");
	put(root, "sys/devices/system/cpu/cpu1/regs/identification/revidr_el1", "0x0000000000000001\n");
	err = kb_arm64_collect_at(root, &c);
	ok(!err && c.ncores == 2 && c.cores[0].midr == 0x413fd0c1 && !c.cores[0].have_revidr &&
	   c.cores[1].midr == 0x413fd0c2 && c.cores[1].have_revidr && c.cores[1].revidr == 1 && strstr(c.source, "sysfs"),
	   "live: cpu1's MIDR_EL1 and REVIDR_EL1 from sysfs, cpu0's from /proc/cpuinfo (%s)", err ? kb_last_error() : c.source);
	ok(!err && !c.cmdline, "live without /proc/cmdline: the command line is not known");
	if (!err)
		kb_arm64_free(&c);
	put(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda kvm-arm.mode=protected\n");
	err = kb_arm64_collect_at(root, &c);
	ok(!err && c.cmdline && !strcmp(c.cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/vda kvm-arm.mode=protected"),
	   "live: the kernel command line from /proc/cmdline, without its line end (%s)", !err && c.cmdline ? c.cmdline : "none");
	if (!err)
		kb_arm64_free(&c);
	put(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n\n");
	err = kb_arm64_collect_at(root, &c);
	ok(err == -ENODEV && strstr(kb_last_error(), "not an arm64 host"), "live on x86: -ENODEV, said so: %s", kb_last_error());
	if (!err)
		kb_arm64_free(&c);
	{
		char *cmd = kb_xasprintf("rm -rf '%s'", root);

		if (system(cmd))
			ok(0, "rm -rf %s", root);
		free(cmd);
	}
}

/* The KVM mode from the kernel command line first, then ID_AA64MMFR1_EL1.VH, else unknown. */
static void kvm_mode(void)
{
	static const struct {
		const char *regs, *cmdline, *want, *what;
	} cases[] = {
		{ "id_aa64mmfr1_el1 0x100\n", "BOOT_IMAGE=/vmlinuz root=/dev/vda kvm-arm.mode=nvhe quiet", "nvhe",
		  "kvm-arm.mode=nvhe wins over VH=1" },
		{ "", "kvm-arm.mode=protected", "protected", "kvm-arm.mode=protected, first word" },
		{ "", "kvm-arm.mode=nvhe kvm-arm.mode=none\n", "none", "the last kvm-arm.mode= wins" },
		{ "id_aa64mmfr1_el1 0x100\n", "root=/dev/vda xkvm-arm.mode=nvhe", "vhe",
		  "VH=1 and only a longer word that ends in kvm-arm.mode=: vhe" },
		{ "id_aa64mmfr1_el1 0x100\n", NULL, "vhe", "VH=1, no command line: vhe" },
		{ "id_aa64mmfr1_el1 0x0\n", "quiet", "nvhe", "VH=0: nvhe" },
		{ "", "quiet", NULL, "no VH, no kvm-arm.mode=: not known" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_arm64_cpu c = { 0 };
		char text[256];
		const char *mode, *from = NULL;

		snprintf(text, sizeof(text), "midr_el1 0x413fd0c1\n%s", cases[i].regs);
		if (parse(text, &c)) {
			ok(0, "%s: the dump parses: %s", cases[i].what, kb_last_error());
			continue;
		}
		mode = kb_arm64_kvm_mode(&c, cases[i].cmdline, &from);
		ok(cases[i].want ? mode && !strcmp(mode, cases[i].want) : !mode, "%s: %s (%s)", cases[i].what,
		   mode ? mode : "null", from ? from : "no reason");
		kb_arm64_free(&c);
	}
}

/* What the kernel command line makes of KVM: kvm-arm.mode= and kvm-arm.vgic_v4_enable= as the kernel reads them. */
static void boot_advice(void)
{
	static const char v41[] = "id_aa64pfr0_el1 0x3000000\nid_aa64mmfr1_el1 0x100\n";
	static const struct {
		const char *regs, *cmdline, *id;
		bool want;
		const char *what;
	} cases[] = {
		{ v41, "root=/dev/vda kvm-arm.vgic_v4_enable=1", "arm64-gicv4.1-direct-on", true, "vgic_v4_enable=1: on" },
		{ v41, "kvm-arm.vgic_v4_enable=on quiet", "arm64-gicv4.1-direct-on", true, "vgic_v4_enable=on: on" },
		{ v41, "kvm-arm.vgic_v4_enable=Y", "arm64-gicv4.1-direct-on", true, "vgic_v4_enable=Y: on" },
		{ v41, "root=/dev/vda", "arm64-gicv4.1-direct-off", true, "no vgic_v4_enable: off, KVM's default" },
		{ v41, "root=/dev/vda", "arm64-gicv4.1-direct-on", false, "no vgic_v4_enable: not on" },
		{ v41, "kvm-arm.vgic_v4_enable=1 kvm-arm.vgic_v4_enable=0", "arm64-gicv4.1-direct-off", true,
		  "the last vgic_v4_enable= wins" },
		{ v41, "kvm-arm.vgic_v4_enable=off", "arm64-gicv4.1-direct-off", true, "vgic_v4_enable=off: off" },
		{ v41, "kvm-arm.vgic_v4_enable=maybe", "arm64-gicv4.1-direct-on", false, "a value kstrtobool refuses: not on" },
		{ v41, "xkvm-arm.vgic_v4_enable=1", "arm64-gicv4.1-direct-on", false, "a longer word is not the parameter" },
		{ "id_aa64pfr0_el1 0x1000000\n", "kvm-arm.vgic_v4_enable=1", "arm64-gicv4.1-direct-on", false,
		  "GIC=1: no GICv4.1 direct injection whatever the command line" },
		{ "id_aa64pfr0_el1 0x1000000\n", "root=/dev/vda", "arm64-gicv4.1-direct-off", false,
		  "GIC=1: no advice on vgic_v4_enable" },
		{ v41, "kvm-arm.mode=nvhe", "arm64-kvm-nvhe-forced", true, "VH=1 and kvm-arm.mode=nvhe: forced nVHE" },
		{ v41, "kvm-arm.mode=nvhe", "arm64-vhe", false, "VH=1 and kvm-arm.mode=nvhe: not called VHE" },
		{ v41, "kvm-arm.mode=protected", "arm64-kvm-protected", true, "kvm-arm.mode=protected: pKVM" },
		{ v41, "kvm-arm.mode=none", "arm64-kvm-disabled", true, "kvm-arm.mode=none: KVM off" },
		{ v41, "quiet", "arm64-vhe", true, "VH=1, no kvm-arm.mode=: VHE" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *t = kb_xasprintf("%scmdline: %s\n", cases[i].regs, cases[i].cmdline);

		ok(has_advice(t, cases[i].id) == cases[i].want, "%s: %s %s", cases[i].what, cases[i].id,
		   cases[i].want ? "given" : "not given");
		free(t);
	}
	ok(!has_advice(v41, "arm64-gicv4.1-direct-off") && !has_advice(v41, "arm64-gicv4.1-direct-on"),
	   "no command line: nothing said of vgic_v4_enable");
	ok(has_advice("id_aa64dfr0_el1 0x400\n", "arm64-pmuv3") && !has_advice("id_aa64dfr0_el1 0x0\n", "arm64-pmuv3") &&
	   !has_advice("id_aa64dfr0_el1 0xf00\n", "arm64-pmuv3"), "PMUVer 4: PMUv3 advice; 0 and 0xf: none");
	ok(has_advice("id_aa64pfr0_el1 0x100000000\n", "arm64-sve") && !has_advice("id_aa64pfr0_el1 0x0\n", "arm64-sve"),
	   "SVE=1: SVE advice; SVE=0: none");
}

/* Whether an arm64 machine is a guest, from its device tree and DMI: the usual hypervisors, and the
 * look-alikes that are not (bare-metal EC2, a board's device tree). */
static void platform(void)
{
	static const char virt_dt[] = "linux,dummy-virt";
	static const char board_dt[] = "raspberrypi,4-model-b\0brcm,bcm2711";
	static const struct {
		const char *dt; size_t dt_len; const char *hv, *vendor, *product, *want;
	} cases[] = {
		{ virt_dt, sizeof(virt_dt), NULL, NULL, NULL, "QEMU (virt machine)" },
		{ board_dt, sizeof(board_dt), NULL, NULL, NULL, NULL },
		{ NULL, 0, "xen,xen-4.17", NULL, NULL, "Xen" },
		{ NULL, 0, NULL, "QEMU", "KVM Virtual Machine", "QEMU" },
		{ NULL, 0, NULL, "Amazon EC2", "c7g.2xlarge", "Amazon EC2 (Nitro)" },
		{ NULL, 0, NULL, "Amazon EC2", "c7g.metal", NULL },
		{ NULL, 0, NULL, "Microsoft Corporation", "Virtual Machine", "Hyper-V" },
		{ NULL, 0, NULL, "Ampere(TM)", "Mt.Jade", NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_arm64_platform p = { cases[i].dt, cases[i].dt_len, cases[i].hv, cases[i].vendor,
					       cases[i].product };
		struct kb_cpu_virt v;

		kb_arm64_platform_virt(&p, &v);
		if (cases[i].want)
			ok(v.hypervisor && v.hv_name && !strcmp(v.hv_name, cases[i].want) && v.hv_from,
			   "platform case %zu: under %s (got %s, from %s)", i, cases[i].want, v.hv_name ? v.hv_name : "none",
			   v.hv_from ? v.hv_from : "?");
		else
			ok(!v.hypervisor && v.hv_from, "platform case %zu (%s%s%s): no hypervisor (%s)", i,
			   cases[i].vendor ? cases[i].vendor : "", cases[i].product ? " " : "",
			   cases[i].product ? cases[i].product : "", v.hv_from ? v.hv_from : "?");
	}
}

int main(void)
{
	table_rows();
	table_facts();
	damaged();
	fields();
	kvm_mode();
	boot_advice();
	platform();
	real_dumps();
	live();
	return tap_done();
}
