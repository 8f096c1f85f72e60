/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kvmstats.h: KVM binary statistics (KVM_GET_STATS_FD) for a VM or a vCPU. */
#ifndef KB_KVMSTATS_H
#define KB_KVMSTATS_H

#include <stdbool.h>
#include <stdint.h>

struct kb_stat_desc {
	char *name;
	uint32_t flags;
	uint32_t index;   /* position of the first value in a snapshot */
	uint16_t size;    /* number of u64 values (1 unless a histogram) */
};

struct kb_stats {
	int fd;
	uint32_t ndesc;
	struct kb_stat_desc *desc;
	uint32_t nvals;     /* u64 values in one snapshot */
	uint64_t data_off;
	uint64_t data_size;
};

int kb_stats_open(int owner_fd, struct kb_stats *st);
void kb_stats_close(struct kb_stats *st);
/* vals must hold st->nvals entries. */
int kb_stats_read(const struct kb_stats *st, uint64_t *vals);
/* Index into a snapshot of the scalar stat 'name', or -1 when this kernel has none. */
int kb_stats_find(const struct kb_stats *st, const char *name);
/* Whether the stat at descriptor i is a cumulative counter (deltas make sense). */
bool kb_stats_is_cumulative(const struct kb_stats *st, uint32_t i);

#endif
