/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-profile.c: a qualification profile, as 'run --profile' reads it: libyaml parses the bytes,
 * kb_profile_parse() builds the profile, and a profile that loads judges a small result (tests
 * measured, skipped and invalid) with and without a reference; the verdicts then go through the
 * JSON and back, table output, and the JUnit writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/kb.h"
#include "fuzz.h"
#include "output/junit.h"
#include "output/table.h"
#include "results/profile.h"

static FILE *sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

/* A result with a measured, a skipped and an invalid test; scale moves the measured means. */
static void make_result(struct kb_result *r, double scale)
{
	struct kb_test_result *t;
	struct kb_metric *m;

	kb_result_init(r);
	r->host = json_tokener_parse("{\"hostname\": \"fuzz\", \"cpu\": {\"microarchitecture\": \"zen3\"}}");
	r->started = kb_xstrdup("2026-12-01T00:00:00Z");
	t = kb_result_add_test(r, "selftest", "nop");
	m = kb_test_metric(t, "ns", "ns/iter", false);
	for (int i = 1; i <= 5; i++)
		kb_metric_push(m, scale * i);
	m = kb_test_metric(t, "rate", "iter/s", true);
	for (int i = 1; i <= 5; i++)
		kb_metric_push(m, 1e9 / (scale * i));
	kb_test_finish(t);
	t = kb_result_add_test(r, "execute-perf", "hugetlb-1g");
	kb_test_set_status(t, KB_STATUS_SKIPPED, "is not a whole number of them");
	t = kb_result_add_test(r, "cpuid", "cpuid");
	kb_test_metric(t, "rate", "iter/s", true);
	kb_test_set_status(t, KB_STATUS_INVALID, "the hardware or an outer hypervisor answered the instruction");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_profile p;
	struct kb_result res, ref, back;
	json_object *j;
	char path[4096];

	if (kb_profile_parse("fuzz.yaml", (const char *)data, size, &p))
		return 0;
	make_result(&res, 1);
	make_result(&ref, 0.9);
	kb_profile_wants_reference(&p);
	kb_profile_judge(&p, &res, NULL, NULL);
	kb_profile_judge(&p, &res, &ref, "ref.json");
	kb_table_profile(sink(), &res, true);
	for (size_t i = 0; i < res.ntests; i++)
		kb_line_test(sink(), &res.tests[i], false, true);
	j = kb_result_to_json(&res);
	kb_result_from_json(j, &back);   /* loaded or not, it is freed */
	kb_result_free(&back);
	json_object_put(j);
	snprintf(path, sizeof(path), "%s/junit.xml", kb_fuzz_dir());
	kb_junit_write(&res, path, 1.5);
	kb_result_free(&res);
	kb_result_free(&ref);
	kb_profile_free(&p);
	return 0;
}
