/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestmem.c: test memory for the memory suites: backing sources, host availability, mapping. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vmm/guestmem.h"
#include "core/kb.h"
#include "vmm/membind.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define HUGE_2M_FLAG (21 << MAP_HUGE_SHIFT)
#define HUGE_1G_FLAG (30 << MAP_HUGE_SHIFT)

static const char *const names[KB_NBACKINGS] = {
	[KB_BACKING_ANON] = "anon",
	[KB_BACKING_THP] = "thp",
	[KB_BACKING_HUGETLB_2M] = "hugetlb-2m",
	[KB_BACKING_HUGETLB_1G] = "hugetlb-1g",
};

const char *kb_backing_name(enum kb_backing b)
{
	return (unsigned int)b < KB_NBACKINGS ? names[b] : "?";
}

int kb_backing_parse(const char *s, enum kb_backing *out)
{
	for (int i = 0; i < KB_NBACKINGS; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum kb_backing)i;
			return 0;
		}
	return kb_fail(EINVAL, "'%s' is not a memory backing (anon, thp, hugetlb-2m or hugetlb-1g)", s);
}

uint64_t kb_backing_page_size(enum kb_backing b)
{
	switch (b) {
	case KB_BACKING_THP:
	case KB_BACKING_HUGETLB_2M: return 2ULL << 20;
	case KB_BACKING_HUGETLB_1G: return 1ULL << 30;
	default: return 4096;
	}
}

uint64_t kb_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

static long read_long(const char *path)
{
	char buf[64];

	if (kb_read_text(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/* Reserved hugetlb pages of one size that are free and not promised to another mapping. */
static int check_hugetlb(enum kb_backing b, uint64_t bytes, int node)
{
	const char *kb_dir = b == KB_BACKING_HUGETLB_1G ? "hugepages-1048576kB" : "hugepages-2048kB";
	const char *label = b == KB_BACKING_HUGETLB_1G ? "1 GiB" : "2 MiB";
	long need = (long)(bytes / kb_backing_page_size(b)), total, free_pages, resv, avail;
	char dir[160], path[256];

	snprintf(dir, sizeof(dir), "/sys/kernel/mm/hugepages/%s", kb_dir);
	snprintf(path, sizeof(path), "%s/nr_hugepages", dir);
	total = read_long(path);
	if (total < 0)
		return kb_fail(ENOTSUP, "%s huge pages are not supported here (no %s: %s)", label, dir,
			       b == KB_BACKING_HUGETLB_1G ? "the CPU lacks pdpe1gb or the kernel gigantic pages"
							  : "the kernel lacks hugetlbfs");
	snprintf(path, sizeof(path), "%s/free_hugepages", dir);
	free_pages = read_long(path);
	snprintf(path, sizeof(path), "%s/resv_hugepages", dir);
	resv = read_long(path);
	avail = free_pages - (resv > 0 ? resv : 0);
	if (avail < need) {
		long want = total + need - (avail > 0 ? avail : 0);

		/* Reserving huge pages takes root: say so, and name the file that reserves them. */
		snprintf(path, sizeof(path), "%s/nr_hugepages", dir);
		return kb_fail(ENOTSUP, "needs %ld free %s huge pages, %ld free: echo %ld > %s as root%s", need, label,
			       avail > 0 ? avail : 0, want,
			       b == KB_BACKING_HUGETLB_1G ? path : "/proc/sys/vm/nr_hugepages",
			       b == KB_BACKING_HUGETLB_1G ? " (or boot with hugepagesz=1G hugepages=N)" : "");
	}
	if (node >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/%s/free_hugepages", node, kb_dir);
		free_pages = read_long(path);
		if (free_pages >= 0 && free_pages < need) {
			snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/%s/nr_hugepages", node,
				 kb_dir);
			return kb_fail(ENOTSUP, "needs %ld free %s huge pages on NUMA node %d (guest memory is bound "
				       "there), %ld free: echo %ld > %s", need, label, node, free_pages,
				       read_long(path) + need - free_pages, path);
		}
	}
	return 0;
}

int kb_backing_check(enum kb_backing b, uint64_t bytes, int node, const char *advice)
{
	uint64_t avail;
	char thp[128];

	if (b == KB_BACKING_HUGETLB_2M || b == KB_BACKING_HUGETLB_1G)
		return check_hugetlb(b, bytes, node);
	if (b == KB_BACKING_THP && !kb_read_text("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp)) &&
	    strstr(thp, "[never]"))
		return kb_fail(ENOTSUP, "transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/enabled "
			       "is '%s'): echo madvise > /sys/kernel/mm/transparent_hugepage/enabled", thp);
	if (b == KB_BACKING_THP && kb_read_text("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp)))
		return kb_fail(ENOTSUP, "this kernel has no transparent huge pages "
			       "(no /sys/kernel/mm/transparent_hugepage/enabled)");
	avail = kb_mem_available();
	if (avail && bytes > avail)
		return kb_fail(ENOMEM, "needs %" PRIu64 " MiB of guest memory, but this host has only %" PRIu64
			       " MiB available (MemAvailable in /proc/meminfo): %s", bytes >> 20, avail >> 20, advice);
	return 0;
}

int kb_guestmem_map(struct kb_guestmem *g, uint64_t size, enum kb_backing b, int mem_node)
{
	uint64_t page = kb_backing_page_size(b);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS, err;
	uint8_t *p;

	memset(g, 0, sizeof(*g));
	g->backing = b;
	g->size = size;
	if (!size || size % page)
		return kb_fail(EINVAL, "%" PRIu64 " MiB of %s memory is not a whole number of %" PRIu64 " KiB pages",
			       size >> 20, kb_backing_name(b), page >> 10);
	if (b == KB_BACKING_HUGETLB_2M || b == KB_BACKING_HUGETLB_1G) {
		/* hugetlb mappings come aligned to their page size; the pages are reserved here. */
		flags |= MAP_HUGETLB | (b == KB_BACKING_HUGETLB_1G ? HUGE_1G_FLAG : HUGE_2M_FLAG);
		g->map_size = size;
	} else {
		/* 2 MiB alignment, so a THP can back a 2 MiB guest page at the same offset. */
		g->map_size = size + (2ULL << 20);
	}
	g->map = mmap(NULL, g->map_size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (g->map == MAP_FAILED) {
		g->map = NULL;
		return kb_fail(errno, "test memory: mmap of %" PRIu64 " MiB of %s memory failed: %s%s", size >> 20,
			       kb_backing_name(b), strerror(errno),
			       errno == ENOMEM && flags & MAP_HUGETLB ? " (not enough huge pages reserved)" : "");
	}
	p = g->map;
	if (!(flags & MAP_HUGETLB)) {
		uintptr_t a = ((uintptr_t)p + (2ULL << 20) - 1) & ~(uintptr_t)((2ULL << 20) - 1);

		p = (uint8_t *)a;
		if (madvise(p, size, b == KB_BACKING_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
			err = kb_fail(errno, "test memory: madvise(%s): %s",
				      b == KB_BACKING_THP ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", strerror(errno));
			goto fail;
		}
	}
	g->hva = p;
	err = kb_mem_bind_node(g->hva, size, mem_node);
	if (err)
		goto fail;
	return 0;
fail:
	kb_guestmem_unmap(g);
	return err;
}

void kb_guestmem_unmap(struct kb_guestmem *g)
{
	if (g->map)
		munmap(g->map, g->map_size);
	g->map = NULL;
	g->hva = NULL;
}

int64_t kb_guestmem_thp_bytes(const struct kb_guestmem *g)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	uintptr_t lo, hi;
	int64_t total = -1;
	bool inside = false;
	unsigned long long kb;

	if (!f)
		return -1;
	/* The madvise() above may have split the mapping: add up every VMA inside the range. */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			inside = lo >= (uintptr_t)g->hva && hi <= (uintptr_t)g->hva + g->size;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			total = (total < 0 ? 0 : total) + (int64_t)(kb << 10);
	}
	fclose(f);
	return total;
}
