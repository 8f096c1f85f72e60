/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h: the machine's topology (hwloc): this machine or an hwloc XML export, summarised
 * and described as JSON. */
#ifndef KB_TOPOLOGY_H
#define KB_TOPOLOGY_H

#include <stdbool.h>
#include <json-c/json.h>

/* A loaded topology: this machine, or an hwloc XML export of another one. */
struct kb_topo;

int kb_topo_load(struct kb_topo **out, const char *xml_path /* NULL: this machine */);
void kb_topo_free(struct kb_topo *t);

struct kb_topo_summary {
	int packages, numa_nodes, cores, pus;
	int threads_per_core;       /* the most PUs any core has */
	char memory_only[64];       /* memory-only NUMA nodes as a list ("2-3"); "" when none */
};
void kb_topo_summarize(const struct kb_topo *t, struct kb_topo_summary *s);
/* Whether CPU (OS index) pu is a PU of the topology, one a plan may use. */
bool kb_topo_has_pu(const struct kb_topo *t, int pu);
/* Packages, NUMA nodes with their CPUs and memory, cores, SMT, memory-only nodes, core kinds. */
json_object *kb_topo_json(const struct kb_topo *t);

#endif
