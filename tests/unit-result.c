/* unit-result.c: the JSON result: written atomically, read back without loss, bad input refused. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kb.h"
#include "result.h"
#include "tap.h"

static char dir[] = "/tmp/kb-unit-result.XXXXXX";

static void build(struct kb_result *r)
{
	struct kb_test_result *t;
	struct kb_metric *m;

	kb_result_init(r);
	r->tool_version = kb_xstrdup("9.9.9");
	r->started = kb_xstrdup("2026-12-01T00:00:00Z");
	r->host = json_object_new_object();
	json_object_object_add(r->host, "kernel_release", json_object_new_string("6.1.0-test"));
	t = kb_result_add_test(r, "cpuid", "cpuid");
	t->vcpus = 2;
	t->iterations = 1234;
	t->tsc_khz = 2600000;
	m = kb_test_metric(t, "rate", "iter/s", true);
	for (int i = 0; i < 5; i++)
		kb_metric_push(m, 1000.0 + i);
	kb_test_check(t, "exits_per_iteration", 1.0, 0.98, 1.02, 1.004, true, NULL);
	kb_test_finish(t);
	t = kb_result_add_test(r, "cpuid", "other");
	kb_test_check(t, "exits_per_iteration", 1.0, 0.98, 1.02, 0.001, true, "did not exit");
	kb_test_finish(t);
	t = kb_result_add_test(r, "selftest", "skipme");
	kb_test_set_status(t, KB_STATUS_SKIPPED, "needs %s", "x2apic");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

int main(void)
{
	struct kb_result r, back;
	char path[256], bad[256];
	struct stat st;

	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot create a temporary directory\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	build(&r);
	ok(r.tests[0].status == KB_STATUS_OK, "a passing fatal check keeps the test ok");
	ok(r.tests[1].status == KB_STATUS_INVALID, "a failing fatal check makes the test invalid");
	ok(r.tests[1].reason && strstr(r.tests[1].reason, "did not exit"), "the reason carries the check's note");
	ok(kb_result_write_json(&r, path) == 0, "write the result");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) != 0600, "the file gets normal permissions, not mkstemp's 0600");
	ok(kb_result_load(path, &back) == 0, "read it back: %s", kb_last_error());
	ok(back.ntests == 3, "three tests come back");
	ok(back.schema_version == KB_SCHEMA_VERSION, "schema version");
	is_str(back.tool_version, "9.9.9", "tool version");
	is_str(back.tests[0].suite, "cpuid", "suite name");
	ok(back.tests[0].vcpus == 2 && back.tests[0].iterations == 1234 && back.tests[0].tsc_khz == 2600000,
	   "vcpus, iterations and tsc_khz survive");
	ok(back.tests[0].nmetrics == 1 && back.tests[0].metrics[0]->n == 5 &&
	   back.tests[0].metrics[0]->samples[4] == 1004.0, "raw samples survive exactly");
	ok(back.tests[0].metrics[0]->higher_is_better, "direction of the metric survives");
	is_near(back.tests[0].metrics[0]->sum.mean, 1002.0, 1e-12, "summary recomputed on load");
	ok(back.tests[1].status == KB_STATUS_INVALID, "invalid status survives");
	ok(back.tests[2].status == KB_STATUS_SKIPPED && back.tests[2].reason &&
	   !strcmp(back.tests[2].reason, "needs x2apic"), "skipped status and reason survive");
	ok(back.tests[1].nchecks == 1 && !back.tests[1].checks[0].pass && back.tests[1].checks[0].fatal,
	   "checks survive");
	kb_result_free(&back);

	write_file(bad, "{\"schema_version\": 99, \"tests\": []}");
	ok(kb_result_load(bad, &back) < 0 && strstr(kb_last_error(), "schema version 99"),
	   "a newer schema is refused clearly: %s", kb_last_error());
	write_file(bad, "{\"schema_version\": 1, \"tests\": [ {\"suite\": \"x\"");
	ok(kb_result_load(bad, &back) < 0 && strstr(kb_last_error(), "not valid JSON"),
	   "truncated JSON is refused: %s", kb_last_error());
	write_file(bad, "{\"schema_version\": 1, \"tests\": [ {\"suite\": \"x\", \"test\": \"y\", \"status\": \"ok\", "
			"\"metrics\": [ {\"name\": \"rate\", \"unit\": \"/s\", \"higher_is_better\": true, \"samples\": [1, \"x\"]} ] } ] }");
	ok(kb_result_load(bad, &back) < 0 && strstr(kb_last_error(), "not a number"),
	   "a non-numeric sample is refused: %s", kb_last_error());
	snprintf(bad, sizeof(bad), "%s/missing.json", dir);
	ok(kb_result_load(bad, &back) < 0 && strstr(kb_last_error(), "cannot read"),
	   "a missing file is named: %s", kb_last_error());

	/* A write that cannot happen leaves the previous file as it was. */
	snprintf(bad, sizeof(bad), "%s/nodir/r.json", dir);
	ok(kb_result_write_json(&r, bad) < 0, "writing into a missing directory fails: %s", kb_last_error());
	ok(kb_result_load(path, &back) == 0 && back.ntests == 3, "the earlier file is intact");
	kb_result_free(&back);
	kb_result_free(&r);
	unlink(path);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	unlink(bad);
	rmdir(dir);
	return tap_done();
}
