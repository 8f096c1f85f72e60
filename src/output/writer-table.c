/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer-table.c: the human table (table.c) as a writer, followed by the comparison when there is a baseline. */
#include <errno.h>
#include <string.h>

#include "core/kb.h"
#include "output/table.h"
#include "output/compare-view.h"
#include "output/termsafe.h"
#include "output/writers.h"

/* The table of results from anywhere: what they say reaches the terminal without its control characters. */
static int write_table(const struct kb_report *rep, FILE *out)
{
	FILE *f = kb_termsafe_open(out, rep->color);

	if (!f)
		return -errno;
	for (size_t i = 0; i < rep->nresults; i++) {
		if (rep->nresults > 1)
			fprintf(f, "%s== %s ==\n", i ? "\n" : "", rep->names && rep->names[i] ? rep->names[i] : "-");
		kb_table_print(f, rep->results[i], rep->color);
	}
	if (rep->baseline) {
		struct kb_report_view v;

		kb_report_view_init(rep, &v);
		v.cmp.opts.color = rep->color;
		fputc('\n', f);
		kb_comparison_print_table(f, &v.cmp);
		kb_report_view_free(&v);
	}
	return fclose(f) ? kb_fail(errno, "writing the table: %s", strerror(errno)) : 0;
}

const struct kb_writer kb_writer_table = {
	.name = "table",
	.summary = "aligned columns for people: every metric and check of every test",
	.write = write_table,
};
