/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.c: the one table of kvmbench commands. */
#include "cli/cli.h"
#include "core/kb.h"

extern const struct kb_cmd kb_cmd_run;
extern const struct kb_cmd kb_cmd_list;
extern const struct kb_cmd kb_cmd_info;
extern const struct kb_cmd kb_cmd_plan;
extern const struct kb_cmd kb_cmd_compare;
extern const struct kb_cmd kb_cmd_ab;
extern const struct kb_cmd kb_cmd_report;
extern const struct kb_cmd kb_cmd_patches;

const struct kb_cmd *const kb_commands[] = {
	&kb_cmd_run,
	&kb_cmd_list,
	&kb_cmd_info,
	&kb_cmd_plan,
	&kb_cmd_compare,
	&kb_cmd_ab,
	&kb_cmd_report,
	&kb_cmd_patches,
};

const size_t kb_ncommands = ARRAY_SIZE(kb_commands);
