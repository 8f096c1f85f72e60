/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmcfg.h: the machine settings every test shares: the run's guest options and the plan's memory node. */
#ifndef KB_RUN_VMCFG_H
#define KB_RUN_VMCFG_H

#include "run/run.h"
#include "vmm/machine.h"

/* Fill cfg's shared fields (pvm_emulated, vpmu, guest_efer, mem_node) from the run; the rest is
 * left as the caller set it.  0 or -errno with a message. */
int kb_run_machine_cfg(const struct kb_run_ctx *ctx, struct kb_machine_cfg *cfg);

#endif
