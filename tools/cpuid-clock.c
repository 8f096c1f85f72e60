/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid-clock.c: the original way to count CPUID exits per second inside a guest: one fixed run of
 * CPUID in a loop, timed with clock().  Usage: cpuid-clock [ITERATIONS [LEAF]]; prints iterations per second. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	uint32_t leaf = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 0;
	uint32_t a, b, c, d;
	clock_t start, end;

	start = clock();
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(0));
	end = clock();
	if (end <= start) {
		fprintf(stderr, "cpuid-clock: the run was too short for clock() to time it\n");
		return 1;
	}
	printf("%.1f\n", (double)n / ((double)(end - start) / CLOCKS_PER_SEC));
	return 0;
}
