/* SPDX-License-Identifier: GPL-2.0-or-later */
/* signedrank.h: the Wilcoxon signed-rank test on paired log ratios, with the Hodges-Lehmann ratio and its CI. */
#ifndef KB_SIGNEDRANK_H
#define KB_SIGNEDRANK_H

#include <stddef.h>

/* Pair i is a[i] and b[i], measured next to each other; d[i] = ln(b[i]/a[i]).  Ranks, not means: a few
 * pairs disturbed by a neighbour (heavy tails) move the verdict no more than any other pair. */
struct kb_signed_rank {
	size_t n;             /* pairs */
	size_t nonzero;       /* pairs with d != 0 (the test's; zeros are dropped, Wilcoxon's way) */
	double w_plus;        /* sum of the ranks of |d| over the pairs with d > 0 (ties: average ranks) */
	double z;             /* normal approximation, with tie and continuity corrections */
	double p;             /* two-sided */
	/* exp of the Hodges-Lehmann estimate of d's centre (the median of the Walsh averages
	 * (d[i] + d[j]) / 2, i <= j), and its distribution-free CI at 1 - alpha (order statistics of the
	 * Walsh averages, normal approximation of the signed-rank distribution) */
	double ratio, ratio_lo, ratio_hi;
};

/* Returns -EDOM (NaN p and ratios) with fewer than KB_SIGNED_RANK_MIN pairs or a value that is not
 * positive: the normal approximation needs that many. */
#define KB_SIGNED_RANK_MIN 10
int kb_signed_rank_test(const double *a, const double *b, size_t n, double alpha, struct kb_signed_rank *r);

#endif
