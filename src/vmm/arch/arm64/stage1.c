/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stage1.c: the arm64 guest's stage-1 identity map, written by the host into guest memory; the
 * guest's entry code (guest/arch/arm64/entry.S) points TTBR0_EL1 at it and turns the MMU on. */
#include <errno.h>
#include <string.h>

#include "core/kb.h"
#include "vmm/arch/arm64/arm64.h"
#include "vmm/machine.h"

#define PTE_VALID      (1ULL << 0)
#define PTE_TABLE      (1ULL << 1)     /* levels 0-2: next-level table, not a block */
#define PTE_ATTR(i)    ((uint64_t)(i) << 2)   /* MAIR_EL1 index: 0 normal, 1 device (entry.S) */
#define PTE_SH_INNER   (3ULL << 8)
#define PTE_AF         (1ULL << 10)
#define PTE_PXN        (1ULL << 53)
#define PTE_UXN        (1ULL << 54)
#define BLOCK_NORMAL   (PTE_VALID | PTE_ATTR(0) | PTE_SH_INNER | PTE_AF)
#define BLOCK_DEVICE   (PTE_VALID | PTE_ATTR(1) | PTE_AF | PTE_PXN | PTE_UXN)
#define GIB            (1ULL << 30)
#define MIB2           (2ULL << 20)
#define MAPPED_END     (512 * GIB)     /* what level 0's first entry covers */

void kb_arm64_stage1_build(struct kb_machine *m)
{
	uint64_t *l0 = (uint64_t *)(m->vm.mem + KB_ARM64_PGT_GPA);
	uint64_t *l1 = l0 + 512, *l2 = l1 + 512;

	memset(l0, 0, 3 * KB_PAGE_SIZE);
	l0[0] = (KB_ARM64_PGT_GPA + KB_PAGE_SIZE) | PTE_VALID | PTE_TABLE;
	l1[0] = (KB_ARM64_PGT_GPA + 2 * KB_PAGE_SIZE) | PTE_VALID | PTE_TABLE;
	for (uint64_t i = 1; i < 512; i++)
		l1[i] = i * GIB | BLOCK_NORMAL;
	for (uint64_t i = 0; i < 512; i++)
		l2[i] = i * MIB2 | (i * MIB2 >= KB_ARM64_DEVICE_GPA ? BLOCK_DEVICE : BLOCK_NORMAL);
}

int kb_arm64_stage1_check(uint64_t gpa, uint64_t size)
{
	if (gpa < GIB || gpa + size > MAPPED_END)
		return kb_fail(EINVAL, "memory at GPA 0x%llx (%llu MiB) is outside what the arm64 guest maps as memory "
			       "(1 GiB to 512 GiB)", (unsigned long long)gpa, (unsigned long long)(size >> 20));
	return 0;
}
