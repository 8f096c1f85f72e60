/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.c: the JSON result: written atomically, read back without loss, bad input refused. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kb.h"
#include "results/result.h"
#include "tap.h"

/* Files in dir, . and .. aside. */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && (e->d_name[1] != '.' || e->d_name[2]));
	if (d)
		closedir(d);
	return n;
}

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
	/* A member named raw elsewhere than in a test: the lean reader keeps it, at a test's depth too
	 * (host.virtualization.raw, found by the fleet fuzz target). */
	json_object_object_add(r->host, "raw", json_object_new_string("kept"));
	{
		json_object *v = json_object_new_object();

		json_object_object_add(v, "raw", json_object_new_string("kept too"));
		json_object_object_add(r->host, "virtualization", v);
	}
	t = kb_result_add_test(r, "cpuid", "cpuid");
	t->vcpus = 2;
	t->iterations = 1234;
	t->tsc_khz = 2600000;
	m = kb_test_metric(t, "rate", "iter/s", true);
	for (int i = 0; i < 5; i++) {
		json_object *rec = json_object_new_object();

		kb_metric_push(m, 1000.0 + i);
		json_object_object_add(rec, "exits", json_object_new_int64(1234 + i));
		json_object_object_add(rec, "wall_s", json_object_new_double(0.1 + i / 1e3));
		json_object_array_add(t->raw, rec);
	}
	kb_test_check(t, "exits_per_iteration", 1.0, 0.98, 1.02, 1.004, true, NULL);
	kb_test_finish(t);
	t = kb_result_add_test(r, "cpuid", "other");
	kb_test_check(t, "exits_per_iteration", 1.0, 0.98, 1.02, 0.001, true, "did not exit");
	kb_test_finish(t);
	t = kb_result_add_test(r, "selftest", "skipme");
	kb_test_set_status(t, KB_STATUS_SKIPPED, "needs %s", "x2apic");
	/* NaN and the infinities, which json-c writes as bare words: the lean reader reads them too. */
	kb_test_check(t, "unbounded", NAN, -INFINITY, INFINITY, NAN, false, "\"NaN\" and Infinity in a string");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

/* A result as JSON text without its tests' raw records. */
static char *without_raw(const struct kb_result *r)
{
	json_object *j = kb_result_to_json(r), *tests = json_object_object_get(j, "tests");
	char *text;

	for (size_t i = 0; tests && i < json_object_array_length(tests); i++)
		json_object_object_del(json_object_array_get_idx(tests, i), "raw");
	text = kb_xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return text;
}

/* kb_result_load_lean (yajl, pruned): the same result as kb_result_load but the raw records. */
static void lean_load(const char *path, const char *bad)
{
	struct kb_result full, lean;
	char deep[200] = "";

	ok(kb_result_load(path, &full) == 0 && kb_result_load_lean(path, &lean) == 0, "full and lean loads: %s",
	   kb_last_error());
	ok(json_object_array_length(full.tests[0].raw) == 5 && json_object_array_length(lean.tests[0].raw) == 0,
	   "lean: the raw records left out (5 in the full load)");
	{
		char *a = without_raw(&full), *b = without_raw(&lean);

		ok(!strcmp(a, b), "lean: everything else identical to the full load (%zu bytes of JSON)", strlen(a));
		ok(strstr(b, "\"raw\":\"kept\"") != NULL && strstr(b, "\"raw\":\"kept too\"") != NULL,
		   "lean: a member named raw outside the tests is kept, at a test's depth too");
		ok(strstr(b, "\"min\":-Infinity,\"max\":Infinity") && strstr(b, "\"measured\":NaN") &&
		   strstr(b, "\\\"NaN\\\" and Infinity in a string"), "lean: NaN, -Infinity, Infinity read as json-c reads them, strings untouched");
		free(a);
		free(b);
	}
	kb_result_free(&full);
	kb_result_free(&lean);
	write_file(bad, "{\"schema_version\": 1, \"tests\": [}");
	ok(kb_result_load_lean(bad, &lean) < 0 && strstr(kb_last_error(), "bad.json: not valid JSON"),
	   "lean: invalid JSON refused, the file named: %s", kb_last_error());
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	for (int i = 0; i < 40; i++)
		strcat(deep, "]");
	write_file(bad, deep);
	ok(kb_result_load_lean(bad, &lean) < 0 && strstr(kb_last_error(), "nested too deeply"),
	   "lean: 40 levels of nesting refused, as json-c refuses them: %s", kb_last_error());
	ok(kb_result_load_lean("/dev/null", &lean) < 0 && strstr(kb_last_error(), "not a regular file"),
	   "lean: not a regular file: refused");
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
	/* The same file, rewritten, and the write fails half-way (a file size limit: EFBIG, also
	 * as root): the file keeps its earlier bytes, and no temporary file is left beside it. */
	{
		char *before = NULL, *after = NULL;
		size_t nb = 0, na = 0;
		struct rlimit lim, small = { 64, 64 };
		int werr;

		kb_read_all(path, 1 << 20, &before, &nb);
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &lim);
		small.rlim_max = lim.rlim_max;
		setrlimit(RLIMIT_FSIZE, &small);
		werr = kb_result_write_json(&r, path);
		setrlimit(RLIMIT_FSIZE, &lim);
		ok(werr < 0, "a write of that same file cut short by a size limit fails: %s", kb_last_error());
		kb_read_all(path, 1 << 20, &after, &na);
		ok(before && after && nb > 64 && na == nb && !memcmp(before, after, nb),
		   "... and the file keeps its earlier %zu bytes (now %zu)", nb, na);
		ok(count_files(dir) == 2, "... and no temporary file is left (%d files)", count_files(dir));
		free(before);
		free(after);
	}
	ok(kb_result_load(path, &back) == 0 && back.ntests == 3, "the earlier file still loads");
	kb_result_free(&back);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	lean_load(path, bad);
	kb_result_free(&r);
	unlink(path);
	unlink(bad);
	rmdir(dir);
	return tap_done();
}
