/* SPDX-License-Identifier: GPL-2.0-or-later */
/* membind.h: bind guest memory to a NUMA node before its first touch (libnuma's mbind). */
#ifndef KB_MEMBIND_H
#define KB_MEMBIND_H

#include <stddef.h>

/* Bind [addr, addr+len) (page-aligned, fresh from mmap) to NUMA node 'node'; node < 0 binds nothing. */
int kb_mem_bind_node(void *addr, size_t len, int node);

#endif
