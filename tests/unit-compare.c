/* unit-compare.c: the two-sample tests against independently computed references, the verdicts,
 * the differences named in the warning, the views and the escaping the writers rely on. */
#include <errno.h>
#include <stdlib.h>

#include "compare.h"
#include "tap.h"
#include "writers.h"

/*
 * References: Welch t, df and p computed in closed form with the t distribution's tail integrated
 * numerically (Simpson, 2e5 steps), independent of GSL; the second set is Wikipedia's example 1
 * of Welch's t-test (t = -2.46, df = 24.99, p = 0.021 for A1 vs A2).  Mann-Whitney p by brute-force
 * enumeration of every assignment of ranks; the second set is R's wilcox.test(x, y) example
 * (W = 35).  The tied set by the normal approximation with tie and continuity corrections.
 */
static void test_welch(void)
{
	const double a[] = { 10, 12, 11, 13, 9 }, b[] = { 14, 15, 13, 16, 17, 15 };
	const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	const double same[] = { 5, 5, 5 }, other[] = { 6, 6, 6 };
	struct kb_welch w;

	ok(kb_welch_test(a, 5, b, 6, &w) == 0, "Welch: small sets accepted");
	is_near(w.t, 4.38178046004133, 1e-10, "Welch t (small sets)");
	is_near(w.df, 8.19672131147541, 1e-10, "Welch df (small sets)");
	is_near(w.p, 0.002210474515493388, 1e-9, "Welch p (small sets)");
	is_near(w.diff, 4, 1e-12, "Welch: difference of means, new minus base");
	kb_welch_test(a1, 15, a2, 15, &w);
	is_near(w.t, 2.45535639828601, 1e-10, "Welch t (Wikipedia example 1)");
	is_near(w.df, 24.9885292902314, 1e-9, "Welch df (Wikipedia example 1)");
	is_near(w.p, 0.02137800146286184, 1e-9, "Welch p (Wikipedia example 1)");
	kb_welch_test(a2, 15, a1, 15, &w);
	is_near(w.t, -2.45535639828601, 1e-10, "Welch t changes sign with the sides");
	ok(kb_welch_test(a, 1, b, 6, &w) == -EDOM && isnan(w.p), "Welch: one sample on a side is refused, p is NaN");
	kb_welch_test(same, 3, same, 3, &w);
	ok(w.p == 1 && w.t == 0, "Welch: identical constant samples: p = 1");
	kb_welch_test(same, 3, other, 3, &w);
	ok(w.p == 0 && isinf(w.t) && w.t > 0, "Welch: different constant samples: p = 0, t = +inf");
}

static void test_mann_whitney(void)
{
	const double lo[] = { 1, 2, 3, 4, 5 }, hi[] = { 6, 7, 8, 9, 10 };
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	const double ta[] = { 1, 2, 2, 3, 4, 4, 5 }, tb[] = { 3, 4, 5, 5, 6, 7, 7, 8 };
	const double flat[] = { 3, 3, 3 };
	struct kb_mwu m;

	ok(kb_mann_whitney(lo, 5, hi, 5, &m) == 0, "Mann-Whitney: accepted");
	ok(m.u == 0 && m.exact, "Mann-Whitney U = 0 for separated sets, exact (got %g)", m.u);
	is_near(m.p, 2.0 / 252, 1e-12, "Mann-Whitney exact p, separated 5 vs 5 (2/252)");
	kb_mann_whitney(hi, 5, lo, 5, &m);
	ok(m.u == 25, "Mann-Whitney U = 25 the other way round (got %g)", m.u);
	is_near(m.p, 2.0 / 252, 1e-12, "Mann-Whitney p is two-sided");
	kb_mann_whitney(x, 10, y, 5, &m);
	ok(m.u == 35 && m.exact, "Mann-Whitney U of R's wilcox.test example: 35 (got %g)", m.u);
	is_near(m.p, 0.2544122544122544, 1e-12, "Mann-Whitney exact p of R's example");
	kb_mann_whitney(ta, 7, tb, 8, &m);
	ok(m.u == 6.5 && !m.exact, "Mann-Whitney with ties: U = 6.5, normal approximation (got %g)", m.u);
	is_near(m.z, -2.454504056613968, 1e-12, "Mann-Whitney z with tie and continuity corrections");
	is_near(m.p, 0.014107907274540643, 1e-12, "Mann-Whitney p with ties");
	kb_mann_whitney(flat, 3, flat, 3, &m);
	ok(m.p == 1, "Mann-Whitney: all values equal: p = 1");
	ok(kb_mann_whitney(flat, 0, flat, 3, &m) == -EDOM && isnan(m.p), "Mann-Whitney: an empty side is refused");
}

/* A result with one test: rate (higher is better) and ns (lower is better), samples v * factor. */
static void make_result(struct kb_result *r, const char *test, const double *v, size_t n, double factor)
{
	struct kb_test_result *t;
	struct kb_metric *rate, *ns;

	kb_result_init(r);
	r->host = json_object_new_object();
	r->options = json_object_new_object();
	t = kb_result_add_test(r, "suite", test);
	t->vcpus = 1;
	rate = kb_test_metric(t, "rate", "iter/s", true);
	ns = kb_test_metric(t, "ns", "ns/iter", false);
	for (size_t i = 0; i < n; i++) {
		kb_metric_push(rate, v[i] * factor);
		kb_metric_push(ns, 1e3 / v[i] * factor);
	}
	kb_test_finish(t);
}

static const struct kb_compare_row *row_of(const struct kb_comparison *c, const char *metric)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].metric && !strcmp(c->rows[i].metric, metric))
			return &c->rows[i];
	return NULL;
}

static void test_verdicts(void)
{
	const double v[] = { 100, 101, 99, 100.5, 99.5 };
	const double noisy[] = { 60, 160, 90, 150, 101.5 };
	struct kb_compare_opts o;
	struct kb_result base, cur;
	struct kb_comparison c;
	const struct kb_compare_row *r;

	kb_compare_opts_init(&o);
	ok(o.tolerance_pct == 5 && o.alpha == 0.05 && o.test == KB_SIG_WELCH, "defaults: 5%%, alpha 0.05, Welch");
	make_result(&base, "t", v, 5, 1);

	make_result(&cur, "t", v, 5, 1.2);
	ok(kb_compare_build(&base, &cur, &o, &c) == 0, "compare scaled by 1.2: built");
	r = row_of(&c, "rate");
	ok(r && r->verdict == KB_VERDICT_IMPROVED, "rate x1.2 (higher is better): improved (%s)",
	   r ? kb_verdict_name(r->verdict) : "-");
	is_near(r ? r->delta : 0, 0.2, 1e-12, "rate delta +20%");
	ok(r && r->delta_lo > 0.05 && r->delta_hi > r->delta && r->delta_lo < r->delta, "the delta's CI brackets +20%% and excludes 5%%");
	r = row_of(&c, "ns");
	ok(r && r->verdict == KB_VERDICT_REGRESSED, "ns x1.2 (lower is better): regressed (%s)",
	   r ? kb_verdict_name(r->verdict) : "-");
	ok(kb_comparison_status(&c) == 1, "a regression: exit status 1");
	ok(c.count[KB_VERDICT_IMPROVED] == 1 && c.count[KB_VERDICT_REGRESSED] == 1, "verdict counts");
	kb_comparison_free(&c);
	kb_result_free(&cur);

	make_result(&cur, "t", v, 5, 1.0 / 1.2);
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_REGRESSED && row_of(&c, "ns")->verdict == KB_VERDICT_IMPROVED,
	   "scaled by 1/1.2: rate regressed, ns improved");
	kb_comparison_free(&c);
	kb_result_free(&cur);

	make_result(&cur, "t", v, 5, 1.02);
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r->verdict == KB_VERDICT_WITHIN && r->p < 0.05, "+2%%, significant: still within tolerance (p %g)", r->p);
	ok(kb_comparison_status(&c) == 0, "nothing beyond tolerance: exit status 0");
	kb_comparison_free(&c);
	kb_result_free(&cur);

	make_result(&cur, "t", v, 5, 1.05);
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_WITHIN, "exactly +5%%: within a 5%% tolerance");
	kb_comparison_free(&c);
	o.tolerance_pct = 4;
	kb_compare_build(&base, &cur, &o, &c);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_IMPROVED, "+5%% with a 4%% tolerance: improved");
	kb_comparison_free(&c);
	o.tolerance_pct = 5;
	kb_result_free(&cur);

	make_result(&cur, "t", noisy, 5, 1);
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r->verdict == KB_VERDICT_INCONCLUSIVE && r->p >= 0.05 && strstr(r->note, "not significant"),
	   "+12%% in noise: inconclusive, with the reason (%s)", r->note);
	ok(kb_comparison_status(&c) == 0, "inconclusive is not a regression: exit 0");
	kb_comparison_free(&c);
	o.test = KB_SIG_MANN_WHITNEY;
	kb_compare_build(&base, &cur, &o, &c);
	r = row_of(&c, "rate");
	ok(r->p == r->mwu.p && r->mwu.exact, "--test mann-whitney: its p decides");
	kb_comparison_free(&c);
	o.test = KB_SIG_WELCH;
	kb_result_free(&cur);

	/* A test missing on one side, one that did not measure, and one that only NEW has. */
	make_result(&cur, "other", v, 5, 1);
	kb_test_set_status(kb_result_add_test(&base, "suite", "broken"), KB_STATUS_INVALID, "check <x> failed");
	kb_test_set_status(kb_result_add_test(&cur, "suite", "broken"), KB_STATUS_OK, NULL);
	ok(kb_compare_build(&base, &cur, &o, &c) != 0, "nothing in common: an error");
	ok(kb_comparison_status(&c) == 2, "nothing in common: exit status 2");
	ok(c.nrows == 3 && c.rows[0].verdict == KB_VERDICT_NOT_COMPARED && !strcmp(c.rows[0].note, "test not in NEW"),
	   "a test only in BASE is named");
	ok(strstr(c.rows[1].note, "BASE is invalid: check <x> failed") != NULL, "an invalid test is not compared: %s",
	   c.rows[1].note);
	ok(!strcmp(c.rows[2].note, "test not in BASE"), "a test only in NEW is named");
	kb_comparison_free(&c);
	kb_result_free(&cur);
	kb_result_free(&base);
}

static const struct kb_difference *diff_of(const struct kb_comparison *c, const char *field)
{
	for (size_t i = 0; i < c->ndiffs; i++)
		if (!strcmp(c->diffs[i].field, field))
			return &c->diffs[i];
	return NULL;
}

static void test_differences(void)
{
	const double v[] = { 100, 101, 99, 100.5, 99.5 };
	struct kb_compare_opts o;
	struct kb_result base, cur;
	struct kb_comparison c;
	const struct kb_difference *d;
	json_object *cpu;

	kb_compare_opts_init(&o);
	make_result(&base, "t", v, 5, 1);
	make_result(&cur, "t", v, 5, 1);
	kb_compare_build(&base, &cur, &o, &c);
	ok(c.ndiffs == 0, "identical sides: no warning");
	kb_comparison_free(&c);

	cpu = json_object_new_object();
	json_object_object_add(cpu, "brand", json_object_new_string("AMD EPYC 7763"));
	json_object_object_add(base.host, "cpu", cpu);
	cpu = json_object_new_object();
	json_object_object_add(cpu, "brand", json_object_new_string("AMD EPYC 9654"));
	json_object_object_add(cur.host, "cpu", cpu);
	json_object_object_add(base.host, "kernel_release", json_object_new_string("6.1.0"));
	json_object_object_add(cur.host, "kernel_release", json_object_new_string("6.1.0"));
	json_object_object_add(base.options, "target-ci", json_object_new_int(1));
	json_object_object_add(cur.options, "target-ci", json_object_new_double(1.0));
	json_object_object_add(base.options, "runs", json_object_new_int(10));
	json_object_object_add(cur.options, "runs", json_object_new_int(5));
	json_object_object_add(base.options, "json", json_object_new_string("a.json"));
	json_object_object_add(cur.options, "json", json_object_new_string("b.json"));
	json_object_object_add(cur.tests[0].params, "leaf", json_object_new_int(7));
	cur.tests[0].vcpus = 2;
	kb_compare_build(&base, &cur, &o, &c);
	d = diff_of(&c, "host.cpu.brand");
	ok(d && !strcmp(d->base, "AMD EPYC 7763") && !strcmp(d->cur, "AMD EPYC 9654"), "host.cpu.brand named with both values");
	ok(!diff_of(&c, "host.kernel_release"), "equal fields are not named");
	d = diff_of(&c, "options.runs");
	ok(d && !strcmp(d->base, "10") && !strcmp(d->cur, "5"), "options.runs named");
	ok(!diff_of(&c, "options.json"), "the output file name is not a difference");
	ok(!diff_of(&c, "options.target-ci"), "1 and 1.0 are the same number");
	d = diff_of(&c, "tests[suite/t].params.leaf");
	ok(d && !strcmp(d->base, "(absent)") && !strcmp(d->cur, "7"), "a test parameter present on one side only");
	ok(diff_of(&c, "tests[suite/t].vcpus") != NULL, "a different vCPU count is named");
	ok(c.ndiffs == 4, "exactly those four differences (%zu)", c.ndiffs);
	ok(row_of(&c, "rate")->verdict == KB_VERDICT_WITHIN, "still compared despite the differences");
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		kb_comparison_print_warning(f, &c, "");
		fclose(f);
		ok(strstr(text, "WARNING") && strstr(text, "host.cpu.brand: AMD EPYC 7763 -> AMD EPYC 9654"),
		   "the warning names the field and both values");
		free(text);
	}
	kb_comparison_free(&c);
	kb_result_free(&base);
	kb_result_free(&cur);
}

static char *capture_compare(const struct kb_result *a, const struct kb_result *b, enum kb_compare_format fmt,
			     int *status)
{
	struct kb_compare_opts o;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	kb_compare_opts_init(&o);
	o.format = fmt;
	o.base_label = "base.json";
	o.new_label = "new.json";
	*status = kb_compare_results(a, b, &o, f, NULL);
	fclose(f);
	return text;
}

static void test_views(void)
{
	const double v[] = { 100, 101, 99, 100.5, 99.5 };
	struct kb_result base, cur;
	json_object *j, *rows, *row, *x;
	char *text;
	int status;

	make_result(&base, "t", v, 5, 1.2);
	make_result(&cur, "t", v, 5, 1);
	text = capture_compare(&base, &cur, KB_CMP_TABLE, &status);
	ok(status == 1, "kb_compare_results returns exit status 1 for a regression");
	ok(strstr(text, "regressed") && strstr(text, "-16.7%") && strstr(text, "improved") && !strchr(text, '\033'),
	   "table: the verdicts, the delta, no colour");
	free(text);
	text = capture_compare(&base, &cur, KB_CMP_MARKDOWN, &status);
	ok(strstr(text, "| `suite/t` | `rate (iter/s)` |") && strstr(text, "**-16.7%**") && strstr(text, "|---|"),
	   "markdown: a pipe table with the flagged delta in bold");
	free(text);
	text = capture_compare(&base, &cur, KB_CMP_JSON, &status);
	j = json_tokener_parse(text);
	ok(j != NULL, "json: parses");
	ok(json_object_object_get_ex(j, "compare_schema_version", &x) && json_object_get_int(x) == 1,
	   "json: compare_schema_version 1");
	json_object_object_get_ex(j, "rows", &rows);
	row = json_object_array_get_idx(rows, 0);
	ok(json_object_object_get_ex(row, "verdict", &x) && !strcmp(json_object_get_string(x), "regressed"),
	   "json: the rate row regressed");
	ok(json_object_object_get_ex(row, "delta_pct", &x) && fabs(json_object_get_double(x) + 100.0 / 6) < 1e-9,
	   "json: delta_pct -16.67");
	ok(json_object_object_get_ex(j, "exit_status", &x) && json_object_get_int(x) == 1, "json: exit_status 1");
	json_object_put(j);
	free(text);
	kb_result_free(&base);
	kb_result_free(&cur);
}

static void test_delta_ci(void)
{
	const double a[] = { 10, 12, 11, 13, 9 }, b[] = { 14, 15, 13, 16, 17, 15 };
	struct kb_result base, cur;
	struct kb_compare_opts o;
	struct kb_comparison c;
	struct kb_metric *m;

	kb_compare_opts_init(&o);
	kb_result_init(&base);
	kb_result_init(&cur);
	m = kb_test_metric(kb_result_add_test(&base, "s", "t"), "x", "u", true);
	for (int i = 0; i < 5; i++)
		kb_metric_push(m, a[i]);
	kb_test_finish(&base.tests[0]);
	m = kb_test_metric(kb_result_add_test(&cur, "s", "t"), "x", "u", true);
	for (int i = 0; i < 6; i++)
		kb_metric_push(m, b[i]);
	kb_test_finish(&cur.tests[0]);
	kb_compare_build(&base, &cur, &o, &c);
	/* (4 -/+ t(0.975, 8.1967) * 0.91287) / 11, the quantile 2.2964062 found by bisection on the reference tail. */
	is_near(c.rows[0].delta_lo, 0.1730615963295346, 1e-8, "delta CI low (Welch, df 8.2)");
	is_near(c.rows[0].delta_hi, 0.5542111309431926, 1e-8, "delta CI high");
	kb_comparison_free(&c);
	kb_result_free(&base);
	kb_result_free(&cur);
}

static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fn(f, s);
	fclose(f);
	return text;
}

static void test_escaping(void)
{
	char *t;

	t = capture(kb_html_escape, "<a href=\"x\">&'");
	is_str(t, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;", "HTML escaping");
	free(t);
	t = capture(kb_markdown_escape, "a|b<c>_d\ne");
	is_str(t, "a\\|b&lt;c&gt;\\_d e", "Markdown escaping: pipes, tags, emphasis, newlines");
	free(t);
	t = capture(kb_csv_field, "say \"hi\", then go");
	is_str(t, "\"say \"\"hi\"\", then go\"", "CSV quoting");
	free(t);
	t = capture(kb_csv_field, "plain");
	is_str(t, "plain", "CSV: plain fields stay bare");
	free(t);
}

static void test_writers(void)
{
	const char *names[] = { "table", "json", "csv", "csv-samples", "markdown", "html" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct kb_writer *w = kb_find_writer(names[i]);

		ok(w && w->write && w->summary && !strcmp(w->name, names[i]), "writer '%s' is registered and complete",
		   names[i]);
	}
	ok(!kb_find_writer("pdf"), "an unknown format is not found");
}

static void test_formats(void)
{
	char buf[32];

	kb_format_si(2510421873.0, buf, sizeof(buf));
	is_str(buf, "2.51G", "SI format, giga");
	kb_format_si(0.4316, buf, sizeof(buf));
	is_str(buf, "0.432", "SI format, below one");
	kb_format_pct(0.134, buf, sizeof(buf));
	is_str(buf, "+13.4%", "percent format");
	kb_format_p(0.0004, buf, sizeof(buf));
	is_str(buf, "<0.001", "tiny p");
	kb_format_p(NAN, buf, sizeof(buf));
	is_str(buf, "-", "no p");
}

int main(void)
{
	test_welch();
	test_mann_whitney();
	test_verdicts();
	test_differences();
	test_views();
	test_delta_ci();
	test_escaping();
	test_writers();
	test_formats();
	return tap_done();
}
