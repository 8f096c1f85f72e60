/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uarch.h: the microarchitecture table: which generation a CPU part is, and what that generation has. */
#ifndef KB_UARCH_H
#define KB_UARCH_H

#include <stdbool.h>

/* CPUID vendor strings. */
#define KB_VENDOR_INTEL "GenuineIntel"
#define KB_VENDOR_AMD "AuthenticAMD"
#define KB_VENDOR_HYGON "HygonGenuine"

/* AMD, or Hygon (a licensed Zen): the vendors with AMD's PMU and SVM. */
bool kb_vendor_is_amd(const char *vendor);

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
/* Whether bare-metal parts of this generation (an id from the vocabulary) have AMD PerfMonV2. */
bool kb_uarch_has_perfmon_v2(const char *id);

#endif
