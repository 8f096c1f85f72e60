/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet.h: the fleet model: many hosts' results as a hosts x tests matrix, per test the fleet's
 * median and spread, MAD-based outliers with how far off they are, groups of hosts by
 * microarchitecture, kernel and KVM parameters, and the hosts that failed to run. */
#ifndef KB_FLEET_H
#define KB_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "results/result.h"

/* A file whose name ends so is not a result but a host's failure record, as the Ansible role
 * writes it: {"fleet_failure": {"host": "...", "stage": "...", "reason": "..."}}. */
#define KB_FLEET_FAILURE_SUFFIX ".failure.json"

struct kb_fleet_opts {
	double outlier_z;      /* robust z-score beyond which a host is an outlier (default 3.5) */
	double min_dev_pct;    /* ... and only if it is more than this far from the median, in percent */
	size_t min_hosts;      /* fewest hosts measuring a test for any outlier to be called (default 3) */
};

/* One host's figure for one test: the median of its results' primary-metric means. */
struct kb_fleet_cell {
	bool present;          /* the host's results have this test at all */
	enum kb_status status; /* the worst status among its results */
	char *reason;          /* of that status */
	double *values;        /* each valid result's mean (while loading) */
	size_t nvalues, cap;
	double value;          /* their median; NaN if none was valid */
	double dev_pct;        /* (value - fleet median) / fleet median, in percent */
	double z;              /* robust z-score: 0.6745 (value - median) / MAD */
	bool outlier;
	bool worse;            /* off on the slow side (lower for higher-is-better metrics) */
};

struct kb_fleet_test {
	char *id;              /* "suite/test", with " (N vCPUs)" when not 1 */
	char *metric, *unit;
	bool higher_is_better;
	size_t nvalid;         /* hosts with a valid figure */
	double median, mad, min, max;
	double spread_pct;     /* 1.4826 MAD / median, in percent: the fleet's robust CV */
	size_t noutliers;
};

struct kb_fleet_param {
	char *key, *value;
};

struct kb_fleet_host {
	char *name;
	size_t nresults, nfiles;
	char *cpu, *uarch, *kernel, *backend;   /* from the first result; "?" when unknown */
	struct kb_fleet_param *params;          /* KVM module parameters, sorted by key */
	size_t nparams;
	char *params_key;                       /* "k=v,k=v": the group key's parameter part */
	size_t group;
	char *failure_stage, *failure;          /* set: the host failed to run (failure says why) */
	struct kb_fleet_cell *cells;            /* one per test, by test index */
	size_t ncells;
	size_t nok, nskipped, ninvalid, nerror, nmissing, noutliers_worse, noutliers_better;
	char *profile;          /* the qualification profile its results were judged by (run --profile); NULL: none */
	size_t nprofiled;       /* results judged by a profile */
	bool profile_failed;    /* one of them did not pass it */
	bool pass;              /* ran, no slow outlier, and: its profile passed, or without one every test valid */
};

struct kb_fleet_group {
	char *uarch, *kernel, *backend, *params_key;
	char *params_differ;    /* only the parameters that differ within the fleet: "k=v, k=v" or "" */
	size_t nhosts;
	double *medians;        /* per test: the group's median, NaN if none */
};

struct kb_fleet_job;

struct kb_fleet {
	struct kb_fleet_opts opts;
	struct kb_fleet_job *jobs;      /* files queued by kb_fleet_add_path, read by kb_fleet_load */
	size_t njobs, capjobs;
	struct kb_fleet_host *hosts;
	size_t nhosts, caphosts;
	struct kb_fleet_test *tests;
	size_t ntests, captests;
	struct kb_fleet_group *groups;
	size_t ngroups;
	size_t nfiles, nfailed;
	bool pass;              /* every host ran, every test valid, no host an outlier on the slow side */
};

void kb_fleet_opts_init(struct kb_fleet_opts *o);
void kb_fleet_init(struct kb_fleet *f, const struct kb_fleet_opts *o);
void kb_fleet_free(struct kb_fleet *f);
/* Queue a result file, a failure record (KB_FLEET_FAILURE_SUFFIX), or a directory: its *.json files,
 * and each subdirectory as one host named after it (DIR/HOST/..., the layout Ansible's fetch makes).
 * A file given alone belongs to the host its result names (host.hostname).  -errno naming the path. */
int kb_fleet_add_path(struct kb_fleet *f, const char *path);
/* Read every queued file (lean: no raw records; on every CPU), each reduced to the figures the report
 * needs and freed.  -errno naming the first file, in queued order, that is not a result or record. */
int kb_fleet_load(struct kb_fleet *f);
/* Medians, spreads, outliers, groups and verdicts, once everything is added. */
void kb_fleet_finish(struct kb_fleet *f);
/* The cell of host h and test t (an empty one when the host lacks it). */
const struct kb_fleet_cell *kb_fleet_cell(const struct kb_fleet *f, size_t h, size_t t);

#endif
