/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.h: the placement planner: where vCPU threads, kvmbench's own threads and guest memory go
 * on a topology, applying a plan (affinity), and the placement options of 'plan' and 'run'. */
#ifndef KB_PLAN_H
#define KB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "core/opt.h"
#include "host/topology.h"

enum kb_plan_policy {
	KB_PLAN_CORES,      /* one vCPU per physical core, SMT siblings idle (default) */
	KB_PLAN_SMT,        /* fill every PU of a core before the next core */
	KB_PLAN_NONE,       /* no pinning, no memory binding */
};

struct kb_plan_req {
	int nvcpus;                 /* 0 only with cpus: one vCPU per listed CPU */
	int numa_node;              /* -1: the planner chooses */
	int mem_node;               /* guest memory's node, apart from the vCPUs' (memory-only too); -1: theirs */
	enum kb_plan_policy policy;
	const char *cpus;           /* explicit list "0-3,8" (vCPU i on the i-th CPU), or NULL */
	const char *topology_file;  /* hwloc XML; NULL: this machine (only such a plan can be applied) */
};

enum { KB_PLAN_MAX_NOTES = 8, KB_PLAN_MAX_MEMORY_ONLY = 16 };

/* A memory-only NUMA node of the topology, for --mem-node: whose it is. */
struct kb_plan_mem_only {
	int node, near_node, package;   /* OS indices; -1: unknown */
};

struct kb_plan {
	int nvcpus;
	int *vcpu_cpu;              /* OS index of the PU each vCPU thread runs on; -1: not pinned */
	int *vcpu_core;             /* hwloc logical index of that PU's core; -1: not pinned */
	int *vcpu_node;             /* OS index of that PU's NUMA node; -1: not pinned */
	int memory_node;            /* guest memory bound to this node; -1: not bound */
	bool memory_only_node;      /* that node has no CPUs (HBM, MCDRAM, CXL): chosen with --mem-node */
	int memory_near_node;       /* then the CPU node it belongs to; -1: unknown */
	int memory_package;         /* and its package; -1: unknown */
	int *own_cpus;              /* where kvmbench's own threads may run; none: not pinned */
	int nown;
	enum kb_plan_policy policy;
	bool explicit_cpus;
	bool spilled;               /* vCPUs span more than one NUMA node */
	bool smt_shared;            /* two vCPUs share a physical core */
	bool applicable;            /* made for this machine */
	char source[256];
	int nnotes;
	char notes[KB_PLAN_MAX_NOTES][256];
	int nmem_only;
	struct kb_plan_mem_only mem_only[KB_PLAN_MAX_MEMORY_ONLY];
};

/* Make a plan; impossible requests fail with -errno and a message saying what to change. */
int kb_plan_make(const struct kb_plan_req *req, struct kb_plan *plan);
int kb_plan_make_topo(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *plan);
void kb_plan_free(struct kb_plan *plan);

/* Apply a plan.  Each call is a no-op for an unpinned plan.  The vCPU call pins the calling thread,
 * so a vCPU thread calls it for itself before its first KVM_RUN. */
int kb_plan_pin_vcpu_thread(const struct kb_plan *plan, int vcpu);
int kb_plan_pin_own_thread(const struct kb_plan *plan);
/* The NUMA node guest memory goes to (-1: not bound; also for no plan); -errno for a plan made for
 * another machine.  The VMM binds the memory (vmm/membind.h). */
int kb_plan_memory_node(const struct kb_plan *plan, int *node);
json_object *kb_plan_json(const struct kb_plan *plan);

/* "0-3,8,10" -> {0,1,2,3,8,10}, order kept; duplicates and reversed ranges refused.  free() *cpus. */
int kb_parse_cpu_list(const char *s, int **cpus, int *n);
/* The same, and *probes: how many hash-set slots its duplicate check looked at (a few per CPU;
 * tests/unit/topo.c checks it stays so; NULL: not wanted).  In cpulist.c. */
int kb_parse_cpu_list_counted(const char *s, int **cpus, int *n, unsigned long *probes);

/* ---- the placement options, shared by 'plan' and 'run' as one option group ---- */

struct kb_plan_opts {
	int numa_node;
	int mem_node;
	const char *policy;
	const char *pin;
	const char *cpus;
};
extern const struct kb_opt kb_plan_opt_table[];
extern const size_t kb_plan_nopts;
/* Turn parsed options into a request for nvcpus vCPUs (topology_file left NULL). */
int kb_plan_req_from_opts(const struct kb_plan_opts *o, int nvcpus, struct kb_plan_req *req);

#endif
