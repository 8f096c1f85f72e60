/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scaling.h: the scaling table of a --vcpus sweep: vCPU counts down the side, a suite's tests across,
 * each cell the test's primary metric (its first) as mean ± 95% CI half-width. */
#ifndef KB_SCALING_H
#define KB_SCALING_H

#include <stdio.h>

#include "results/result.h"

/* One table per suite that has results at more than one vCPU count. */
void kb_scaling_print(FILE *f, const struct kb_result *r);

#endif
