/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestmem.h: where test memory comes from (4 KiB pages, THP, hugetlb 2 MiB / 1 GiB), whether the
 * host can give it now, and mapping it bound to a NUMA node. */
#ifndef KB_GUESTMEM_H
#define KB_GUESTMEM_H

#include <stdbool.h>
#include <stdint.h>

enum kb_backing {
	KB_BACKING_ANON = 0,      /* anonymous memory in 4 KiB pages (MADV_NOHUGEPAGE) */
	KB_BACKING_THP,           /* anonymous memory with transparent huge pages (MADV_HUGEPAGE) */
	KB_BACKING_HUGETLB_2M,    /* MAP_HUGETLB | MAP_HUGE_2MB: reserved 2 MiB pages */
	KB_BACKING_HUGETLB_1G,    /* MAP_HUGETLB | MAP_HUGE_1GB: reserved 1 GiB pages */
	KB_NBACKINGS
};

/* "anon", "thp", "hugetlb-2m", "hugetlb-1g" */
const char *kb_backing_name(enum kb_backing b);
int kb_backing_parse(const char *s, enum kb_backing *out);
/* The host page size the backing maps with at best. */
uint64_t kb_backing_page_size(enum kb_backing b);

/*
 * Whether 'bytes' of this backing can be had now (node >= 0: bound to that NUMA node).  0 when they
 * can; -ENOTSUP when this host cannot give them as configured (hugetlb pages not reserved, 1 GiB
 * pages unsupported, THP off), with the reason and the command that fixes it; -ENOMEM when it is
 * more memory than the host has available, the message ending in 'advice' (what to lower).
 */
int kb_backing_check(enum kb_backing b, uint64_t bytes, int node, const char *advice);


struct kb_guestmem {
	uint8_t *hva;             /* aligned to the backing's page size */
	uint64_t size;
	enum kb_backing backing;
	void *map;                /* what munmap() gets back */
	uint64_t map_size;
};

/* Map 'size' bytes (a multiple of the backing's page size), bound to NUMA node mem_node when it is
 * >= 0, not touched. */
int kb_guestmem_map(struct kb_guestmem *g, uint64_t size, enum kb_backing b, int mem_node);
void kb_guestmem_unmap(struct kb_guestmem *g);
/* Bytes of the mapping that are transparent huge pages now (AnonHugePages in /proc/self/smaps); -1: unknown. */
int64_t kb_guestmem_thp_bytes(const struct kb_guestmem *g);
/* MemAvailable of /proc/meminfo in bytes; 0 when unreadable. */
uint64_t kb_mem_available(void);

#endif
