/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-plan.c: 'kvmbench plan': where vCPU threads, kvmbench's own threads and guest memory go. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/kb.h"
#include "host/plan.h"

struct plan_cfg {
	int vcpus;
	bool json;
	const char *topology_file;
};

static const struct kb_opt plan_opts[] = {
	{ "vcpus", 'c', KB_OPT_INT, offsetof(struct plan_cfg, vcpus), "N",
	  "number of vCPUs to place (may be left out with --cpus)", NULL, 0, 65536 },
	{ "topology-file", 0, KB_OPT_STRING, offsetof(struct plan_cfg, topology_file), "FILE",
	  "plan for the machine of an hwloc XML export instead of this one", NULL, 0, 0 },
	{ "json", 'j', KB_OPT_FLAG, offsetof(struct plan_cfg, json), NULL, "print JSON", NULL, 0, 0 },
};

static struct kb_plan_opts placement;

static size_t plan_groups(struct kb_opt_group *groups, size_t max)
{
	if (!max)
		return 0;
	groups[0] = (struct kb_opt_group){ "Placement", kb_plan_opt_table, kb_plan_nopts, &placement };
	return 1;
}

static void cpu_list(const int *cpus, int n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < n && len < size; i++) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			len += (size_t)snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", cpus[i], cpus[j]);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d", len ? "," : "", cpus[i]);
		i = j;
	}
}

static void print_plan(const struct kb_plan *p, const struct kb_topo_summary *s)
{
	static const char *const policies[] = { "cores (one vCPU per physical core, SMT siblings idle)",
						"smt (every thread of a core before the next core)",
						"none (no pinning, no memory binding)" };
	char own[4096];

	printf("topology:      %s (%d package%s, %d NUMA node%s, %d cores, %d PUs)\n", p->source, s->packages,
	       s->packages == 1 ? "" : "s", s->numa_nodes, s->numa_nodes == 1 ? "" : "s", s->cores, s->pus);
	printf("policy:        %s\n", p->explicit_cpus ? "explicit CPU list (--cpus)" : policies[p->policy]);
	for (int v = 0; v < p->nvcpus; v++) {
		if (p->vcpu_cpu[v] < 0)
			printf("vCPU %-4d ->  any CPU (not pinned)\n", v);
		else if (p->vcpu_core[v] < 0)
			printf("vCPU %-4d ->  CPU %-4d (node %d)\n", v, p->vcpu_cpu[v], p->vcpu_node[v]);
		else
			printf("vCPU %-4d ->  CPU %-4d (core L#%d, node %d)\n", v, p->vcpu_cpu[v], p->vcpu_core[v],
			       p->vcpu_node[v]);
	}
	cpu_list(p->own_cpus, p->nown, own, sizeof(own));
	printf("kvmbench:      %s%s\n", p->nown ? "CPUs " : "not pinned", own);
	if (p->memory_node >= 0 && p->memory_only_node) {
		char near[64] = "";

		if (p->memory_near_node >= 0)
			snprintf(near, sizeof(near), "; belongs to node %d", p->memory_near_node);
		if (p->memory_package >= 0)
			snprintf(near + strlen(near), sizeof(near) - strlen(near), "%spackage %d", *near ? ", " : "; ",
				 p->memory_package);
		printf("guest memory:  NUMA node %d (memory-only%s)\n", p->memory_node, near);
	} else if (p->memory_node >= 0)
		printf("guest memory:  NUMA node %d\n", p->memory_node);
	else
		printf("guest memory:  not bound\n");
	for (int i = 0; i < p->nmem_only; i++) {
		char whose[64] = "";

		if (p->mem_only[i].near_node >= 0)
			snprintf(whose, sizeof(whose), ", belongs to node %d", p->mem_only[i].near_node);
		if (p->mem_only[i].package >= 0)
			snprintf(whose + strlen(whose), sizeof(whose) - strlen(whose), ", package %d",
				 p->mem_only[i].package);
		printf("%-14s NUMA node %d (memory-only%s): guest memory goes there with --mem-node %d\n",
		       i ? "" : "memory-only:", p->mem_only[i].node, whose, p->mem_only[i].node);
	}
	for (int i = 0; i < p->nnotes; i++)
		printf("note:          %s\n", p->notes[i]);
}

static int cmd_plan(void *cfgp, int argc, char **argv)
{
	struct plan_cfg *c = cfgp;
	struct kb_topo_summary sum;
	struct kb_plan_req req;
	struct kb_topo *topo;
	struct kb_plan plan;

	(void)argv;
	if (argc)
		kb_die("plan takes no operands ('kvmbench plan --help')");
	if (!c->vcpus && !placement.cpus)
		kb_die("plan: say how many vCPUs to place with --vcpus N (or list their CPUs with --cpus)");
	if (kb_plan_req_from_opts(&placement, c->vcpus, &req))
		kb_die("plan: %s", kb_last_error());
	if (kb_topo_load(&topo, c->topology_file))
		kb_die("plan: %s", kb_last_error());
	if (kb_plan_make_topo(topo, &req, &plan)) {
		kb_topo_free(topo);
		kb_die("plan: %s", kb_last_error());
	}
	kb_topo_summarize(topo, &sum);
	if (c->json) {
		json_object *j = kb_plan_json(&plan);

		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		print_plan(&plan, &sum);
	}
	kb_plan_free(&plan);
	kb_topo_free(topo);
	return 0;
}

const struct kb_cmd kb_cmd_plan = {
	.name = "plan",
	.summary = "Show where vCPU threads, kvmbench's threads and guest memory will be placed.",
	.usage = "--vcpus N [OPTIONS]",
	.description = "By default each vCPU gets its own physical core on one NUMA node that has enough, the "
		       "SMT siblings of those cores stay idle, kvmbench's own threads run on other cores, and "
		       "guest memory is bound to the same node.  vCPUs spill onto the nearest node only when no "
		       "node is big enough, and never go to memory-only nodes.",
	.opts = plan_opts,
	.nopts = ARRAY_SIZE(plan_opts),
	.cfg_size = sizeof(struct plan_cfg),
	.extra_groups = plan_groups,
	.exec = cmd_plan,
};
