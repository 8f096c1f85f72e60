/* topo.h: the machine's topology (hwloc), the placement planner, and applying a plan (affinity, mbind). */
#ifndef KB_TOPO_H
#define KB_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "cli.h"

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
/* Packages, NUMA nodes with their CPUs and memory, cores, SMT, memory-only nodes, core kinds. */
json_object *kb_topo_json(const struct kb_topo *t);

/* ---- placement ---- */

enum kb_plan_policy {
	KB_PLAN_CORES,      /* one vCPU per physical core, SMT siblings idle (default) */
	KB_PLAN_SMT,        /* fill every PU of a core before the next core */
	KB_PLAN_NONE,       /* no pinning, no memory binding */
};

struct kb_plan_req {
	int nvcpus;                 /* 0 only with cpus: one vCPU per listed CPU */
	int numa_node;              /* -1: the planner chooses */
	enum kb_plan_policy policy;
	const char *cpus;           /* explicit list "0-3,8" (vCPU i on the i-th CPU), or NULL */
	const char *topology_file;  /* hwloc XML; NULL: this machine (only such a plan can be applied) */
};

enum { KB_PLAN_MAX_NOTES = 8 };

struct kb_plan {
	int nvcpus;
	int *vcpu_cpu;              /* OS index of the PU each vCPU thread runs on; -1: not pinned */
	int *vcpu_core;             /* hwloc logical index of that PU's core; -1: not pinned */
	int *vcpu_node;             /* OS index of that PU's NUMA node; -1: not pinned */
	int memory_node;            /* guest memory bound to this node; -1: not bound */
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
};

/* Make a plan; impossible requests fail with -errno and a message saying what to change. */
int kb_plan_make(const struct kb_plan_req *req, struct kb_plan *plan);
int kb_plan_make_topo(const struct kb_topo *t, const struct kb_plan_req *req, struct kb_plan *plan);
void kb_plan_free(struct kb_plan *plan);

/* Apply a plan.  Each call is a no-op for an unpinned plan.  The vCPU call pins the calling thread,
 * so a vCPU thread calls it for itself before its first KVM_RUN. */
int kb_plan_pin_vcpu_thread(const struct kb_plan *plan, int vcpu);
int kb_plan_pin_own_thread(const struct kb_plan *plan);
/* Bind [addr, addr+len) (page-aligned, e.g. fresh from mmap) to the plan's memory node before first touch. */
int kb_plan_bind_memory(const struct kb_plan *plan, void *addr, size_t len);
json_object *kb_plan_json(const struct kb_plan *plan);

/* "0-3,8,10" -> {0,1,2,3,8,10}, order kept; duplicates and reversed ranges refused.  free() *cpus. */
int kb_parse_cpu_list(const char *s, int **cpus, int *n);

/* ---- the placement options, shared by 'plan' and 'run' as one option group ---- */

struct kb_plan_opts {
	int numa_node;
	const char *policy;
	const char *pin;
	const char *cpus;
};
extern const struct kb_opt kb_plan_opt_table[];
extern const size_t kb_plan_nopts;
/* Turn parsed options into a request for nvcpus vCPUs (topology_file left NULL). */
int kb_plan_req_from_opts(const struct kb_plan_opts *o, int nvcpus, struct kb_plan_req *req);

#endif
