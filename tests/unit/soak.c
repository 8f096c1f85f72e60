/* SPDX-License-Identifier: GPL-2.0-or-later */
/* soak.c: tools/soak.sh's engine: create, run and destroy a machine CYCLES times in one process,
 * printing its RSS, open file descriptors and threads (from /proc/self) every INTERVAL cycles. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kb.h"
#include "run/crew.h"
#include "vmm/kvm.h"
#include "vmm/machine.h"

static void no_params(int vcpu, uint64_t param[6], void *arg)
{
}

/* "VmRSS:" and "Threads:" of /proc/self/status. */
static void status(long *rss_kb, long *threads)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	*rss_kb = *threads = -1;
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", rss_kb);
		sscanf(line, "Threads: %ld", threads);
	}
	if (f)
		fclose(f);
}

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return d ? n - 1 : -1;   /* less the directory's own descriptor */
}

static void sample(long cycle, uint64_t t0)
{
	long rss, threads;

	status(&rss, &threads);
	printf("%ld %.3f %ld %ld %ld\n", cycle, (double)(kb_now_ns() - t0) / 1e9, rss, open_fds(), threads);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static volatile sig_atomic_t stop;
	long cycles = argc > 1 ? atol(argv[1]) : 10000, every = argc > 2 ? atol(argv[2]) : 500;
	struct kb_run_opts opts = { .timeout_ns = 10000000000ULL };
	struct kb_run_ctx ctx = { .opts = &opts, .stop = &stop };
	struct kb_kvm kvm;
	uint64_t t0;

	if (cycles < 1 || every < 1) {
		fprintf(stderr, "usage: soak [CYCLES [INTERVAL]]\n");
		return 2;
	}
	if (kb_kvm_open(&kvm, "/dev/kvm") || kb_watchdog_init()) {
		fprintf(stderr, "soak: %s\n", kb_last_error());
		return 2;
	}
	ctx.kvm = &kvm;
	printf("# cycle seconds rss_kb fds threads\n");
	t0 = kb_now_ns();
	sample(0, t0);
	for (long c = 1; c <= cycles; c++) {
		/* One and two vCPUs in turn: both thread counts come and go. */
		struct kb_machine_cfg mcfg = { .nvcpus = 1 + (int)(c & 1), .mem_node = -1 };
		struct kb_crew_result res[2] = { 0 };
		struct kb_crew_phase ph = { KB_LOOP_NOP, 1000, no_params, NULL };
		struct kb_machine m;
		struct kb_crew *crew = NULL;
		uint64_t wall;
		int err;

		ctx.vcpus = mcfg.nvcpus;
		if (kb_machine_create(&kvm, &mcfg, &m)) {
			fprintf(stderr, "soak: cycle %ld: %s\n", c, kb_last_error());
			return 1;
		}
		err = kb_crew_start(&crew, &m, &ctx);
		if (!err)
			err = kb_crew_run(crew, &ph, res, &wall);
		kb_crew_stop(crew);
		kb_machine_destroy(&m);
		if (err) {
			fprintf(stderr, "soak: cycle %ld: %s\n", c, kb_last_error());
			return 1;
		}
		if (c % every == 0 || c == cycles)
			sample(c, t0);
	}
	kb_kvm_close(&kvm);
	return 0;
}
