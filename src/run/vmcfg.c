/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmcfg.c: the machine settings every test shares: the run's guest options and the plan's memory node. */
#include "host/topo.h"
#include "run/vmcfg.h"

int kb_run_machine_cfg(const struct kb_run_ctx *ctx, struct kb_machine_cfg *cfg)
{
	cfg->pvm_emulated = ctx->opts->pvm_emulated;
	cfg->vpmu = ctx->opts->vpmu;
	cfg->guest_efer = ctx->opts->guest_efer;
	cfg->guest_page = ctx->opts->guest_page;
	cfg->capture_dir = ctx->opts->capture_dir;
	cfg->label = ctx->current;
	return kb_plan_memory_node(ctx->plan, &cfg->mem_node);
}
