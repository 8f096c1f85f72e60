/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c: qualification profiles without measuring: the YAML parser's errors and positions, each
 * criterion judged on results made here (bounds, CV, tolerance both ways, skip and invalid reasons,
 * not-judged cases), the verdicts through the JSON and back, and the JUnit XML parsed back with
 * libxml2. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "core/json.h"
#include "core/kb.h"
#include "output/junit.h"
#include "results/profile.h"
#include "tap.h"

static int parse(const char *text, struct kb_profile *p)
{
	return kb_profile_parse("t.yaml", text, strlen(text), p);
}

/* The message of a profile that must not parse (a copy: the next error replaces kb_last_error()). */
static char msg[1024];

static const char *refused(const char *text)
{
	struct kb_profile p;

	if (!parse(text, &p)) {
		kb_profile_free(&p);
		snprintf(msg, sizeof(msg), "(parsed)");
		return msg;
	}
	snprintf(msg, sizeof(msg), "%s", kb_last_error());
	return msg;
}

/* A test measured validly with metric ns (ns/iter, lower is better) of the given samples. */
static struct kb_test_result *measured(struct kb_result *r, const char *suite, const char *test, const double *v,
				       size_t n)
{
	struct kb_test_result *t = kb_result_add_test(r, suite, test);
	struct kb_metric *m = kb_test_metric(t, "ns", "ns/iter", false);
	struct kb_metric *rate = kb_test_metric(t, "rate", "iter/s", true);

	for (size_t i = 0; i < n; i++) {
		kb_metric_push(m, v[i]);
		kb_metric_push(rate, 1e9 / v[i]);
	}
	kb_test_finish(t);
	return t;
}

static const struct kb_criterion *find(const struct kb_test_result *t, const char *crit, const char *metric)
{
	for (size_t i = 0; i < t->ncriteria; i++)
		if (!strcmp(t->criteria[i].criterion, crit) &&
		    (!metric ? !t->criteria[i].metric : t->criteria[i].metric && !strcmp(t->criteria[i].metric, metric)))
			return &t->criteria[i];
	return NULL;
}

static enum kb_judgement judged(const struct kb_test_result *t, const char *crit, const char *metric)
{
	const struct kb_criterion *c = find(t, crit, metric);

	return c ? c->verdict : (enum kb_judgement)-1;
}

static void test_parser(void)
{
	struct kb_profile p;
	const char *text = "# a profile\nprofile: unit\ndescription: d\noptions:\n  runs: 3\n  sample-time: 10ms\n"
			   "tests:\n  default:\n    may-skip-for: [\"huge pages\", \"never reach\"]\n"
			   "  selftest/nop:\n    metrics:\n      ns: { min: 1, max: 2.5e3, max-cv: 10%, tolerance: 5% }\n"
			   "  cpuid:\n    may-be-invalid-for: any\n";
	int err = parse(text, &p);

	ok(!err, "a profile with every key parses%s%s", err ? ": " : "", err ? kb_last_error() : "");
	if (err)
		return;
	is_str(p.name, "unit", "its name");
	ok(p.nopts == 2 && !strcmp(p.opts[1].name, "sample-time") && !strcmp(p.opts[1].value, "10ms") &&
	   p.opts[1].pos.line == 6 && p.opts[1].pos.column == 3, "options in order, with their positions");
	ok(p.nentries == 3 && p.entries[0].may_skip.n == 2 && p.entries[2].may_be_invalid.any,
	   "three entries; reasons as a list and as 'any'");
	ok(p.entries[1].nmetrics == 1 && p.entries[1].metrics[0].has_min && p.entries[1].metrics[0].max == 2500 &&
	   p.entries[1].metrics[0].max_cv_pct == 10 && p.entries[1].metrics[0].tolerance_pct == 5 &&
	   p.entries[1].metrics[0].pos.line == 12, "every criterion of a metric, numbers and percentages");
	ok(kb_profile_wants_reference(&p), "a tolerance criterion wants a reference");
	ok(kb_profile_entry_matches(&p.entries[0], "efer-msr", "hypercall") &&
	   kb_profile_entry_matches(&p.entries[2], "cpuid", "cpuid") &&
	   !kb_profile_entry_matches(&p.entries[1], "selftest", "nop2") &&
	   !kb_profile_entry_matches(&p.entries[2], "cpuidx", "cpuid"), "selectors: default, SUITE, SUITE/TEST exactly");
	kb_profile_free(&p);

	refused("profile: x\ntests: [a\n");
	ok(!strncmp(msg, "t.yaml:", 7) && strstr(msg, "not valid YAML"), "not YAML: %s", msg);
	ok(!!strstr(refused("profile: x\ntests:\n  a: { metrics: { ns: { max: fast } } }\n"), "t.yaml:3:30: max of metric ns "
		  "must be a number"), "a word for a number, at its column: %s", msg);
	ok(!!strstr(refused("profile: x\ntests:\n  a: { metrics: { ns: { tolerance: 0.05 } } }\n"), "must be a percentage"),
	   "a percentage without %%: %s", msg);
	ok(!!strstr(refused("profile: x\ntests:\n  a: { metrics: { ns: {} } }\n"), "has no criterion"),
	   "a metric without criteria: %s", msg);
	ok(!!strstr(refused("profile: x\ntests:\n  a: { may-skip-for: [] }\n"), "empty list"), "an empty reason list: %s",
	   msg);
	ok(!!strstr(refused("profile: x\ntests:\n  a: { may-skip-for: [\"\"] }\n"), "would match every reason"),
	   "an empty reason: %s", msg);
	ok(!!strstr(refused("tests: { a: {} }\n"), "no 'profile: NAME'"), "no name: %s", msg);
	ok(!!strstr(refused("profile: x\ntests: {}\n"), "tests is empty"), "no tests: %s", msg);
	ok(!!strstr(refused("profile: x\ntests: { 'a b': {} }\n"), "is not a test selector"), "a bad selector: %s",
	   msg);
	ok(!!strstr(refused("profile: x\ntests: { a: {} }\n---\nprofile: y\n"), "second YAML document"),
	   "two documents: %s", msg);
	ok(!!strstr(refused(""), "empty profile"), "an empty file: %s", msg);
	ok(!!strstr(refused("profile: x\noptions: { runs: [1, 2] }\ntests: { a: {} }\n"), "option runs must be a single value"),
	   "an option given a list: %s", msg);
}

static void test_judging(void)
{
	static const double fast[] = { 100, 101, 99, 100, 100 }, noisy[] = { 50, 150, 100, 60, 140 };
	struct kb_profile p;
	struct kb_result res, ref;
	struct kb_test_result *t;
	size_t failed;
	const char *text = "profile: j\ntests:\n  default:\n    may-skip-for: \"huge pages\"\n"
			   "  sel/a:\n    metrics:\n      ns: { min: 50, max: 150, max-cv: 5%, tolerance: 10% }\n"
			   "      rate: { tolerance: 10% }\n"
			   "  sel/b:\n    metrics:\n      ns: { max: 99.5, max-cv: 5% }\n      absent: { max: 1 }\n"
			   "  sel/c:\n    metrics:\n      ns: { min: 200 }\n"
			   "  sel/inv:\n    may-be-invalid-for: [\"outer hypervisor\"]\n    metrics:\n      primary: { max: 1 }\n";

	if (!ok(!parse(text, &p), "the judging profile parses"))
		return;
	kb_result_init(&res);
	measured(&res, "sel", "a", fast, 5);
	measured(&res, "sel", "b", noisy, 5);
	measured(&res, "sel", "c", fast, 5);
	t = kb_result_add_test(&res, "sel", "skip1");
	kb_test_set_status(t, KB_STATUS_SKIPPED, "needs 4 free 2 MiB huge pages");
	t = kb_result_add_test(&res, "sel", "skip2");
	kb_test_set_status(t, KB_STATUS_SKIPPED, "something else");
	t = kb_result_add_test(&res, "sel", "inv");
	kb_test_metric(t, "rate", "iter/s", true);
	kb_test_set_status(t, KB_STATUS_INVALID, "answered by the outer hypervisor");
	t = kb_result_add_test(&res, "sel", "err");
	kb_test_set_status(t, KB_STATUS_ERROR, "guest hang");

	failed = kb_profile_judge(&p, &res, NULL, NULL);
	t = &res.tests[0];
	ok(judged(t, "status", NULL) == KB_JUDGED_PASS && judged(t, "min", "ns") == KB_JUDGED_PASS &&
	   judged(t, "max", "ns") == KB_JUDGED_PASS && judged(t, "max-cv", "ns") == KB_JUDGED_PASS,
	   "a: status, min, max and max-cv pass (mean 100, CV about 0.7%%)");
	ok(judged(t, "tolerance", "ns") == KB_JUDGED_NOT && strstr(find(t, "tolerance", "ns")->detail, "--reference"),
	   "a: without a reference the tolerance is not judged, and says why");
	ok(find(t, "max", "ns")->bound == 150 && find(t, "max", "ns")->measured == 100 &&
	   !strcmp(find(t, "max", "ns")->source, "t.yaml:7:7"), "a: max records its bound, the mean and its source");
	t = &res.tests[1];
	ok(judged(t, "max", "ns") == KB_JUDGED_FAIL && judged(t, "max-cv", "ns") == KB_JUDGED_FAIL,
	   "b: a mean of 100 fails max 99.5, a CV of %.0f%% fails max-cv 5%%", find(t, "max-cv", "ns")->measured);
	ok(judged(t, "max", "absent") == KB_JUDGED_FAIL, "b: a criterion on a metric the test lacks fails");
	ok(judged(&res.tests[2], "min", "ns") == KB_JUDGED_FAIL, "c: a mean of 100 fails min 200");
	ok(judged(&res.tests[3], "status", NULL) == KB_JUDGED_PASS, "skip1: skipped for an allowed reason passes");
	ok(judged(&res.tests[4], "status", NULL) == KB_JUDGED_FAIL, "skip2: skipped for another reason fails");
	t = &res.tests[5];
	ok(judged(t, "status", NULL) == KB_JUDGED_PASS && judged(t, "max", "rate") == KB_JUDGED_NOT,
	   "inv: invalid for an allowed reason passes; its metric criteria are not judged");
	ok(judged(&res.tests[6], "status", NULL) == KB_JUDGED_FAIL, "err: an error always fails");
	ok(failed == 6 && kb_test_judgement(&res.tests[0]) == KB_JUDGED_PASS &&
	   kb_test_judgement(&res.tests[1]) == KB_JUDGED_FAIL, "six criteria failed in all (got %zu); a passes, b fails",
	   failed);
	is_str(kb_json_get_str(res.profile, "verdict"), "fail", "the profile fails");

	/* Tolerance: worse is higher for a time, lower for a rate; the reference's means are 100 ns. */
	kb_result_init(&ref);
	{
		static const double slower[] = { 112, 112, 112 }, quicker[] = { 95, 95, 95 };

		measured(&ref, "sel", "a", fast, 5);
		kb_result_free(&res);
		kb_result_init(&res);
		measured(&res, "sel", "a", slower, 3);
		kb_profile_judge(&p, &res, &ref, "ref.json");
		t = &res.tests[0];
		ok(judged(t, "tolerance", "ns") == KB_JUDGED_FAIL && judged(t, "tolerance", "rate") == KB_JUDGED_FAIL &&
		   fabs(find(t, "tolerance", "ns")->reference - 100) < 1e-9,
		   "12%% slower than the reference fails a 10%% tolerance, in ns and in rate");
		kb_result_free(&res);
		kb_result_init(&res);
		measured(&res, "sel", "a", quicker, 3);
		kb_profile_judge(&p, &res, &ref, "ref.json");
		t = &res.tests[0];
		ok(judged(t, "tolerance", "ns") == KB_JUDGED_PASS && judged(t, "tolerance", "rate") == KB_JUDGED_PASS,
		   "5%% faster than the reference passes, in ns and in rate");
		is_str(kb_json_get_str(kb_json_get(res.profile, "reference"), "file"), "ref.json", "the reference is named");
	}
	kb_result_free(&ref);
	kb_result_free(&res);
	kb_profile_free(&p);
}

/* The verdicts survive the JSON, and the JUnit XML says the same. */
static void test_json_junit(void)
{
	static const double v[] = { 100, 100, 100 };
	struct kb_profile p;
	struct kb_result res, back;
	json_object *j;
	char path[] = "/tmp/kb-unit-junit-XXXXXX";
	int fd = mkstemp(path);
	xmlDocPtr doc;
	xmlXPathContextPtr x;
	xmlXPathObjectPtr o;

	if (!ok(fd >= 0 && !parse("profile: junit\ntests:\n  sel/a: { metrics: { ns: { max: 1 } } }\n"
				  "  sel/b: {}\n  sel/s: { may-skip-for: any }\n", &p), "the JUnit profile parses"))
		return;
	close(fd);
	kb_result_init(&res);
	res.started = kb_xstrdup("2026-12-01T10:00:00Z");
	measured(&res, "sel", "a", v, 3);
	measured(&res, "sel", "b", v, 3);
	kb_test_set_status(kb_result_add_test(&res, "sel", "s"), KB_STATUS_SKIPPED, "no huge pages");
	kb_profile_judge(&p, &res, NULL, NULL);
	j = kb_result_to_json(&res);
	ok(!kb_result_from_json(j, &back) && back.ntests == 3 && back.tests[0].ncriteria == 2 &&
	   back.tests[0].criteria[1].verdict == KB_JUDGED_FAIL && back.tests[0].criteria[1].bound == 1 &&
	   back.tests[0].criteria[1].source && !strcmp(back.tests[0].criteria[1].source, "t.yaml:3:23") && back.profile &&
	   !strcmp(kb_json_get_str(back.profile, "verdict"), "fail"), "the criteria and the profile load back from the JSON");
	json_object_put(j);
	kb_result_free(&back);

	ok(!kb_junit_write(&res, path, 2.5), "the JUnit report is written");
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	x = doc ? xmlXPathNewContext(doc) : NULL;
	o = x ? xmlXPathEvalExpression(BAD_CAST "count(//testcase)", x) : NULL;
	ok(o && o->floatval == 3, "three testcases");
	xmlXPathFreeObject(o);
	o = x ? xmlXPathEvalExpression(BAD_CAST "count(//testcase[@name='a']/failure[contains(@message, 'max ns')])", x) : NULL;
	ok(o && o->floatval == 1, "the failed test has a failure naming its criterion");
	xmlXPathFreeObject(o);
	o = x ? xmlXPathEvalExpression(BAD_CAST "count(//testcase[@name='b']/*[self::failure or self::skipped])", x) : NULL;
	ok(o && o->floatval == 0, "the passed test has neither failure nor skipped");
	xmlXPathFreeObject(o);
	o = x ? xmlXPathEvalExpression(BAD_CAST "string(//testcase[@name='s']/skipped/@message)", x) : NULL;
	ok(o && o->stringval && !strcmp((const char *)o->stringval, "no huge pages"), "the skipped test says why");
	xmlXPathFreeObject(o);
	o = x ? xmlXPathEvalExpression(BAD_CAST "string(/testsuites/testsuite/@failures)", x) : NULL;
	ok(o && o->stringval && !strcmp((const char *)o->stringval, "1"), "the testsuite counts one failure");
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(x);
	xmlFreeDoc(doc);
	unlink(path);
	kb_result_free(&res);
	kb_profile_free(&p);
}

int main(void)
{
	test_parser();
	test_judging();
	test_json_junit();
	xmlCleanupParser();
	return tap_done();
}
