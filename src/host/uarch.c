/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uarch.c: the microarchitecture table: vendor, family, model, stepping, brand -> generation. */
#include <errno.h>
#include <string.h>

#include "host/uarch.h"
#include "core/kb.h"

enum { UA_AMD_PERFMON_V2 = 1 };   /* bare-metal parts have AMD PerfMonV2 */

static const struct uarch_def {
	const char *id, *name;
	unsigned int flags;
} uarch_defs[] = {
	{ "zen", "Zen", 0 },
	{ "zen+", "Zen+", 0 },
	{ "zen2", "Zen 2", 0 },
	{ "zen3", "Zen 3", 0 },
	{ "zen4", "Zen 4", UA_AMD_PERFMON_V2 },
	{ "zen5", "Zen 5", UA_AMD_PERFMON_V2 },
	{ "zen6", "Zen 6", UA_AMD_PERFMON_V2 },
	{ "nehalem", "Nehalem", 0 },
	{ "westmere", "Westmere", 0 },
	{ "sandy-bridge", "Sandy Bridge", 0 },
	{ "ivy-bridge", "Ivy Bridge", 0 },
	{ "haswell", "Haswell", 0 },
	{ "broadwell", "Broadwell", 0 },
	{ "skylake", "Skylake", 0 },
	{ "kaby-lake", "Kaby Lake", 0 },
	{ "coffee-lake", "Coffee Lake", 0 },
	{ "comet-lake", "Comet Lake", 0 },
	{ "cannon-lake", "Cannon Lake", 0 },
	{ "cascade-lake", "Cascade Lake", 0 },
	{ "cooper-lake", "Cooper Lake", 0 },
	{ "ice-lake", "Ice Lake", 0 },
	{ "tiger-lake", "Tiger Lake", 0 },
	{ "rocket-lake", "Rocket Lake", 0 },
	{ "sapphire-rapids", "Sapphire Rapids", 0 },
	{ "emerald-rapids", "Emerald Rapids", 0 },
	{ "granite-rapids", "Granite Rapids", 0 },
	{ "diamond-rapids", "Diamond Rapids", 0 },
	{ "sierra-forest", "Sierra Forest", 0 },
	{ "clearwater-forest", "Clearwater Forest", 0 },
	{ "alder-lake", "Alder Lake", 0 },
	{ "raptor-lake", "Raptor Lake", 0 },
	{ "meteor-lake", "Meteor Lake", 0 },
	{ "lunar-lake", "Lunar Lake", 0 },
	{ "arrow-lake", "Arrow Lake", 0 },
	{ "panther-lake", "Panther Lake", 0 },
	{ "silvermont", "Silvermont", 0 },
	{ "goldmont", "Goldmont", 0 },
	{ "goldmont-plus", "Goldmont Plus", 0 },
	{ "tremont", "Tremont", 0 },
	{ "knights-landing", "Knights Landing", 0 },
	{ "knights-mill", "Knights Mill", 0 },
	{ "unknown", "unknown", 0 },
};

#define INTEL KB_VENDOR_INTEL
#define AMD KB_VENDOR_AMD
#define HYGON KB_VENDOR_HYGON
#define ANY_STEP 0x0, 0xf

/*
 * Vendor, display family, model range, stepping range, brand substring (NULL: any) -> id, codename.
 * Public facts: AMD's family 17h/19h/1Ah model ranges (as Linux's bsp_init_amd() sorts them into
 * Zen generations) and Intel's family 6 model numbers (Linux's intel-family.h).  The first
 * matching row wins, so a row with a brand condition comes before the row it refines.
 */
static const struct uarch_row {
	const char *vendor;
	int family, model_lo, model_hi, step_lo, step_hi;
	const char *brand;
	const char *id, *codename;
} uarch_rows[] = {
	/* AMD family 17h: Zen, Zen+, Zen 2 */
	{ AMD, 0x17, 0x00, 0x07, ANY_STEP, "EPYC", "zen", "Naples" },
	{ AMD, 0x17, 0x00, 0x07, ANY_STEP, "Threadripper", "zen", "Whitehaven" },
	{ AMD, 0x17, 0x00, 0x07, ANY_STEP, NULL, "zen", "Summit Ridge" },
	{ AMD, 0x17, 0x08, 0x0f, ANY_STEP, "Threadripper", "zen+", "Colfax" },
	{ AMD, 0x17, 0x08, 0x0f, ANY_STEP, NULL, "zen+", "Pinnacle Ridge" },
	{ AMD, 0x17, 0x10, 0x17, ANY_STEP, NULL, "zen", "Raven Ridge" },
	{ AMD, 0x17, 0x18, 0x1f, ANY_STEP, NULL, "zen+", "Picasso" },
	{ AMD, 0x17, 0x20, 0x2f, ANY_STEP, NULL, "zen", "Dali" },
	{ AMD, 0x17, 0x30, 0x3f, ANY_STEP, "Threadripper", "zen2", "Castle Peak" },
	{ AMD, 0x17, 0x30, 0x3f, ANY_STEP, NULL, "zen2", "Rome" },
	{ AMD, 0x17, 0x40, 0x4f, ANY_STEP, NULL, "zen2", NULL },
	{ AMD, 0x17, 0x50, 0x5f, ANY_STEP, NULL, "zen", NULL },
	{ AMD, 0x17, 0x60, 0x67, ANY_STEP, NULL, "zen2", "Renoir" },
	{ AMD, 0x17, 0x68, 0x6f, ANY_STEP, NULL, "zen2", "Lucienne" },
	{ AMD, 0x17, 0x70, 0x7f, ANY_STEP, NULL, "zen2", "Matisse" },
	{ AMD, 0x17, 0x90, 0x91, ANY_STEP, NULL, "zen2", "Van Gogh" },
	{ AMD, 0x17, 0xa0, 0xaf, ANY_STEP, NULL, "zen2", "Mendocino" },
	/* AMD family 19h: Zen 3, Zen 4 */
	{ AMD, 0x19, 0x00, 0x07, ANY_STEP, NULL, "zen3", "Milan" },
	{ AMD, 0x19, 0x08, 0x0f, ANY_STEP, NULL, "zen3", "Chagall" },
	{ AMD, 0x19, 0x10, 0x17, ANY_STEP, NULL, "zen4", "Genoa" },
	{ AMD, 0x19, 0x18, 0x1f, ANY_STEP, NULL, "zen4", "Storm Peak" },
	{ AMD, 0x19, 0x20, 0x2f, ANY_STEP, NULL, "zen3", "Vermeer" },
	{ AMD, 0x19, 0x30, 0x3f, ANY_STEP, NULL, "zen3", NULL },
	{ AMD, 0x19, 0x40, 0x4f, ANY_STEP, NULL, "zen3", "Rembrandt" },
	{ AMD, 0x19, 0x50, 0x5f, ANY_STEP, NULL, "zen3", "Cezanne" },
	{ AMD, 0x19, 0x60, 0x6f, ANY_STEP, NULL, "zen4", "Raphael" },
	{ AMD, 0x19, 0x70, 0x7f, ANY_STEP, NULL, "zen4", "Phoenix" },
	{ AMD, 0x19, 0x80, 0x9f, ANY_STEP, NULL, "zen4", NULL },
	{ AMD, 0x19, 0xa0, 0xaf, ANY_STEP, "EPYC 8", "zen4", "Siena" },
	{ AMD, 0x19, 0xa0, 0xaf, ANY_STEP, NULL, "zen4", "Bergamo" },
	/* AMD family 1Ah: Zen 5, Zen 6 */
	{ AMD, 0x1a, 0x00, 0x0f, ANY_STEP, NULL, "zen5", "Turin" },
	{ AMD, 0x1a, 0x10, 0x1f, ANY_STEP, NULL, "zen5", "Turin Dense" },
	{ AMD, 0x1a, 0x20, 0x2f, ANY_STEP, NULL, "zen5", "Strix Point" },
	{ AMD, 0x1a, 0x40, 0x4f, ANY_STEP, NULL, "zen5", "Granite Ridge" },
	{ AMD, 0x1a, 0x50, 0x5f, ANY_STEP, NULL, "zen6", NULL },
	{ AMD, 0x1a, 0x60, 0x6f, ANY_STEP, NULL, "zen5", "Krackan Point" },
	{ AMD, 0x1a, 0x70, 0x7f, ANY_STEP, NULL, "zen5", "Strix Halo" },
	{ AMD, 0x1a, 0x80, 0xaf, ANY_STEP, NULL, "zen6", NULL },
	{ AMD, 0x1a, 0xc0, 0xcf, ANY_STEP, NULL, "zen6", NULL },
	/* Hygon family 18h: licensed Zen */
	{ HYGON, 0x18, 0x00, 0x0f, ANY_STEP, NULL, "zen", "Dhyana" },

	/* Intel family 6, big cores */
	{ INTEL, 6, 0x1a, 0x1a, ANY_STEP, NULL, "nehalem", "Nehalem-EP" },
	{ INTEL, 6, 0x1e, 0x1f, ANY_STEP, NULL, "nehalem", "Lynnfield" },
	{ INTEL, 6, 0x2e, 0x2e, ANY_STEP, NULL, "nehalem", "Nehalem-EX" },
	{ INTEL, 6, 0x25, 0x25, ANY_STEP, NULL, "westmere", "Westmere" },
	{ INTEL, 6, 0x2c, 0x2c, ANY_STEP, NULL, "westmere", "Westmere-EP" },
	{ INTEL, 6, 0x2f, 0x2f, ANY_STEP, NULL, "westmere", "Westmere-EX" },
	{ INTEL, 6, 0x2a, 0x2a, ANY_STEP, NULL, "sandy-bridge", "Sandy Bridge" },
	{ INTEL, 6, 0x2d, 0x2d, ANY_STEP, NULL, "sandy-bridge", "Sandy Bridge-E" },
	{ INTEL, 6, 0x3a, 0x3a, ANY_STEP, NULL, "ivy-bridge", "Ivy Bridge" },
	{ INTEL, 6, 0x3e, 0x3e, ANY_STEP, NULL, "ivy-bridge", "Ivy Bridge-E" },
	{ INTEL, 6, 0x3c, 0x3c, ANY_STEP, NULL, "haswell", "Haswell" },
	{ INTEL, 6, 0x45, 0x45, ANY_STEP, NULL, "haswell", "Haswell-ULT" },
	{ INTEL, 6, 0x46, 0x46, ANY_STEP, NULL, "haswell", "Crystal Well" },
	{ INTEL, 6, 0x3f, 0x3f, ANY_STEP, NULL, "haswell", "Haswell-E" },
	{ INTEL, 6, 0x3d, 0x3d, ANY_STEP, NULL, "broadwell", "Broadwell" },
	{ INTEL, 6, 0x47, 0x47, ANY_STEP, NULL, "broadwell", "Broadwell-H" },
	{ INTEL, 6, 0x4f, 0x4f, ANY_STEP, NULL, "broadwell", "Broadwell-E" },
	{ INTEL, 6, 0x56, 0x56, ANY_STEP, NULL, "broadwell", "Broadwell-DE" },
	{ INTEL, 6, 0x4e, 0x4e, ANY_STEP, NULL, "skylake", "Skylake" },
	{ INTEL, 6, 0x5e, 0x5e, ANY_STEP, NULL, "skylake", "Skylake" },
	/* Model 0x55 is three generations told apart by stepping. */
	{ INTEL, 6, 0x55, 0x55, 0x0, 0x4, "Xeon", "skylake", "Skylake-SP" },
	{ INTEL, 6, 0x55, 0x55, 0x0, 0x4, NULL, "skylake", "Skylake-X" },
	{ INTEL, 6, 0x55, 0x55, 0x5, 0x7, "Xeon", "cascade-lake", "Cascade Lake-SP" },
	{ INTEL, 6, 0x55, 0x55, 0x5, 0x7, NULL, "cascade-lake", "Cascade Lake-X" },
	{ INTEL, 6, 0x55, 0x55, 0xa, 0xb, NULL, "cooper-lake", "Cooper Lake-SP" },
	{ INTEL, 6, 0x8e, 0x8e, 0x0, 0x9, NULL, "kaby-lake", "Kaby Lake" },
	{ INTEL, 6, 0x8e, 0x8e, 0xa, 0xa, NULL, "kaby-lake", "Kaby Lake-R" },
	{ INTEL, 6, 0x8e, 0x8e, 0xb, 0xb, NULL, "coffee-lake", "Whiskey Lake" },
	{ INTEL, 6, 0x8e, 0x8e, 0xc, 0xc, NULL, "comet-lake", "Comet Lake-U" },
	{ INTEL, 6, 0x9e, 0x9e, 0x0, 0x9, NULL, "kaby-lake", "Kaby Lake" },
	{ INTEL, 6, 0x9e, 0x9e, 0xa, 0xd, NULL, "coffee-lake", "Coffee Lake" },
	{ INTEL, 6, 0xa5, 0xa5, ANY_STEP, NULL, "comet-lake", "Comet Lake" },
	{ INTEL, 6, 0xa6, 0xa6, ANY_STEP, NULL, "comet-lake", "Comet Lake-U" },
	{ INTEL, 6, 0x66, 0x66, ANY_STEP, NULL, "cannon-lake", "Cannon Lake" },
	{ INTEL, 6, 0x7d, 0x7e, ANY_STEP, NULL, "ice-lake", "Ice Lake" },
	{ INTEL, 6, 0x6a, 0x6a, ANY_STEP, NULL, "ice-lake", "Ice Lake-SP" },
	{ INTEL, 6, 0x6c, 0x6c, ANY_STEP, NULL, "ice-lake", "Ice Lake-D" },
	{ INTEL, 6, 0x8c, 0x8c, ANY_STEP, NULL, "tiger-lake", "Tiger Lake" },
	{ INTEL, 6, 0x8d, 0x8d, ANY_STEP, NULL, "tiger-lake", "Tiger Lake-H" },
	{ INTEL, 6, 0xa7, 0xa7, ANY_STEP, NULL, "rocket-lake", "Rocket Lake" },
	{ INTEL, 6, 0x8f, 0x8f, ANY_STEP, NULL, "sapphire-rapids", "Sapphire Rapids" },
	{ INTEL, 6, 0xcf, 0xcf, ANY_STEP, NULL, "emerald-rapids", "Emerald Rapids" },
	{ INTEL, 6, 0xad, 0xad, ANY_STEP, NULL, "granite-rapids", "Granite Rapids" },
	{ INTEL, 6, 0xae, 0xae, ANY_STEP, NULL, "granite-rapids", "Granite Rapids-D" },
	{ INTEL, 6, 0xaf, 0xaf, ANY_STEP, NULL, "sierra-forest", "Sierra Forest" },
	{ INTEL, 6, 0xdd, 0xdd, ANY_STEP, NULL, "clearwater-forest", "Clearwater Forest" },
	{ INTEL, 6, 0x97, 0x97, ANY_STEP, NULL, "alder-lake", "Alder Lake-S" },
	{ INTEL, 6, 0x9a, 0x9a, ANY_STEP, NULL, "alder-lake", "Alder Lake-P" },
	{ INTEL, 6, 0xbe, 0xbe, ANY_STEP, NULL, "alder-lake", "Alder Lake-N" },
	{ INTEL, 6, 0xb7, 0xb7, ANY_STEP, NULL, "raptor-lake", "Raptor Lake-S" },
	{ INTEL, 6, 0xba, 0xba, ANY_STEP, NULL, "raptor-lake", "Raptor Lake-P" },
	{ INTEL, 6, 0xbf, 0xbf, ANY_STEP, NULL, "raptor-lake", "Raptor Lake-S" },
	{ INTEL, 6, 0xaa, 0xaa, ANY_STEP, NULL, "meteor-lake", "Meteor Lake" },
	{ INTEL, 6, 0xac, 0xac, ANY_STEP, NULL, "meteor-lake", "Meteor Lake" },
	{ INTEL, 6, 0xb5, 0xb5, ANY_STEP, NULL, "meteor-lake", "Arrow Lake-U" },
	{ INTEL, 6, 0xbd, 0xbd, ANY_STEP, NULL, "lunar-lake", "Lunar Lake" },
	{ INTEL, 6, 0xc5, 0xc5, ANY_STEP, NULL, "arrow-lake", "Arrow Lake-H" },
	{ INTEL, 6, 0xc6, 0xc6, ANY_STEP, NULL, "arrow-lake", "Arrow Lake-S" },
	{ INTEL, 6, 0xcc, 0xcc, ANY_STEP, NULL, "panther-lake", "Panther Lake" },
	/* Intel family 6, Atom and Xeon Phi cores */
	{ INTEL, 6, 0x37, 0x37, ANY_STEP, NULL, "silvermont", "Bay Trail" },
	{ INTEL, 6, 0x4d, 0x4d, ANY_STEP, NULL, "silvermont", "Avoton" },
	{ INTEL, 6, 0x4c, 0x4c, ANY_STEP, NULL, "silvermont", "Cherry Trail" },
	{ INTEL, 6, 0x5c, 0x5c, ANY_STEP, NULL, "goldmont", "Apollo Lake" },
	{ INTEL, 6, 0x5f, 0x5f, ANY_STEP, NULL, "goldmont", "Denverton" },
	{ INTEL, 6, 0x7a, 0x7a, ANY_STEP, NULL, "goldmont-plus", "Gemini Lake" },
	{ INTEL, 6, 0x86, 0x86, ANY_STEP, NULL, "tremont", "Snow Ridge" },
	{ INTEL, 6, 0x96, 0x96, ANY_STEP, NULL, "tremont", "Elkhart Lake" },
	{ INTEL, 6, 0x9c, 0x9c, ANY_STEP, NULL, "tremont", "Jasper Lake" },
	{ INTEL, 6, 0x57, 0x57, ANY_STEP, NULL, "knights-landing", "Knights Landing" },
	{ INTEL, 6, 0x85, 0x85, ANY_STEP, NULL, "knights-mill", "Knights Mill" },
	/* Intel family 19 */
	{ INTEL, 19, 0x01, 0x01, ANY_STEP, NULL, "diamond-rapids", "Diamond Rapids" },
};

static const struct uarch_def *uarch_def(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(uarch_defs); i++)
		if (!strcmp(uarch_defs[i].id, id))
			return &uarch_defs[i];
	return NULL;
}

bool kb_uarch_has_perfmon_v2(const char *id)
{
	const struct uarch_def *d = uarch_def(id);

	return d && (d->flags & UA_AMD_PERFMON_V2);
}

bool kb_vendor_is_amd(const char *vendor)
{
	return !strcmp(vendor, AMD) || !strcmp(vendor, HYGON);
}

const char *const *kb_uarch_vocabulary(void)
{
	static const char *ids[ARRAY_SIZE(uarch_defs) + 1];

	if (!ids[0])
		for (size_t i = 0; i < ARRAY_SIZE(uarch_defs); i++)
			ids[i] = uarch_defs[i].id;
	return ids;
}

static bool row_matches(const struct uarch_row *r, const char *vendor, int family, int model, int stepping,
			const char *brand)
{
	return !strcmp(r->vendor, vendor) && r->family == family && model >= r->model_lo &&
	       model <= r->model_hi && stepping >= r->step_lo && stepping <= r->step_hi &&
	       (!r->brand || (brand && strstr(brand, r->brand)));
}

void kb_uarch_lookup(const char *vendor, int family, int model, int stepping, const char *brand,
		     struct kb_uarch *u)
{
	const struct uarch_def *d = uarch_def("unknown");

	u->codename = "unknown";
	for (size_t i = 0; i < ARRAY_SIZE(uarch_rows); i++) {
		const struct uarch_row *r = &uarch_rows[i];

		if (!row_matches(r, vendor, family, model, stepping, brand))
			continue;
		d = uarch_def(r->id);
		if (r->codename)
			u->codename = r->codename;
		break;
	}
	u->id = d->id;
	u->name = d->name;
}

static bool ranges_overlap(int a_lo, int a_hi, int b_lo, int b_hi)
{
	return a_lo <= b_hi && b_lo <= a_hi;
}

int kb_uarch_table_validate(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(uarch_rows); i++) {
		const struct uarch_row *a = &uarch_rows[i];

		if (!uarch_def(a->id) || !strcmp(a->id, "unknown"))
			return kb_fail(EINVAL, "microarchitecture table row %zu: '%s' is not in the vocabulary", i, a->id);
		if (a->model_lo > a->model_hi || a->step_lo > a->step_hi || a->step_hi > 0xf)
			return kb_fail(EINVAL, "microarchitecture table row %zu (%s): empty or bad range", i, a->id);
		for (size_t j = i + 1; j < ARRAY_SIZE(uarch_rows); j++) {
			const struct uarch_row *b = &uarch_rows[j];

			if (strcmp(a->vendor, b->vendor) || a->family != b->family ||
			    !ranges_overlap(a->model_lo, a->model_hi, b->model_lo, b->model_hi) ||
			    !ranges_overlap(a->step_lo, a->step_hi, b->step_lo, b->step_hi))
				continue;
			/* Overlap is only a brand refinement of one part, placed before the general row. */
			if (!a->brand || strcmp(a->id, b->id))
				return kb_fail(EINVAL, "microarchitecture table rows %zu and %zu (%s, %s) overlap for %s "
					       "family %#x", i, j, a->id, b->id, a->vendor, a->family);
		}
	}
	return 0;
}
