/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html-trace.c: the HTML report's traceability section: which kvmbench wrote the report and measured
 * each input, the exact command lines (shell-quoted), and the SHA-256 of every input file. */
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/html.h"

/* One argument as a POSIX shell reads it back: bare when it is safe, else in single quotes. */
static void shell_word(FILE *f, const char *s)
{
	const char *safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,@%+-";

	if (*s && strspn(s, safe) == strlen(s)) {
		kb_html_escape(f, s);
		return;
	}
	fputc('\'', f);
	/* Whole runs between quotes go to the escaper: it must see a UTF-8 character whole. */
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "'");
		char *run = kb_xasprintf("%.*s", (int)n, p);

		kb_html_escape(f, run);
		free(run);
		p += n;
		if (*p == '\'') {
			fputs("'\\&#39;'", f);
			p++;
		}
	}
	fputc('\'', f);
}

static void command_line(FILE *f, json_object *argv)
{
	size_t n = argv && json_object_is_type(argv, json_type_array) ? json_object_array_length(argv) : 0;

	if (!n) {
		fputs("<em>not recorded</em> (written by a kvmbench that did not record its command line)", f);
		return;
	}
	fputs("<code class=\"cmd\">", f);
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(argv, i);

		if (i)
			fputc(' ', f);
		shell_word(f, a && json_object_is_type(a, json_type_string) ? json_object_get_string(a) : "?");
	}
	fputs("</code>", f);
}

static void input_row(FILE *f, const char *name, const char *role, const char *sha256, const struct kb_result *r)
{
	fputs("<tr><td><code>", f);
	kb_html_escape(f, name);
	fputs("</code></td><td>", f);
	kb_html_escape(f, role);
	fputs("</td><td><code class=\"sha\">", f);
	kb_html_escape(f, sha256 ? sha256 : "–");
	fputs("</code></td><td>kvmbench ", f);
	kb_html_escape(f, r->tool_version && *r->tool_version ? r->tool_version : "(version not recorded)");
	fputs(", started ", f);
	kb_html_escape(f, r->started ? r->started : "(not recorded)");
	fputs("</td><td>", f);
	command_line(f, r->command);
	fputs("</td></tr>\n", f);
}

void kb_html_trace(FILE *f, const struct kb_report *rep)
{
	char now[40], buf[32];

	kb_iso_now(now, sizeof(now));
	fprintf(f, "<section id=\"trace\"><h2>Traceability</h2>\n<p>This report was written by kvmbench %s at %s",
		PACKAGE_VERSION, now);
	if (rep->command) {
		fputs(" with<br>", f);
		command_line(f, rep->command);
	}
	fputs(".</p>\n<table class=\"trace\"><tr><th>Input</th><th>Role</th><th>SHA-256</th><th>Measured by</th>"
	      "<th>Command line</th></tr>\n", f);
	for (size_t i = 0; i < rep->nresults; i++)
		input_row(f, kb_report_name(rep, i, buf, sizeof(buf)), "result", rep->sha256 ? rep->sha256[i] : NULL,
			  rep->results[i]);
	if (rep->baseline)
		input_row(f, rep->baseline_name ? rep->baseline_name : "baseline", "baseline (A)", rep->baseline_sha256,
			  rep->baseline);
	fputs("</table></section>\n", f);
}
