/* cmd-run.c: 'kvmbench run': measure the selected suites and tests, print and save the results. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "host.h"
#include "kb.h"
#include "scaling.h"
#include "stability.h"
#include "suite.h"
#include "table.h"
#include "topo.h"

struct selected {
	const struct kb_suite *suite;
	const struct kb_test_def *test;
};

/* One test run: a selected test at one vCPU count. */
struct planned {
	const struct selected *sel;
	int vcpus;
};

static volatile sig_atomic_t stop_requested;

static void on_sigint(int sig)
{
	(void)sig;
	stop_requested = 1;
	/* A guest that never exits is interrupted now, not when the watchdog fires. */
	kb_vcpu_kick_all();
}

static const struct kb_opt run_opts[] = {
	{ "runs", 'n', KB_OPT_INT, offsetof(struct kb_run_opts, runs), "N",
	  "measured samples per test, fixed (0: sample until --target-ci is reached)", "0", 0, 100000 },
	{ "target-ci", 0, KB_OPT_DOUBLE, offsetof(struct kb_run_opts, target_ci), "PCT",
	  "stop sampling when the 95% confidence interval of the mean is within this many percent", "1", 0.01, 100 },
	{ "min-runs", 0, KB_OPT_INT, offsetof(struct kb_run_opts, min_runs), "N",
	  "fewest samples before the confidence interval is trusted", "5", 2, 100000 },
	{ "max-runs", 0, KB_OPT_INT, offsetof(struct kb_run_opts, max_runs), "N",
	  "most samples per test when sampling to a target", "30", 2, 100000 },
	{ "max-time", 0, KB_OPT_DURATION, offsetof(struct kb_run_opts, max_time_ns), "TIME",
	  "most time spent sampling one test when sampling to a target", "5s", 0.01, 86400 },
	{ "warmup", 'w', KB_OPT_INT, offsetof(struct kb_run_opts, warmup), "N",
	  "warm-up samples per test, measured and discarded", "1", 0, 1000 },
	{ "sample-time", 't', KB_OPT_DURATION, offsetof(struct kb_run_opts, sample_time_ns), "TIME",
	  "target length of one sample; iterations are calibrated to it", "100ms", 0.001, 60 },
	{ "iterations", 'i', KB_OPT_U64, offsetof(struct kb_run_opts, iterations), "N",
	  "iterations per sample and vCPU instead of calibrating (0: calibrate)", "0", 0, 1e12 },
	{ "vcpus", 'c', KB_OPT_INT_LIST, offsetof(struct kb_run_opts, vcpu_counts), "LIST",
	  "vCPUs running the test at once, one thread each; a list (1,2,4,8) runs the tests at each count "
	  "and prints a scaling table", "1", 1, KB_MAX_VCPUS },
	{ "timeout", 0, KB_OPT_DURATION, offsetof(struct kb_run_opts, timeout_ns), "TIME",
	  "watchdog: longest a guest may run without exiting before it is declared hung", "10s", 0.01, 3600 },
	{ "json", 'o', KB_OPT_STRING, offsetof(struct kb_run_opts, json), "FILE",
	  "write the lossless JSON result here, rewritten after every test", NULL, 0, 0 },
	{ "baseline", 'b', KB_OPT_STRING, offsetof(struct kb_run_opts, baseline), "FILE",
	  "compare with this earlier result right after measuring (exit 1 on a regression)", NULL, 0, 0 },
	{ "tolerance", 0, KB_OPT_DOUBLE, offsetof(struct kb_run_opts, tolerance), "PCT",
	  "with --baseline: changes within this many percent count as no change", "5", 0, 1000 },
	{ "kvm", 0, KB_OPT_STRING, offsetof(struct kb_run_opts, kvm_path), "DEV",
	  "the KVM device", "/dev/kvm", 0, 0 },
	{ "pvm-emulated", 0, KB_OPT_FLAG, offsetof(struct kb_run_opts, pvm_emulated), NULL,
	  "on kvm_pvm, do not switch the guest to native execution (shows the emulation check at work)",
	  NULL, 0, 0 },
	{ "quiet", 'q', KB_OPT_FLAG, offsetof(struct kb_run_opts, quiet), NULL,
	  "no progress line and no table", NULL, 0, 0 },
	{ "verbose", 'v', KB_OPT_FLAG, offsetof(struct kb_run_opts, verbose), NULL,
	  "debug messages on stderr", NULL, 0, 0 },
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
 * machine runs under a hypervisor. */
static int select_tests(int argc, char **argv, bool under_hv, struct selected *sel, size_t max, size_t *n)
{
	*n = 0;
	if (!argc) {
		for (size_t i = 0; i < kb_nsuites; i++)
			if (!kb_suites[i]->hidden && (kb_suites[i]->side == KB_SIDE_HOST || under_hv))
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

/* vCPUs to place: --vcpus, or more where a selected test needs its own count (two for IPIs),
 * as far as this host has CPUs for them (a test that needs more is skipped with the reason). */
static int plan_vcpus(const struct kb_run_opts *o, const struct selected *sel, size_t nsel)
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
static struct planned *plan_runs(const struct kb_run_opts *o, const struct selected *sel, size_t nsel, size_t *n)
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

/* Whether the guest-side suites apply by default: this machine runs under a hypervisor (CPUID
 * 0x40000000, from the host facts) that runs its instructions natively, so some of them exit. */
static bool under_hypervisor(json_object *host, char *why, size_t size)
{
	json_object *virt, *v;

	if (!json_object_object_get_ex(host, "virtualization", &virt) ||
	    !json_object_object_get_ex(virt, "under_hypervisor", &v) || !json_object_get_boolean(v)) {
		snprintf(why, size, "not run, no hypervisor underneath (CPUID.1:ECX[31] clear)");
		return false;
	}
	if (json_object_object_get_ex(virt, "hypervisor_signature", &v) &&
	    !strcmp(json_object_get_string(v), "TCGTCGTCGTCG")) {
		snprintf(why, size, "not run, QEMU TCG emulates every instruction, so nothing exits (name them to run them)");
		return false;
	}
	snprintf(why, size, "running under %s (CPUID 0x40000000)",
		 json_object_object_get_ex(virt, "hypervisor", &v) ? json_object_get_string(v) : "a hypervisor");
	return true;
}

static size_t count_side(const struct selected *sel, size_t nsel, enum kb_side side)
{
	size_t n = 0;

	for (size_t i = 0; i < nsel; i++)
		n += sel[i].suite->side == side;
	return n;
}

static void progress(struct kb_run_ctx *ctx, int sample, int nsamples)
{
	const struct kb_run_opts *o = ctx->opts;
	double left = (double)(nsamples - sample + 1) * (double)o->sample_time_ns / 1e9;

	fprintf(stderr, "\r\033[K%s: sample %d of %d, about %.0f s left", ctx->current, sample, nsamples, left);
	fflush(stderr);
}

static char *iso_now(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return kb_xstrdup(buf);
}

/* The TSC rate the run's first measured test saw: the reference of tests KVM gave no rate for. */
static double run_tsc_khz;

static int run_one(struct kb_run_ctx *ctx, const struct selected *sel, struct kb_test_result *r)
{
	const char *unmet = sel->suite->side == KB_SIDE_GUEST ? NULL : !ctx->kvm ? no_kvm
			    : kb_test_unmet_need(ctx, sel->test);
	uint64_t t0 = kb_now_ns();
	struct kb_stab_snap begin, end;
	double khz;
	int err;

	json_object_object_add(r->params, "summary", json_object_new_string(sel->test->summary));
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

/* A result measured validly may still be unsteady: say so on stderr, beside the table's checks. */
static void warn_unsteady(const struct kb_test_result *r)
{
	for (size_t i = 0; i < r->nchecks; i++) {
		const struct kb_check *c = &r->checks[i];

		if (!c->pass && !c->fatal && r->status == KB_STATUS_OK)
			kb_warn("%s/%s: %s is %.3g, accepted %.3g..%.3g: %s", r->suite, r->test, c->name, c->measured,
				c->min, c->max, c->note ? c->note : "");
	}
}

static int cmd_run(void *cfgp, int argc, char **argv)
{
	struct kb_run_opts *o = cfgp;
	struct selected sel[256];
	size_t nsel;
	struct kb_kvm kvm;
	struct kb_result res;
	struct kb_run_ctx ctx = { .kvm = &kvm, .opts = o, .stop = &stop_requested };
	char guest_why[160];
	json_object *host;
	struct kb_plan_req req;
	struct kb_plan plan;
	struct kb_result base;
	bool tty = isatty(STDERR_FILENO) && !o->quiet;
	bool color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	int ret = 0, failed = 0;
	struct sigaction sa;
	struct planned *runs;
	size_t nruns;
	bool sweep = o->vcpu_counts.n > 1;

	kb_verbose = o->verbose;
	o->vcpus = o->vcpu_counts.v[0];
	if (kb_suites_validate())
		kb_die("internal error: %s", kb_last_error());
	/* Host suites need /dev/kvm, guest-side suites do not: a missing one only stops a run that has
	 * nothing else to do. */
	if (kb_kvm_open(&kvm, o->kvm_path)) {
		snprintf(no_kvm, sizeof(no_kvm), "%s", kb_last_error());
		ctx.kvm = NULL;
	}
	host = kb_host_json(ctx.kvm);
	if (select_tests(argc, argv, under_hypervisor(host, guest_why, sizeof(guest_why)), sel, ARRAY_SIZE(sel),
			 &nsel))
		kb_die("%s", kb_last_error());
	if (!ctx.kvm && !count_side(sel, nsel, KB_SIDE_GUEST))
		kb_die("%s", no_kvm);
	if (!argc && !o->quiet)
		fprintf(stderr, "kvmbench: host suites: %s%s%s; guest suites: %s\n",
			ctx.kvm ? "/dev/kvm usable (" : "skipped, ", ctx.kvm ? kb_backend_name(kvm.backend) : no_kvm,
			ctx.kvm ? ")" : "", guest_why);
	/* A baseline that cannot be read is found out before minutes of measuring, not after. */
	if (o->baseline && kb_result_load(o->baseline, &base))
		kb_die("--baseline %s", kb_last_error());
	if (kb_watchdog_init())
		kb_die("%s", kb_last_error());
	kb_vcpu_set_stop_flag(&stop_requested);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tty)
		ctx.progress = progress;

	kb_result_init(&res);
	res.tool_version = kb_xstrdup(PACKAGE_VERSION);
	res.started = iso_now();
	res.host = host;
	ctx.host = host;
	res.options = kb_cli_current_options_json();
	/* Pin only after the host facts are read: new threads inherit the main thread's mask. */
	if (kb_plan_req_from_opts(&plan_opts, plan_vcpus(o, sel, nsel), &req) || kb_plan_make(&req, &plan))
		kb_die("%s", kb_last_error());
	if (kb_plan_pin_own_thread(&plan))
		kb_die("%s", kb_last_error());
	ctx.plan = &plan;
	json_object_object_add(res.host, "placement", kb_plan_json(&plan));
	if (!o->quiet)
		kb_table_header(stdout, color);
	runs = plan_runs(o, sel, nsel, &nruns);
	for (size_t i = 0; i < nruns; i++) {
		const struct selected *s = runs[i].sel;
		char id[192];
		struct kb_test_result *r = kb_result_add_test(&res, s->suite->name, s->test->name);

		o->vcpus = runs[i].vcpus;
		if (sweep && !o->quiet && (!i || runs[i - 1].vcpus != o->vcpus))
			printf("--- %d vCPU%s ---\n", o->vcpus, o->vcpus > 1 ? "s" : "");
		snprintf(id, sizeof(id), "[%zu/%zu] %s/%s", i + 1, nruns, s->suite->name, s->test->name);
		if (sweep)
			snprintf(id + strlen(id), sizeof(id) - strlen(id), " (%d vCPU%s)", o->vcpus, o->vcpus > 1 ? "s" : "");
		ctx.current = id;
		if (run_one(&ctx, s, r) == -EINTR || stop_requested) {
			/* The interrupted test is incomplete: drop it, keep everything before it. */
			kb_result_drop_last(&res);
			ret = 130;
			break;
		}
		if (tty)
			fprintf(stderr, "\r\033[K");
		/* In a sweep every result says its count, skipped ones too: the scaling table places them. */
		if (sweep && !r->vcpus)
			r->vcpus = s->test->vcpus ? s->test->vcpus : o->vcpus;
		if (r->status == KB_STATUS_ERROR || r->status == KB_STATUS_INVALID)
			failed++;
		if (!o->quiet) {
			kb_table_test(stdout, r, color);
			fflush(stdout);
			warn_unsteady(r);
		}
		if (o->json && kb_result_write_json(&res, o->json)) {
			kb_warn("%s", kb_last_error());
			ret = 2;
			break;
		}
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	free(runs);
	if (sweep && !o->quiet)
		kb_scaling_print(stdout, &res);
	if (ret == 130) {
		if (o->json && kb_result_write_json(&res, o->json))
			kb_warn("%s", kb_last_error());
		fprintf(stderr, "kvmbench: interrupted; %zu completed test(s) kept%s%s\n", res.ntests,
			o->json ? " in " : "", o->json ? o->json : "");
	} else if (!ret && failed) {
		kb_warn("%d test(s) failed or gave invalid measurements; see the reasons above", failed);
		ret = 1;
	}
	if (o->baseline) {
		if (ret != 130 && ret != 2) {
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
		       "error, 130 interrupted.",
	.opts = run_opts,
	.nopts = ARRAY_SIZE(run_opts),
	.cfg_size = sizeof(struct kb_run_opts),
	.extra_groups = suite_groups,
	.exec = cmd_run,
};
