/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hblimits.h: whether this host lets hackbench start its processes and open its channels. */
#ifndef KB_BENCH_HBLIMITS_H
#define KB_BENCH_HBLIMITS_H

/* 0 when nprocs more processes and nfds descriptors fit (raising the soft RLIMIT_NOFILE up to
 * the hard one if need be); otherwise -errno with a message naming the limit that stops it. */
int kb_hackbench_fit_limits(int nprocs, int nfds);

#endif
