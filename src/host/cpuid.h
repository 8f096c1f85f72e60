/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid.h: the raw CPUID of a machine (this one, or a dump's): one block of leaves per logical CPU. */
#ifndef KB_CPUID_H
#define KB_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One CPUID result: leaf (EAX in), subleaf (ECX in), EAX/EBX/ECX/EDX out. */
struct kb_cpuid_entry {
	uint32_t leaf, subleaf;
	uint32_t r[4];
};

/* The CPUID of one logical CPU: its leaves in the order they were added, and a hash index of
 * them (slot[] holds an index into e[] plus one, 0 for a free slot), so that a lookup takes a
 * few probes and not a scan of every leaf: a dump of 128 CPUs is looked up thousands of times. */
struct kb_cpuid_cpu {
	int os_index;               /* the OS's CPU number, or the dump's block number */
	struct kb_cpuid_entry *e;
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;               /* a power of two, at least twice n; 0 before the first leaf */
	size_t probes;              /* slots kb_cpuid_add_entry() looked at (tests/unit/cpu counts them) */
};

/* The leaves of each range a libcpuid dump holds at most: libcpuid's MAX_CPUID_LEVEL (and
 * MAX_EXT_CPUID_LEVEL), the size of its arrays (libcpuid_constants.h, 0.5 and 0.6).  A fact of the
 * dump format, written here so that reading dumps needs no libcpuid, which exists for x86 only;
 * x86 builds check it against libcpuid's own (src/host/arch/x86/cpuid-live.c). */
#define KB_LIBCPUID_DUMP_LEVELS 32

/* The raw CPUID of a whole machine: one block per logical CPU (old dumps hold only one). */
struct kb_cpuid_set {
	struct kb_cpuid_cpu *cpu;
	size_t ncpus, cap;
	bool per_cpu;               /* blocks really are distinct logical CPUs */
	bool live;                  /* read from this machine (kb_cpuid_collect), not from a dump */
	bool libcpuid_format;       /* libcpuid's "basic_cpuid[N]=" lines: at most KB_LIBCPUID_DUMP_LEVELS leaves a range */
	char source[256];           /* "this machine" or the file name */
};

/* Read a raw CPUID dump: libcpuid's "basic_cpuid[N]=" format, AIDA64's "Logical CPU #N" and
 * "CPUID Registers / Logical CPU #N" blocks, or InstLatX64's "CPU#000 AffMask" blocks; the file
 * may be xz-compressed.  Everything after the first line of dashes is ignored. */
int kb_cpuid_read_file(struct kb_cpuid_set *s, const char *path);
int kb_cpuid_parse(struct kb_cpuid_set *s, const char *text);
/* Whether every block lists its leaves up to the maximum leaf it reports (kb_cpuid_read_file()
 * checks): -EINVAL naming the CPU and the leaf for a dump cut short. */
int kb_cpuid_check_whole(const struct kb_cpuid_set *s);
/* Execute CPUID (through libcpuid) on every CPU this process may run on. */
int kb_cpuid_collect(struct kb_cpuid_set *s);
void kb_cpuid_free(struct kb_cpuid_set *s);
/* Look a leaf up; false when the CPU did not report it (beyond its maximum leaf, or absent). */
bool kb_cpuid_get(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/* For the readers: a new, empty CPU block; a leaf stored in a block (replacing the same
 * leaf/subleaf); a leaf as stored, whatever the maximum leaf says (NULL when absent). */
struct kb_cpuid_cpu *kb_cpuid_add_cpu(struct kb_cpuid_set *s, int os_index);
void kb_cpuid_add_entry(struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub, const uint32_t r[4]);
const struct kb_cpuid_entry *kb_cpuid_find(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub);

#endif
