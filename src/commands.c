/* commands.c: the one table of kvmbench commands. */
#include "cli.h"
#include "kb.h"

extern const struct kb_cmd kb_cmd_run;
extern const struct kb_cmd kb_cmd_list;
extern const struct kb_cmd kb_cmd_info;

const struct kb_cmd *const kb_commands[] = {
	&kb_cmd_run,
	&kb_cmd_list,
	&kb_cmd_info,
};

const size_t kb_ncommands = ARRAY_SIZE(kb_commands);
