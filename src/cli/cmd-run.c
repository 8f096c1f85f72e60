/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-run.c: 'kvmbench run': measure the selected suites and tests, print and save the results. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/ab-gate.h"
#include "cli/cli.h"
#include "cli/run-profile.h"
#include "cli/runlock.h"
#include "output/compare-view.h"
#include "output/junit.h"
#include "host/arm64.h"
#include "host/cpu.h"
#include "host/host.h"
#include "core/json.h"
#include "core/kb.h"
#include "output/scaling.h"
#include "run/perfcount.h"
#include "run/probe.h"
#include "run/stability.h"
#include "bench/suites.h"
#include "output/table.h"
#include "host/topo.h"
#include "core/json.h"
#include "vmm/cpuarch.h"
#include "vmm/machine.h"

struct selected {
	const struct kb_suite *suite;
	const struct kb_test_def *test;
};

/* One test run: a selected test at one vCPU count. */
struct planned {
	const struct selected *sel;
	int vcpus;
};

/* kvmbench run's options: the measurement's own, and what only this command uses. */
struct run_cfg {
	struct kb_run_opts m;
	struct kb_int_list vcpu_counts;   /* --vcpus: one count, or several to sweep */
	const char *json;
	const char *baseline;     /* compare with this result right after measuring */
	double tolerance;         /* percent, for --baseline */
	const char *kvm_path;
	const char *profile;      /* --profile NAME|FILE: the tests, options and criteria */
	const char *reference;    /* --reference FILE[,FILE...]: for the profile's tolerance criteria */
	const char *junit;        /* --junit FILE: the profile's verdicts as JUnit XML */
	int rounds;               /* --rounds: every selected test again in each, a fresh VM each time */
	bool quiet;
	bool verbose;
	bool allow_concurrent;    /* run even while another kvmbench run holds the host */
	const char *perf;         /* --perf EVENTS */
};

static volatile sig_atomic_t stop_requested;

/* SIGINT, SIGTERM, SIGHUP: stop_requested holds the signal, the run exits with 128 + it. */
static void on_sigint(int sig)
{
	stop_requested = sig;
	/* A guest that never exits is interrupted now, not when the watchdog fires. */
	kb_vcpu_kick_all();
}

static const struct kb_opt run_opts[] = {
	{ "runs", 'n', KB_OPT_INT, offsetof(struct run_cfg, m.runs), "N",
	  "measured samples per test, fixed (0: sample until --target-ci is reached)", "0", 0, 100000 },
	{ "target-ci", 0, KB_OPT_DOUBLE, offsetof(struct run_cfg, m.target_ci), "PCT",
	  "stop sampling when the 95% confidence interval of the mean is within this many percent", "1", 0.01, 100 },
	{ "min-runs", 0, KB_OPT_INT, offsetof(struct run_cfg, m.min_runs), "N",
	  "fewest samples before the confidence interval is trusted", "5", 2, 100000 },
	{ "max-runs", 0, KB_OPT_INT, offsetof(struct run_cfg, m.max_runs), "N",
	  "most samples per test when sampling to a target", "30", 2, 100000 },
	{ "max-time", 0, KB_OPT_DURATION, offsetof(struct run_cfg, m.max_time_ns), "TIME",
	  "most time spent sampling one test when sampling to a target", "5s", 0.01, 86400 },
	{ "warmup", 'w', KB_OPT_INT, offsetof(struct run_cfg, m.warmup), "N",
	  "warm-up samples per test, measured and discarded", "1", 0, 1000 },
	{ "sample-time", 't', KB_OPT_DURATION, offsetof(struct run_cfg, m.sample_time_ns), "TIME",
	  "target length of one sample; iterations are calibrated to it", "100ms", 0.001, 60 },
	{ "iterations", 'i', KB_OPT_U64, offsetof(struct run_cfg, m.iterations), "N",
	  "iterations per sample and vCPU instead of calibrating (0: calibrate)", "0", 0, 1e12 },
	{ "vcpus", 'c', KB_OPT_INT_LIST, offsetof(struct run_cfg, vcpu_counts), "LIST",
	  "vCPUs running the test at once, one thread each; a list (1,2,4,8) runs the tests at each count "
	  "and prints a scaling table", "1", 1, KB_MAX_VCPUS },
	{ "timeout", 0, KB_OPT_DURATION, offsetof(struct run_cfg, m.timeout_ns), "TIME",
	  "watchdog: longest a guest may run without exiting before it is declared hung", "10s", 0.01, 3600 },
	{ "rounds", 'r', KB_OPT_INT, offsetof(struct run_cfg, rounds), "N",
	  "measure the selected tests N times round-robin, a fresh VM each time; the mean and its CI then "
	  "rest on the spread between rounds, which holds the host's drift (use 5 or more for compare)",
	  "1", 1, 1000 },
	{ "json", 'o', KB_OPT_STRING, offsetof(struct run_cfg, json), "FILE",
	  "write the lossless JSON result here, rewritten after every test", NULL, 0, 0 },
	{ "baseline", 'b', KB_OPT_STRING, offsetof(struct run_cfg, baseline), "FILE",
	  "compare with this earlier result right after measuring (exit 1 on a regression)", NULL, 0, 0 },
	{ "tolerance", 0, KB_OPT_DOUBLE, offsetof(struct run_cfg, tolerance), "PCT",
	  "with --baseline: changes within this many percent count as no change", "5", 0, 1000 },
	{ "profile", 'p', KB_OPT_STRING, offsetof(struct run_cfg, profile), "PROFILE",
	  "qualify this host by a profile: quick, default or seed-experiments (bundled), or a YAML file (see "
	  "kvmbench-profile(5)); runs its tests with its options and judges its criteria; exit 0 pass, 1 fail",
	  NULL, 0, 0 },
	{ "reference", 0, KB_OPT_STRING, offsetof(struct run_cfg, reference), "FILES",
	  "with --profile: the result its tolerance criteria compare with; of several, the one measured on this "
	  "host's microarchitecture", NULL, 0, 0 },
	{ "junit", 0, KB_OPT_STRING, offsetof(struct run_cfg, junit), "FILE",
	  "with --profile: write the verdicts as JUnit XML (a testcase per test, a failure per failed test)",
	  NULL, 0, 0 },
	{ "kvm", 0, KB_OPT_STRING, offsetof(struct run_cfg, kvm_path), "DEV",
	  "the KVM device", "/dev/kvm", 0, 0 },
	{ "vpmu", 0, KB_OPT_CHOICE, offsetof(struct run_cfg, m.vpmu), "MODE",
	  "the guest's PMU: host, on or off (host: what KVM_GET_SUPPORTED_CPUID offers, as QEMU's -cpu host "
	  "gives it; on: the same, and host tests are skipped when KVM offers no PMU; off: the vPMU disabled "
	  "by KVM_CAP_PMU_CAPABILITY and the PMU's CPUID leaves zeroed)", "host", 0, 0, .choices = "host|on|off" },
	{ "guest-efer", 0, KB_OPT_CHOICE, offsetof(struct run_cfg, m.guest_efer), "MODE",
	  "the guest's EFER against the host's: same or differ (differ: EFER.SCE clear while the host's is "
	  "set, so that KVM restores the host's EFER on every exit to userspace)", "same", 0, 0,
	  .choices = "same|differ" },
	{ "guest-page", 0, KB_OPT_CHOICE, offsetof(struct run_cfg, m.guest_page), "SIZE",
	  "the guest's pages over the memory suites' test memory: 4k or 2m (4k: as the KVM selftests map it; "
	  "2m: fewer TLB entries on hardware, and larger shadow pages where KVM shadows the guest's tables)",
	  "4k", 0, 0, .choices = "4k|2m" },
	{ "overlap", 0, KB_OPT_FLAG, offsetof(struct run_cfg, m.overlap), NULL,
	  "the memory suites' vCPUs (execute-perf, dirty-log) all work on the same test memory instead of a "
	  "part each", NULL, 0, 0 },
	{ "capture", 0, KB_OPT_STRING, offsetof(struct run_cfg, m.capture_dir), "DIR",
	  "on a triple fault, guest exception or KVM error, write the vCPU's registers (KVM_GET_REGS, "
	  "KVM_GET_SREGS) and the guest page tables' walk of RIP, RSP and CR2 to a file in DIR (created) and "
	  "name it in the error", NULL, 0, 0 },
	{ "perf", 0, KB_OPT_STRING, offsetof(struct run_cfg, perf), "EVENTS",
	  "host performance counters on the vCPU threads, outside guest mode, per iteration of the exit "
	  "tests (perf's names, comma-separated: cycles, instructions, dTLB-load-misses, iTLB-load-misses, "
	  "page-faults, context-switches, ...); an event this host cannot count is skipped with the reason",
	  NULL, 0, 0 },
	{ "pvm-emulated", 0, KB_OPT_FLAG, offsetof(struct run_cfg, m.pvm_emulated), NULL,
	  "on kvm_pvm, do not switch the guest to native execution (shows the emulation check at work)",
	  NULL, 0, 0 },
	{ "quiet", 'q', KB_OPT_FLAG, offsetof(struct run_cfg, quiet), NULL,
	  "no progress line and no table", NULL, 0, 0 },
	{ "verbose", 'v', KB_OPT_FLAG, offsetof(struct run_cfg, verbose), NULL,
	  "debug messages on stderr", NULL, 0, 0 },
	{ "allow-concurrent", 0, KB_OPT_FLAG, offsetof(struct run_cfg, allow_concurrent), NULL,
	  "run even while another kvmbench run measures on this host (refused otherwise: each perturbs the other)",
	  NULL, 0, 0 },
};

static struct kb_plan_opts plan_opts;

static size_t suite_groups(struct kb_opt_group *groups, size_t max)
{
	static char titles[32][96];
	size_t n = 0;

	groups[n++] = (struct kb_opt_group){ "Placement of vCPU threads and guest memory (see kvmbench plan)",
					     kb_plan_opt_table, kb_plan_nopts, &plan_opts };
	for (size_t i = 0; i < kb_nsuites && n < max && n < 32; i++) {
		const struct kb_suite *s = kb_suites[i];

		if (!s->nopts)
			continue;
		snprintf(titles[n], sizeof(titles[n]), "Options of suite '%s'", s->name);
		groups[n] = (struct kb_opt_group){ titles[n], s->opts, s->nopts, s->cfg };
		n++;
	}
	return n;
}

static void add_suite_tests(const struct kb_suite *s, struct selected *sel, size_t *n, size_t max)
{
	for (size_t t = 0; t < s->ntests && *n < max; t++)
		if (!s->tests[t].hidden)
			sel[(*n)++] = (struct selected){ s, &s->tests[t] };
}

/* Turn SUITE and SUITE/TEST operands into the list of tests to run.  Without operands: the host
 * suites (skipped with the reason when /dev/kvm is unusable), and the guest-side suites when this
 * machine runs under a hypervisor; never a suite of another architecture, which 'list' shows
 * hidden with the reason (named, it is skipped with it). */
static int select_tests(int argc, char **argv, bool under_hv, struct selected *sel, size_t max, size_t *n)
{
	*n = 0;
	if (!argc) {
		for (size_t i = 0; i < kb_nsuites; i++)
			if (!kb_suites[i]->hidden && !kb_suite_unavailable(kb_suites[i]) &&
			    (kb_suites[i]->side == KB_SIDE_HOST || under_hv))
				add_suite_tests(kb_suites[i], sel, n, max);
		return 0;
	}
	for (int a = 0; a < argc; a++) {
		char name[128], *slash;
		const struct kb_suite *s;

		snprintf(name, sizeof(name), "%s", argv[a]);
		slash = strchr(name, '/');
		if (slash)
			*slash++ = 0;
		s = kb_find_suite(name);
		if (!s)
			return kb_fail(EINVAL, "unknown suite '%s' ('kvmbench list' shows the suites)", name);
		if (!slash || !*slash) {
			add_suite_tests(s, sel, n, max);
			continue;
		}
		const struct kb_test_def *t = kb_find_test(s, slash);

		if (!t)
			return kb_fail(EINVAL, "suite '%s' has no test '%s' ('kvmbench list %s' shows its tests)",
				       s->name, slash, s->name);
		if (*n < max)
			sel[(*n)++] = (struct selected){ s, t };
	}
	return 0;
}

/* The tests of a profile: its 'default' entries select what a run without operands runs, the others
 * their SUITE or SUITE/TEST; a test selected by several entries runs once. */
static int select_profile_tests(const struct kb_profile *pr, bool under_hv, struct selected *sel, size_t max,
				size_t *n)
{
	struct selected one[256];
	size_t k;

	*n = 0;
	for (size_t i = 0; i < pr->nentries; i++) {
		char *arg = pr->entries[i].select;
		bool dflt = !strcmp(arg, "default");
		int err = select_tests(dflt ? 0 : 1, dflt ? NULL : &arg, under_hv, one, ARRAY_SIZE(one), &k);

		if (err)
			return err;
		for (size_t a = 0; a < k; a++) {
			bool dup = false;

			for (size_t b = 0; b < *n && !dup; b++)
				dup = sel[b].test == one[a].test;
			if (!dup && *n < max)
				sel[(*n)++] = one[a];
		}
	}
	return 0;
}

/* vCPUs to place: --vcpus, or more where a selected test needs its own count (two for IPIs),
 * as far as this host has CPUs for them (a test that needs more is skipped with the reason). */
static int plan_vcpus(const struct run_cfg *o, const struct selected *sel, size_t nsel)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 0;

	/* A sweep's largest count: one plan serves every count (vCPU i always on the same CPU). */
	for (int k = 0; k < o->vcpu_counts.n; k++)
		if (o->vcpu_counts.v[k] > n)
			n = o->vcpu_counts.v[k];

	for (size_t i = 0; i < nsel; i++)
		if (sel[i].test->vcpus > n && sel[i].test->vcpus <= cpus)
			n = sel[i].test->vcpus;
	return n;
}

/* Whether a test runs at every --vcpus count: host tests that take the count; a test with its own
 * count (two for IPIs) and a guest-side test run once. */
static bool swept(const struct selected *sel)
{
	return sel->suite->side == KB_SIDE_HOST && !sel->test->vcpus;
}

/* Every selected test at the first count, then the swept ones at each further count. */
static struct planned *plan_runs(const struct run_cfg *o, const struct selected *sel, size_t nsel, size_t *n)
{
	struct planned *runs = kb_xcalloc(nsel * (size_t)o->vcpu_counts.n + 1, sizeof(*runs));

	*n = 0;
	for (int k = 0; k < o->vcpu_counts.n; k++)
		for (size_t i = 0; i < nsel; i++)
			if (!k || swept(&sel[i]))
				runs[(*n)++] = (struct planned){ &sel[i], o->vcpu_counts.v[k] };
	return runs;
}

/* Why /dev/kvm cannot be used ("" when it can): host-side tests are skipped with it. */
static char no_kvm[512];
/* arm64: the hypervisor underneath, as the device tree and DMI tell (kb_arm64_platform_read). */
static struct kb_cpu_virt platform_virt;

/* Whether the guest-side suites apply by default: this machine runs under a hypervisor (CPUID
 * 0x40000000) that runs its instructions natively, so some of them exit. */
static bool under_hypervisor(const struct kb_cpu_virt *virt, char *why, size_t size)
{
	if (!virt || !virt->hypervisor) {
		snprintf(why, size, "not run, no hypervisor underneath (%s)",
			 virt && virt->hv_from ? virt->hv_from : "CPUID.1:ECX[31] clear");
		return false;
	}
	if (!strcmp(virt->hv_signature, "TCGTCGTCGTCG")) {
		snprintf(why, size, "not run, QEMU TCG emulates every instruction, so nothing exits (name them to run them)");
		return false;
	}
	snprintf(why, size, "running under %s (%s)", virt->hv_name ? virt->hv_name : "a hypervisor",
		 virt->hv_from ? virt->hv_from : "CPUID 0x40000000");
	return true;
}

/* The selected tests a missing /dev/kvm does not stop: guest-side ones, and those of a suite of another
 * architecture (skipped for that). */
static size_t count_without_kvm(const struct selected *sel, size_t nsel)
{
	size_t n = 0;

	for (size_t i = 0; i < nsel; i++)
		n += sel[i].suite->side == KB_SIDE_GUEST || kb_suite_unavailable(sel[i].suite);
	return n;
}

/* The run's progress, for its ETA: test runs in all (rounds included), done, and the time they took. */
static size_t eta_total, eta_done;
static uint64_t eta_done_ns, eta_test_start_ns;

static void eta_test_begins(void)
{
	eta_test_start_ns = kb_now_ns();
}

static void eta_test_ends(void)
{
	eta_done++;
	eta_done_ns += kb_now_ns() - eta_test_start_ns;
}

static void progress(struct kb_run_ctx *ctx, int sample, int nsamples)
{
	const struct kb_run_opts *o = ctx->opts;
	double now = (double)(nsamples - sample + 1) * (double)o->sample_time_ns / 1e9;
	double spent = (double)(kb_now_ns() - eta_test_start_ns) / 1e9;
	/* The tests still to come take what the finished ones took on average, or this one's estimate. */
	double per_test = eta_done ? (double)eta_done_ns / 1e9 / (double)eta_done : spent + now;
	double left = now + (eta_total > eta_done + 1 ? (double)(eta_total - eta_done - 1) * per_test : 0);

	if (left < 60)
		fprintf(stderr, "\r\033[K%s: sample %d of %d; run ETA %.1f s", ctx->current, sample, nsamples, left);
	else
		fprintf(stderr, "\r\033[K%s: sample %d of %d; run ETA %dm%02ds", ctx->current, sample, nsamples,
			(int)(left / 60), (int)left % 60);
	fflush(stderr);
}

/* The value of run option 'name' (a KB_OPT_CHOICE) as its word, from the option table. */
static const char *choice_word(const char *name, int value, char *buf, size_t size)
{
	for (size_t i = 0; i < ARRAY_SIZE(run_opts); i++)
		if (!strcmp(run_opts[i].name, name))
			return kb_opt_choice_name(&run_opts[i], value, buf, size);
	*buf = 0;
	return buf;
}

/* A host test's guest setup, in its params: compare shows a difference as a setup difference. */
static void guest_setup_params(struct kb_run_ctx *ctx, json_object *params)
{
	struct kb_guest_pmu pmu;
	json_object *p = json_object_new_object();
	char w[32];

	kb_json_set_str(params, "vpmu", choice_word("vpmu", ctx->opts->vpmu, w, sizeof(w)));
	kb_json_set_str(params, "guest_efer", choice_word("guest-efer", ctx->opts->guest_efer, w, sizeof(w)));
	kb_guest_pmu_describe(ctx->kvm, ctx->opts->vpmu, &pmu);
	kb_json_set_int(p, "version", pmu.version);
	kb_json_set_int(p, "counters", pmu.counters);
	if (pmu.off_by)
		kb_json_set_str(p, "none_because", pmu.off_by);
	kb_json_set(params, "guest_pmu", p);
}

/* More vCPUs than online CPUs (accepted unpinned, --pin none): every time measured includes the host
 * scheduler's share-out; said on stderr and in the placement's JSON. */
static void note_overcommit(json_object *placement, int vcpus)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < 1 || vcpus <= cpus)
		return;
	kb_warn("%d vCPUs overcommit this host's %ld CPUs: the vCPU threads take turns, so times include the "
		"host scheduler's share-out; counts (exits, faults, TLB flushes) stay exact", vcpus, cpus);
	if (placement) {
		json_object *o = json_object_new_object();

		kb_json_set_int(o, "vcpus", vcpus);
		kb_json_set_int(o, "cpus", cpus);
		kb_json_set(placement, "overcommit", o);
	}
}

/* The TSC rate the run's first measured test saw: the reference of tests KVM gave no rate for. */
static double run_tsc_khz;

static int run_one(struct kb_run_ctx *ctx, const struct selected *sel, struct kb_test_result *r)
{
	/* A suite of another architecture first: no host, KVM or need of this one changes that. */
	const char *unmet = kb_suite_unavailable(sel->suite) ? kb_suite_unavailable(sel->suite)
			    : sel->suite->side == KB_SIDE_GUEST ? NULL : !ctx->kvm ? no_kvm
			    : kb_test_unmet_need(ctx, sel->test);
	uint64_t t0 = kb_now_ns();
	struct kb_stab_snap begin, end;
	double khz;
	int err;

	json_object_object_add(r->params, "summary", json_object_new_string(sel->test->summary));
	if (sel->suite->side != KB_SIDE_GUEST && ctx->kvm)
		guest_setup_params(ctx, r->params);
	if (unmet) {
		kb_test_set_status(r, KB_STATUS_SKIPPED, "%s", unmet);
		return 0;
	}
	kb_stab_snap_take(&begin);
	err = sel->suite->run ? sel->suite->run(ctx, sel->suite, sel->test, r)
			      : kb_run_loop_test(ctx, sel->suite, sel->test, r);
	kb_stab_snap_take(&end);
	r->duration_s = (double)(kb_now_ns() - t0) / 1e9;
	if (err == -EINTR)
		return err;
	if (err == -ENOTSUP)
		kb_test_set_status(r, KB_STATUS_SKIPPED, "%s", kb_last_error());
	else if (err)
		kb_test_set_status(r, KB_STATUS_ERROR, "%s", kb_last_error());
	kb_test_finish(r);
	if (r->status != KB_STATUS_OK)
		return 0;
	khz = kb_stab_judge(r, &begin, &end, r->tsc_khz ? r->tsc_khz : run_tsc_khz);
	if (!run_tsc_khz)
		run_tsc_khz = khz;
	return 0;
}

/* Rounds 2..N (--rounds): every test that measured in round 1 again, in the same order and each on a
 * fresh VM, so that drift between rounds is spread over the tests; each round is folded into its
 * test's result.  0, 130 when interrupted (completed rounds kept), 2 when the JSON cannot be written. */
static int more_rounds(struct kb_run_ctx *ctx, struct kb_result *res, const struct planned *runs, size_t nruns,
		       const struct run_cfg *o, bool tty)
{
	for (int round = 2; round <= o->rounds; round++)
		for (size_t i = 0; i < nruns && i < res->ntests; i++) {
			struct kb_test_result *t = &res->tests[i];
			struct kb_result one;
			struct kb_test_result *r;
			char id[224];
			int err;

			if (t->status != KB_STATUS_OK)
				continue;
			kb_result_init(&one);
			r = kb_result_add_test(&one, t->suite, t->test);
			ctx->vcpus = runs[i].vcpus;
			snprintf(id, sizeof(id), "[round %d/%d] [%zu/%zu] %s/%s", round, o->rounds, i + 1, nruns, t->suite,
				 t->test);
			ctx->current = id;
			eta_test_begins();
			err = run_one(ctx, runs[i].sel, r);
			eta_test_ends();
			if (tty)
				fprintf(stderr, "\r\033[K");
			if (err == -EINTR || stop_requested) {
				kb_result_free(&one);
				return 130;
			}
			kb_test_add_round(t, r);
			kb_result_free(&one);
			if (o->json && kb_result_write_json(res, o->json)) {
				kb_warn("%s", kb_last_error());
				return 2;
			}
		}
	return 0;
}

/* The table of a run in rounds, printed once every round is in. */
static void print_rounds_table(const struct kb_result *res, const struct planned *runs, const struct run_cfg *o,
			       bool sweep, bool color)
{
	printf("(mean and ±95%% CI between %d rounds, each on a fresh VM; n counts the samples of all rounds)\n",
	       o->rounds);
	for (size_t i = 0; i < res->ntests; i++) {
		if (sweep && (!i || runs[i - 1].vcpus != runs[i].vcpus))
			printf("--- %d vCPU%s ---\n", runs[i].vcpus, runs[i].vcpus > 1 ? "s" : "");
		kb_line_test(stdout, &res->tests[i], color, o->verbose);
	}
	fflush(stdout);
}

/* Judge the run by its profile, save the verdicts (JSON, --junit) and say the verdict: 0 pass, 1 fail,
 * 2 when a file cannot be written. */
static int judge_profile(struct kb_run_profile *rp, struct kb_result *res, const struct run_cfg *o, double wall_s)
{
	const struct kb_result *ref = rp->ref >= 0 ? &rp->refs[rp->ref] : NULL;
	size_t failed = kb_profile_judge(&rp->prof, res, ref, ref ? rp->ref_names[rp->ref] : NULL);
	json_object *crit = kb_json_get(res->profile, "criteria");
	int ret = failed ? 1 : 0;

	if (o->json && kb_result_write_json(res, o->json)) {
		kb_warn("%s", kb_last_error());
		ret = 2;
	}
	if (o->junit && kb_junit_write(res, o->junit, wall_s)) {
		kb_warn("%s", kb_last_error());
		ret = 2;
	}
	if (!o->quiet) {
		kb_table_profile(stdout, res, o->verbose);
		fflush(stdout);
	}
	if (kb_json_get_num(crit, "not_judged", 0) && kb_profile_wants_reference(&rp->prof) && !ref)
		kb_warn("profile %s: its tolerance criteria were not judged: no --reference FILE was given",
			rp->prof.name);
	return ret;
}

/* A test that failed or measured invalidly: the run's exit status 1. */
static bool failed_test(const struct kb_test_result *t)
{
	return t->status == KB_STATUS_ERROR || t->status == KB_STATUS_INVALID;
}

/* Where a guest's CPUID goes on this host, counted once before the tests (their exit counts may
 * depend on it) and kept with the host facts.  -errno when the probe's guest could not run. */
static int record_cpuid_probe(const struct kb_run_ctx *ctx, json_object *host)
{
	struct kb_cpuid_probe probe;
	int err;

	if (!ctx->kvm || !kb_json_get(host, "kvm"))
		return 0;
	err = kb_probe_guest_cpuid(ctx, &probe);
	kb_cpuid_probe_record(&probe, kb_backend_name(ctx->kvm->backend), kb_json_get(host, "kvm"),
			      kb_json_get(host, "advice"));
	return err;
}

static int cmd_run(void *cfgp, int argc, char **argv)
{
	struct run_cfg *o = cfgp;
	struct kb_run_profile rp = { .ref = -1 };
	uint64_t t_start = kb_now_ns();
	struct selected sel[256];
	size_t nsel;
	struct kb_kvm kvm;
	struct kb_result res;
	struct kb_run_ctx ctx = { .kvm = &kvm, .opts = &o->m, .stop = &stop_requested };
	struct kb_perf_set perf;
	struct kb_run_opts perf_opts = o->m;
	char guest_why[160];
	struct kb_cpu_info cpu;
	bool cpu_ok;
	json_object *host;
	struct kb_plan_req req;
	struct kb_plan plan;
	struct kb_result base;
	bool tty;
	bool color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	int ret = 0, failed = 0, err;
	struct sigaction sa;
	struct planned *runs;
	size_t nruns;
	bool sweep;
	int gated;

	if (kb_suites_validate())
		kb_die("internal error: %s", kb_last_error());
	if ((o->junit || o->reference) && !o->profile)
		kb_die("--%s needs --profile: a profile's criteria give the verdicts (--profile default judges like a "
		       "plain run)", o->junit ? "junit" : "reference");
	if (o->m.capture_dir) {
		struct stat st;

		if (mkdir(o->m.capture_dir, 0755) && errno != EEXIST)
			kb_die("--capture %s: cannot create the directory: %s", o->m.capture_dir, strerror(errno));
		if (stat(o->m.capture_dir, &st) || !S_ISDIR(st.st_mode) || access(o->m.capture_dir, W_OK))
			kb_die("--capture %s: not a directory this user can write to", o->m.capture_dir);
	}
	if (o->profile) {
		if (argc)
			kb_die("--profile %s selects the tests: give no SUITE or SUITE/TEST operands with it (%s)", o->profile,
			       argv[0]);
		/* The profile's options go in before anything reads them; the command line's win. */
		if (kb_run_profile_open(o->profile, o->reference, &rp))
			kb_die("%s", kb_last_error());
	}
	kb_verbose = o->verbose;
	tty = isatty(STDERR_FILENO) && !o->quiet;
	sweep = o->vcpu_counts.n > 1;
	/* Host suites need /dev/kvm, guest-side suites do not: a missing one only stops a run that has
	 * nothing else to do. */
	if (kb_kvm_open(&kvm, o->kvm_path)) {
		snprintf(no_kvm, sizeof(no_kvm), "%s", kb_last_error());
		ctx.kvm = NULL;
	}
	/* The host facts decode this CPU once; the run context takes its virtualization from them. */
	host = kb_host_json(ctx.kvm, &cpu, &cpu_ok);
	ctx.virt = cpu_ok ? &cpu.virt : NULL;
	/* arm64 has no CPUID hypervisor bit: its device tree and DMI tell. */
	if (!ctx.virt && kb_arch_self() == KB_ARCH_ARM64) {
		kb_arm64_platform_read("", &platform_virt);
		ctx.virt = &platform_virt;
	}
	if (o->profile ? select_profile_tests(&rp.prof, under_hypervisor(ctx.virt, guest_why, sizeof(guest_why)), sel,
					      ARRAY_SIZE(sel), &nsel)
		       : select_tests(argc, argv, under_hypervisor(ctx.virt, guest_why, sizeof(guest_why)), sel,
				      ARRAY_SIZE(sel), &nsel))
		kb_die("%s", kb_last_error());
	if (rp.nrefs && !kb_profile_wants_reference(&rp.prof))
		kb_warn("--reference is not used: profile %s has no tolerance criterion", rp.prof.name);
	else if (kb_run_profile_pick(&rp, cpu_ok ? cpu.uarch.id : NULL))
		kb_die("%s", kb_last_error());
	if (!ctx.kvm && !count_without_kvm(sel, nsel))
		kb_die("%s", no_kvm);
	if (!argc && !o->profile && !o->quiet)
		fprintf(stderr, "kvmbench: host suites: %s%s%s; guest suites: %s\n",
			ctx.kvm ? "/dev/kvm usable (" : "skipped, ", ctx.kvm ? kb_backend_name(kvm.backend) : no_kvm,
			ctx.kvm ? ")" : "", guest_why);
	if (kb_perf_parse(o->perf, &perf))
		kb_die("%s", kb_last_error());
	for (int i = 0; i < perf.n; i++) {
		char why[256];

		if (kb_perf_why(&perf, i, why, sizeof(why)))
			kb_warn("--perf %s: not counted: %s", perf.ev[i].name, why);
	}
	if (perf.n) {
		perf_opts.perf = &perf;
		ctx.opts = &perf_opts;
	}
	/* A baseline that cannot be read is found out before minutes of measuring, not after. */
	if (o->baseline && kb_result_load(o->baseline, &base))
		kb_die("--baseline %s", kb_last_error());
	/* The operands and files are checked: now this run measures, and another would perturb it.  A side
	 * of kvmbench ab runs under the lock its ab process holds for both sides. */
	gated = kb_ab_gate_child(&ctx);
	if (gated == 2)
		kb_die("%s", kb_last_error());
	if (!gated)
		kb_run_lock(o->allow_concurrent);
	if (kb_watchdog_init())
		kb_die("%s", kb_last_error());
	kb_vcpu_set_stop_flag(&stop_requested);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (tty)
		ctx.progress = progress;

	kb_result_init(&res);
	res.tool_version = kb_xstrdup(PACKAGE_VERSION);
	{
		char when[32];

		kb_iso_now(when, sizeof(when));
		res.started = kb_xstrdup(when);
	}
	res.host = host;
	res.options = kb_cli_current_options_json();
	res.command = kb_cli_command_line();
	/* Pin only after the host facts are read: new threads inherit the main thread's mask. */
	if (kb_plan_req_from_opts(&plan_opts, plan_vcpus(o, sel, nsel), &req) || kb_plan_make(&req, &plan))
		kb_die("%s", kb_last_error());
	if (kb_plan_pin_own_thread(&plan))
		kb_die("%s", kb_last_error());
	ctx.plan = &plan;
	json_object_object_add(res.host, "placement", kb_plan_json(&plan));
	/* A guest that cannot run CPUID here would fail every test after it: the run stops before them. */
	if (record_cpuid_probe(&ctx, res.host) && !stop_requested)
		kb_die("the run could not start: %s", kb_last_error());
	note_overcommit(json_object_object_get(res.host, "placement"), plan_vcpus(o, sel, nsel));
	if (!o->quiet)
		kb_line_header(stdout);
	runs = plan_runs(o, sel, nsel, &nruns);
	eta_total = nruns * (size_t)o->rounds;
	if (stop_requested)
		ret = 128 + stop_requested;   /* during the probe: no test began */
	for (size_t i = 0; i < nruns && !ret; i++) {
		const struct selected *s = runs[i].sel;
		char id[192];
		struct kb_test_result *r = kb_result_add_test(&res, s->suite->name, s->test->name);

		ctx.vcpus = runs[i].vcpus;
		if (sweep && !o->quiet && o->rounds == 1 && (!i || runs[i - 1].vcpus != ctx.vcpus))
			printf("--- %d vCPU%s ---\n", ctx.vcpus, ctx.vcpus > 1 ? "s" : "");
		snprintf(id, sizeof(id), "[%zu/%zu] %s/%s", i + 1, nruns, s->suite->name, s->test->name);
		if (sweep)
			snprintf(id + strlen(id), sizeof(id) - strlen(id), " (%d vCPU%s)", ctx.vcpus, ctx.vcpus > 1 ? "s" : "");
		ctx.current = id;
		eta_test_begins();
		err = run_one(&ctx, s, r);
		eta_test_ends();
		if (err == -EINTR || stop_requested) {
			/* The interrupted test is incomplete: drop it, keep everything before it. */
			kb_result_drop_last(&res);
			ret = 128 + (stop_requested ? stop_requested : SIGINT);
			break;
		}
		if (tty)
			fprintf(stderr, "\r\033[K");
		/* In a sweep every result says its count, skipped ones too: the scaling table places them. */
		if (sweep && !r->vcpus)
			r->vcpus = s->test->vcpus ? s->test->vcpus : ctx.vcpus;
		if (failed_test(r))
			failed++;
		if (!o->quiet && o->rounds == 1) {
			kb_line_test(stdout, r, color, o->verbose);
			fflush(stdout);
		}
		if (o->json && kb_result_write_json(&res, o->json)) {
			kb_warn("%s", kb_last_error());
			ret = 2;
			break;
		}
	}
	if (!ret && o->rounds > 1) {
		ret = more_rounds(&ctx, &res, runs, nruns, o, tty);
		failed = 0;
		for (size_t i = 0; i < res.ntests; i++)
			failed += failed_test(&res.tests[i]);
	}
	if (o->rounds > 1 && !o->quiet)
		print_rounds_table(&res, runs, o, sweep, color);
	if (tty)
		fprintf(stderr, "\r\033[K");
	free(runs);
	if (sweep && !o->quiet)
		kb_scaling_print(stdout, &res);
	if (!o->quiet) {
		kb_line_summary(stdout, &res, (double)(kb_now_ns() - t_start) / 1e9, o->json);
		fflush(stdout);
	}
	if (ret > 128) {
		if (o->json && kb_result_write_json(&res, o->json))
			kb_warn("%s", kb_last_error());
		fprintf(stderr, "kvmbench: interrupted; %zu completed test(s) kept%s%s\n", res.ntests,
			o->json ? " in " : "", o->json ? o->json : "");
	} else if (!ret && failed && !o->profile) {
		/* Quiet, the table that gives the reasons is not printed: they are given here instead. */
		if (o->quiet)
			for (size_t i = 0; i < res.ntests; i++)
				if (failed_test(&res.tests[i]))
					kb_warn("%s/%s %s: %s", res.tests[i].suite, res.tests[i].test,
						res.tests[i].status == KB_STATUS_ERROR ? "failed" : "invalid",
						res.tests[i].reason ? res.tests[i].reason : "no reason recorded");
		kb_warn("%d test(s) failed or gave invalid measurements; see the reasons %s", failed,
			o->quiet ? "just above" : "in the table above");
		ret = 1;
	}
	/* With a profile its criteria decide (an invalid test may be allowed); an interrupted run is judged
	 * on the tests it completed and keeps its exit status. */
	if (o->profile && ret != 2) {
		int pret = judge_profile(&rp, &res, o, (double)(kb_now_ns() - t_start) / 1e9);

		if (ret <= 128 && pret > ret)
			ret = pret;
	}
	if (o->baseline) {
		if (ret <= 128 && ret != 2) {
			struct kb_compare_opts copts;
			int cret;

			kb_compare_opts_init(&copts);
			copts.tolerance_pct = o->tolerance;
			copts.color = color;
			copts.new_label = o->json ? o->json : "this run";
			copts.base_label = o->baseline;
			printf("\nCompared with %s:\n", o->baseline);
			cret = kb_compare_results(&base, &res, &copts, stdout, stderr);
			if (cret > ret)
				ret = cret;
		}
		kb_result_free(&base);
	}
	kb_result_free(&res);
	kb_run_profile_close(&rp);
	kb_plan_free(&plan);
	kb_kvm_close(&kvm);
	return ret;
}

const struct kb_cmd kb_cmd_run = {
	.name = "run",
	.summary = "Measure suites or single tests on this host's KVM and report statistics.",
	.usage = "[OPTIONS] [SUITE | SUITE/TEST]...",
	.description = "Without operands the host suites run when /dev/kvm is usable (skipped with the\n"
		       "reason otherwise) and the guest-side suites when this machine runs under a\n"
		       "hypervisor; hidden suites run only when named. Every sample of a host suite is\n"
		       "cross-checked against KVM's own statistics; a sample that fails the check\n"
		       "marks the test invalid. Exit status: 0 all measured or skipped, 1 a test\n"
		       "failed or was invalid, or regressed against --baseline, 2 usage or setup\n"
		       "error, 128 + the signal when stopped by one (130 SIGINT, 143 SIGTERM, 129\n"
		       "SIGHUP). A second run on this host is refused unless --allow-concurrent.",
	.opts = run_opts,
	.nopts = ARRAY_SIZE(run_opts),
	.cfg_size = sizeof(struct run_cfg),
	.extra_groups = suite_groups,
	.exec = cmd_run,
};
