/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-ab.c: 'kvmbench ab': two configurations measured alternately (A B B A ...) on one host, compared as pairs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/ab-gate.h"
#include "cli/cli.h"
#include "cli/runlock.h"
#include "core/json.h"
#include "core/kb.h"
#include "output/compare-view.h"

/* The defaults of --mode sample, measured (README, "Comparing results honestly"): pairs per test of
 * samples this long. */
#define KB_AB_SAMPLE_PAIRS 500
#define KB_AB_SAMPLE_PAIRS_TEXT "500"
#define KB_AB_SAMPLE_TIME "2ms"
#define KB_AB_RUN_PAIRS 10
#define KB_AB_RUN_PAIRS_TEXT "10"

struct ab_cfg {
	const char *opts[2];      /* --a-opts, --b-opts: kvmbench run options of each configuration */
	const char *params[2];    /* --a-param, --b-param: MODULE.PARAM=VALUE[,...] */
	const char *run_opts;     /* --run: options of both sides */
	const char *mode;         /* --mode: sample (both VMs alive, samples alternated) or run (whole runs) */
	int pairs;                /* 0: the mode's default */
	double tolerance;
	double alpha;
	const char *format;
	const char *output;
	const char *save;
	const char *module_dir;
	bool quiet;
};

static const struct kb_opt ab_opts[] = {
	{ "a-opts", 'A', KB_OPT_STRING, offsetof(struct ab_cfg, opts[0]), "OPTS",
	  "kvmbench run options of configuration A, one string split at spaces (e.g. '--leaf 0')", "", 0, 0 },
	{ "b-opts", 'B', KB_OPT_STRING, offsetof(struct ab_cfg, opts[1]), "OPTS",
	  "kvmbench run options of configuration B", "", 0, 0 },
	{ "a-param", 0, KB_OPT_STRING, offsetof(struct ab_cfg, params[0]), "MOD.PARAM=VAL",
	  "KVM module parameters written before each A sample (--mode run: measurement) (comma-separated, e.g. "
	  "kvm.halt_poll_ns=0); every parameter named gets its original value back afterwards", NULL, 0, 0 },
	{ "b-param", 0, KB_OPT_STRING, offsetof(struct ab_cfg, params[1]), "MOD.PARAM=VAL",
	  "KVM module parameters written before each B sample (--mode run: measurement)", NULL, 0, 0 },
	{ "run", 0, KB_OPT_STRING, offsetof(struct ab_cfg, run_opts), "OPTS",
	  "kvmbench run options of both sides (e.g. '--sample-time 5ms'; with --mode sample, --pairs sets --runs)", "", 0, 0 },
	{ "mode", 'm', KB_OPT_STRING, offsetof(struct ab_cfg, mode), "MODE",
	  "sample: both configurations' VMs kept alive, their samples taken A B, B A, ... (each side's "
	  "run --runs is --pairs); run: each measurement a whole fresh kvmbench run (for parameters "
	  "that only a new VM reads)", "sample", 0, 0 },
	{ "pairs", 'p', KB_OPT_INT, offsetof(struct ab_cfg, pairs), "N",
	  "A/B pairs, measured A B, B A, A B, ...: samples of each test (default "
	  KB_AB_SAMPLE_PAIRS_TEXT ") with --mode sample, whole runs (default " KB_AB_RUN_PAIRS_TEXT ") with --mode run",
	  NULL, 0, 100000 },
	{ "tolerance", 't', KB_OPT_DOUBLE, offsetof(struct ab_cfg, tolerance), "PCT",
	  "changes within ±PCT percent of A's mean count as no change", "5%", 0, 1000 },
	{ "alpha", 'a', KB_OPT_DOUBLE, offsetof(struct ab_cfg, alpha), "P",
	  "significance level of the paired test; the delta's confidence interval is 1-P", "0.05", 0.0001, 0.5 },
	{ "format", 'f', KB_OPT_STRING, offsetof(struct ab_cfg, format), "FORMAT",
	  "table, json or markdown", "table", 0, 0 },
	{ "output", 'o', KB_OPT_STRING, offsetof(struct ab_cfg, output), "FILE",
	  "write the comparison to FILE instead of standard output", NULL, 0, 0 },
	{ "save", 0, KB_OPT_STRING, offsetof(struct ab_cfg, save), "PREFIX",
	  "keep both sides as results, PREFIX-a.json and PREFIX-b.json (one round per measurement)", NULL, 0, 0 },
	{ "module-dir", 0, KB_OPT_STRING, offsetof(struct ab_cfg, module_dir), "DIR",
	  "where module parameters live (DIR/MODULE/parameters/PARAM)", "/sys/module", 0, 0 },
	{ "quiet", 'q', KB_OPT_FLAG, offsetof(struct ab_cfg, quiet), NULL,
	  "no progress lines", NULL, 0, 0 },
};

/* ---- module parameters: written per side, restored at the end, on errors and on signals ---- */

struct param {
	char path[512];
	char name[128];           /* MODULE.PARAM */
	char orig[256];           /* as read before anything was written */
	const char *value[2];     /* per side; NULL: the original */
};

static struct param params[16];
static size_t nparams;
static bool params_changed;

static int param_write(const struct param *p, const char *v)
{
	int fd = open(p->path, O_WRONLY | O_TRUNC), err = 0;
	size_t len = strlen(v);

	if (fd < 0)
		return -errno;
	if (write(fd, v, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Async-signal-safe: open, write, close only. */
static void params_restore(void)
{
	if (!params_changed)
		return;
	for (size_t i = 0; i < nparams; i++)
		param_write(&params[i], params[i].orig);
	params_changed = false;
}

static struct param *param_find(const char *name)
{
	for (size_t i = 0; i < nparams; i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

/* MODULE.PARAM=VALUE[,...] for one side: the parameter read (its original value), and checked writable. */
static int params_parse(const char *spec, int side, const char *dir)
{
	char *copy = kb_xstrdup(spec), *save = NULL;
	int err = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *dot = strchr(tok, '.');
		struct param *p;
		char *text = NULL;
		size_t len;

		if (!eq || !dot || dot > eq || dot == tok || eq == dot + 1) {
			err = kb_fail(EINVAL, "'%s' is not MODULE.PARAM=VALUE (e.g. kvm.halt_poll_ns=0)", tok);
			break;
		}
		*eq = 0;
		if (!(p = param_find(tok))) {
			if (nparams == ARRAY_SIZE(params)) {
				err = kb_fail(E2BIG, "at most %zu module parameters", ARRAY_SIZE(params));
				break;
			}
			p = &params[nparams];
			memset(p, 0, sizeof(*p));
			snprintf(p->name, sizeof(p->name), "%s", tok);
			*dot = 0;
			snprintf(p->path, sizeof(p->path), "%s/%s/parameters/%s", dir, tok, dot + 1);
			*dot = '.';
			if (kb_read_all(p->path, sizeof(p->orig) - 1, &text, &len)) {
				err = kb_fail(ENOENT, "module parameter %s: %s", p->name, kb_last_error());
				break;
			}
			snprintf(p->orig, sizeof(p->orig), "%.*s", (int)len, text);
			p->orig[strcspn(p->orig, "\n")] = 0;
			free(text);
			/* Writing the value it has changes nothing: the test whether it can be written at all. */
			if ((err = param_write(p, p->orig))) {
				err = kb_fail(-err, "module parameter %s (%s) cannot be written here (%s): it is read-only "
					      "on this host's KVM, or kvmbench lacks the privilege", p->name, p->path,
					      strerror(-err));
				break;
			}
			nparams++;
		}
		p->value[side] = eq + 1 - copy + spec;
	}
	free(copy);
	return err;
}

/* The values of one side; a parameter the side does not name gets its original value. */
static int params_apply(int side)
{
	for (size_t i = 0; i < nparams; i++) {
		const char *v = params[i].value[side];
		char buf[256];
		const char *end;
		int err;

		if (v) {
			end = strchr(v, ',');
			snprintf(buf, sizeof(buf), "%.*s", end ? (int)(end - v) : (int)strlen(v), v);
		} else {
			snprintf(buf, sizeof(buf), "%s", params[i].orig);
		}
		params_changed = true;
		err = param_write(&params[i], buf);
		if (err)
			return kb_fail(-err, "cannot write %s=%s: %s", params[i].name, buf, strerror(-err));
	}
	return 0;
}

/* ---- the measurements ---- */

static volatile sig_atomic_t stop_requested;
static volatile pid_t child;
static struct kb_ab_side sides[2];   /* --mode sample: both sides' runs */

static void on_signal(int sig)
{
	stop_requested = 1;
	if (child > 0)
		kill(child, sig);
	for (int s = 0; s < 2; s++)
		if (sides[s].pid > 0)
			kill(sides[s].pid, sig);
}

static void add_words(char ***argv, size_t *n, size_t *cap, const char *s)
{
	char *copy = kb_xstrdup(s ? s : ""), *save = NULL;

	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		*argv = kb_xgrow(*argv, *n, cap, sizeof(**argv));
		(*argv)[(*n)++] = kb_xstrdup(w);
	}
	free(copy);
}

/* The command line of one side's 'kvmbench run -q --json FILE': both sides' options, then this side's;
 * with --mode sample its sample time first (the options may change it) and --pairs samples last. */
static char **side_argv(const struct ab_cfg *o, int side, int argc, char **tests, const char *file, size_t *n)
{
	char **argv = NULL, runs[32];
	size_t cap = 0;

	*n = 0;
	add_words(&argv, n, &cap, "/proc/self/exe run -q --json");
	add_words(&argv, n, &cap, file);
	if (!strcmp(o->mode, "sample"))
		add_words(&argv, n, &cap, "--sample-time " KB_AB_SAMPLE_TIME);
	add_words(&argv, n, &cap, o->run_opts);
	add_words(&argv, n, &cap, o->opts[side]);
	if (!strcmp(o->mode, "sample")) {
		snprintf(runs, sizeof(runs), "--runs %d", o->pairs);
		add_words(&argv, n, &cap, runs);
	}
	for (int i = 0; i < argc; i++)
		add_words(&argv, n, &cap, tests[i]);
	argv = kb_xgrow(argv, *n, &cap, sizeof(*argv));
	argv[*n] = NULL;
	return argv;
}

static void free_argv(char **argv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
}

/* One measurement: one side's whole 'kvmbench run'. */
static int measure(const struct ab_cfg *o, int side, int argc, char **tests, const char *file)
{
	size_t n;
	char **argv = side_argv(o, side, argc, tests, file, &n);
	int status, err = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = kb_fail(errno, "cannot start a measurement: %s", strerror(errno));
	} else if (!pid) {
		execv("/proc/self/exe", argv);
		_exit(127);
	} else {
		child = pid;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		child = 0;
		if (stop_requested || (WIFEXITED(status) && WEXITSTATUS(status) == 130) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT))
			err = -EINTR;
		else if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
			err = kb_fail(EIO, "the measurement of %c failed ('kvmbench run %s %s' exited %d)", 'A' + side,
				      o->run_opts, o->opts[side], WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
	free_argv(argv, n);
	return err;
}

/* Fold one measurement into its side: the first is the side's result, each further one a separate run. */
static int fold(struct kb_result *side, bool *have, const char *file)
{
	struct kb_result m;

	if (kb_result_load(file, &m))
		return -EIO;
	if (!*have) {
		*side = m;
		*have = true;
		return 0;
	}
	kb_result_add_run(side, &m);
	kb_result_free(&m);
	return 0;
}

/* What the JSON records of the run: the command line as typed, both configurations and the order. */
static json_object *ab_json(const struct ab_cfg *o, const char *order)
{
	json_object *j = json_object_new_object();

	for (int side = 0; side < 2; side++) {
		json_object *c = json_object_new_object(), *pa = json_object_new_object();

		kb_json_set_str(c, "run_options", o->run_opts);
		kb_json_set_str(c, "options", o->opts[side]);
		for (size_t i = 0; i < nparams; i++) {
			const char *v = params[i].value[side], *end = v ? strchr(v, ',') : NULL;
			char buf[256];

			snprintf(buf, sizeof(buf), "%.*s", v ? end ? (int)(end - v) : (int)strlen(v) : (int)strlen(params[i].orig),
				 v ? v : params[i].orig);
			kb_json_set_str(pa, params[i].name, buf);
		}
		kb_json_set(c, "module_parameters", pa);
		kb_json_set(j, side ? "b" : "a", c);
	}
	kb_json_set_int(j, "pairs", o->pairs);
	kb_json_set_str(j, "mode", o->mode);
	kb_json_set_str(j, "order", order);
	kb_json_set(j, "command", kb_cli_command_line());
	return j;
}

static int save_side(const struct ab_cfg *o, const struct kb_result *r, char side)
{
	char *path = kb_xasprintf("%s-%c.json", o->save, side);
	int err = kb_result_write_json(r, path);

	free(path);
	return err;
}

/* Tests named in --a-opts and --b-opts (selftest/rdmsr against selftest/rdmsr_plus5): the i-th test
 * of B is compared with the i-th of A, under A's name. */
static void pair_tests(const struct kb_result *a, struct kb_result *b)
{
	if (a->ntests != b->ntests)
		return;
	for (size_t i = 0; i < a->ntests; i++)
		if (strcmp(a->tests[i].suite, b->tests[i].suite) || strcmp(a->tests[i].test, b->tests[i].test)) {
			free(b->tests[i].suite);
			free(b->tests[i].test);
			b->tests[i].suite = kb_xstrdup(a->tests[i].suite);
			b->tests[i].test = kb_xstrdup(a->tests[i].test);
		}
}

static int fill_text(FILE *f, void *text)
{
	return fputs(text, f) < 0 ? -EIO : 0;
}

/* --mode run: A B, B A, A B, ... whole runs; a drift that is linear in time hits both sides alike. */
static int measure_runs(const struct ab_cfg *o, int argc, char **argv, const char *dir, struct kb_result side[2],
			bool have[2], char *order)
{
	int err = 0;

	for (int k = 0; k < o->pairs && !err; k++)
		for (int j = 0; j < 2 && !err; j++) {
			int s = k % 2 ? 1 - j : j;
			char *file = kb_xasprintf("%s/%c%d.json", dir, 'a' + s, k + 1);

			if (!o->quiet)
				fprintf(stderr, "kvmbench ab: pair %d of %d: %c (%s%s%s)\n", k + 1, o->pairs, 'A' + s,
					o->opts[s], nparams ? "; " : "", nparams ? (o->params[s] ? o->params[s] : "parameters as found") : "");
			err = params_apply(s);
			if (!err)
				err = measure(o, s, argc, argv, file);
			if (!err)
				err = fold(&side[s], &have[s], file);
			order[strlen(order)] = (char)('A' + s);
			unlink(file);
			free(file);
		}
	return err;
}

static int apply_side(int s, void *arg)
{
	(void)arg;
	return params_apply(s);
}

/* --mode sample: both sides' runs at once, each VM kept alive, every sample of one granted in turn with
 * the other's (A B, B A, ...), so that neighbours and drift hit both halves of each pair alike. */
static int measure_samples(const struct ab_cfg *o, int argc, char **argv, const char *dir, struct kb_result side[2],
			   bool have[2], char *order, size_t max_order)
{
	char *file[2], **args[2];
	size_t nargs[2];
	int err, done;

	for (int s = 0; s < 2; s++) {
		file[s] = kb_xasprintf("%s/%c.json", dir, 'a' + s);
		args[s] = side_argv(o, s, argc, argv, file[s], &nargs[s]);
	}
	if (!o->quiet)
		fprintf(stderr, "kvmbench ab: %d pairs of samples per test, A and B alternated (A: %s%s%s; B: %s%s%s)\n",
			o->pairs, o->opts[0], o->params[0] ? " " : "", o->params[0] ? o->params[0] : "",
			o->opts[1], o->params[1] ? " " : "", o->params[1] ? o->params[1] : "");
	/* Both sides measure under this process's lock, never beside another kvmbench run. */
	kb_run_lock(false);
	err = kb_ab_gate_start(args, sides);
	if (!err)
		err = kb_ab_gate_serve(sides, nparams ? apply_side : NULL, NULL, &stop_requested, order, max_order);
	done = kb_ab_gate_finish(sides);
	if (stop_requested)
		err = -EINTR;
	else if (!err)
		err = done;
	for (int s = 0; s < 2; s++) {
		if (!err && kb_result_load(file[s], &side[s]))
			err = -EIO;
		else if (!err)
			have[s] = true;
		unlink(file[s]);
		free(file[s]);
		free_argv(args[s], nargs[s]);
	}
	return err;
}

static int cmd_ab(void *cfgp, int argc, char **argv)
{
	struct ab_cfg *o = cfgp;
	bool sample_mode;
	size_t max_order;
	struct kb_result side[2];
	bool have[2] = { false, false };
	char dir[] = "/tmp/kvmbench-ab-XXXXXX", label[2][600], *order;
	struct kb_compare_opts co;
	struct sigaction sa;
	FILE *out = stdout;
	char *text = NULL;
	size_t len = 0;
	int status = 0, err = 0;

	if (strcmp(o->mode, "sample") && strcmp(o->mode, "run")) {
		fprintf(stderr, "kvmbench ab: --mode '%s' is not a mode (use sample or run)\n", o->mode);
		return 2;
	}
	sample_mode = !strcmp(o->mode, "sample");
	if (!o->pairs)
		o->pairs = sample_mode ? KB_AB_SAMPLE_PAIRS : KB_AB_RUN_PAIRS;
	else if (o->pairs < 2) {
		fprintf(stderr, "kvmbench ab: --pairs %d: at least 2 pairs are needed for a paired test\n", o->pairs);
		return 2;
	}
	max_order = (size_t)o->pairs * 2 * (size_t)(argc ? argc : 1) * 64 + 1;
	kb_compare_opts_init(&co);
	co.tolerance_pct = o->tolerance;
	co.alpha = o->alpha;
	co.paired = true;
	co.paired_samples = sample_mode;
	if (kb_compare_format_parse(o->format, &co.format))
		kb_die("%s", kb_last_error());
	for (int s = 0; s < 2; s++)
		if (o->params[s] && params_parse(o->params[s], s, o->module_dir)) {
			fprintf(stderr, "kvmbench ab: not run: %s\n", kb_last_error());
			return 2;
		}
	atexit(params_restore);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!mkdtemp(dir))
		kb_die("cannot make a temporary directory: %s", strerror(errno));
	if (sample_mode) {
		order = kb_xcalloc(max_order, 1);
		err = measure_samples(o, argc, argv, dir, side, have, order, max_order);
	} else {
		order = kb_xcalloc((size_t)o->pairs * 2 + 1, 1);
		err = measure_runs(o, argc, argv, dir, side, have, order);
	}
	params_restore();
	rmdir(dir);
	if (err == -EINTR) {
		fprintf(stderr, "kvmbench ab: interrupted; module parameters restored\n");
		status = 130;
	} else if (err) {
		fprintf(stderr, "kvmbench ab: %s\n", kb_last_error());
		status = 2;
	}
	if (!status && o->save && (save_side(o, &side[0], 'a') || save_side(o, &side[1], 'b'))) {
		fprintf(stderr, "kvmbench ab: %s\n", kb_last_error());
		status = 2;
	}
	if (!status && (!have[0] || !have[1])) {
		fprintf(stderr, "kvmbench ab: nothing was measured\n");
		status = 2;
	}
	if (!status) {
		pair_tests(&side[0], &side[1]);
		snprintf(label[0], sizeof(label[0]), "A (%s)", *o->opts[0] || o->params[0] ? o->opts[0] : "no options");
		snprintf(label[1], sizeof(label[1]), "B (%s)", *o->opts[1] || o->params[1] ? o->opts[1] : "no options");
		for (int s = 0; s < 2; s++)
			if (o->params[s])
				snprintf(label[s] + strlen(label[s]) - 1, sizeof(label[s]) - strlen(label[s]) + 1, "%s%s)",
					 *o->opts[s] ? "; " : "", o->params[s]);
		co.base_label = label[0];
		co.new_label = label[1];
		co.extra = ab_json(o, order);
		if (o->output && !(out = open_memstream(&text, &len)))
			kb_die("%s: cannot write the comparison: %s", o->output, strerror(errno));
		co.color = out == stdout && co.format == KB_CMP_TABLE && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		status = kb_compare_results(&side[0], &side[1], &co, out, co.color ? NULL : stderr);
		if (status == 2)
			fprintf(stderr, "kvmbench ab: %s\n", kb_last_error());
		if (out != stdout) {
			if (fclose(out) || kb_write_atomic(o->output, "the comparison", fill_text, text)) {
				fprintf(stderr, "kvmbench ab: %s\n", kb_last_error());
				status = 2;
			}
			free(text);
		}
		json_object_put(co.extra);
	}
	for (int s = 0; s < 2; s++)
		if (have[s])
			kb_result_free(&side[s]);
	free(order);
	return status;
}

const struct kb_cmd kb_cmd_ab = {
	.name = "ab",
	.summary = "Interleaved A/B on one host: two configurations measured alternately, compared as pairs.",
	.usage = "[OPTIONS] [SUITE | SUITE/TEST]...",
	.description = "Configurations that need no reboot (kvmbench run options such as --leaf, --vpmu,\n"
		       "--guest-efer or placement, a test against another, and KVM module parameters\n"
		       "writable at run time) are measured alternately.  --mode sample (the default):\n"
		       "both sides run at once, each VM created once and kept alive, and their samples\n"
		       "(2 ms, the same size on both sides) are taken one at a time, A B, B A, ..., so\n"
		       "that drift and neighbours' load hit both halves of each pair alike; the pairs\n"
		       "are judged by the Wilcoxon signed-rank test on their log ratios, the delta the\n"
		       "Hodges-Lehmann ratio.  --mode run: each measurement a fresh 'kvmbench run', for\n"
		       "parameters only a new VM reads, judged by a paired t-test on the runs' log\n"
		       "ratios.  The verdicts are kvmbench compare's (A is the base): table, Markdown or\n"
		       "JSON.  Module parameters are written before each sample (or run) of their side\n"
		       "and get their original values back at the end, on errors and on SIGINT; one\n"
		       "that cannot be written stops the run before anything is measured.  Exit status:\n"
		       "0 nothing regressed beyond tolerance, 1 something did, 2 usage or setup error (a\n"
		       "read-only module parameter, a failed measurement), 130 interrupted.",
	.opts = ab_opts,
	.nopts = ARRAY_SIZE(ab_opts),
	.cfg_size = sizeof(struct ab_cfg),
	.exec = cmd_ab,
};
