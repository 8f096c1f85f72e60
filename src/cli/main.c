/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c: kvmbench's entry point: global options, then one command from the table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/kb.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: kvmbench [--version] [--help] COMMAND [OPTIONS] [ARGS]\n\n"
		   "A benchmark suite for KVM hosts: exit-path and memory micro-benchmarks run\n"
		   "by kvmbench's own small VMM, with statistics you can compare.\n\nCommands:\n");
	for (size_t i = 0; i < kb_ncommands; i++)
		fprintf(f, "  %-10s %s\n", kb_commands[i]->name, kb_commands[i]->summary);
	fprintf(f, "\n'kvmbench COMMAND --help' describes a command; 'man kvmbench' has the details.\n");
}

int main(int argc, char **argv)
{
	const struct kb_cmd *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && (cmd = kb_find_command(argv[2]))) {
			char *args[] = { argv[2], "--help", NULL };

			return kb_run_command(cmd, 2, args);
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("kvmbench %s\n", PACKAGE_VERSION);
		return 0;
	}
	cmd = kb_find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "kvmbench: '%s' is not a command.\n\n", argv[1]);
		usage(stderr);
		return 2;
	}
	return kb_run_command(cmd, argc - 1, argv + 1);
}
