/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c: the CPUID probe's verdict from its counts, the exit counts that depend on it, and its advice. */
#include <stdio.h>
#include <string.h>

#include "bench/suites.h"
#include "core/json.h"
#include "host/advice.h"
#include "run/probe.h"
#include "run/suite.h"
#include "vmm/kvm.h"
#include "tap.h"

/* The ids of the advice on a probe's verdict, comma-separated, into buf. */
static const char *probed_advice(const char *backend, int verdict, char *buf, size_t size)
{
	json_object *a = json_object_new_array();
	size_t len = 0;

	buf[0] = 0;
	kb_advice_add_probed(a, backend, verdict);
	for (size_t i = 0; i < json_object_array_length(a); i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
					json_object_get_string(kb_json_get(json_object_array_get_idx(a, i), "id")));
	json_object_put(a);
	return buf;
}

int main(void)
{
	const struct kb_test_def *immed = kb_find_test(kb_find_suite("self-ipi"), "tscdeadline_immed");
	const struct kb_test_def *cpuid = kb_find_test(kb_find_suite("cpuid"), "cpuid");
	struct kb_kvm kvm = { .backend = KB_BACKEND_PVM, .apic_virt = -1 };
	struct kb_cpuid_probe p = { .verdict = KB_GUEST_CPUID_EXITS, .cpuids = 512, .exits = 512 };
	struct kb_exit_range r;
	char buf[512];
	json_object *j;

	/* ---- the verdict: about one exit a CPUID, about none, or neither ---- */
	ok(kb_cpuid_probe_judge(512, 512) == KB_GUEST_CPUID_EXITS, "512 exits for 512 CPUIDs: CPUID exits to this KVM");
	ok(kb_cpuid_probe_judge(512, 256) == KB_GUEST_CPUID_EXITS, "256 for 512, half an exit each: still exits");
	ok(kb_cpuid_probe_judge(512, 0) == KB_GUEST_CPUID_BELOW, "0 exits for 512 CPUIDs: answered underneath");
	ok(kb_cpuid_probe_judge(512, 51) == KB_GUEST_CPUID_BELOW, "51 for 512, a tenth: still answered underneath");
	ok(kb_cpuid_probe_judge(512, 255) == KB_GUEST_CPUID_UNKNOWN && kb_cpuid_probe_judge(512, 52) == KB_GUEST_CPUID_UNKNOWN,
	   "255 or 52 for 512: neither, not known");
	ok(kb_cpuid_probe_judge(0, 0) == KB_GUEST_CPUID_UNKNOWN, "no CPUID ran: not known");

	/* ---- tscdeadline_immed's exits on kvm_pvm: exact once the probe has said, the range before ---- */
	ok(immed && immed->exits_on.pvm_cpuids == 1, "self-ipi/tscdeadline_immed counts one CPUID an iteration on kvm_pvm");
	kvm.guest_cpuid = KB_GUEST_CPUID_UNKNOWN;
	r = kb_test_expected_exits(immed, &kvm);
	ok(r.lo == 4 && r.hi == 5, "not probed: 4 to 5 exits (%g to %g)", r.lo, r.hi);
	kvm.guest_cpuid = KB_GUEST_CPUID_EXITS;
	r = kb_test_expected_exits(immed, &kvm);
	ok(r.lo == 5 && r.hi == 5, "CPUID exits to kvm_pvm: exactly 5 (%g to %g)", r.lo, r.hi);
	kvm.guest_cpuid = KB_GUEST_CPUID_BELOW;
	r = kb_test_expected_exits(immed, &kvm);
	ok(r.lo == 4 && r.hi == 4, "CPUID answered underneath: exactly 4 (%g to %g)", r.lo, r.hi);
	/* Hardware KVMs never let a guest's CPUID past them: the probe changes nothing there. */
	kvm.backend = KB_BACKEND_AMD;
	kvm.apic_virt = 0;
	r = kb_test_expected_exits(immed, &kvm);
	ok(r.lo == 3 && r.hi == 3, "kvm_amd without AVIC, whatever the probe: exactly 3 (%g to %g)", r.lo, r.hi);
	/* A test without CPUID in its loop is not narrowed by the probe. */
	kvm.backend = KB_BACKEND_PVM;
	r = kb_test_expected_exits(cpuid, &kvm);
	ok(cpuid && r.lo == 1 && r.hi == 1, "cpuid/cpuid still expects its one exit (%g to %g): the probe judges no test",
	   r.lo, r.hi);

	/* ---- the advice on the verdict: kvm_pvm only, one rule for each way ---- */
	is_str(probed_advice("kvm_pvm", KB_GUEST_CPUID_EXITS, buf, sizeof(buf)), "kvm-pvm-cpuid-exits",
	       "kvm_pvm, CPUID exits: its advice");
	is_str(probed_advice("kvm_pvm", KB_GUEST_CPUID_BELOW, buf, sizeof(buf)), "kvm-pvm-cpuid-below",
	       "kvm_pvm, CPUID answered underneath: its advice");
	is_str(probed_advice("kvm_pvm", KB_GUEST_CPUID_UNKNOWN, buf, sizeof(buf)), "", "kvm_pvm, not known: none");
	is_str(probed_advice("kvm_intel", KB_GUEST_CPUID_EXITS, buf, sizeof(buf)), "", "kvm_intel: none (nothing varies)");

	/* ---- the record ---- */
	j = kb_cpuid_probe_json(&p);
	is_str(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
	       "{\"verdict\":\"exits\",\"cpuids\":512,\"exits\":512,\"reason\":null}", "the JSON of 512 exits for 512");
	json_object_put(j);
	p = (struct kb_cpuid_probe){ .verdict = KB_GUEST_CPUID_BELOW, .cpuids = 512, .exits = 0 };
	kb_cpuid_probe_describe(&p, "kvm_pvm", buf, sizeof(buf));
	is_str(buf, "answered underneath kvm_pvm, which never sees it (0 exits for 512 CPUIDs)", "described: underneath");
	p = (struct kb_cpuid_probe){ .verdict = KB_GUEST_CPUID_UNKNOWN };
	snprintf(p.why, sizeof(p.why), "CPUID is an x86 instruction");
	j = kb_cpuid_probe_json(&p);
	is_str(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
	       "{\"verdict\":\"unknown\",\"cpuids\":0,\"exits\":0,\"reason\":\"CPUID is an x86 instruction\"}",
	       "the JSON of a probe that did not run says why");
	json_object_put(j);
	return tap_done();
}
