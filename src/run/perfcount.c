/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfcount.c: host performance counters on the vCPU threads (run --perf), by perf's event names. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/kb.h"
#include "run/perfcount.h"

#define CACHE(id, op, result) \
	((PERF_COUNT_HW_CACHE_##id) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | (PERF_COUNT_HW_CACHE_RESULT_##result << 16))

/* perf's generic event names (perf list), the ones that say something about an exit's host side. */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} known[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, MISS) },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS) },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

const char *kb_perf_known(void)
{
	static char names[512];

	if (!names[0])
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? "," : "", known[i].name);
	return names;
}

static int open_one(const struct kb_perf_event *e)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	/* The host's side of the exits: KVM_RUN's time in the guest is not counted. */
	a.exclude_guest = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int kb_perf_parse(const char *list, struct kb_perf_set *set)
{
	char buf[512], *save = NULL;

	memset(set, 0, sizeof(*set));
	if (!list || !*list)
		return 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct kb_perf_event *e;
		size_t k;
		int fd;

		for (k = 0; k < ARRAY_SIZE(known) && strcmp(known[k].name, tok); k++)
			;
		if (k == ARRAY_SIZE(known))
			return kb_fail(EINVAL, "--perf: '%s' is not an event kvmbench counts (%s)", tok, kb_perf_known());
		for (int i = 0; i < set->n; i++)
			if (!strcmp(set->ev[i].name, tok))
				return kb_fail(EINVAL, "--perf: '%s' is listed twice", tok);
		if (set->n == KB_PERF_MAX)
			return kb_fail(EINVAL, "--perf: at most %d events", KB_PERF_MAX);
		e = &set->ev[set->n++];
		snprintf(e->name, sizeof(e->name), "%s", known[k].name);
		e->type = known[k].type;
		e->config = known[k].config;
		fd = open_one(e);
		if (fd < 0)
			e->open_errno = errno;
		else
			close(fd);
	}
	return 0;
}

const char *kb_perf_why(const struct kb_perf_set *set, int i, char *buf, size_t size)
{
	const struct kb_perf_event *e = &set->ev[i];

	if (!e->open_errno)
		return NULL;
	if (e->type != PERF_TYPE_SOFTWARE && (e->open_errno == ENOENT || e->open_errno == EOPNOTSUPP ||
					      e->open_errno == ENODEV))
		snprintf(buf, size, "this host has no PMU counter for it (perf_event_open: %s); under a hypervisor, "
			 "the VM may have no vPMU", strerror(e->open_errno));
	else if (e->open_errno == EACCES || e->open_errno == EPERM)
		snprintf(buf, size, "not permitted (perf_event_open: %s): see /proc/sys/kernel/perf_event_paranoid",
			 strerror(e->open_errno));
	else
		snprintf(buf, size, "perf_event_open: %s", strerror(e->open_errno));
	return buf;
}

int kb_perf_open_self(const struct kb_perf_set *set, struct kb_perf_counters *c)
{
	c->n = set ? set->n : 0;
	for (int i = 0; i < c->n; i++) {
		c->fd[i] = -1;
		if (set->ev[i].open_errno)
			continue;
		c->fd[i] = open_one(&set->ev[i]);
		if (c->fd[i] < 0) {
			int err = errno;

			kb_perf_close(c);
			return kb_fail(err, "--perf %s on a vCPU thread: perf_event_open: %s", set->ev[i].name, strerror(err));
		}
	}
	return 0;
}

void kb_perf_read(const struct kb_perf_counters *c, uint64_t *vals)
{
	for (int i = 0; i < c->n; i++) {
		vals[i] = 0;
		if (c->fd[i] >= 0 && read(c->fd[i], &vals[i], sizeof(vals[i])) != (ssize_t)sizeof(vals[i]))
			vals[i] = 0;
	}
}

void kb_perf_close(struct kb_perf_counters *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->fd[i] >= 0) {
			close(c->fd[i]);
			c->fd[i] = -1;
		}
	c->n = 0;
}
