/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html-host.c: the host in the HTML report: one line for the first screen, and a section of prose,
 * short tables and the advice, with every recorded fact kept in a collapsed raw section. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "output/html.h"
#include "results/leaves.h"

/* A string fact at a dotted path, or NULL: a result from elsewhere may hold any type anywhere. */
static const char *fact(json_object *host, const char *path)
{
	json_object *v = kb_json_path(host, path);

	return v && json_object_is_type(v, json_type_string) && *json_object_get_string(v) ? json_object_get_string(v)
											      : NULL;
}

/* A whole-number fact, or -1. */
static long long count(json_object *host, const char *path)
{
	json_object *v = kb_json_path(host, path);

	if (!v || !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

static bool flag(json_object *host, const char *path)
{
	json_object *v = kb_json_path(host, path);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static void text(FILE *f, const char *s)
{
	kb_html_escape(f, s);
}

static void plural(FILE *f, long long n, const char *one, const char *many)
{
	fprintf(f, "%lld %s", n, n == 1 ? one : many);
}

static const char *backend(json_object *host)
{
	const char *b = fact(host, "kvm.backend");

	return b ? b : fact(host, "virtualization.kvm_backend");
}

/* The module parameters that change exit costs, as the host facts single them out. */
static void key_params(FILE *f, json_object *host)
{
	json_object *p = kb_json_path(host, "virtualization.kvm_params");
	bool first = true;

	if (!p || !json_object_is_type(p, json_type_object))
		return;
	json_object_object_foreach(p, key, val) {
		fputs(first ? "" : ", ", f);
		fputs("<code>", f);
		text(f, key);
		fputc('=', f);
		text(f, kb_leaf_text(val));
		fputs("</code>", f);
		first = false;
	}
}

void kb_html_host_line(FILE *f, json_object *host)
{
	const char *brand = fact(host, "cpu.brand"), *uarch = fact(host, "cpu.microarchitecture_name");
	const char *code = fact(host, "cpu.codename"), *kernel = fact(host, "kernel_release");
	const char *b = backend(host), *hv = fact(host, "virtualization.hypervisor");
	long long cores = count(host, "cpu.cores"), threads = count(host, "cpu.threads");
	long long nodes = count(host, "topology.numa_nodes");

	fputs("<p class=\"hostline\" id=\"hostline\"><strong>", f);
	text(f, brand ? brand : fact(host, "cpu.vendor") ? fact(host, "cpu.vendor") : "unknown CPU");
	fputs("</strong>", f);
	if (uarch || code) {
		fputs(" (", f);
		text(f, uarch ? uarch : code);
		if (uarch && code) {
			fputs(", ", f);
			text(f, code);
		}
		fputs(")", f);
	}
	if (cores > 0 || threads > 0) {
		fputs(" · ", f);
		if (cores > 0)
			plural(f, cores, "core", "cores");
		if (threads > 0) {
			fputs(cores > 0 ? ", " : "", f);
			plural(f, threads, "thread", "threads");
		}
		if (nodes > 0) {
			fputs(", ", f);
			plural(f, nodes, "NUMA node", "NUMA nodes");
		}
	}
	fputs(" · kernel ", f);
	text(f, kernel ? kernel : "unknown");
	fputs(" · KVM backend <strong>", f);
	text(f, b ? b : "unknown");
	fputs("</strong>", f);
	if (flag(host, "virtualization.under_hypervisor")) {
		fputs(", nested under ", f);
		text(f, hv ? hv : "a hypervisor");
	}
	if (kb_json_path(host, "virtualization.kvm_params")) {
		fputs(" · ", f);
		key_params(f, host);
	}
	fputs("</p>\n", f);
}

static void cpu_prose(FILE *f, json_object *host)
{
	const char *brand = fact(host, "cpu.brand"), *vendor = fact(host, "cpu.vendor");
	const char *uarch = fact(host, "cpu.microarchitecture_name"), *code = fact(host, "cpu.codename");
	long long fam = count(host, "cpu.family"), model = count(host, "cpu.model"), step = count(host, "cpu.stepping");
	long long pk = count(host, "cpu.packages"), cores = count(host, "cpu.cores"), thr = count(host, "cpu.threads");
	long long nodes = count(host, "topology.numa_nodes");

	fputs("<p>The processor is ", f);
	if (!brand && !vendor) {
		fputs("not recorded.", f);
	} else {
		fputs("<strong>", f);
		text(f, brand ? brand : vendor);
		fputs("</strong>", f);
		if (vendor && fam >= 0) {
			fputs(" (", f);
			text(f, vendor);
			fprintf(f, " family %lld, model %lld, stepping %lld)", fam, model, step);
		}
		if (uarch) {
			fputs(", microarchitecture ", f);
			text(f, uarch);
			if (code) {
				fputs(" (", f);
				text(f, code);
				fputs(")", f);
			}
		}
		if (pk > 0 && cores > 0) {
			fputs(": ", f);
			plural(f, pk, "package", "packages");
			fputs(" with ", f);
			plural(f, cores, "core", "cores");
			if (thr > 0) {
				fputs(" and ", f);
				plural(f, thr, "thread", "threads");
			}
		}
		if (nodes > 0) {
			fputs(" in ", f);
			plural(f, nodes, "NUMA node", "NUMA nodes");
		}
		if (flag(host, "topology.smt"))
			fputs("; SMT is on", f);
		if (flag(host, "cpu.hybrid"))
			fputs("; it mixes core types", f);
		fputs(".", f);
	}
	fputs("</p>\n", f);
}

static void kvm_prose(FILE *f, json_object *host)
{
	const char *kernel = fact(host, "kernel_release"), *machine = fact(host, "machine");
	const char *b = backend(host), *hv = fact(host, "virtualization.hypervisor"), *vpmu = fact(host, "pmu.vpmu");
	long long api = count(host, "kvm.api_version");

	fputs("<p>It runs Linux ", f);
	text(f, kernel ? kernel : "(release not recorded)");
	if (machine) {
		fputs(" on ", f);
		text(f, machine);
	}
	if (flag(host, "virtualization.under_hypervisor")) {
		fputs(", itself a guest of ", f);
		text(f, hv ? hv : "a hypervisor");
		fputs(": every exit also pays the hypervisor underneath", f);
	}
	fputs(". KVM uses the <strong>", f);
	text(f, b ? b : "unknown");
	fputs("</strong> backend", f);
	if (api >= 0)
		fprintf(f, " (API version %lld)", api);
	fputs(".", f);
	if (vpmu) {
		fputs(" vPMU: ", f);
		text(f, vpmu);
		fputs(".", f);
	}
	fputs("</p>\n", f);
}

static void params_table(FILE *f, json_object *host)
{
	json_object *p = kb_json_path(host, "virtualization.kvm_params");

	if (!p || !json_object_is_type(p, json_type_object) || !json_object_object_length(p))
		return;
	fputs("<table class=\"short\"><caption>KVM module parameters that change exit costs</caption>"
	      "<tr><th>Parameter</th><th>Value</th></tr>", f);
	json_object_object_foreach(p, key, val) {
		fputs("<tr><td><code>", f);
		text(f, key);
		fputs("</code></td><td>", f);
		text(f, kb_leaf_text(val));
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
}

static void placement(FILE *f, json_object *host)
{
	json_object *vcpus = kb_json_path(host, "placement.vcpus"), *notes = kb_json_path(host, "placement.notes");
	const char *policy = fact(host, "placement.policy");
	long long mem = count(host, "placement.memory_node");

	if (!vcpus || !json_object_is_type(vcpus, json_type_array))
		return;
	fputs("<p>vCPU placement", f);
	if (policy) {
		fputs(" (policy <code>", f);
		text(f, policy);
		fputs("</code>)", f);
	}
	fputs(flag(host, "placement.pinned") ? ": pinned, " : ": not pinned, ", f);
	for (size_t i = 0; i < json_object_array_length(vcpus); i++) {
		json_object *v = json_object_array_get_idx(vcpus, i);

		fprintf(f, "%svCPU %lld on CPU %lld", i ? ", " : "", count(v, "vcpu"), count(v, "cpu"));
	}
	if (mem >= 0)
		fprintf(f, "; guest memory on node %lld", mem);
	fputs(".</p>\n", f);
	if (notes && json_object_is_type(notes, json_type_array) && json_object_array_length(notes)) {
		fputs("<ul class=\"notes\">", f);
		for (size_t i = 0; i < json_object_array_length(notes); i++) {
			fputs("<li>", f);
			text(f, kb_leaf_text(json_object_array_get_idx(notes, i)));
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
}

/* "What matters on this host": the advice rules' sentences. */
static void advice(FILE *f, json_object *host)
{
	json_object *a = kb_json_path(host, "advice");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	fputs("<h3>What matters on this host</h3>\n", f);
	if (!n) {
		fputs("<p>No advice was recorded for this host.</p>\n", f);
		return;
	}
	fputs("<ul class=\"advice\">", f);
	for (size_t i = 0; i < n; i++) {
		json_object *item = json_object_array_get_idx(a, i);
		const char *s = fact(item, "text");

		fputs("<li>", f);
		text(f, s ? s : kb_leaf_text(item));
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static void one_host(FILE *f, json_object *host)
{
	if (!host) {
		fputs("<p>No host facts recorded.</p>\n", f);
		return;
	}
	cpu_prose(f, host);
	kvm_prose(f, host);
	params_table(f, host);
	placement(f, host);
	advice(f, host);
	fputs("<details class=\"raw\"><summary>Every host fact as recorded</summary>\n", f);
	kb_html_json_table(f, host);
	fputs("</details>\n", f);
}

void kb_html_host_section(FILE *f, const struct kb_report *rep, size_t distinct)
{
	char buf[32];

	fputs("<section id=\"host\"><h2>Host</h2>\n", f);
	if (distinct > 1)
		fprintf(f, "<p class=\"warning\">These results come from %zu different hosts or host configurations; "
			   "their numbers are not directly comparable.</p>\n", distinct);
	for (size_t i = 0; i < rep->nresults; i++) {
		if (kb_report_same_host(rep, i) >= 0)
			continue;
		if (rep->nresults > 1) {
			fputs("<h3>Measured in", f);
			for (size_t j = i; j < rep->nresults; j++)
				if (j == i || kb_report_same_host(rep, j) == (int)i) {
					fputs(" <code>", f);
					text(f, kb_report_name(rep, j, buf, sizeof(buf)));
					fputs("</code>", f);
				}
			fputs("</h3>\n", f);
		}
		one_host(f, rep->results[i]->host);
	}
	fputs("</section>\n", f);
}
