/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c: the vCPU/memory placement planner on a loaded topology, applying a plan with thread
 * affinity (pthread), the plan as JSON, and the placement options shared by 'plan' and 'run'. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "host/plan.h"
#include "host/topology-priv.h"
#include "host/topology.h"
#include "core/json.h"
#include "core/kb.h"

/* ------------------------------------------------------------------ planning */

static void note(struct kb_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct kb_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes >= KB_PLAN_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->nnotes++], sizeof(p->notes[0]), fmt, ap);
	va_end(ap);
}

static void plan_alloc(struct kb_plan *p, int n)
{
	p->nvcpus = n;
	p->vcpu_cpu = kb_xcalloc((size_t)n, sizeof(int));
	p->vcpu_core = kb_xcalloc((size_t)n, sizeof(int));
	p->vcpu_node = kb_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++)
		p->vcpu_cpu[i] = p->vcpu_core[i] = p->vcpu_node[i] = -1;
}

static void assign(const struct kb_topo *t, struct kb_plan *p, int vcpu, int pu)
{
	p->vcpu_cpu[vcpu] = pu;
	p->vcpu_core[vcpu] = t->cores[t->core_of[pu]].logical;
	p->vcpu_node[vcpu] = t->nodes[t->node_of[pu]].os;
}

static int units(const struct kb_topo *t, const struct topo_node *n, enum kb_plan_policy pol)
{
	return pol == KB_PLAN_SMT ? hwloc_bitmap_weight(n->home) : n->ncores;
}

/* The node for the vCPUs: the first (by number) with room for them and kvmbench's own threads,
 * else the first with room for the vCPUs, else the largest. */
static int choose_node(const struct kb_topo *t, int nvcpus, enum kb_plan_policy pol)
{
	int best = -1;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->nnodes; i++)
			if (units(t, &t->nodes[i], pol) >= nvcpus + (pass ? 0 : 1))
				return i;
	for (int i = 0; i < t->nnodes; i++)
		if (best < 0 || units(t, &t->nodes[i], pol) > units(t, &t->nodes[best], pol))
			best = i;
	return best;
}

static uint64_t node_distance(const struct kb_topo *t, int a, int b)
{
	hwloc_uint64_t ab, ba;

	if (t->dist && !hwloc_distances_obj_pair_values(t->dist, t->nodes[a].obj, t->nodes[b].obj, &ab, &ba))
		return ab;
	/* Without a distance matrix: the same package is near, another package far. */
	return t->nodes[a].package == t->nodes[b].package ? 1 : 2;
}

/* Nodes in the order vCPUs spill onto them: the chosen one, then by distance from it. */
static void node_order(const struct kb_topo *t, int first, int *order)
{
	int n = 0;

	order[n++] = first;
	for (int i = 0; i < t->nnodes; i++)
		if (i != first)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 1 && node_distance(t, first, order[j]) < node_distance(t, first, order[j - 1]); j--) {
			int tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
}

static int max_smt(const struct kb_topo *t)
{
	int m = 1;

	for (int c = 0; c < t->ncores; c++)
		if (hwloc_bitmap_weight(t->cores[c].pus) > m)
			m = hwloc_bitmap_weight(t->cores[c].pus);
	return m;
}

static int nth_pu(const struct topo_core *c, int n)
{
	int pu = hwloc_bitmap_first(c->pus);

	while (n-- > 0 && pu >= 0)
		pu = hwloc_bitmap_next(c->pus, pu);
	return pu;
}

/* Policy cores: one PU per core, node by node; SMT siblings only once every core has a vCPU. */
static void take_cores(const struct kb_topo *t, struct kb_plan *p, const int *order)
{
	int v = 0, smt = max_smt(t);

	for (int pass = 0; pass < smt; pass++)
		for (int k = 0; k < t->nnodes; k++) {
			const struct topo_node *nd = &t->nodes[order[k]];

			for (int i = 0; i < nd->ncores; i++) {
				int pu = nth_pu(&t->cores[nd->cores[i]], pass);

				if (pu < 0)
					continue;
				assign(t, p, v++, pu);
				if (v == p->nvcpus)
					return;
			}
		}
}

/* Policy smt: every PU of a core before the next core. */
static void take_threads(const struct kb_topo *t, struct kb_plan *p, const int *order)
{
	int v = 0, pu;

	for (int k = 0; k < t->nnodes; k++) {
		const struct topo_node *nd = &t->nodes[order[k]];

		for (int i = 0; i < nd->ncores; i++) {
			hwloc_bitmap_foreach_begin(pu, t->cores[nd->cores[i]].pus) {
				assign(t, p, v++, pu);
				if (v == p->nvcpus)
					return;
			}
			hwloc_bitmap_foreach_end();
		}
	}
}

/* kvmbench's own threads: the PUs of cores without vCPUs on the vCPUs' node, else on the nearest
 * node that has such PUs. */
static void place_own(const struct kb_topo *t, struct kb_plan *p, int node)
{
	bool *used = kb_xcalloc((size_t)t->ncores, sizeof(bool));
	int *order = kb_xcalloc((size_t)t->nnodes, sizeof(int));
	hwloc_bitmap_t own = hwloc_bitmap_alloc();
	int pu, n = 0, chosen = node;

	for (int v = 0; v < p->nvcpus; v++)
		used[t->core_of[p->vcpu_cpu[v]]] = true;
	node_order(t, node, order);
	for (int k = 0; k < t->nnodes && hwloc_bitmap_iszero(own); k++) {
		chosen = order[k];
		hwloc_bitmap_foreach_begin(pu, t->nodes[chosen].home) {
			if (!used[t->core_of[pu]])
				hwloc_bitmap_set(own, (unsigned)pu);
		}
		hwloc_bitmap_foreach_end();
	}
	p->own_cpus = kb_xcalloc((size_t)hwloc_bitmap_weight(own) + 1, sizeof(int));
	hwloc_bitmap_foreach_begin(pu, own)
		p->own_cpus[n++] = pu;
	hwloc_bitmap_foreach_end();
	p->nown = n;
	if (!n)
		note(p, "no core is left free of vCPUs: kvmbench's own threads are not pinned and compete with "
		     "the vCPUs (ask for fewer vCPUs to give them a core)");
	else if (chosen != node)
		note(p, "NUMA node %d has no core left for kvmbench's own threads: they run on node %d",
		     t->nodes[node].os, t->nodes[chosen].os);
	hwloc_bitmap_free(own);
	free(order);
	free(used);
}

/* Notes every plan gets: vCPUs sharing a core, spanning nodes, mixing core kinds. */
static void check_plan(const struct kb_topo *t, struct kb_plan *p)
{
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	int min_rank = INT_MAX, max_rank = INT_MIN;
	char list[256];

	for (int v = 0; v < p->nvcpus; v++) {
		int c = t->core_of[p->vcpu_cpu[v]];

		for (int w = 0; w < v; w++)
			if (t->core_of[p->vcpu_cpu[w]] == c)
				p->smt_shared = true;
		hwloc_bitmap_set(nodes, (unsigned)p->vcpu_node[v]);
		if (t->cores[c].rank < min_rank)
			min_rank = t->cores[c].rank;
		if (t->cores[c].rank > max_rank)
			max_rank = t->cores[c].rank;
	}
	p->spilled = hwloc_bitmap_weight(nodes) > 1;
	topo_bitmap_list(nodes, list, sizeof(list));
	if (p->smt_shared && p->policy == KB_PLAN_SMT)
		note(p, "policy smt: vCPUs share cores with their SMT siblings");
	else if (p->smt_shared)
		note(p, "some vCPUs share a physical core with their SMT sibling (%s)",
		     p->explicit_cpus ? "as --cpus asked" : "not enough physical cores for one vCPU each");
	if (p->spilled)
		note(p, "vCPUs span NUMA nodes %s; guest memory is bound to node %d, remote for some vCPUs",
		     list, p->memory_node);
	if (min_rank != max_rank)
		note(p, "vCPUs run on different core kinds (performance and efficiency cores): their rates differ");
	hwloc_bitmap_free(nodes);
}

static int check_node(const struct kb_topo *t, int os, bool for_vcpus, int *idx)
{
	char list[256];

	*idx = topo_node_index(t, os);
	topo_node_list(t, false, list, sizeof(list));
	if (*idx < 0)
		return kb_fail(ENOENT, "NUMA node %d does not exist on %s (nodes with CPUs: %s)", os, t->source, list);
	if (for_vcpus && topo_memory_only(&t->nodes[*idx]))
		return kb_fail(EINVAL, "NUMA node %d on %s is memory-only (it has no CPUs): vCPUs cannot run there; "
			       "choose one of nodes %s", os, t->source, list);
	return 0;
}

/* --mem-node K: guest memory on node K, whatever node the vCPUs run on; a memory-only node is the
 * reason to ask (HBM in flat mode, MCDRAM, CXL memory), so it is allowed here, never for vCPUs. */
static int bind_mem_node(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *p)
{
	const struct topo_node *nd;
	int idx, err;

	if (req->mem_node < 0)
		return 0;
	err = check_node(t, req->mem_node, false, &idx);
	if (err) {
		char why[512];

		snprintf(why, sizeof(why), "%s", kb_last_error());
		return kb_fail(err, "--mem-node: %s", why);
	}
	nd = &t->nodes[idx];
	if (nd->obj->attr && !nd->obj->attr->numanode.local_memory && hwloc_topology_get_support(t->h)->discovery->numa_memory)
		return kb_fail(EINVAL, "--mem-node %d: NUMA node %d on %s has no memory", req->mem_node, req->mem_node,
			       t->source);
	p->memory_node = nd->os;
	p->memory_only_node = topo_memory_only(nd);
	p->memory_near_node = nd->near >= 0 ? t->nodes[nd->near].os : -1;
	p->memory_package = nd->package;
	if (p->memory_only_node) {
		char near[96] = "", pkg[32] = "";

		if (p->memory_package >= 0)
			snprintf(pkg, sizeof(pkg), ", package %d", p->memory_package);
		if (p->memory_near_node >= 0)
			snprintf(near, sizeof(near), " (it belongs to node %d%s, by %s)", p->memory_near_node,
				 p->memory_package >= 0 ? pkg : "", nd->near_by);
		note(p, "guest memory on memory-only NUMA node %d%s", nd->os, near);
	}
	return 0;
}

static int plan_explicit(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *p)
{
	hwloc_bitmap_t all = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->h));
	int *cpus, n, err, *count, best = 0, idx;
	char list[1024];

	topo_bitmap_list(all, list, sizeof(list));
	hwloc_bitmap_free(all);
	err = kb_parse_cpu_list(req->cpus, &cpus, &n);
	if (err) {
		char why[512];

		snprintf(why, sizeof(why), "%s", kb_last_error());
		return kb_fail(err, "--cpus: %s", why);
	}
	if (req->nvcpus && n != req->nvcpus) {
		free(cpus);
		return kb_fail(EINVAL, "--cpus %s lists %d CPUs for %d vCPUs: give exactly one CPU per vCPU",
			       req->cpus, n, req->nvcpus);
	}
	for (int i = 0; i < n; i++)
		if (cpus[i] > t->max_pu || t->core_of[cpus[i]] < 0) {
			err = kb_fail(EINVAL, "CPU %d (in --cpus %s) is not in %s: its CPUs are %s",
				      cpus[i], req->cpus, t->source, list);
			free(cpus);
			return err;
		}
	p->explicit_cpus = true;
	plan_alloc(p, n);
	for (int i = 0; i < n; i++)
		assign(t, p, i, cpus[i]);
	free(cpus);
	/* Memory goes where most vCPUs are, unless a node is named. */
	count = kb_xcalloc((size_t)t->nnodes, sizeof(int));
	for (int i = 0; i < n; i++)
		count[t->node_of[p->vcpu_cpu[i]]]++;
	for (int i = 1; i < t->nnodes; i++)
		if (count[i] > count[best])
			best = i;
	free(count);
	p->memory_node = t->nodes[best].os;
	if (req->numa_node >= 0) {
		err = check_node(t, req->numa_node, false, &idx);
		if (err)
			return err;
		p->memory_node = req->numa_node;
	}
	err = bind_mem_node(t, req, p);
	if (err)
		return err;
	check_plan(t, p);
	place_own(t, p, best);
	return 0;
}

static int make_topo(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *p)
{
	int first, err, *order;

	memset(p, 0, sizeof(*p));
	p->policy = req->policy;
	p->memory_node = -1;
	p->memory_near_node = p->memory_package = -1;
	p->applicable = t->live;
	snprintf(p->source, sizeof(p->source), "%s", t->source);
	for (int i = 0; i < t->nnodes && p->nmem_only < KB_PLAN_MAX_MEMORY_ONLY; i++)
		if (topo_memory_only(&t->nodes[i]))
			p->mem_only[p->nmem_only++] = (struct kb_plan_mem_only){
				t->nodes[i].os, t->nodes[i].near >= 0 ? t->nodes[t->nodes[i].near].os : -1, t->nodes[i].package };
	if (req->policy == KB_PLAN_NONE && (req->cpus || req->numa_node >= 0 || req->mem_node >= 0))
		return kb_fail(EINVAL, "--pin none leaves vCPU threads and memory to the kernel: it cannot be combined "
			       "with --cpus, --numa-node or --mem-node");
	if (req->cpus)
		return plan_explicit(t, req, p);
	if (req->nvcpus < 1)
		return kb_fail(EINVAL, "a plan needs at least one vCPU (--vcpus N)");
	if (req->nvcpus > t->npus && req->policy != KB_PLAN_NONE)
		return kb_fail(EINVAL, "%d vCPUs need %d PUs, but %s has only %d: ask for %d vCPUs or fewer "
			       "(or overcommit them unpinned with --pin none)",
			       req->nvcpus, req->nvcpus, t->source, t->npus, t->npus);
	if (req->policy == KB_PLAN_NONE) {
		plan_alloc(p, req->nvcpus);
		note(p, "not pinned: vCPU threads run where the scheduler puts them and guest memory follows the "
		     "default policy");
		/* Unpinned, more vCPUs than PUs is a choice (a scaling sweep on a small host), not an error. */
		if (req->nvcpus > t->npus)
			note(p, "overcommitted: %d vCPUs share %d PUs, so they take turns", req->nvcpus, t->npus);
		return 0;
	}
	if (req->numa_node >= 0) {
		err = check_node(t, req->numa_node, true, &first);
		if (err)
			return err;
	} else {
		first = choose_node(t, req->nvcpus, req->policy);
	}
	plan_alloc(p, req->nvcpus);
	order = kb_xcalloc((size_t)t->nnodes, sizeof(int));
	node_order(t, first, order);
	if (req->policy == KB_PLAN_SMT)
		take_threads(t, p, order);
	else
		take_cores(t, p, order);
	free(order);
	p->memory_node = t->nodes[first].os;
	err = bind_mem_node(t, req, p);
	if (err)
		return err;
	check_plan(t, p);
	/* Only a plan whose vCPUs really span nodes spilled: one CPU node short of cores shares them. */
	if (p->spilled && units(t, &t->nodes[first], req->policy) < req->nvcpus)
		note(p, "NUMA node %d has %d %s for %d vCPUs: the rest spill onto the nearest node%s",
		     t->nodes[first].os, units(t, &t->nodes[first], req->policy),
		     req->policy == KB_PLAN_SMT ? "PUs" : "cores", req->nvcpus,
		     req->numa_node >= 0 ? "" : " (no node has enough)");
	place_own(t, p, first);
	return 0;
}

int kb_plan_make_topo(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *p)
{
	int err = make_topo(t, req, p);

	/* A refused plan holds nothing: the caller frees only a plan that was made. */
	if (err)
		kb_plan_free(p);
	return err;
}

int kb_plan_make(const struct kb_plan_req *req, struct kb_plan *plan)
{
	struct kb_topo *t;
	int err = kb_topo_load(&t, req->topology_file);

	if (err)
		return err;
	err = kb_plan_make_topo(t, req, plan);
	kb_topo_free(t);
	return err;
}

void kb_plan_free(struct kb_plan *p)
{
	free(p->vcpu_cpu);
	free(p->vcpu_core);
	free(p->vcpu_node);
	free(p->own_cpus);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------------ applying */

static int not_here(const struct kb_plan *p, const char *what)
{
	return kb_fail(EINVAL, "cannot %s: the plan was made for %s, not for this machine", what, p->source);
}

static int pin_self(const int *cpus, int n, const char *who)
{
	int max = 0, err;
	cpu_set_t *set;
	size_t size;

	for (int i = 0; i < n; i++)
		if (cpus[i] > max)
			max = cpus[i];
	set = CPU_ALLOC(max + 1);
	if (!set)
		return kb_fail(ENOMEM, "pinning %s: out of memory", who);
	size = CPU_ALLOC_SIZE(max + 1);
	CPU_ZERO_S(size, set);
	for (int i = 0; i < n; i++)
		CPU_SET_S(cpus[i], size, set);
	err = pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
	if (err)
		return kb_fail(err, "pinning %s to CPU %d%s: %s (is the CPU offline or outside this process's "
			       "cpuset? check with 'kvmbench plan', or use --pin none)", who, cpus[0],
			       n > 1 ? " and others" : "", strerror(err));
	return 0;
}

int kb_plan_pin_vcpu_thread(const struct kb_plan *p, int vcpu)
{
	char who[64];

	if (vcpu < 0 || vcpu >= p->nvcpus)
		return kb_fail(EINVAL, "vCPU %d is not in the plan (it has %d vCPUs)", vcpu, p->nvcpus);
	if (p->vcpu_cpu[vcpu] < 0)
		return 0;
	if (!p->applicable)
		return not_here(p, "pin a vCPU thread");
	snprintf(who, sizeof(who), "vCPU %d's thread", vcpu);
	return pin_self(&p->vcpu_cpu[vcpu], 1, who);
}

int kb_plan_pin_own_thread(const struct kb_plan *p)
{
	if (!p->nown)
		return 0;
	if (!p->applicable)
		return not_here(p, "pin kvmbench's thread");
	return pin_self(p->own_cpus, p->nown, "kvmbench's own thread");
}

int kb_plan_memory_node(const struct kb_plan *p, int *node)
{
	*node = -1;
	if (!p || p->memory_node < 0)
		return 0;
	if (!p->applicable)
		return not_here(p, "bind guest memory");
	*node = p->memory_node;
	return 0;
}

/* ------------------------------------------------------------------ reporting and options */

static const char *policy_name(enum kb_plan_policy pol)
{
	switch (pol) {
	case KB_PLAN_SMT: return "smt";
	case KB_PLAN_NONE: return "none";
	default: return "cores";
	}
}

json_object *kb_plan_json(const struct kb_plan *p)
{
	json_object *o = json_object_new_object();
	json_object *vc = json_object_new_array();
	json_object *notes = json_object_new_array();
	json_object *own = NULL;
	bool pinned = false;

	for (int v = 0; v < p->nvcpus; v++) {
		json_object *e = json_object_new_object();

		kb_json_set_int(e, "vcpu", v);
		kb_json_set(e, "cpu", p->vcpu_cpu[v] >= 0 ? json_object_new_int(p->vcpu_cpu[v]) : NULL);
		kb_json_set(e, "core", p->vcpu_core[v] >= 0 ? json_object_new_int(p->vcpu_core[v]) : NULL);
		kb_json_set(e, "node", p->vcpu_node[v] >= 0 ? json_object_new_int(p->vcpu_node[v]) : NULL);
		json_object_array_add(vc, e);
		pinned |= p->vcpu_cpu[v] >= 0;
	}
	if (p->nown) {
		own = json_object_new_array();
		for (int i = 0; i < p->nown; i++)
			json_object_array_add(own, json_object_new_int(p->own_cpus[i]));
	}
	for (int i = 0; i < p->nnotes; i++)
		json_object_array_add(notes, json_object_new_string(p->notes[i]));
	kb_json_set_str(o, "topology", p->source);
	kb_json_set_str(o, "policy", p->explicit_cpus ? "cpus" : policy_name(p->policy));
	kb_json_set_bool(o, "pinned", pinned);
	kb_json_set(o, "vcpus", vc);
	kb_json_set(o, "memory_node", p->memory_node >= 0 ? json_object_new_int(p->memory_node) : NULL);
	kb_json_set_bool(o, "memory_node_memory_only", p->memory_only_node);
	if (p->memory_only_node) {
		kb_json_set(o, "memory_near_node", p->memory_near_node >= 0 ? json_object_new_int(p->memory_near_node) : NULL);
		kb_json_set(o, "memory_package", p->memory_package >= 0 ? json_object_new_int(p->memory_package) : NULL);
	}
	kb_json_set(o, "kvmbench_cpus", own);
	if (p->nmem_only) {
		json_object *m = json_object_new_array();

		for (int i = 0; i < p->nmem_only; i++) {
			json_object *e = json_object_new_object();

			kb_json_set_int(e, "node", p->mem_only[i].node);
			kb_json_set(e, "near_node", p->mem_only[i].near_node >= 0 ? json_object_new_int(p->mem_only[i].near_node) : NULL);
			kb_json_set(e, "package", p->mem_only[i].package >= 0 ? json_object_new_int(p->mem_only[i].package) : NULL);
			json_object_array_add(m, e);
		}
		kb_json_set(o, "memory_only_nodes", m);
	}
	kb_json_set_bool(o, "spilled", p->spilled);
	kb_json_set_bool(o, "smt_shared", p->smt_shared);
	kb_json_set(o, "notes", notes);
	return o;
}

const struct kb_opt kb_plan_opt_table[] = {
	{ "numa-node", 0, KB_OPT_INT, offsetof(struct kb_plan_opts, numa_node), "K",
	  "run vCPUs and bind guest memory on NUMA node K (-1: the planner chooses)", "-1", -1, 65535 },
	{ "mem-node", 0, KB_OPT_INT, offsetof(struct kb_plan_opts, mem_node), "K",
	  "bind guest memory to NUMA node K instead, memory-only nodes too (HBM, MCDRAM, CXL; -1: the vCPUs' node)",
	  "-1", -1, 65535 },
	{ "policy", 0, KB_OPT_STRING, offsetof(struct kb_plan_opts, policy), "P",
	  "cores: one vCPU per physical core, SMT siblings idle; smt: fill every thread of a core", "cores", 0, 0 },
	{ "pin", 0, KB_OPT_STRING, offsetof(struct kb_plan_opts, pin), "MODE",
	  "auto: pin threads and bind memory per the plan; none: leave both to the kernel", "auto", 0, 0 },
	{ "cpus", 0, KB_OPT_STRING, offsetof(struct kb_plan_opts, cpus), "LIST",
	  "run vCPU i on the i-th CPU of LIST (e.g. 2,4,6-7)", NULL, 0, 0 },
};
const size_t kb_plan_nopts = ARRAY_SIZE(kb_plan_opt_table);

int kb_plan_req_from_opts(const struct kb_plan_opts *o, int nvcpus, struct kb_plan_req *req)
{
	memset(req, 0, sizeof(*req));
	req->nvcpus = nvcpus;
	req->numa_node = o->numa_node;
	req->mem_node = o->mem_node;
	req->cpus = o->cpus;
	if (!o->policy || !strcmp(o->policy, "cores"))
		req->policy = KB_PLAN_CORES;
	else if (!strcmp(o->policy, "smt"))
		req->policy = KB_PLAN_SMT;
	else
		return kb_fail(EINVAL, "--policy: '%s' is not a policy (cores or smt)", o->policy);
	if (o->pin && !strcmp(o->pin, "none"))
		req->policy = KB_PLAN_NONE;
	else if (o->pin && strcmp(o->pin, "auto"))
		return kb_fail(EINVAL, "--pin: '%s' is not a mode (auto or none)", o->pin);
	return 0;
}
