/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hblimits.c: whether this host lets hackbench start its processes and open its channels. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/hblimits.h"
#include "core/kb.h"

/* A number from a /proc/sys file, or -1. */
static long long proc_number(const char *path)
{
	char buf[32];

	return kb_read_text(path, buf, sizeof(buf)) ? -1 : strtoll(buf, NULL, 10);
}

int kb_hackbench_fit_limits(int nprocs, int nfds)
{
	struct rlimit rl;
	long long pid_max = proc_number("/proc/sys/kernel/pid_max");
	long long threads_max = proc_number("/proc/sys/kernel/threads-max");
	const char *fix = "lower --hackbench-groups or --hackbench-fds";

	if (pid_max > 0 && nprocs >= pid_max)
		return kb_fail(EAGAIN, "hackbench: %d processes do not fit under kernel.pid_max = %lld "
			       "(raise it with sysctl, or %s)", nprocs, pid_max, fix);
	if (threads_max > 0 && nprocs >= threads_max)
		return kb_fail(EAGAIN, "hackbench: %d processes do not fit under kernel.threads-max = %lld "
			       "(raise it with sysctl, or %s)", nprocs, threads_max, fix);
	if (!getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY && (rlim_t)nprocs >= rl.rlim_cur)
		return kb_fail(EAGAIN, "hackbench: %d processes do not fit under this user's process limit, "
			       "ulimit -u = %llu (raise it, or %s)", nprocs, (unsigned long long)rl.rlim_cur, fix);
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || (rlim_t)nfds <= rl.rlim_cur)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && (rlim_t)nfds > rl.rlim_max)
		return kb_fail(EMFILE, "hackbench: needs %d file descriptors, more than the hard limit ulimit -Hn = %llu "
			       "(raise it in limits.conf or with prlimit, or %s)", nfds, (unsigned long long)rl.rlim_max, fix);
	/* The soft limit is this process's own to raise, up to the hard one. */
	rl.rlim_cur = (rlim_t)nfds;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return kb_fail(errno, "hackbench: raising ulimit -n to %d: %s", nfds, strerror(errno));
	return 0;
}
