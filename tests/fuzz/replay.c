/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c: a fuzz target without libFuzzer, built with the ordinary compiler for 'make check'.
 *
 *   replay-TARGET FILE...   run LLVMFuzzerTestOneInput() once on each file, in this process
 *   replay-TARGET           TAP: each kept crasher (tests/fuzz/regressions/TARGET), each seed
 *                           (tests/fuzz/seeds/TARGET) and, for the CPUID and topology targets,
 *                           each real file of $KB_TESTDATA (patch-header: of kernel/patches),
 *                           in a child process of its own
 *
 * A crash, a sanitizer report (the sanitizer build), a leak or an exit from the target fails. */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef KB_FUZZ_TARGET
#error "KB_FUZZ_TARGET must name the target (Makefile.am)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL, *exact;
	size_t size = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (size == cap) {
			cap = cap ? cap * 2 : 4096;
			data = realloc(data, cap);
			if (!data)
				abort();
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n);
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		fclose(f);
		free(data);
		return 1;
	}
	fclose(f);
	/* Exactly the input's size, as libFuzzer passes it: an over-read is caught by ASan. */
	exact = malloc(size ? size : 1);
	if (!exact)
		abort();
	memcpy(exact, data, size);
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	return 0;
}

static char **files;
static size_t nfiles;

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	(void)st;
	if (flag != FTW_F || base[0] == '.' || !strcmp(base, "SOURCES.tsv") || !strcmp(base, "README.md"))
		return 0;
	files = realloc(files, (nfiles + 1) * sizeof(*files));
	if (!files)
		abort();
	files[nfiles++] = strdup(path);
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_dir(const char *dir, const char *sub)
{
	char path[4096];

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (!access(path, R_OK))
		nftw(path, collect, 16, FTW_PHYS);
}

static int tap(void)
{
	const char *src = getenv("KB_SRCDIR"), *data = getenv("KB_TESTDATA");
	int failed = 0;

	add_dir(src, "tests/fuzz/regressions/" KB_FUZZ_TARGET);
	add_dir(src, "tests/fuzz/seeds/" KB_FUZZ_TARGET);
	if (!strcmp(KB_FUZZ_TARGET, "cpuid-dump"))
		add_dir(data, "cpuid");
	if (!strcmp(KB_FUZZ_TARGET, "arm64-dump"))
		add_dir(data, "arm64");
	if (!strcmp(KB_FUZZ_TARGET, "topology"))
		add_dir(data, "topology");
	if (!strcmp(KB_FUZZ_TARGET, "patch-header"))
		add_dir(src, "kernel/patches");
	if (!nfiles) {
		printf("1..0 # SKIP no inputs for %s (KB_SRCDIR=%s)\n", KB_FUZZ_TARGET, src ? src : "unset");
		return 0;
	}
	qsort(files, nfiles, sizeof(*files), cmp_path);
	printf("1..%zu\n", nfiles);
	fflush(stdout);
	for (size_t i = 0; i < nfiles; i++) {
		const char *name = files[i];
		pid_t pid = fork();
		int status = 0;

		if (src && !strncmp(name, src, strlen(src)))
			name += strlen(src) + 1;
		else if (data && !strncmp(name, data, strlen(data)))
			name += strlen(data) + 1;
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			int one = 1;
			char *none[] = { files[i], NULL }, **args = none;

			alarm(120);
#if !defined(__SANITIZE_ADDRESS__)
			/* A kept out-of-memory input fails here, not in the kernel's OOM killer (ASan
			 * reserves terabytes of address space, so not with it). */
			setrlimit(RLIMIT_AS, &(struct rlimit){ 2UL << 30, 2UL << 30 });
#endif
			if (LLVMFuzzerInitialize)
				LLVMFuzzerInitialize(&one, &args);
			exit(replay(files[i]));
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && !WEXITSTATUS(status)) {
			printf("ok %zu - %s: %s\n", i + 1, KB_FUZZ_TARGET, name);
		} else {
			failed = 1;
			if (WIFSIGNALED(status))
				printf("not ok %zu - %s: %s (killed by signal %d%s)\n", i + 1, KB_FUZZ_TARGET, name,
				       WTERMSIG(status), WTERMSIG(status) == SIGALRM ? ": took over 120 s" : "");
			else
				printf("not ok %zu - %s: %s (exit status %d; the report is above)\n", i + 1,
				       KB_FUZZ_TARGET, name, WEXITSTATUS(status));
		}
		fflush(stdout);
	}
	return failed;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc < 2)
		return tap();
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		failed |= replay(argv[i]);
	return failed;
}
