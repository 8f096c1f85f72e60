/* SPDX-License-Identifier: GPL-2.0-or-later */
/* junit.c: JUnit XML of a judged result through libxml2's xmlTextWriter (tests/testdata/junit.xsd). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <libxml/xmlwriter.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "output/junit.h"

/* xmlTextWriter calls return -1 on failure; one failure spoils the document. */
struct jw {
	xmlTextWriterPtr w;
	bool bad;
};

static void start(struct jw *j, const char *name)
{
	j->bad |= xmlTextWriterStartElement(j->w, BAD_CAST name) < 0;
}

static void end(struct jw *j)
{
	j->bad |= xmlTextWriterEndElement(j->w) < 0;
}

static void attr(struct jw *j, const char *name, const char *value)
{
	j->bad |= xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST(value ? value : "")) < 0;
}

static void attrf(struct jw *j, const char *name, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	attr(j, name, buf);
}

static void text(struct jw *j, const char *s)
{
	j->bad |= xmlTextWriterWriteString(j->w, BAD_CAST(s ? s : "")) < 0;
}

static void property(struct jw *j, const char *name, const char *value)
{
	if (!value)
		return;
	start(j, "property");
	attr(j, "name", name);
	attr(j, "value", value);
	end(j);
}

static const char *host_str(const struct kb_result *r, const char *path)
{
	json_object *v = kb_json_path(r->host, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A criterion on one line: "FAIL max ns: <= 5000 ns/iter; mean 6000 ns/iter (profile.yaml:12:7)". */
static void criterion_line(struct kb_buf *b, const struct kb_criterion *c)
{
	kb_buf_printf(b, "%s %s%s%s: %s; %s (%s)\n", c->verdict == KB_JUDGED_FAIL ? "FAIL" :
		      c->verdict == KB_JUDGED_PASS ? "pass" : "not judged", c->criterion, c->metric ? " " : "",
		      c->metric ? c->metric : "", c->expect ? c->expect : "", c->detail ? c->detail : "",
		      c->source ? c->source : "");
}

/* Whether another test of r has t's suite and name (a --vcpus sweep runs a test at each count). */
static bool name_repeats(const struct kb_result *r, const struct kb_test_result *t)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (&r->tests[i] != t && !strcmp(r->tests[i].suite, t->suite) && !strcmp(r->tests[i].test, t->test))
			return true;
	return false;
}

static void testcase(struct jw *j, const struct kb_result *r, const struct kb_test_result *t)
{
	struct kb_buf all = { 0 }, failed = { 0 }, names = { 0 };
	char cls[160], name[160];
	size_t nfail = 0;
	enum kb_judgement verdict = kb_test_judgement(t);

	snprintf(cls, sizeof(cls), "kvmbench.%s", t->suite);
	/* Testcase names are unique: a test measured at several vCPU counts says which. */
	if (name_repeats(r, t))
		snprintf(name, sizeof(name), "%s (%d vCPU%s)", t->test, t->vcpus, t->vcpus == 1 ? "" : "s");
	else
		snprintf(name, sizeof(name), "%s", t->test);
	start(j, "testcase");
	attr(j, "name", name);
	attr(j, "classname", cls);
	attrf(j, "time", "%.3f", isfinite(t->duration_s) && t->duration_s > 0 ? t->duration_s : 0);
	for (size_t i = 0; i < t->ncriteria; i++) {
		const struct kb_criterion *c = &t->criteria[i];

		criterion_line(&all, c);
		if (c->verdict != KB_JUDGED_FAIL)
			continue;
		criterion_line(&failed, c);
		kb_buf_printf(&names, "%s%s%s%s", nfail ? ", " : "", c->criterion, c->metric ? " " : "",
			      c->metric ? c->metric : "");
		nfail++;
	}
	if (verdict == KB_JUDGED_FAIL) {
		char *msg = kb_xasprintf("%zu of %zu criteria failed: %s", nfail, t->ncriteria, names.p);

		start(j, "failure");
		attr(j, "message", msg);
		attr(j, "type", "kvmbench.criteria");
		text(j, failed.p);
		end(j);
		free(msg);
	} else if (t->status == KB_STATUS_SKIPPED) {
		start(j, "skipped");
		attr(j, "message", t->reason ? t->reason : "skipped");
		end(j);
	}
	start(j, "system-out");
	text(j, all.p);
	end(j);
	end(j);
	free(all.p);
	free(failed.p);
	free(names.p);
}

static int write_doc(struct jw *j, const struct kb_result *r, double wall_s)
{
	json_object *p = r->profile;
	const char *name = kb_json_get_str(p, "name");
	size_t failures = 0, skipped = 0;
	char stamp[32] = "1970-01-01T00:00:00";
	const char *host = host_str(r, "hostname");

	for (size_t i = 0; i < r->ntests; i++) {
		failures += kb_test_judgement(&r->tests[i]) == KB_JUDGED_FAIL;
		skipped += kb_test_judgement(&r->tests[i]) != KB_JUDGED_FAIL && r->tests[i].status == KB_STATUS_SKIPPED;
	}
	/* JUnit's timestamp has no zone: the run's start, UTC. */
	if (r->started && strlen(r->started) >= 19)
		snprintf(stamp, sizeof(stamp), "%.19s", r->started);
	j->bad |= xmlTextWriterSetIndent(j->w, 1) < 0;
	j->bad |= xmlTextWriterStartDocument(j->w, NULL, "UTF-8", NULL) < 0;
	start(j, "testsuites");
	attr(j, "name", name);
	attrf(j, "tests", "%.0f", (double)r->ntests);
	attrf(j, "failures", "%.0f", (double)failures);
	attr(j, "errors", "0");
	attrf(j, "skipped", "%.0f", (double)skipped);
	attrf(j, "time", "%.3f", wall_s);
	start(j, "testsuite");
	attr(j, "name", name);
	attr(j, "package", "kvmbench");
	attr(j, "id", "0");
	attr(j, "hostname", host && *host ? host : "localhost");
	attr(j, "timestamp", stamp);
	attrf(j, "tests", "%.0f", (double)r->ntests);
	attrf(j, "failures", "%.0f", (double)failures);
	attr(j, "errors", "0");
	attrf(j, "skipped", "%.0f", (double)skipped);
	attrf(j, "time", "%.3f", wall_s);
	start(j, "properties");
	property(j, "kvmbench.version", r->tool_version);
	property(j, "profile.file", kb_json_get_str(p, "file"));
	property(j, "profile.verdict", kb_json_get_str(p, "verdict"));
	property(j, "reference.file", kb_json_get_str(kb_json_get(p, "reference"), "file"));
	property(j, "host.kernel", host_str(r, "kernel_release"));
	property(j, "host.cpu", host_str(r, "cpu.brand"));
	property(j, "host.microarchitecture", host_str(r, "cpu.microarchitecture"));
	property(j, "host.kvm.backend", host_str(r, "kvm.backend"));
	end(j);
	for (size_t i = 0; i < r->ntests; i++)
		testcase(j, r, &r->tests[i]);
	start(j, "system-out");
	end(j);
	start(j, "system-err");
	end(j);
	end(j);
	end(j);
	j->bad |= xmlTextWriterEndDocument(j->w) < 0;
	return j->bad ? kb_fail(EIO, "building the JUnit XML failed (libxml2)") : 0;
}

int kb_junit_write(const struct kb_result *r, const char *path, double wall_s)
{
	xmlBufferPtr buf = xmlBufferCreate();
	struct jw j = { buf ? xmlNewTextWriterMemory(buf, 0) : NULL, false };
	int err;

	if (!r->profile)
		err = kb_fail(EINVAL, "a JUnit report needs a result judged by a profile (run --profile)");
	else if (!j.w)
		err = kb_fail(ENOMEM, "cannot start libxml2's XML writer");
	else {
		err = write_doc(&j, r, wall_s);
		xmlFreeTextWriter(j.w);   /* flushes into buf */
		j.w = NULL;
		if (!err)
			err = kb_write_atomic_data(path, "JUnit report", (const char *)xmlBufferContent(buf),
						   (size_t)xmlBufferLength(buf), -1);
	}
	if (j.w)
		xmlFreeTextWriter(j.w);
	if (buf)
		xmlBufferFree(buf);
	return err;
}
