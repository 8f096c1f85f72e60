/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-topology.c: an hwloc XML topology, as 'info --topology-file' and 'plan --topology-file'
 * read it: kb_topo_load() on the input written to a file, then the summary, the JSON and the
 * placement planner with the requests people make (cores, SMT, a node, an explicit CPU list). */
#include <stdio.h>
#include <stdlib.h>
#include <hwloc.h>
#include <json-c/json.h>

#include "fuzz.h"
#include "host/topo.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Held for the whole process: hwloc keeps its components (and plugins) initialised while any
 * topology exists, so they are set up once here instead of at every input's first
 * hwloc_topology_init() and torn down at its last hwloc_topology_destroy(). */
static hwloc_topology_t keep;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* hwloc's own XML reader, not libxml2's: the same one on every machine, and quieter. */
	setenv("HWLOC_LIBXML_IMPORT", "0", 1);
	/* Only the XML component, and no plugin directory to scan (hwloc(7), ENVIRONMENT): the input
	 * is all the topology there is, as with --topology-file. */
	setenv("HWLOC_COMPONENTS", "xml,stop", 1);
	setenv("HWLOC_PLUGINS_PATH", "/nonexistent", 1);
	if (hwloc_topology_init(&keep))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct kb_plan_req reqs[] = {
		{ .nvcpus = 1, .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_CORES },
		{ .nvcpus = 3, .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_SMT },
		{ .nvcpus = 2, .numa_node = 1, .mem_node = -1, .policy = KB_PLAN_CORES },
		{ .nvcpus = 0, .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_CORES, .cpus = "0-1,3" },
		{ .nvcpus = 5, .numa_node = -1, .mem_node = -1, .policy = KB_PLAN_NONE },
		{ .nvcpus = 2, .numa_node = -1, .mem_node = 2, .policy = KB_PLAN_CORES },
	};
	struct kb_topo_summary sum;
	struct kb_topo *t;
	char path[4096];

	kb_fuzz_dir_clear();
	if (kb_fuzz_write("topology.xml", data, size))
		return 0;
	snprintf(path, sizeof(path), "%s/topology.xml", kb_fuzz_dir());
	if (kb_topo_load(&t, path))
		return 0;
	kb_topo_summarize(t, &sum);
	json_object_put(kb_topo_json(t));
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct kb_plan p;

		if (!kb_plan_make_topo(t, &reqs[i], &p)) {
			/* A plan never pins a vCPU onto a CPU the topology does not have. */
			for (int v = 0; v < p.nvcpus; v++)
				if (p.vcpu_cpu[v] >= 0 && !kb_topo_has_pu(t, p.vcpu_cpu[v]))
					abort();
			json_object_put(kb_plan_json(&p));
		}
		kb_plan_free(&p);
	}
	kb_topo_free(t);
	return 0;
}
