/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfcount.h: host performance counters on the vCPU threads (run --perf), by perf's event names. */
#ifndef KB_RUN_PERFCOUNT_H
#define KB_RUN_PERFCOUNT_H

#include <stdint.h>

#define KB_PERF_MAX 8

/* The events asked for, and which of them this host can count. */
struct kb_perf_set {
	int n;
	struct kb_perf_event {
		char name[32];          /* perf's name: cycles, page-faults, dTLB-load-misses, ... */
		uint32_t type;          /* PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE */
		uint64_t config;
		int open_errno;         /* 0: countable here; else why perf_event_open refused it */
	} ev[KB_PERF_MAX];
};

/* Parse "cycles,page-faults" (perf's names, at most KB_PERF_MAX) and try each event on this thread:
 * an event the host cannot count keeps its errno (kb_perf_why()).  -EINVAL naming an unknown one. */
int kb_perf_parse(const char *list, struct kb_perf_set *set);
/* Why event i cannot be counted here, for a person; NULL when it can. */
const char *kb_perf_why(const struct kb_perf_set *set, int i, char *buf, size_t size);
/* The names kb_perf_parse() knows, comma-separated. */
const char *kb_perf_known(void);

/* One thread's counters: opened on the calling thread, host side only (the guest's own execution
 * excluded), counting from the start; fd -1 for an event not countable here. */
struct kb_perf_counters {
	int n;
	int fd[KB_PERF_MAX];
};
int kb_perf_open_self(const struct kb_perf_set *set, struct kb_perf_counters *c);
/* Each counter's value now (0 for one not open). */
void kb_perf_read(const struct kb_perf_counters *c, uint64_t *vals);
void kb_perf_close(struct kb_perf_counters *c);

#endif
