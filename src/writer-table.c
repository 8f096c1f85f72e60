/* writer-table.c: the human table (table.c) as a writer, followed by the comparison when there is a baseline. */
#include "kb.h"
#include "table.h"
#include "writers.h"

static int write_table(const struct kb_report *rep, FILE *f)
{
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
	return 0;
}

const struct kb_writer kb_writer_table = {
	.name = "table",
	.summary = "aligned columns for people, as 'run' prints them",
	.write = write_table,
};
