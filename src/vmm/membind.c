/* SPDX-License-Identifier: GPL-2.0-or-later */
/* membind.c: bind guest memory to a NUMA node before its first touch (libnuma's mbind). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <numa.h>
#include <numaif.h>

#include "core/kb.h"
#include "vmm/membind.h"

int kb_mem_bind_node(void *addr, size_t len, int node)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bitmask *mask;
	int err = 0;

	if (node < 0 || !len)
		return 0;
	if ((uintptr_t)addr % (uintptr_t)page)
		return kb_fail(EINVAL, "binding guest memory at %p: not page-aligned (bind the mmap()ed region)", addr);
	if (numa_available() < 0)
		return kb_fail(ENOSYS, "binding guest memory to NUMA node %d: this kernel has no NUMA support "
			       "(run with --pin none)", node);
	mask = numa_allocate_nodemask();
	if (!mask)
		return kb_fail(ENOMEM, "binding guest memory: out of memory");
	numa_bitmask_setbit(mask, (unsigned int)node);
	if (mbind(addr, len, MPOL_BIND, mask->maskp, mask->size + 1, MPOL_MF_STRICT | MPOL_MF_MOVE))
		err = kb_fail(errno, "binding %zu bytes of guest memory to NUMA node %d (mbind): %s "
			      "(does the node have free memory? is it allowed by this process's cpuset?)",
			      len, node, strerror(errno));
	numa_free_nodemask(mask);
	return err;
}
