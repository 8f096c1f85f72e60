/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c: the machine's topology through hwloc (this machine, or an hwloc XML export), and
 * describing it: summary and JSON. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hwloc.h>

#include "host/datafile.h"
#include "host/topology-priv.h"
#include "host/topology.h"
#include "core/json.h"
#include "core/kb.h"

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

/*
 * Which CPU node a memory-only node (HBM in flat mode, MCDRAM, CXL or PMem as system RAM) belongs
 * to: hwloc attaches it where it is local, so its cpuset names the CPUs near it; the CPU node with
 * the most of those PUs is its node.  A node local to the whole machine says nothing that way: the
 * distance matrix decides then, the nearest CPU node by the memory node's row.
 */
static void attach_memory_only(struct kb_topo *t, struct topo_node *m)
{
	hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->h);
	hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, m->obj);
	int best = -1, best_w = 0;
	hwloc_uint64_t best_d = 0;

	m->near = -1;
	if (!topo_memory_only(m))
		return;
	if (pkg)
		m->package = (int)pkg->os_index;
	for (int i = 0; m->obj->cpuset && !hwloc_bitmap_isequal(m->obj->cpuset, all) && i < t->nnodes; i++) {
		int w = hwloc_bitmap_intersects(t->nodes[i].home, m->obj->cpuset) ?
			hwloc_bitmap_weight(t->nodes[i].home) : 0;

		if (w > best_w) {
			best = i;
			best_w = w;
		}
	}
	if (best >= 0) {
		m->near = best;
		m->near_by = "locality";
		return;
	}
	for (int i = 0; t->dist && i < t->nnodes; i++) {
		hwloc_uint64_t mi, im;

		if (topo_memory_only(&t->nodes[i]) ||
		    hwloc_distances_obj_pair_values(t->dist, m->obj, t->nodes[i].obj, &mi, &im))
			continue;
		if (best < 0 || mi < best_d) {
			best = i;
			best_d = mi;
		}
	}
	if (best >= 0) {
		m->near = best;
		m->near_by = "distance";
		if (m->package < 0)
			m->package = t->nodes[best].package;
	}
}

/*
 * The machine's cpuset, its PU objects and its cores must agree.  A file with a chunk cut out of
 * its middle can stay well-formed and load without a word from hwloc: the machine then lists CPUs
 * whose PU objects are gone, a core counts PUs that do not exist, and a plan would pin vCPUs onto
 * them.  Such a file is refused, naming what disagrees.
 */
static int check_pus(const struct kb_topo *t, hwloc_const_bitmap_t all)
{
	hwloc_bitmap_t pus = hwloc_bitmap_alloc(), diff = hwloc_bitmap_alloc();
	hwloc_obj_t o = NULL;
	char list[256], extra[256];
	int err = 0;

	while ((o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PU, o)))
		if (o->os_index != HWLOC_UNKNOWN_INDEX && o->os_index < 1u << 20)
			hwloc_bitmap_set(pus, o->os_index);
	hwloc_bitmap_andnot(diff, all, pus);
	topo_bitmap_list(diff, list, sizeof(list));
	hwloc_bitmap_andnot(diff, pus, all);
	topo_bitmap_list(diff, extra, sizeof(extra));
	if (*list || *extra || hwloc_bitmap_weight(pus) != t->npus) {
		char what[640];

		if (*list)
			snprintf(what, sizeof(what), "the machine lists CPUs %s that have no PU object", list);
		else if (*extra)
			snprintf(what, sizeof(what), "PUs %s lie outside the machine's cpuset", extra);
		else
			snprintf(what, sizeof(what), "%d PU objects carry %d distinct CPU numbers", t->npus,
				 hwloc_bitmap_weight(pus));
		err = kb_fail(EINVAL, "%s: inconsistent topology: %s; part of the file is missing or damaged "
			      "(re-export it with 'lstopo --of xml FILE')", t->source, what);
		goto out;
	}
	while ((o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_CORE, o))) {
		if (!o->cpuset || hwloc_bitmap_isincluded(o->cpuset, pus))
			continue;
		hwloc_bitmap_andnot(diff, o->cpuset, pus);
		topo_bitmap_list(diff, list, sizeof(list));
		err = kb_fail(EINVAL, "%s: inconsistent topology: core L#%u lists CPUs %s that have no PU object; part "
			      "of the file is missing or damaged (re-export it with 'lstopo --of xml FILE')", t->source,
			      o->logical_index, list);
		goto out;
	}
out:
	hwloc_bitmap_free(pus);
	hwloc_bitmap_free(diff);
	return err;
}

/* The highest PU or NUMA node index a real machine might have, and then some. */
enum { KB_TOPO_MAX_INDEX = 1 << 20 };

static int build(struct kb_topo *t)
{
	hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->h);
	hwloc_bitmap_t pus, taken;
	hwloc_obj_t o = NULL;
	int pu, n, err, width = hwloc_bitmap_weight(all);

	t->npus = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU);
	t->max_pu = hwloc_bitmap_last(all);
	if (t->npus <= 0 || t->max_pu < 0 || width <= 0)
		return kb_fail(EINVAL, "%s: the topology has no processing units", t->source);
	if (t->max_pu >= KB_TOPO_MAX_INDEX)
		return kb_fail(EINVAL, "%s: the topology numbers a processing unit %d: not a real machine", t->source,
			       t->max_pu);
	err = check_pus(t, all);
	if (err)
		return err;
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
	for (int i = 0; i < t->nnodes; i++)
		attach_memory_only(t, &t->nodes[i]);
	return 0;
}

/*
 * hwloc 2.x reads the XML formats 1.0 and 2.0 and refuses any other with a bare EINVAL.  hwloc 3
 * writes version "3.0" (ids on objects, machine infos at the end): say so, and how to get a file
 * this hwloc reads, rather than "is it an hwloc XML export?".
 */
static int check_xml_version(const char *path, const char *text)
{
	const char *v = strstr(text, "<topology version=\"");
	unsigned int major = 0, minor = 0;

	if (!v || sscanf(v + strlen("<topology version=\""), "%u.%u", &major, &minor) != 2)
		return 0;
	if (major <= HWLOC_VERSION_MAJOR)
		return 0;
	return kb_fail(EINVAL, "%s: an hwloc XML export in format %u.%u (written by hwloc %u or later), newer than "
		       "the hwloc %s kvmbench uses can read; re-export it in the 2.x format with that newer hwloc "
		       "('lstopo --of xml --export-xml-flags v2 FILE'), or export it with hwloc 2.x", path, major, minor,
		       major, HWLOC_VERSION);
}

/* An object's type and OS index as hwloc's own XML reader takes them from its tag. */
struct xml_object {
	bool indexed;              /* a type attribute reads as a PU or a NUMA node */
	hwloc_obj_type_t type;     /* the first that does */
	unsigned os_index;         /* the largest os_index; HWLOC_UNKNOWN_INDEX without one */
};

/* One attribute value as hwloc unescapes it, from v (at most len bytes, up to its closing quote)
 * into out: its length in the text (quote excluded), or -1 where hwloc stops reading attributes
 * (an escape it does not know, no closing quote). */
static long xml_value(const char *v, size_t len, char *out)
{
	static const struct { const char *text; char c; } esc[] = {
		{ "&#10;", '\n' }, { "&#13;", '\r' }, { "&#9;", '\t' }, { "&quot;", '"' },
		{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' },
	};
	size_t i = 0;

	while (i < len && v[i] != '"') {
		size_t k = 0;

		if (v[i] != '&') {
			*out++ = v[i++];
			continue;
		}
		while (k < ARRAY_SIZE(esc) && (len - i < strlen(esc[k].text) || memcmp(v + i, esc[k].text, strlen(esc[k].text))))
			k++;
		if (k == ARRAY_SIZE(esc))
			return -1;
		*out++ = esc[k].c;
		i += strlen(esc[k].text);
	}
	*out = '\0';
	return i < len ? (long)i : -1;
}

/*
 * Read an object's tag (len bytes from its '<', without the '>') the way hwloc 2.9's own reader
 * does: the tag's name, one space, then attributes separated by spaces, tabs and newlines, each
 * a name of lower-case letters and '_' with '="' after it and a value to the next '"', escapes
 * undone.  hwloc stops at the first attribute that is not so and ignores the rest of the tag:
 * after a stray 'PU"', os_index="14" is no os_index to it (found by fuzzing: a PU left without
 * one, 530 MB), nor is gp_indexos_index="0" (8 GiB).  value has room for len bytes.
 */
static void xml_object_read(const char *tag, size_t len, char *value, struct xml_object *o)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz_";
	const char *end, *p;
	bool found = false;

	*o = (struct xml_object){ false, HWLOC_OBJ_TYPE_MAX, HWLOC_UNKNOWN_INDEX };
	if (len && tag[len - 1] == '/')
		len--;
	end = tag + len;
	for (p = tag + 1; p < end && *p && (strchr(lower, *p) || (*p >= '0' && *p <= '9')); p++)
		;
	if (p == end || *p++ != ' ')
		return;
	for (;;) {
		size_t n;
		long vlen;

		/* Not '\r': hwloc 2.9 does not skip it (an os_index after one is none to it: 530 MB). */
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
			p++;
		for (n = 0; p + n < end && p[n] && strchr(lower, p[n]); n++)
			;
		if ((size_t)(end - p) < n + 2 || p[n] != '=' || p[n + 1] != '"')
			return;
		vlen = xml_value(p + n + 2, (size_t)(end - p) - n - 2, value);
		if (vlen < 0)
			return;
		if (n == 4 && !memcmp(p, "type", 4)) {
			hwloc_obj_type_t t;

			if (!o->indexed && hwloc_type_sscanf(value, &t, NULL, 0) == 0 &&
			    (t == HWLOC_OBJ_PU || t == HWLOC_OBJ_NUMANODE)) {
				o->indexed = true;
				o->type = t;
			}
		} else if (n == 8 && !memcmp(p, "os_index", 8)) {
			unsigned v = (unsigned)strtoul(value, NULL, 10);

			if (!found || v > o->os_index)
				o->os_index = v;
			found = true;
		}
		p += n + 2 + (size_t)vlen + 1;
	}
}

/*
 * hwloc sizes each cpuset and nodeset by the highest PU and NUMA node index in it: a damaged
 * os_index="500000000" makes it allocate and clear a 64 MB bitmap, several times, before build()
 * refuses the machine (half a second and 128 MB here; most of a fuzz execution), and a PU or node
 * without an os_index gets bit HWLOC_UNKNOWN_INDEX set (512 MB).  Real exports give every PU and
 * NUMA node a small one: refuse other files before hwloc reads them.  The index as hwloc takes
 * it: strtoul() cut to unsigned.
 */
static int check_xml_indexes(const char *path, const char *text, size_t size)
{
	const char *stop = text + size;
	char *value = malloc(size + 1);
	int err = 0;

	if (!value)
		return kb_fail(ENOMEM, "%s: no memory to read the topology", path);
	/* memchr and memmem with the lengths known: strstr and strchr would measure the rest of the
	 * text at each tag (a sanitizer's interceptors do), once per object of the file. */
	for (const char *p = text; !err && (p = memmem(p, (size_t)(stop - p), "<object", 7)); p++) {
		const char *end = memchr(p, '>', (size_t)(stop - p));
		struct xml_object o;
		const char *what;

		xml_object_read(p, end ? (size_t)(end - p) : (size_t)(stop - p), value, &o);
		what = o.type == HWLOC_OBJ_NUMANODE ? "NUMA node" : "processing unit";
		/* Without one, hwloc sets bit HWLOC_UNKNOWN_INDEX: a 512 MB bitmap. */
		if (o.indexed && o.os_index == HWLOC_UNKNOWN_INDEX)
			err = kb_fail(EINVAL, "%s: a %s without its OS index (os_index): not an export of a real machine",
				      path, what);
		else if (o.indexed && o.os_index >= KB_TOPO_MAX_INDEX)
			err = kb_fail(EINVAL, "%s: the topology numbers a %s %u: not a real machine (at most %d)", path,
				      what, o.os_index, KB_TOPO_MAX_INDEX - 1);
		if (!end)
			break;
	}
	free(value);
	return err;
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
	else if (!(err = check_xml_version(path, text)))
		err = check_xml_indexes(path, text, len);
	free(text);
	return err;
}

/* hwloc refused the topology at step, with errno herr. */
static int refused(const struct kb_topo *t, enum topo_step step, int herr)
{
	if (step == TOPO_STEP_SET_XML)
		return kb_fail(EINVAL, "%s: hwloc cannot use this as an XML topology: %s "
			       "(export one with 'lstopo --of xml FILE' or 'hwloc-gather-topology')", t->source, strerror(herr));
	return kb_fail(EINVAL, "%s: hwloc cannot load the topology: %s%s", t->source, strerror(herr),
		       t->live ? "" : " (is it an hwloc XML export?)");
}

int kb_topo_load(struct kb_topo **out, const char *xml_path)
{
	struct kb_topo *t = kb_xcalloc(1, sizeof(*t));
	struct topo_refusal why = { TOPO_STEP_NONE, 0 };
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
	if (xml_path && ((err = check_xml_whole(xml_path)) || (err = topo_probe_xml(xml_path, &why))))
		goto fail;
	/* A file hwloc refused in the probe's loader is refused with its reason, not loaded again. */
	if (why.step != TOPO_STEP_NONE) {
		err = refused(t, why.step, why.err);
		goto fail;
	}
	if (xml_path && hwloc_topology_set_xml(t->h, xml_path)) {
		err = refused(t, TOPO_STEP_SET_XML, errno);
		goto fail;
	}
	if (hwloc_topology_load(t->h)) {
		err = refused(t, TOPO_STEP_LOAD, errno);
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

void topo_bitmap_list(hwloc_const_bitmap_t b, char *buf, size_t n)
{
	if (hwloc_bitmap_iszero(b))
		snprintf(buf, n, "%s", "");
	else
		hwloc_bitmap_list_snprintf(buf, n, b);
}

int topo_node_index(const struct kb_topo *t, int os)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].os == os)
			return i;
	return -1;
}

bool topo_memory_only(const struct topo_node *n)
{
	return hwloc_bitmap_iszero(n->home);
}

void topo_node_list(const struct kb_topo *t, bool want_memory_only, char *buf, size_t n)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	for (int i = 0; i < t->nnodes; i++)
		if (topo_memory_only(&t->nodes[i]) == want_memory_only)
			hwloc_bitmap_set(b, (unsigned)t->nodes[i].os);
	topo_bitmap_list(b, buf, n);
	hwloc_bitmap_free(b);
}

bool kb_topo_has_pu(const struct kb_topo *t, int pu)
{
	/* hwloc's own PU objects, not kvmbench's tables built from the machine's cpuset. */
	return pu >= 0 && hwloc_get_pu_obj_by_os_index(t->h, (unsigned int)pu) != NULL;
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
	topo_node_list(t, true, s->memory_only, sizeof(s->memory_only));
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
		topo_bitmap_list(set, buf, sizeof(buf));
		kb_json_set_str(o, "cpus", buf);
		kb_json_set_int(o, "efficiency", eff);
		for (unsigned int i = 0; i < ninfos; i++)
			if (!strcmp(infos[i].name, "CoreType"))
				kb_json_set_str(o, "core_type", infos[i].value);
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
	kb_json_set_str(o, "source", t->source);
	kb_json_set_int(o, "packages", s.packages);
	kb_json_set_int(o, "numa_nodes", s.numa_nodes);
	kb_json_set_int(o, "cores", s.cores);
	kb_json_set_int(o, "pus", s.pus);
	kb_json_set_int(o, "threads_per_core", s.threads_per_core);
	kb_json_set_bool(o, "smt", s.threads_per_core > 1);
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *nd = &t->nodes[i];
		json_object *n = json_object_new_object();
		uint64_t mem = nd->obj->attr ? nd->obj->attr->numanode.local_memory : 0;

		kb_json_set_int(n, "node", nd->os);
		topo_bitmap_list(nd->home, buf, sizeof(buf));
		kb_json_set_str(n, "cpus", buf);
		kb_json_set_int(n, "cores", nd->ncores);
		kb_json_set_int(n, "pus", hwloc_bitmap_weight(nd->home));
		kb_json_set(n, "package", nd->package >= 0 ? json_object_new_int(nd->package) : NULL);
		kb_json_set(n, "memory_bytes", mem ? json_object_new_uint64(mem) : NULL);
		kb_json_set_bool(n, "memory_only", topo_memory_only(nd));
		if (topo_memory_only(nd)) {
			kb_json_set(n, "near_node", nd->near >= 0 ? json_object_new_int(t->nodes[nd->near].os) : NULL);
			kb_json_set_str(n, "near_by", nd->near >= 0 ? nd->near_by : NULL);
		}
		if (nd->obj->subtype)
			kb_json_set_str(n, "subtype", nd->obj->subtype);
		json_object_array_add(nodes, n);
	}
	kb_json_set(o, "nodes", nodes);
	kb_json_set_str(o, "memory_only_nodes", s.memory_only);
	kb_json_set(o, "core_kinds", kinds_json(t));
	return o;
}
