/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer-csv.c: CSV (RFC 4180): one row per test and metric with its summary, or one row per raw sample. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "output/writers.h"

/* A number, or an empty field when it is none (a spread that overflowed): never "inf" or "-nan". */
static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.15g", v);
	else
		fputc(',', f);
}

static void str(FILE *f, const char *s)
{
	fputc(',', f);
	kb_csv_field(f, s);
}

/* source,id,suite,test,vcpus: the columns both files start with. */
static void test_columns(FILE *f, const struct kb_report *rep, size_t src, const struct kb_test_result *t)
{
	char id[256];

	snprintf(id, sizeof(id), "%s/%s", t->suite, t->test);
	kb_csv_field(f, rep->names && rep->names[src] ? rep->names[src] : "");
	str(f, id);
	str(f, t->suite);
	str(f, t->test);
	fprintf(f, ",%d", t->vcpus);
}

static int write_csv(const struct kb_report *rep, FILE *f)
{
	fputs("source,id,suite,test,vcpus,status,metric,unit,higher_is_better,n,mean,median,stddev,cv,min,max,"
	      "ci95_lo,ci95_hi,ci95_rel,outliers,reason\n", f);
	for (size_t s = 0; s < rep->nresults; s++)
		for (size_t i = 0; i < rep->results[s]->ntests; i++) {
			const struct kb_test_result *t = &rep->results[s]->tests[i];

			/* A test without metrics (skipped, failed) still gets a row saying so. */
			for (size_t k = 0; k < (t->nmetrics ? t->nmetrics : 1); k++) {
				const struct kb_metric *m = t->nmetrics ? t->metrics[k] : NULL;

				test_columns(f, rep, s, t);
				str(f, kb_status_name(t->status));
				if (m) {
					const struct kb_summary *u = &m->sum;

					str(f, m->name);
					str(f, m->unit);
					fprintf(f, ",%s,%zu", m->higher_is_better ? "true" : "false", u->n);
					num(f, u->mean);
					num(f, u->median);
					num(f, u->stddev);
					num(f, u->cv);
					num(f, u->min);
					num(f, u->max);
					num(f, u->ci_lo);
					num(f, u->ci_hi);
					num(f, u->ci_rel);
					fprintf(f, ",%zu", u->outliers);
				} else {
					fputs(",,,,,,,,,,,,,,", f);
				}
				str(f, t->reason);
				fputc('\n', f);
			}
		}
	return 0;
}

static int write_csv_samples(const struct kb_report *rep, FILE *f)
{
	fputs("source,id,suite,test,vcpus,metric,unit,sample,value,outlier\n", f);
	for (size_t s = 0; s < rep->nresults; s++)
		for (size_t i = 0; i < rep->results[s]->ntests; i++) {
			const struct kb_test_result *t = &rep->results[s]->tests[i];

			for (size_t k = 0; k < t->nmetrics; k++) {
				const struct kb_metric *m = t->metrics[k];
				unsigned char *flags = kb_xcalloc(m->n + 1, 1);

				kb_outliers(m->samples, m->n, flags);
				for (size_t n = 0; n < m->n; n++) {
					test_columns(f, rep, s, t);
					str(f, m->name);
					str(f, m->unit);
					fprintf(f, ",%zu", n);
					num(f, m->samples[n]);
					fprintf(f, ",%d\n", flags[n]);
				}
				free(flags);
			}
		}
	return 0;
}

const struct kb_writer kb_writer_csv = {
	.name = "csv",
	.summary = "one row per test and metric: mean, median, spread, 95% CI, outliers",
	.write = write_csv,
};

const struct kb_writer kb_writer_csv_samples = {
	.name = "csv-samples",
	.summary = "one row per raw sample, outliers flagged",
	.write = write_csv_samples,
};
