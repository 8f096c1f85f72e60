/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology-priv.h: the layout of a loaded topology, private to topology.c (which builds it) and
 * plan.c (which places vCPUs on it). */
#ifndef KB_TOPOLOGY_PRIV_H
#define KB_TOPOLOGY_PRIV_H

#include <sys/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>

struct topo_node {
	int os;
	hwloc_obj_t obj;
	hwloc_bitmap_t home;        /* PUs for which this is the nearest node */
	int *cores;                 /* indices into kb_topo.cores, in the order the planner takes them */
	int ncores;
	int package;                /* OS index of the package holding its PUs (memory-only: its locality); -1 */
	int near;                   /* memory-only: index into kb_topo.nodes of the CPU node it belongs to; -1 */
	const char *near_by;        /* memory-only: "locality" (hwloc cpuset) or "distance" (the matrix) */
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

/* A bitmap as a list ("0-3,8"); "" when empty. */
void topo_bitmap_list(hwloc_const_bitmap_t b, char *buf, size_t n);
/* The index into t->nodes of the node with OS index os, or -1. */
int topo_node_index(const struct kb_topo *t, int os);
/* A node with memory but no CPUs of its own. */
bool topo_memory_only(const struct topo_node *n);
/* The nodes that are (or are not) memory-only, as a list. */
void topo_node_list(const struct kb_topo *t, bool want_memory_only, char *buf, size_t n);

/* Which of hwloc's steps refused a file, and its errno. */
enum topo_step { TOPO_STEP_NONE, TOPO_STEP_SET_XML, TOPO_STEP_LOAD };
struct topo_refusal {
	enum topo_step step;   /* TOPO_STEP_NONE: hwloc loaded the file (or could not start) */
	int err;
};
/* The crash probe (topo-probe.c): hwloc loads path in a loader process first; -EINVAL when it
 * crashed there.  When hwloc refused the file there instead, *why says at which step and with which
 * errno.  The loaders come from one helper process, forked at the first probe; a loader reads files
 * until one crashes it or it has read 1000. */
int topo_probe_xml(const char *path, struct topo_refusal *why);
/* That helper's pid (-1: none now), and the pid of the loader that read the last file, for tests. */
pid_t topo_probe_helper(void);
pid_t topo_probe_loader(void);

#endif
