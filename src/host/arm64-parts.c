/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-parts.c: kvmbench's table of arm64 core designs by MIDR_EL1 implementer and part number.
 *
 * Part numbers are facts taken from the Linux kernel's arch/arm64/include/asm/cputype.h
 * (linux-source-6.12, Debian 12), except where a row says otherwise:
 *   - Neoverse E1 (0x41/0xd4a) is not in cputype.h; util-linux's sys-utils/lscpu-arm.c names it.
 *   - Qualcomm Oryon X1 (0x51/0x001) entered cputype.h after 6.12 (QCOM_CPU_PART_ORYON_X1).
 * The "found in" products are the published designs of those chips (AWS Graviton2/3/4 are
 * Neoverse N1/V1/V2 cores under Arm's own implementer code, so a dump cannot tell Graviton2
 * from an Ampere Altra: both say "Neoverse N1").  Nothing here is copied from another table. */
#include <stddef.h>

#include "host/arm64.h"
#include "core/kb.h"

static const struct {
	unsigned int code;
	const char *name;
} implementers[] = {
	{ 0x41, "Arm" },        { 0x42, "Broadcom" }, { 0x43, "Cavium" },  { 0x46, "Fujitsu" },
	{ 0x48, "HiSilicon" },  { 0x4e, "NVIDIA" },   { 0x50, "APM" },     { 0x51, "Qualcomm" },
	{ 0x61, "Apple" },      { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

#define ANY (-1)

const struct kb_arm64_part kb_arm64_parts[] = {
	/* Arm Ltd. designs (ARM_CPU_PART_*) */
	{ 0x41, 0xd00, ANY, "foundation", "Foundation model", "Arm's software models" },
	{ 0x41, 0xd0f, ANY, "aem-v8", "AEMv8 model", "Arm's software models" },
	{ 0x41, 0xd03, ANY, "cortex-a53", "Cortex-A53", "Raspberry Pi 3, Amlogic S905" },
	{ 0x41, 0xd04, ANY, "cortex-a35", "Cortex-A35", NULL },
	{ 0x41, 0xd05, ANY, "cortex-a55", "Cortex-A55", NULL },
	{ 0x41, 0xd07, ANY, "cortex-a57", "Cortex-A57", "AMD Opteron A1100, NVIDIA Tegra X1" },
	{ 0x41, 0xd08, ANY, "cortex-a72", "Cortex-A72", "AWS Graviton (first generation), Raspberry Pi 4" },
	{ 0x41, 0xd09, ANY, "cortex-a73", "Cortex-A73", NULL },
	{ 0x41, 0xd0a, ANY, "cortex-a75", "Cortex-A75", NULL },
	{ 0x41, 0xd0b, ANY, "cortex-a76", "Cortex-A76", "Raspberry Pi 5" },
	{ 0x41, 0xd0c, ANY, "neoverse-n1", "Neoverse N1", "AWS Graviton2, Ampere Altra and Altra Max" },
	{ 0x41, 0xd0d, ANY, "cortex-a77", "Cortex-A77", NULL },
	{ 0x41, 0xd0e, ANY, "cortex-a76ae", "Cortex-A76AE", NULL },
	{ 0x41, 0xd40, ANY, "neoverse-v1", "Neoverse V1", "AWS Graviton3" },
	{ 0x41, 0xd41, ANY, "cortex-a78", "Cortex-A78", NULL },
	{ 0x41, 0xd42, ANY, "cortex-a78ae", "Cortex-A78AE", NULL },
	{ 0x41, 0xd44, ANY, "cortex-x1", "Cortex-X1", NULL },
	{ 0x41, 0xd46, ANY, "cortex-a510", "Cortex-A510", NULL },
	{ 0x41, 0xd47, ANY, "cortex-a710", "Cortex-A710", NULL },
	{ 0x41, 0xd48, ANY, "cortex-x2", "Cortex-X2", NULL },
	{ 0x41, 0xd49, ANY, "neoverse-n2", "Neoverse N2", "Alibaba Yitian 710" },
	{ 0x41, 0xd4a, ANY, "neoverse-e1", "Neoverse E1", NULL },  /* util-linux lscpu-arm.c */
	{ 0x41, 0xd4b, ANY, "cortex-a78c", "Cortex-A78C", NULL },
	{ 0x41, 0xd4c, ANY, "cortex-x1c", "Cortex-X1C", NULL },
	{ 0x41, 0xd4d, ANY, "cortex-a715", "Cortex-A715", NULL },
	{ 0x41, 0xd4e, ANY, "cortex-x3", "Cortex-X3", NULL },
	{ 0x41, 0xd4f, ANY, "neoverse-v2", "Neoverse V2", "AWS Graviton4, NVIDIA Grace" },
	{ 0x41, 0xd80, ANY, "cortex-a520", "Cortex-A520", NULL },
	{ 0x41, 0xd81, ANY, "cortex-a720", "Cortex-A720", NULL },
	{ 0x41, 0xd82, ANY, "cortex-x4", "Cortex-X4", NULL },
	{ 0x41, 0xd83, ANY, "neoverse-v3ae", "Neoverse V3AE", NULL },
	{ 0x41, 0xd84, ANY, "neoverse-v3", "Neoverse V3", NULL },
	{ 0x41, 0xd85, ANY, "cortex-x925", "Cortex-X925", NULL },
	{ 0x41, 0xd87, ANY, "cortex-a725", "Cortex-A725", NULL },
	{ 0x41, 0xd8e, ANY, "neoverse-n3", "Neoverse N3", NULL },
	/* Broadcom, Cavium */
	{ 0x42, 0x100, ANY, "brahma-b53", "Brahma-B53", NULL },
	{ 0x42, 0x516, ANY, "vulcan", "Vulcan", NULL },
	{ 0x43, 0x0a1, ANY, "thunderx", "ThunderX (88xx)", NULL },
	{ 0x43, 0x0a2, ANY, "thunderx-81xx", "ThunderX 81xx", NULL },
	{ 0x43, 0x0a3, ANY, "thunderx-83xx", "ThunderX 83xx", NULL },
	{ 0x43, 0x0af, ANY, "thunderx2", "ThunderX2", NULL },
	/* Fujitsu, HiSilicon, NVIDIA */
	{ 0x46, 0x001, ANY, "a64fx", "A64FX", "Fujitsu FX1000/FX700 (Fugaku)" },
	{ 0x48, 0xd01, ANY, "tsv110", "TaiShan v110", "HiSilicon Kunpeng 920" },
	{ 0x48, 0xd02, ANY, "hip09", "HIP09", NULL },
	{ 0x4e, 0x003, ANY, "denver", "Denver", NULL },
	{ 0x4e, 0x004, ANY, "carmel", "Carmel", "NVIDIA Xavier" },
	{ 0x4e, 0x010, ANY, "olympus", "Olympus", NULL },
	/* APM: X-Gene's first core is variant 0 (APM_CPU_VAR_POTENZA); other variants are later X-Gene cores. */
	{ 0x50, 0x000, 0x0, "xgene-potenza", "X-Gene (Potenza)", "APM X-Gene 1" },
	{ 0x50, 0x000, ANY, "xgene", "X-Gene", NULL },
	/* Qualcomm: the kernel names part 0x800 both FALKOR_V1 and KRYO_2XX_GOLD. */
	{ 0x51, 0x001, ANY, "oryon-x1", "Oryon (X1)", "Snapdragon X Elite" },
	{ 0x51, 0x200, ANY, "kryo", "Kryo", NULL },
	{ 0x51, 0x800, ANY, "falkor-v1-kryo-2xx-gold", "Falkor v1 / Kryo 2xx Gold", NULL },
	{ 0x51, 0x801, ANY, "kryo-2xx-silver", "Kryo 2xx Silver", NULL },
	{ 0x51, 0x802, ANY, "kryo-3xx-gold", "Kryo 3xx Gold", NULL },
	{ 0x51, 0x803, ANY, "kryo-3xx-silver", "Kryo 3xx Silver", NULL },
	{ 0x51, 0x804, ANY, "kryo-4xx-gold", "Kryo 4xx Gold", NULL },
	{ 0x51, 0x805, ANY, "kryo-4xx-silver", "Kryo 4xx Silver", NULL },
	{ 0x51, 0xc00, ANY, "falkor", "Falkor", "Qualcomm Centriq 2400" },
	/* Apple (APPLE_CPU_PART_*) */
	{ 0x61, 0x022, ANY, "m1-icestorm", "M1 Icestorm", "Apple M1" },
	{ 0x61, 0x023, ANY, "m1-firestorm", "M1 Firestorm", "Apple M1" },
	{ 0x61, 0x024, ANY, "m1-icestorm-pro", "M1 Pro Icestorm", "Apple M1 Pro" },
	{ 0x61, 0x025, ANY, "m1-firestorm-pro", "M1 Pro Firestorm", "Apple M1 Pro" },
	{ 0x61, 0x028, ANY, "m1-icestorm-max", "M1 Max Icestorm", "Apple M1 Max" },
	{ 0x61, 0x029, ANY, "m1-firestorm-max", "M1 Max Firestorm", "Apple M1 Max" },
	{ 0x61, 0x032, ANY, "m2-blizzard", "M2 Blizzard", "Apple M2" },
	{ 0x61, 0x033, ANY, "m2-avalanche", "M2 Avalanche", "Apple M2" },
	{ 0x61, 0x034, ANY, "m2-blizzard-pro", "M2 Pro Blizzard", "Apple M2 Pro" },
	{ 0x61, 0x035, ANY, "m2-avalanche-pro", "M2 Pro Avalanche", "Apple M2 Pro" },
	{ 0x61, 0x038, ANY, "m2-blizzard-max", "M2 Max Blizzard", "Apple M2 Max" },
	{ 0x61, 0x039, ANY, "m2-avalanche-max", "M2 Max Avalanche", "Apple M2 Max" },
	/* Microsoft: Cobalt 100 is r0p0 of a Neoverse N2 under Microsoft's own implementer code. */
	{ 0x6d, 0xd49, ANY, "cobalt-100", "Azure Cobalt 100 (Neoverse N2)", "Microsoft Azure Cobalt 100" },
	/* Ampere's own cores (AMPERE_CPU_PART_*); Altra is Neoverse N1, above. */
	{ 0xc0, 0xac3, ANY, "ampereone", "AmpereOne", "AmpereOne (A1)" },
	{ 0xc0, 0xac4, ANY, "ampereone-a", "AmpereOne (AC04)", "AmpereOne A192-32X" },
};

const size_t kb_arm64_nparts = ARRAY_SIZE(kb_arm64_parts);

const char *kb_arm64_implementer_name(unsigned int implementer)
{
	for (size_t i = 0; i < ARRAY_SIZE(implementers); i++)
		if (implementers[i].code == implementer)
			return implementers[i].name;
	return NULL;
}

const struct kb_arm64_part *kb_arm64_part_find(uint32_t midr)
{
	const struct kb_arm64_part *any = NULL;

	for (size_t i = 0; i < kb_arm64_nparts; i++) {
		const struct kb_arm64_part *p = &kb_arm64_parts[i];

		if (p->implementer != KB_MIDR_IMPLEMENTER(midr) || p->part != KB_MIDR_PART(midr))
			continue;
		if (p->variant == (int)KB_MIDR_VARIANT(midr))
			return p;
		if (p->variant == ANY && !any)
			any = p;
	}
	return any;
}
