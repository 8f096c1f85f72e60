/* topo.c: the machine's topology through hwloc, the vCPU/memory placement planner, and applying
 * a plan with thread affinity (pthread) and memory policy (libnuma's mbind). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hwloc.h>
#include <numa.h>
#include <numaif.h>

#include "cpu.h"
#include "kb.h"
#include "topo.h"

struct topo_node {
	int os;
	hwloc_obj_t obj;
	hwloc_bitmap_t home;        /* PUs for which this is the nearest node */
	int *cores;                 /* indices into kb_topo.cores, in the order the planner takes them */
	int ncores;
	int package;                /* OS index of the package holding its PUs; -1 */
};

struct topo_core {
	int logical;                /* hwloc logical index; -1 for a PU that hwloc put under no core */
	hwloc_bitmap_t pus;
	int first_pu;
	int node;                   /* index into kb_topo.nodes */
	int rank;                   /* core kind: higher is faster */
};

struct kb_topo {
	hwloc_topology_t h;
	bool live;
	char source[256];
	struct topo_node *nodes;
	int nnodes;
	struct topo_core *cores;
	int ncores;
	int npus;
	int max_pu;
	int *core_of;               /* PU OS index -> core index, or -1 */
	int *node_of;               /* PU OS index -> node index, or -1 */
	int packages;
	int nkinds;
	struct hwloc_distances_s *dist;
};

/* ------------------------------------------------------------------ loading */

/* The node a PU belongs to: the most local one (smallest locality), DRAM before special memory. */
static bool nearer_node(hwloc_obj_t a, hwloc_obj_t b)
{
	int wa = hwloc_bitmap_weight(a->cpuset), wb = hwloc_bitmap_weight(b->cpuset);

	if (wa != wb)
		return wa < wb;
	if (!a->subtype != !b->subtype)
		return !a->subtype;
	return a->os_index < b->os_index;
}

static int cmp_node_os(const void *a, const void *b)
{
	const struct topo_node *x = a, *y = b;

	return x->os - y->os;
}

static int core_rank(const struct kb_topo *t, hwloc_const_bitmap_t pus)
{
	int kind = t->nkinds > 1 ? hwloc_cpukinds_get_by_cpuset(t->h, pus, 0) : -1;
	struct hwloc_info_s *infos;
	unsigned int ninfos = 0;
	int eff = -1;

	if (kind < 0 || hwloc_cpukinds_get_info(t->h, (unsigned)kind, NULL, &eff, &ninfos, &infos, 0))
		return 0;
	if (eff >= 0)
		return eff;
	for (unsigned int i = 0; i < ninfos; i++)
		if (!strcmp(infos[i].name, "CoreType"))
			return strstr(infos[i].value, "Atom") ? 0 : 1;
	return 0;
}

static void add_core(struct kb_topo *t, int logical, hwloc_const_bitmap_t pus)
{
	struct topo_core *c = &t->cores[t->ncores];
	int pu;

	c->logical = logical;
	c->pus = hwloc_bitmap_dup(pus);
	c->first_pu = hwloc_bitmap_first(pus);
	c->node = t->node_of[c->first_pu];
	c->rank = core_rank(t, pus);
	hwloc_bitmap_foreach_begin(pu, pus)
		t->core_of[pu] = t->ncores;
	hwloc_bitmap_foreach_end();
	t->ncores++;
}

static const struct kb_topo *sort_ctx;

/* Planner order inside a node: fastest core kind first, then by PU number. */
static int cmp_core_order(const void *a, const void *b)
{
	const struct topo_core *x = &sort_ctx->cores[*(const int *)a], *y = &sort_ctx->cores[*(const int *)b];

	if (x->rank != y->rank)
		return y->rank - x->rank;
	return x->first_pu - y->first_pu;
}

static int build(struct kb_topo *t)
{
	hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->h);
	hwloc_bitmap_t pus, taken;
	hwloc_obj_t o = NULL;
	int pu, n, width = hwloc_bitmap_weight(all);

	t->npus = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU);
	t->max_pu = hwloc_bitmap_last(all);
	if (t->npus <= 0 || t->max_pu < 0 || width <= 0)
		return kb_fail(EINVAL, "%s: the topology has no processing units", t->source);
	if (t->max_pu >= 1 << 20)
		return kb_fail(EINVAL, "%s: the topology numbers a processing unit %d: not a real machine", t->source,
			       t->max_pu);
	t->core_of = kb_xcalloc((size_t)t->max_pu + 1, sizeof(int));
	t->node_of = kb_xcalloc((size_t)t->max_pu + 1, sizeof(int));
	for (int i = 0; i <= t->max_pu; i++)
		t->core_of[i] = t->node_of[i] = -1;
	t->packages = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE);
	if (t->packages < 1)
		t->packages = 1;
	n = hwloc_cpukinds_get_nr(t->h, 0);
	t->nkinds = n > 0 ? n : 0;

	t->nnodes = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);
	if (t->nnodes < 1)
		return kb_fail(EINVAL, "%s: the topology has no NUMA node", t->source);
	t->nodes = kb_xcalloc((size_t)t->nnodes, sizeof(*t->nodes));
	for (int i = 0; i < t->nnodes; i++) {
		o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		/* A node without an OS index would be number 2^32 - 1, and a nodeset holding it half a
		 * GiB (found by fuzzing: 1 GiB for a 16 KiB file; hwloc's own load of it still takes half). */
		if (o->os_index >= 1 << 16)
			return kb_fail(EINVAL, "%s: NUMA node L#%d has %s OS index: not a real machine", t->source, i,
				       o->os_index == HWLOC_UNKNOWN_INDEX ? "no" : "an impossible");
		t->nodes[i].obj = o;
		t->nodes[i].os = (int)o->os_index;
		t->nodes[i].home = hwloc_bitmap_alloc();
		t->nodes[i].package = -1;
	}
	qsort(t->nodes, (size_t)t->nnodes, sizeof(*t->nodes), cmp_node_os);

	hwloc_bitmap_foreach_begin(pu, all) {
		int best = -1;
		hwloc_obj_t p = hwloc_get_pu_obj_by_os_index(t->h, (unsigned)pu), pkg;

		for (int i = 0; i < t->nnodes; i++)
			if (hwloc_bitmap_isset(t->nodes[i].obj->cpuset, (unsigned)pu) &&
			    (best < 0 || nearer_node(t->nodes[i].obj, t->nodes[best].obj)))
				best = i;
		if (best < 0)
			best = 0;
		t->node_of[pu] = best;
		hwloc_bitmap_set(t->nodes[best].home, (unsigned)pu);
		pkg = p ? hwloc_get_ancestor_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, p) : NULL;
		if (pkg && t->nodes[best].package < 0)
			t->nodes[best].package = (int)pkg->os_index;
	}
	hwloc_bitmap_foreach_end();

	/* A damaged file's cores may hold PUs outside the machine's cpuset or each other's, and its
	 * cpuset PUs without objects (found by fuzzing: heap overflow in add_core()).  Each core
	 * takes only machine PUs no core has taken yet, so there are at most 'width' cores. */
	t->cores = kb_xcalloc((size_t)width, sizeof(*t->cores));
	pus = hwloc_bitmap_alloc();
	taken = hwloc_bitmap_alloc();
	o = NULL;
	while ((o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_CORE, o))) {
		if (!o->cpuset)
			continue;
		hwloc_bitmap_and(pus, o->cpuset, all);
		hwloc_bitmap_andnot(pus, pus, taken);
		if (!hwloc_bitmap_iszero(pus)) {
			add_core(t, (int)o->logical_index, pus);
			hwloc_bitmap_or(taken, taken, pus);
		}
	}
	hwloc_bitmap_free(pus);
	hwloc_bitmap_free(taken);
	/* A PU hwloc placed under no core is a core of its own. */
	hwloc_bitmap_foreach_begin(pu, all) {
		if (t->core_of[pu] < 0) {
			hwloc_bitmap_t one = hwloc_bitmap_alloc();

			hwloc_bitmap_only(one, (unsigned)pu);
			add_core(t, -1, one);
			hwloc_bitmap_free(one);
		}
	}
	hwloc_bitmap_foreach_end();

	for (int c = 0; c < t->ncores; c++) {
		struct topo_node *nd = &t->nodes[t->cores[c].node];

		if (!nd->cores)
			nd->cores = kb_xcalloc((size_t)t->ncores, sizeof(int));
		nd->cores[nd->ncores++] = c;
	}
	sort_ctx = t;
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].ncores)
			qsort(t->nodes[i].cores, (size_t)t->nodes[i].ncores, sizeof(int), cmp_core_order);
	sort_ctx = NULL;

	{
		unsigned int nr = 1;
		struct hwloc_distances_s *d = NULL;

		if (!hwloc_distances_get_by_type(t->h, HWLOC_OBJ_NUMANODE, &nr, &d, 0, 0) && nr == 1)
			t->dist = d;
	}
	return 0;
}

/*
 * hwloc 2.9's own XML reader (Debian ships no libxml2 plugin) dereferences NULL on a tag that is
 * never closed, as in a truncated file (found by fuzzing: "<topology version=\"2.0\"" crashes
 * hwloc_topology_load()).  Refuse what cannot be a whole export before hwloc reads it: no NUL,
 * every '<' has its '>', and the last tag is </topology>.
 */
static int check_xml_whole(const char *path)
{
	char *text;
	size_t len, end;
	const char *p;
	int err = kb_read_file(path, &text, &len);

	if (err)
		return err;
	/* Any '<' without a '>' after it means the last '<' has none either. */
	p = strrchr(text, '<');
	end = len;
	while (end && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	if (!p || !strchr(p, '>') || strlen(text) != len || end < 11 || memcmp(text + end - 11, "</topology>", 11))
		err = kb_fail(EINVAL, "%s: not a whole hwloc XML topology (truncated, or not XML: it must end with "
			      "</topology>; export one with 'lstopo --of xml FILE')", path);
	free(text);
	return err;
}

/*
 * hwloc 2.9 also crashes on some whole but damaged files (found by fuzzing: an object without a
 * type whose child has an unparsable cpuset segfaults in hwloc_bitmap_compare_first()).  A file
 * from elsewhere is therefore loaded once in a child process first: a crash there is reported,
 * not shared.  A clean refusal is left to the real load, which says why.
 */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static int probe_xml(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return kb_fail(errno, "%s: cannot fork to check the topology file: %s", path, strerror(errno));
	if (!pid) {
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
		hwloc_topology_t h;
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		/* A crash here ends this child and nothing else: no handler of the parent's (a
		 * sanitizer's, a fuzzer's) reports it as the parent's own. */
		for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
			signal(fatal[i], SIG_DFL);
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
		_exit(hwloc_topology_init(&h) || hwloc_topology_set_xml(h, path) || hwloc_topology_load(h) ? 3 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return kb_fail(errno, "%s: checking the topology file: %s", path, strerror(errno));
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3))
		return 0;
	return kb_fail(EINVAL, "%s: hwloc crashed reading this file (%s %d): it is damaged or not an hwloc XML "
		       "export (export one with 'lstopo --of xml FILE')", path,
		       WIFSIGNALED(status) ? "signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

int kb_topo_load(struct kb_topo **out, const char *xml_path)
{
	struct kb_topo *t = kb_xcalloc(1, sizeof(*t));
	int err;

	*out = NULL;
	snprintf(t->source, sizeof(t->source), "%s", xml_path ? xml_path : "this machine");
	t->live = !xml_path;
	if (hwloc_topology_init(&t->h)) {
		free(t);
		return kb_fail(ENOMEM, "hwloc: cannot initialise a topology (out of memory?)");
	}
	if (xml_path && access(xml_path, R_OK)) {
		err = kb_fail(errno, "%s: cannot read the topology file: %s", xml_path, strerror(errno));
		goto fail;
	}
	if (xml_path && ((err = check_xml_whole(xml_path)) || (err = probe_xml(xml_path))))
		goto fail;
	if (xml_path && hwloc_topology_set_xml(t->h, xml_path)) {
		err = kb_fail(EINVAL, "%s: hwloc cannot use this as an XML topology: %s "
			      "(export one with 'lstopo --of xml FILE' or 'hwloc-gather-topology')", xml_path, strerror(errno));
		goto fail;
	}
	if (hwloc_topology_load(t->h)) {
		err = kb_fail(EINVAL, "%s: hwloc cannot load the topology: %s%s", t->source, strerror(errno),
			      xml_path ? " (is it an hwloc XML export?)" : "");
		goto fail;
	}
	err = build(t);
	if (err)
		goto fail;
	*out = t;
	return 0;
fail:
	kb_topo_free(t);
	return err;
}

void kb_topo_free(struct kb_topo *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nnodes; i++) {
		hwloc_bitmap_free(t->nodes[i].home);
		free(t->nodes[i].cores);
	}
	for (int i = 0; i < t->ncores; i++)
		hwloc_bitmap_free(t->cores[i].pus);
	if (t->dist)
		hwloc_distances_release(t->h, t->dist);
	free(t->nodes);
	free(t->cores);
	free(t->core_of);
	free(t->node_of);
	hwloc_topology_destroy(t->h);
	free(t);
}

/* ------------------------------------------------------------------ describing */

static void bitmap_list(hwloc_const_bitmap_t b, char *buf, size_t n)
{
	if (hwloc_bitmap_iszero(b))
		snprintf(buf, n, "%s", "");
	else
		hwloc_bitmap_list_snprintf(buf, n, b);
}

static int node_index(const struct kb_topo *t, int os)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].os == os)
			return i;
	return -1;
}

static bool memory_only(const struct topo_node *n)
{
	return hwloc_bitmap_iszero(n->home);
}

static void node_list(const struct kb_topo *t, bool want_memory_only, char *buf, size_t n)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	for (int i = 0; i < t->nnodes; i++)
		if (memory_only(&t->nodes[i]) == want_memory_only)
			hwloc_bitmap_set(b, (unsigned)t->nodes[i].os);
	bitmap_list(b, buf, n);
	hwloc_bitmap_free(b);
}

void kb_topo_summarize(const struct kb_topo *t, struct kb_topo_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->packages = t->packages;
	s->numa_nodes = t->nnodes;
	s->cores = t->ncores;
	s->pus = t->npus;
	for (int c = 0; c < t->ncores; c++) {
		int w = hwloc_bitmap_weight(t->cores[c].pus);

		if (w > s->threads_per_core)
			s->threads_per_core = w;
	}
	node_list(t, true, s->memory_only, sizeof(s->memory_only));
}

static json_object *kinds_json(const struct kb_topo *t)
{
	json_object *a = json_object_new_array();
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char buf[1024];

	for (int k = 0; k < t->nkinds; k++) {
		struct hwloc_info_s *infos;
		unsigned int ninfos = 0;
		int eff = -1;
		json_object *o;

		if (hwloc_cpukinds_get_info(t->h, (unsigned)k, set, &eff, &ninfos, &infos, 0))
			continue;
		o = json_object_new_object();
		bitmap_list(set, buf, sizeof(buf));
		json_object_object_add(o, "cpus", json_object_new_string(buf));
		json_object_object_add(o, "efficiency", json_object_new_int(eff));
		for (unsigned int i = 0; i < ninfos; i++)
			if (!strcmp(infos[i].name, "CoreType"))
				json_object_object_add(o, "core_type", json_object_new_string(infos[i].value));
		json_object_array_add(a, o);
	}
	hwloc_bitmap_free(set);
	return a;
}

json_object *kb_topo_json(const struct kb_topo *t)
{
	json_object *o = json_object_new_object();
	json_object *nodes = json_object_new_array();
	struct kb_topo_summary s;
	char buf[4096];

	kb_topo_summarize(t, &s);
	json_object_object_add(o, "source", json_object_new_string(t->source));
	json_object_object_add(o, "packages", json_object_new_int(s.packages));
	json_object_object_add(o, "numa_nodes", json_object_new_int(s.numa_nodes));
	json_object_object_add(o, "cores", json_object_new_int(s.cores));
	json_object_object_add(o, "pus", json_object_new_int(s.pus));
	json_object_object_add(o, "threads_per_core", json_object_new_int(s.threads_per_core));
	json_object_object_add(o, "smt", json_object_new_boolean(s.threads_per_core > 1));
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *nd = &t->nodes[i];
		json_object *n = json_object_new_object();
		uint64_t mem = nd->obj->attr ? nd->obj->attr->numanode.local_memory : 0;

		json_object_object_add(n, "node", json_object_new_int(nd->os));
		bitmap_list(nd->home, buf, sizeof(buf));
		json_object_object_add(n, "cpus", json_object_new_string(buf));
		json_object_object_add(n, "cores", json_object_new_int(nd->ncores));
		json_object_object_add(n, "pus", json_object_new_int(hwloc_bitmap_weight(nd->home)));
		json_object_object_add(n, "package", nd->package >= 0 ? json_object_new_int(nd->package) : NULL);
		json_object_object_add(n, "memory_bytes", mem ? json_object_new_uint64(mem) : NULL);
		json_object_object_add(n, "memory_only", json_object_new_boolean(memory_only(nd)));
		if (nd->obj->subtype)
			json_object_object_add(n, "subtype", json_object_new_string(nd->obj->subtype));
		json_object_array_add(nodes, n);
	}
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "memory_only_nodes", json_object_new_string(s.memory_only));
	json_object_object_add(o, "core_kinds", kinds_json(t));
	return o;
}

/* ------------------------------------------------------------------ planning */

int kb_parse_cpu_list(const char *s, int **cpus, int *n)
{
	int cap = 16, cnt = 0;
	int *v = kb_xcalloc((size_t)cap, sizeof(int));
	const char *p = s;

	while (p && *p) {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || errno || lo < 0 || lo > INT_MAX)
			goto bad;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo || hi > INT_MAX)
				goto bad;
		}
		for (long c = lo; c <= hi; c++) {
			for (int i = 0; i < cnt; i++)
				if (v[i] == c) {
					free(v);
					return kb_fail(EINVAL, "CPU list '%s' names CPU %ld twice: give each vCPU its own CPU", s, c);
				}
			/* A bound, or "0-2000000000" takes minutes and gigabytes (found by fuzzing). */
			if (cnt == 4096) {
				free(v);
				return kb_fail(E2BIG, "CPU list '%.64s' names more than 4096 CPUs", s);
			}
			if (cnt == cap) {
				cap *= 2;
				v = realloc(v, (size_t)cap * sizeof(int));
				if (!v)
					kb_die("out of memory");
			}
			v[cnt++] = (int)c;
		}
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (!cnt)
		goto bad;
	*cpus = v;
	*n = cnt;
	return 0;
bad:
	free(v);
	return kb_fail(EINVAL, "'%s' is not a CPU list (e.g. 0-3,8,10)", s);
}

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
	bitmap_list(nodes, list, sizeof(list));
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

	*idx = node_index(t, os);
	node_list(t, false, list, sizeof(list));
	if (*idx < 0)
		return kb_fail(ENOENT, "NUMA node %d does not exist on %s (nodes with CPUs: %s)", os, t->source, list);
	if (for_vcpus && memory_only(&t->nodes[*idx]))
		return kb_fail(EINVAL, "NUMA node %d on %s is memory-only (it has no CPUs): vCPUs cannot run there; "
			       "choose one of nodes %s", os, t->source, list);
	return 0;
}

static int plan_explicit(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *p)
{
	hwloc_bitmap_t all = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->h));
	int *cpus, n, err, *count, best = 0, idx;
	char list[1024];

	bitmap_list(all, list, sizeof(list));
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
	check_plan(t, p);
	place_own(t, p, best);
	return 0;
}

int kb_plan_make_topo(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *p)
{
	int first, err, *order;

	memset(p, 0, sizeof(*p));
	p->policy = req->policy;
	p->memory_node = -1;
	p->applicable = t->live;
	snprintf(p->source, sizeof(p->source), "%s", t->source);
	if (req->policy == KB_PLAN_NONE && (req->cpus || req->numa_node >= 0))
		return kb_fail(EINVAL, "--pin none leaves vCPU threads and memory to the kernel: it cannot be combined "
			       "with --cpus or --numa-node");
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
	if (units(t, &t->nodes[first], req->policy) < req->nvcpus)
		note(p, "NUMA node %d has %d %s for %d vCPUs: the rest spill onto the nearest node%s",
		     t->nodes[first].os, units(t, &t->nodes[first], req->policy),
		     req->policy == KB_PLAN_SMT ? "PUs" : "cores", req->nvcpus,
		     req->numa_node >= 0 ? "" : " (no node has enough)");
	check_plan(t, p);
	place_own(t, p, first);
	return 0;
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

int kb_plan_bind_memory(const struct kb_plan *p, void *addr, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bitmask *mask;
	int err = 0;

	if (p->memory_node < 0 || !len)
		return 0;
	if (!p->applicable)
		return not_here(p, "bind guest memory");
	if ((uintptr_t)addr % (uintptr_t)page)
		return kb_fail(EINVAL, "binding guest memory at %p: not page-aligned (bind the mmap()ed region)", addr);
	if (numa_available() < 0)
		return kb_fail(ENOSYS, "binding guest memory to NUMA node %d: this kernel has no NUMA support "
			       "(run with --pin none)", p->memory_node);
	mask = numa_allocate_nodemask();
	if (!mask)
		return kb_fail(ENOMEM, "binding guest memory: out of memory");
	numa_bitmask_setbit(mask, (unsigned int)p->memory_node);
	if (mbind(addr, len, MPOL_BIND, mask->maskp, mask->size + 1, MPOL_MF_STRICT | MPOL_MF_MOVE))
		err = kb_fail(errno, "binding %zu bytes of guest memory to NUMA node %d (mbind): %s "
			      "(does the node have free memory? is it allowed by this process's cpuset?)",
			      len, p->memory_node, strerror(errno));
	numa_free_nodemask(mask);
	return err;
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

		json_object_object_add(e, "vcpu", json_object_new_int(v));
		json_object_object_add(e, "cpu", p->vcpu_cpu[v] >= 0 ? json_object_new_int(p->vcpu_cpu[v]) : NULL);
		json_object_object_add(e, "core", p->vcpu_core[v] >= 0 ? json_object_new_int(p->vcpu_core[v]) : NULL);
		json_object_object_add(e, "node", p->vcpu_node[v] >= 0 ? json_object_new_int(p->vcpu_node[v]) : NULL);
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
	json_object_object_add(o, "topology", json_object_new_string(p->source));
	json_object_object_add(o, "policy", json_object_new_string(p->explicit_cpus ? "cpus" : policy_name(p->policy)));
	json_object_object_add(o, "pinned", json_object_new_boolean(pinned));
	json_object_object_add(o, "vcpus", vc);
	json_object_object_add(o, "memory_node", p->memory_node >= 0 ? json_object_new_int(p->memory_node) : NULL);
	json_object_object_add(o, "kvmbench_cpus", own);
	json_object_object_add(o, "spilled", json_object_new_boolean(p->spilled));
	json_object_object_add(o, "smt_shared", json_object_new_boolean(p->smt_shared));
	json_object_object_add(o, "notes", notes);
	return o;
}

const struct kb_opt kb_plan_opt_table[] = {
	{ "numa-node", 0, KB_OPT_INT, offsetof(struct kb_plan_opts, numa_node), "K",
	  "run vCPUs and bind guest memory on NUMA node K (-1: the planner chooses)", "-1", -1, 65535 },
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
