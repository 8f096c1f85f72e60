/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo.c: placement plans checked structurally against hwloc's own view of real topologies
 * (testdata/topology), a memory-only node, impossible requests, and applying a plan on this machine. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hwloc.h>
#include <numaif.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "tap.h"
#include "host/topo.h"
#include "host/topology-priv.h"
#include "vmm/membind.h"

/* The library's message for a failed call, "ok" for a successful one. */
static const char *why(int rc)
{
	return rc ? kb_last_error() : "ok";
}

/* The oracle: the test's own hwloc load of the same file. */
struct oracle {
	hwloc_topology_t h;
	int npus, ncores;
	int max_node_cores;         /* cores under the largest NUMA node that has CPUs */
	int cpu_nodes;              /* NUMA nodes with CPUs of their own */
	hwloc_bitmap_t fast;        /* PUs of the most efficient-for-speed core kind when hybrid */
	int fast_cores;
};

static hwloc_obj_t core_of(hwloc_topology_t h, int pu)
{
	hwloc_obj_t p = hwloc_get_pu_obj_by_os_index(h, (unsigned)pu);
	hwloc_obj_t c = p ? hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, p) : NULL;

	return c ? c : p;
}

static hwloc_obj_t node_by_os(hwloc_topology_t h, int os)
{
	hwloc_obj_t n = NULL;

	while ((n = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, n)))
		if ((int)n->os_index == os)
			return n;
	return NULL;
}

static int cores_inside(hwloc_topology_t h, hwloc_const_bitmap_t set)
{
	return hwloc_get_nbobjs_inside_cpuset_by_type(h, set, HWLOC_OBJ_CORE);
}

static bool oracle_memory_only(hwloc_topology_t h, hwloc_obj_t n)
{
	hwloc_obj_t m = NULL;

	while ((m = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, m)))
		if (m != n && hwloc_bitmap_isincluded(m->cpuset, n->cpuset) && !hwloc_bitmap_isequal(m->cpuset, n->cpuset))
			return true;
	return false;
}

static int oracle_load(struct oracle *o, const char *path)
{
	hwloc_obj_t n = NULL;
	int nk;

	memset(o, 0, sizeof(*o));
	if (hwloc_topology_init(&o->h) || (path && hwloc_topology_set_xml(o->h, path)) || hwloc_topology_load(o->h))
		return -1;
	o->npus = hwloc_get_nbobjs_by_type(o->h, HWLOC_OBJ_PU);
	o->ncores = hwloc_get_nbobjs_by_type(o->h, HWLOC_OBJ_CORE);
	while ((n = hwloc_get_next_obj_by_type(o->h, HWLOC_OBJ_NUMANODE, n))) {
		int c = cores_inside(o->h, n->cpuset);

		/* A node whose CPUs another node holds more locally is memory-only (PMem, HBM, CXL). */
		if (oracle_memory_only(o->h, n))
			continue;

		/* A node spanning the whole machine beside others is not "a node with enough cores". */
		if (hwloc_get_nbobjs_by_type(o->h, HWLOC_OBJ_NUMANODE) > 1 &&
		    hwloc_bitmap_isequal(n->cpuset, hwloc_topology_get_topology_cpuset(o->h)))
			continue;
		if (c > o->max_node_cores)
			o->max_node_cores = c;
		o->cpu_nodes += c > 0;
	}
	nk = hwloc_cpukinds_get_nr(o->h, 0);
	if (nk > 1) {
		o->fast = hwloc_bitmap_alloc();
		hwloc_cpukinds_get_info(o->h, (unsigned)nk - 1, o->fast, NULL, NULL, NULL, 0);
		o->fast_cores = cores_inside(o->h, o->fast);
	}
	return 0;
}

static void oracle_free(struct oracle *o)
{
	if (o->fast)
		hwloc_bitmap_free(o->fast);
	hwloc_topology_destroy(o->h);
}

/* Every default-policy plan: distinct cores while they last, siblings idle, node-local memory. */
static void check_plan(const char *name, const struct oracle *o, const struct kb_plan *p, int n)
{
	hwloc_bitmap_t used_pus = hwloc_bitmap_alloc(), used_cores = hwloc_bitmap_alloc();
	hwloc_obj_t mem = node_by_os(o->h, p->memory_node);
	bool valid = p->nvcpus == n, distinct_cores = true, local = mem != NULL, own_clear = true, fast = true;

	for (int v = 0; v < p->nvcpus; v++) {
		int pu = p->vcpu_cpu[v];
		hwloc_obj_t c = core_of(o->h, pu);

		if (!c || hwloc_bitmap_isset(used_pus, (unsigned)pu)) {
			valid = false;
			continue;
		}
		hwloc_bitmap_set(used_pus, (unsigned)pu);
		if (hwloc_bitmap_intersects(used_cores, c->cpuset))
			distinct_cores = false;
		hwloc_bitmap_or(used_cores, used_cores, c->cpuset);
		if (mem && !hwloc_bitmap_isset(mem->cpuset, (unsigned)pu))
			local = false;
		if (o->fast && !hwloc_bitmap_isset(o->fast, (unsigned)pu))
			fast = false;
	}
	for (int i = 0; i < p->nown; i++)
		if (hwloc_bitmap_isset(used_cores, (unsigned)p->own_cpus[i]))
			own_clear = false;
	ok(valid, "%s, %d vCPUs: each on its own PU of the machine", name, n);
	if (n <= o->ncores)
		ok(distinct_cores && !p->smt_shared, "%s, %d vCPUs: distinct physical cores, SMT siblings idle", name, n);
	else
		ok(p->smt_shared && p->nnotes > 0, "%s, %d vCPUs: more vCPUs than cores share cores, and says so", name, n);
	ok(own_clear, "%s, %d vCPUs: kvmbench's %d own CPUs avoid every vCPU core", name, n, p->nown);
	if (n <= o->max_node_cores || o->cpu_nodes == 1)
		ok(local && !p->spilled && mem && !hwloc_bitmap_iszero(mem->cpuset),
		   "%s, %d vCPUs: one NUMA node (%d) holds vCPUs and guest memory", name, n, p->memory_node);
	else
		ok(p->spilled && p->nnotes > 0 && mem && hwloc_bitmap_isset(mem->cpuset, (unsigned)p->vcpu_cpu[0]),
		   "%s, %d vCPUs: no node has %d cores, the plan spills and says so", name, n, n);
	if (o->fast && n <= o->fast_cores)
		ok(fast, "%s, %d vCPUs: all on the fastest core kind", name, n);
	if (n < o->max_node_cores)
		ok(p->nown > 0, "%s, %d vCPUs: kvmbench's own threads get CPUs", name, n);
	hwloc_bitmap_free(used_pus);
	hwloc_bitmap_free(used_cores);
}

static void check_file(const char *path, const char *name)
{
	struct kb_plan_req req = { .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_CORES };
	struct kb_topo_summary s;
	struct oracle o;
	struct kb_topo *t;
	struct kb_plan p;
	int counts[8], nc = 0;

	int rc = kb_topo_load(&t, path);

	/* hwloc 3's format: refused with what to do, never as "not an export". */
	if (strstr(name, ".v3.")) {
		ok(rc == -EINVAL && strstr(kb_last_error(), "format 3.0") && strstr(kb_last_error(), "--export-xml-flags v2"),
		   "%s: an hwloc 3.0 export is refused as too new: %s", name, why(rc));
		return;
	}
	if (!ok(oracle_load(&o, path) == 0 && rc == 0, "%s: loaded (%s)", name, why(rc)))
		return;
	kb_topo_summarize(t, &s);
	ok(s.pus == o.npus && s.cores == o.ncores && s.numa_nodes == hwloc_get_nbobjs_by_type(o.h, HWLOC_OBJ_NUMANODE) &&
	   s.threads_per_core >= 1, "%s: %d PUs, %d cores, %d nodes, %d threads/core", name, s.pus, s.cores,
	   s.numa_nodes, s.threads_per_core);
	counts[nc++] = 1;
	counts[nc++] = 2;
	counts[nc++] = 3;
	counts[nc++] = o.max_node_cores;
	counts[nc++] = o.max_node_cores + 1;
	counts[nc++] = o.ncores;
	counts[nc++] = o.npus;
	for (int i = 0; i < nc; i++) {
		req.nvcpus = counts[i];
		if (counts[i] < 1 || counts[i] > o.npus)
			continue;
		rc = kb_plan_make_topo(t, &req, &p);
		if (!ok(rc == 0, "%s, %d vCPUs: planned (%s)", name, counts[i], why(rc)))
			continue;
		check_plan(name, &o, &p, counts[i]);
		ok(!p.applicable && kb_plan_pin_vcpu_thread(&p, 0) == -EINVAL && strstr(kb_last_error(), "not for this machine"),
		   "%s: a plan for a file is not applied here", name);
		kb_plan_free(&p);
	}
	req.nvcpus = o.npus + 1;
	ok(kb_plan_make_topo(t, &req, &p) == -EINVAL && strstr(kb_last_error(), "PUs"),
	   "%s: %d vCPUs are refused: %s", name, req.nvcpus, kb_last_error());
	req.nvcpus = 2;
	req.numa_node = 99;
	ok(kb_plan_make_topo(t, &req, &p) == -ENOENT && strstr(kb_last_error(), "does not exist"),
	   "%s: a missing node is refused: %s", name, kb_last_error());
	req.numa_node = -1;
	req.cpus = "0,100000";
	ok(kb_plan_make_topo(t, &req, &p) == -EINVAL && strstr(kb_last_error(), "CPU 100000"),
	   "%s: a CPU outside the machine is refused: %s", name, kb_last_error());
	req.cpus = NULL;
	if (s.threads_per_core > 1) {
		req.policy = KB_PLAN_SMT;
		ok(kb_plan_make_topo(t, &req, &p) == 0 && p.smt_shared &&
		   core_of(o.h, p.vcpu_cpu[0]) == core_of(o.h, p.vcpu_cpu[1]),
		   "%s: policy smt puts 2 vCPUs on one core's threads", name);
		kb_plan_free(&p);
		req.policy = KB_PLAN_CORES;
	}
	if (s.numa_nodes > 1) {
		hwloc_obj_t last = NULL, n = NULL;
		bool inside = true;

		while ((n = hwloc_get_next_obj_by_type(o.h, HWLOC_OBJ_NUMANODE, n)))
			if (!oracle_memory_only(o.h, n))
				last = n;

		req.numa_node = (int)last->os_index;
		ok(kb_plan_make_topo(t, &req, &p) == 0 && p.memory_node == req.numa_node, "%s: --numa-node %d", name,
		   req.numa_node);
		for (int v = 0; v < p.nvcpus; v++)
			inside &= hwloc_bitmap_isset(last->cpuset, (unsigned)p.vcpu_cpu[v]);
		ok(inside, "%s: --numa-node %d: vCPUs on that node", name, req.numa_node);
		kb_plan_free(&p);
		req.numa_node = -1;
	}
	kb_topo_free(t);
	oracle_free(&o);
}

/* Two packages of 2 cores x 2 threads with their DRAM nodes, and a CXL-like node with no CPUs. */
static const char memory_only_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	"<topology version=\"2.0\">\n"
	"<object type=\"Machine\" os_index=\"0\" cpuset=\"0x000000ff\" complete_cpuset=\"0x000000ff\" "
	"allowed_cpuset=\"0x000000ff\" nodeset=\"0x00000007\" complete_nodeset=\"0x00000007\" allowed_nodeset=\"0x00000007\">\n"
	" <object type=\"NUMANode\" os_index=\"2\" cpuset=\"0x000000ff\" complete_cpuset=\"0x000000ff\" "
	"nodeset=\"0x00000004\" complete_nodeset=\"0x00000004\" local_memory=\"68719476736\"/>\n"
	" <object type=\"Package\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
	"nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\">\n"
	"  <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
	"nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" local_memory=\"17179869184\"/>\n"
	"  <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\">\n"
	"   <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\"/>\n"
	"   <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\"/>\n"
	"  </object>\n"
	"  <object type=\"Core\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\">\n"
	"   <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\"/>\n"
	"   <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\"/>\n"
	"  </object>\n"
	" </object>\n"
	" <object type=\"Package\" os_index=\"1\" cpuset=\"0x000000f0\" complete_cpuset=\"0x000000f0\" "
	"nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\">\n"
	"  <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x000000f0\" complete_cpuset=\"0x000000f0\" "
	"nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" local_memory=\"17179869184\"/>\n"
	"  <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000030\" complete_cpuset=\"0x00000030\">\n"
	"   <object type=\"PU\" os_index=\"4\" cpuset=\"0x00000010\" complete_cpuset=\"0x00000010\"/>\n"
	"   <object type=\"PU\" os_index=\"5\" cpuset=\"0x00000020\" complete_cpuset=\"0x00000020\"/>\n"
	"  </object>\n"
	"  <object type=\"Core\" os_index=\"1\" cpuset=\"0x000000c0\" complete_cpuset=\"0x000000c0\">\n"
	"   <object type=\"PU\" os_index=\"6\" cpuset=\"0x00000040\" complete_cpuset=\"0x00000040\"/>\n"
	"   <object type=\"PU\" os_index=\"7\" cpuset=\"0x00000080\" complete_cpuset=\"0x00000080\"/>\n"
	"  </object>\n"
	" </object>\n"
	"</object>\n"
	"</topology>\n";

static void check_memory_only(void)
{
	char path[] = "/tmp/kvmbench-topo-XXXXXX";
	int fd = mkstemp(path);
	struct kb_plan_req req = { .nvcpus = 2, .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_CORES };
	struct kb_topo_summary s;
	struct kb_topo *t;
	struct kb_plan p;
	bool off_node2 = true;

	if (fd < 0 || write(fd, memory_only_xml, sizeof(memory_only_xml) - 1) != (ssize_t)sizeof(memory_only_xml) - 1) {
		ok(0, "write a temporary topology: %s", strerror(errno));
		return;
	}
	close(fd);
	int rc = kb_topo_load(&t, path);

	if (!ok(rc == 0, "memory-only topology loads (%s)", why(rc)))
		goto out;
	kb_topo_summarize(t, &s);
	is_str(s.memory_only, "2", "node 2 is memory-only");
	for (int n = 1; n <= 4; n++) {
		req.nvcpus = n;
		if (kb_plan_make_topo(t, &req, &p))
			off_node2 = false;
		for (int v = 0; v < p.nvcpus; v++)
			off_node2 &= p.vcpu_node[v] != 2;
		off_node2 &= p.memory_node != 2 && (n <= 2 ? !p.spilled : p.spilled);
		kb_plan_free(&p);
	}
	ok(off_node2, "1-4 vCPUs: never on the memory-only node, spilling from node 0 to node 1 only past 2");
	req.nvcpus = 1;
	req.numa_node = 2;
	ok(kb_plan_make_topo(t, &req, &p) == -EINVAL && strstr(kb_last_error(), "memory-only"),
	   "--numa-node 2 is refused: %s", kb_last_error());
	kb_topo_free(t);
out:
	unlink(path);
}

/* A memory-only node local to the whole machine (CXL behind the root complex) belongs to the CPU
 * node the distance matrix puts nearest; with --mem-node guest memory goes there, vCPUs do not. */
static void check_memory_near(void)
{
	static const char dist[] =
		"<distances2 type=\"NUMANode\" nbobjs=\"3\" kind=\"5\" name=\"NUMALatency\" indexing=\"os\">\n"
		" <indexes length=\"6\">0 1 2 </indexes>\n"
		" <u64values length=\"27\">10 21 40 21 10 17 40 17 10 </u64values>\n"
		"</distances2>\n</topology>\n";
	char path[] = "/tmp/kvmbench-topo-XXXXXX", *xml = kb_xstrdup(memory_only_xml), *end = strstr(xml, "</topology>");
	struct kb_plan_req req = { .nvcpus = 1, .numa_node = -1, .mem_node = 2, .policy = KB_PLAN_CORES };
	int fd = mkstemp(path);
	struct kb_topo *t;
	struct kb_plan p;
	json_object *j, *n2;
	FILE *f;

	*end = 0;
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fprintf(f, "%s%s", xml, dist) < 0 || fclose(f)) {
		ok(0, "write a temporary topology: %s", strerror(errno));
		free(xml);
		return;
	}
	free(xml);
	int rc = kb_topo_load(&t, path);

	if (!ok(rc == 0, "memory-only topology with distances loads (%s)", why(rc)))
		goto out;
	j = kb_topo_json(t);
	n2 = json_object_array_get_idx(kb_json_get(j, "nodes"), 2);
	ok(kb_json_get_num(n2, "node", -1) == 2 && kb_json_get_num(n2, "near_node", -1) == 1 &&
	   kb_json_get_str(n2, "near_by") && !strcmp(kb_json_get_str(n2, "near_by"), "distance"),
	   "node 2, local to the whole machine, belongs to node 1 by distance (17 against 40): %s",
	   json_object_to_json_string(n2));
	json_object_put(j);
	rc = kb_plan_make_topo(t, &req, &p);
	ok(rc == 0 && p.memory_node == 2 && p.memory_only_node && p.memory_near_node == 1 && p.vcpu_node[0] != 2,
	   "--mem-node 2: guest memory on node 2 (near node %d), the vCPU on node %d (%s)", p.memory_near_node,
	   rc ? -1 : p.vcpu_node[0], why(rc));
	kb_plan_free(&p);
	req.mem_node = 9;
	ok(kb_plan_make_topo(t, &req, &p) == -ENOENT && strstr(kb_last_error(), "--mem-node: NUMA node 9 does not exist"),
	   "--mem-node 9 is refused: %s", kb_last_error());
	kb_topo_free(t);
out:
	unlink(path);
}

/* A list of 4096 CPUs, the most there may be: "0-4095" and the same CPUs one by one, upwards, downwards,
 * strided and shuffled.  Each CPU's duplicate check takes a few probes of a hash set, not a comparison
 * with every CPU before it (8 million for 4096 CPUs, which made the cli fuzz target crawl). */
static void check_long_cpu_lists(void)
{
	static const char *const shape[] = { "one range", "upwards", "downwards", "every 8192th CPU", "shuffled" };
	unsigned long probes = 0, most = 0;
	int *c = NULL, n = 0, order[4096];
	bool all = true;
	uint32_t x = 12345;

	for (int i = 0; i < 4096; i++)
		order[i] = i;
	for (int i = 4095; i > 0; i--) {   /* Fisher-Yates, with a fixed LCG */
		int j, tmp;

		x = x * 1103515245u + 12345u;
		j = (int)((x >> 8) % (uint32_t)(i + 1));
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t k = 0; k < sizeof(shape) / sizeof(shape[0]); k++) {
		struct kb_buf b = { 0 };

		if (k == 0)
			kb_buf_printf(&b, "0-4095");
		for (int i = 0; k && i < 4096; i++)
			kb_buf_printf(&b, "%s%d", i ? "," : "", k == 1 ? i : k == 2 ? 4095 - i : k == 3 ? i * 8192 : order[i]);
		if (kb_parse_cpu_list_counted(b.p, &c, &n, &probes) || n != 4096) {
			all = false;
			printf("# %s: %s\n", shape[k], kb_last_error());
		}
		free(c);
		c = NULL;
		printf("# 4096 CPUs, %s: %lu probes\n", shape[k], probes);
		if (probes > most)
			most = probes;
		free(b.p);
	}
	ok(all, "lists of 4096 CPUs are read whole");
	ok(most <= 4 * 4096, "their duplicate checks take at most 4 probes per CPU (most: %lu for 4096 CPUs)", most);
	ok(kb_parse_cpu_list("0-4095,17", &c, &n) == -EINVAL && strstr(kb_last_error(), "names CPU 17 twice"),
	   "a CPU named again after 4095 others is a duplicate: %s", kb_last_error());
	ok(kb_parse_cpu_list("0-4096", &c, &n) == -E2BIG && kb_parse_cpu_list("0-2000000000", &c, &n) == -E2BIG,
	   "4097 CPUs are too many: %s", kb_last_error());
	ok(kb_parse_cpu_list("2147483647,0,2147483647", &c, &n) == -EINVAL && strstr(kb_last_error(), "2147483647 twice"),
	   "the highest CPU number is checked like any other: %s", kb_last_error());
}

static void check_cpu_lists(void)
{
	struct kb_plan_opts o = { .numa_node = -1, .mem_node = -1, .policy = "cores", .pin = "auto" };
	struct kb_plan_req req;
	int *c = NULL, n = 0;

	ok(kb_parse_cpu_list("3,0-2,8", &c, &n) == 0 && n == 5 && c[0] == 3 && c[1] == 0 && c[3] == 2 && c[4] == 8,
	   "CPU lists keep their order");
	free(c);
	ok(kb_parse_cpu_list("1,1", &c, &n) < 0 && strstr(kb_last_error(), "twice"), "a CPU named twice is refused");
	ok(kb_parse_cpu_list("2-1", &c, &n) < 0 && kb_parse_cpu_list("x", &c, &n) < 0 && kb_parse_cpu_list("1,", &c, &n) == 0,
	   "reversed ranges and words are refused");
	free(c);
	check_long_cpu_lists();
	ok(kb_plan_req_from_opts(&o, 4, &req) == 0 && req.policy == KB_PLAN_CORES && req.nvcpus == 4, "options: defaults");
	o.pin = "none";
	ok(kb_plan_req_from_opts(&o, 4, &req) == 0 && req.policy == KB_PLAN_NONE, "options: --pin none");
	o.policy = "spread";
	ok(kb_plan_req_from_opts(&o, 4, &req) < 0 && strstr(kb_last_error(), "cores or smt"), "options: a bad policy");
}

struct pin_arg {
	const struct kb_plan *p;
	int err, cpu;
};

static void *pin_thread(void *a)
{
	struct pin_arg *pa = a;

	pa->err = kb_plan_pin_vcpu_thread(pa->p, 0);
	pa->cpu = sched_getcpu();
	return NULL;
}

static void check_this_machine(void)
{
	struct kb_plan_req req = { .nvcpus = 1, .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_CORES };
	struct pin_arg pa = { 0 };
	struct kb_plan p;
	pthread_t th;
	size_t len = 4 << 20;
	void *mem;
	int node = -1, mode = -1;

	int rc = kb_plan_make(&req, &p);

	if (!ok(rc == 0 && p.applicable, "a plan for this machine (%s)", why(rc)))
		return;
	pa.p = &p;
	pthread_create(&th, NULL, pin_thread, &pa);
	pthread_join(th, NULL);
	ok(pa.err == 0 && pa.cpu == p.vcpu_cpu[0], "the vCPU thread runs on CPU %d (wanted %d): %s", pa.cpu,
	   p.vcpu_cpu[0], pa.err ? kb_last_error() : "pinned");
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem != MAP_FAILED) {
		int mnode = -2, err = kb_plan_memory_node(&p, &mnode);

		if (!err)
			err = kb_mem_bind_node(mem, len, mnode);

		memset(mem, 1, len);
		get_mempolicy(&mode, NULL, 0, mem, MPOL_F_ADDR);
		get_mempolicy(&node, NULL, 0, mem, MPOL_F_ADDR | MPOL_F_NODE);
		ok(err == 0 && mnode == p.memory_node && mode == MPOL_BIND && node == p.memory_node,
		   "guest memory is bound to node %d (policy %d, page on node %d): %s", p.memory_node, mode, node,
		   err ? kb_last_error() : "bound");
		ok(kb_mem_bind_node((char *)mem + 1, 4096, p.memory_node) == -EINVAL, "an unaligned range is refused");
		munmap(mem, len);
	}
	kb_plan_free(&p);
	req.policy = KB_PLAN_NONE;
	ok(kb_plan_make(&req, &p) == 0 && p.vcpu_cpu[0] == -1 && p.memory_node == -1 &&
	   kb_plan_pin_vcpu_thread(&p, 0) == 0 && kb_plan_memory_node(&p, &node) == 0 && node == -1,
	   "--pin none: nothing to pin or bind");
	kb_plan_free(&p);
}

/* One PU on one NUMA node, with the PU's and the node's os_index given: hwloc sizes bitmaps by them. */
static const char indexed_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">\n"
	" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" allowed_cpuset=\"0x1\" nodeset=\"0x1\""
	" complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
	"  <object type=\"Package\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"3\">\n"
	"   <object type=\"Core\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"4\">\n"
	"    <object type=\"PU\" os_index=\"%u\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"5\"/>\n"
	"   </object>\n  </object>\n"
	"  <object type=\"NUMANode\" os_index=\"%u\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
	" gp_index=\"2\" local_memory=\"1000000\"/>\n </object>\n</topology>\n";

static int load_text(const char *xml, struct kb_topo **t);

/* A damaged index (os_index="500000000") is refused before hwloc allocates a 64 MB bitmap for it. */
static void check_huge_indexes(void)
{
	static const struct { unsigned pu, node; const char *want; } cases[] = {
		{ 0, 0, NULL },
		{ 500000000, 0, "numbers a processing unit 500000000: not a real machine" },
		{ 0, 500000000, "numbers a NUMA node 500000000: not a real machine" },
		{ 1u << 20, 0, "numbers a processing unit 1048576" },
		{ 4294967295u, 0, "a processing unit without its OS index" },
		{ 0, 4294967295u, "a NUMA node without its OS index" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *xml = kb_xasprintf(indexed_xml, cases[i].pu, cases[i].node);
		struct kb_topo *t = NULL;
		int rc = load_text(xml, &t);

		if (!cases[i].want)
			ok(rc == 0, "a PU and a NUMA node numbered 0 load (%s)", why(rc));
		else
			ok(rc == -EINVAL && strstr(kb_last_error(), cases[i].want), "PU %u, node %u: refused before hwloc reads it: %s",
			   cases[i].pu, cases[i].node, kb_last_error());
		kb_topo_free(t);
		free(xml);
	}
	/* Attribute names are read whole: os_index="0" only as the end of another attribute's name
	 * leaves the PU without one to hwloc (found by fuzzing: 8 GiB of bitmaps), a type="PU" after
	 * an xtype="PU" is the PU's type, as one after a type="Core" is (hwloc takes the last); and of
	 * two os_index, the largest counts.  A type is what hwloc reads it as, abbreviated in any case:
	 * "pu" is a PU, "NUMANo " a NUMA node (found by fuzzing: a 512 MB bitmap for a NUMA node
	 * without an os_index, a fuzz timeout).  Attributes are read as hwloc reads them, one after
	 * the other: it stops at the first it cannot read (a stray 'PU"', found by fuzzing: 530 MB; an
	 * escape it does not know; a '\r' before the name, which hwloc 2.9 does not skip) and ignores
	 * what follows; it undoes the escapes it knows (&#9; before the digits is a tab to strtoul);
	 * tabs and newlines separate attributes. */
	{
		static const struct { unsigned pu; const char *from, *to, *want, *label; } names[] = {
			{ 0, "<object type=\"PU\" os_index=", "<object type=\"PU\" gp_indexos_index=",
			  "a processing unit without its OS index" },
			{ 0, "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\" os_index=\"0\" os_index=\"500000000\"",
			  "numbers a processing unit 500000000" },
			{ 500000000, "<object type=\"PU\" os_index=", "<object xtype=\"PU\" type=\"PU\" os_index=",
			  "numbers a processing unit 500000000" },
			{ 500000000, "<object type=\"PU\" os_index=", "<object type=\"pu\" os_index=",
			  "numbers a processing unit 500000000" },
			{ 500000000, "<object type=\"PU\" os_index=", "<object type=\"Core\" type=\"PU\" os_index=",
			  "numbers a processing unit 500000000" },
			{ 0, "<object type=\"NUMANode\" os_index=\"0\"", "<object type=\"NUMANo \" deos_index=\"0\"",
			  "a NUMA node without its OS index" },
			{ 0, "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\" cpuset=\"0x1\" PU\" os_index=\"0\"",
			  "a processing unit without its OS index" },
			{ 0, "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\" name=\"a&apos;b\" os_index=\"0\"",
			  "a processing unit without its OS index" },
			{ 0, "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\"\ros_index=\"0\"",
			  "a processing unit without its OS index", "type=\"PU\"\\ros_index=\"0\"" },
			{ 0, "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\" os_index=\"&#9;500000000\"",
			  "numbers a processing unit 500000000" },
			{ 0, "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\"\tname=\"a&amp;b&quot;\"\nos_index=\"0\"",
			  NULL, "type=\"PU\"\\tname=\"a&amp;b&quot;\"\\nos_index=\"0\"" },
		};

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char *xml = kb_xasprintf(indexed_xml, names[i].pu, 0u), *at = strstr(xml, names[i].from), *bad;
			struct kb_topo *t = NULL;
			int rc = -1;

			if (at) {
				*at = 0;
				bad = kb_xasprintf("%s%s%s", xml, names[i].to, at + strlen(names[i].from));
				rc = load_text(bad, &t);
				free(bad);
			}
			if (!names[i].want)
				ok(rc == 0, "%s: loads (%s)", names[i].label, why(rc));
			else
				ok(rc == -EINVAL && strstr(kb_last_error(), names[i].want), "%s: refused before hwloc reads it: %s",
				   names[i].label ? names[i].label : names[i].to + strlen("<object "), kb_last_error());
			kb_topo_free(t);
			free(xml);
		}
	}
}

/* hwloc 2.9 segfaults on this (tests/fuzz/regressions/topology/object-without-type-indexed-pu). */
static const char hwloc_crash_xml[] = "<?xml ve>\n<topology version=\"2.0\">\n"
	" <object tp=\"Mahe\"  cpuset=\"\">  <object type=\"PU\" os_index=\"2\" cpuset=\"x\"/></topology>\n";

static int load_text(const char *xml, struct kb_topo **t)
{
	char path[] = "/tmp/kvmbench-topo-XXXXXX";
	int fd = mkstemp(path), rc;

	if (fd < 0 || write(fd, xml, strlen(xml)) != (ssize_t)strlen(xml))
		return -EIO;
	close(fd);
	rc = kb_topo_load(t, path);
	unlink(path);
	return rc;
}

/* The crash probe: a file hwloc crashes on is refused, and the files before and after it load, all
 * through one helper process.  A loader reads file after file until a crash ends it or it has read
 * 1000; a killed helper is replaced, and not taken for a crash. */
static int load_good(const char *good)
{
	struct kb_topo *t = NULL;
	int rc = load_text(good, &t);

	kb_topo_free(t);
	return rc;
}

static void check_crash_probe(void)
{
	char *good = kb_xasprintf(indexed_xml, 0u, 0u);
	struct kb_topo *t = NULL;
	pid_t helper, loader;
	int rc, n;

	rc = load_good(good);
	ok(rc == 0, "probe: a good file loads (%s)", why(rc));
	helper = topo_probe_helper();
	loader = topo_probe_loader();
	rc = load_good(good);
	ok(rc == 0 && loader > 0 && topo_probe_loader() == loader, "probe: a second one loads, read by the same loader (%s; %d, %d)",
	   why(rc), (int)loader, (int)topo_probe_loader());
	rc = load_text(hwloc_crash_xml, &t);
	ok(rc == -EINVAL && strstr(kb_last_error(), "hwloc crashed reading this file (signal"),
	   "probe: a file hwloc crashes on is refused: %s", kb_last_error());
	kb_topo_free(t);
	t = NULL;
	rc = load_good(good);
	ok(rc == 0 && topo_probe_loader() > 0 && topo_probe_loader() != loader, "probe: the next good file loads, read by a new "
	   "loader (%s; %d, %d)", why(rc), (int)loader, (int)topo_probe_loader());
	ok(helper > 0 && topo_probe_helper() == helper, "probe: the four files went through one helper process (%d, %d)",
	   (int)helper, (int)topo_probe_helper());
	if (helper > 0) {
		kill(helper, SIGKILL);
		waitpid(helper, NULL, 0);
	}
	rc = load_good(good);
	ok(rc == 0 && topo_probe_helper() > 0 && topo_probe_helper() != helper,
	   "probe: with its helper killed, a good file still loads, through another (%s)", why(rc));
	rc = load_text(hwloc_crash_xml, &t);
	ok(rc == -EINVAL && strstr(kb_last_error(), "hwloc crashed"), "probe: and the crash is still refused: %s", kb_last_error());
	kb_topo_free(t);
	rc = load_good(good);
	loader = topo_probe_loader();
	for (n = 1; !rc && n <= 1000 && topo_probe_loader() == loader; n++)
		rc = load_good(good);
	ok(rc == 0 && n == 1001 && topo_probe_loader() != loader, "probe: a loader is replaced after 1000 files (at file %d, %s)",
	   n, why(rc));
	free(good);
}

/* A file hwloc refuses is refused with the reason the probe's loader got, and not loaded again in this
 * process: hwloc 2.9 leaks on some refusals (a real export with its fifth <object misspelt <objec:
 * about 1 KB each), and that second load, with libFuzzer's leak check after each, was most of a
 * topology fuzz execution.  So the heap in use (mallinfo2's uordblks: glibc's; a sanitizer build's
 * allocator is not in it) must not grow over 50 such refusals (by 44 KB when hwloc was asked again, 0.7 KB when not: the bound is 8 KB), with a topology held meanwhile as
 * the fuzzer holds one (hwloc's components stay set up). */
static void check_refusal_not_reloaded(const char *td)
{
	char src[4096], path[] = "/tmp/kvmbench-topo-XXXXXX", *xml = NULL, *at;
	struct kb_topo *keep = NULL, *t = NULL;
	size_t len, before = 0, grew;
	int fd, n = 0, rc = -1, same = 0;

	snprintf(src, sizeof(src), "%s/topology/32em64t-2n8c2t-pci-normalio.xml", td ? td : "");
	if (!td || kb_read_all(src, 1 << 20, &xml, &len) || kb_topo_load(&keep, src)) {
		printf("not ok %d - refusal: %s cannot be read or loaded (%s)\n", ++tap_n, src, td ? kb_last_error() : "KB_TESTDATA unset");
		free(xml);
		return;
	}
	for (at = xml; (at = strstr(at, "<object")) && ++n < 5; at++)
		;
	fd = at ? mkstemp(path) : -1;
	if (fd >= 0) {
		at[6] = ' ';   /* "<objec t" */
		if (write(fd, xml, len) != (ssize_t)len)
			n = -1;
		close(fd);
	}
	for (int i = 0; fd >= 0 && n == 5 && i <= 50; i++) {
		rc = kb_topo_load(&t, path);
		kb_topo_free(t);
		t = NULL;
		same += rc == -EINVAL && strstr(kb_last_error(), "hwloc cannot load the topology") != NULL;
		if (i == 0)
			before = mallinfo2().uordblks;
	}
	grew = mallinfo2().uordblks - before;
	ok(same == 51, "refusal: a real export with one tag misspelt is refused 51 times, with hwloc's reason (%d): %s", same,
	   kb_last_error());
	ok(grew < 8192, "refusal: the heap in use grew by %zu bytes over 50 of them (hwloc is not asked again in this process)",
	   grew);
	if (fd >= 0)
		unlink(path);
	kb_topo_free(keep);
	free(xml);
}

int main(void)
{
	const char *td = getenv("KB_TESTDATA");
	char dir[4096], path[8192];
	struct dirent **names;
	int n;

	check_cpu_lists();
	check_memory_only();
	check_memory_near();
	check_huge_indexes();
	check_crash_probe();
	check_refusal_not_reloaded(td);
	check_this_machine();
	snprintf(dir, sizeof(dir), "%s/topology", td ? td : "");
	n = td ? scandir(dir, &names, NULL, alphasort) : -1;
	if (n < 0) {
		printf("not ok %d - KB_TESTDATA/topology is not available (%s): the exports are in tests/testdata\n", ++tap_n, td ? dir : "KB_TESTDATA unset");
		return tap_done();
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(names[i]->d_name);

		if ((l > 4 && !strcmp(names[i]->d_name + l - 4, ".xml")) || (l > 7 && !strcmp(names[i]->d_name + l - 7, ".output"))) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			check_file(path, names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	return tap_done();
}
