/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-patches.c: 'kvmbench patches list|verify|apply|revert': the reference host kernel patches
 * and the feature manifest of kernel/ (kernel/README.md), for people or as JSON. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/json.h"
#include "core/kb.h"
#include "patches/patches.h"

struct patches_cfg {
	bool json;
	const char *kernel_src;
	const char *bundle;
	const char *arch;
};

static const struct kb_opt patches_opts[] = {
	{ "kernel-src", 'k', KB_OPT_STRING, offsetof(struct patches_cfg, kernel_src), "DIR",
	  "the kernel source tree to verify, apply to or revert (its top directory)", NULL, 0, 0 },
	{ "bundle", 0, KB_OPT_STRING, offsetof(struct patches_cfg, bundle), "DIR",
	  "the kernel/ bundle to use (default: $KVMBENCH_KERNEL_DIR, the installed one, or the source tree's)",
	  NULL, 0, 0 },
	{ "arch", 0, KB_OPT_STRING, offsetof(struct patches_cfg, arch), "ARCH",
	  "verify --kernel-src for this architecture: x86_64 or arm64 (default: this host's)", NULL, 0, 0 },
	{ "json", 'j', KB_OPT_FLAG, offsetof(struct patches_cfg, json), NULL, "print JSON", NULL, 0, 0 },
};

static void print_json(json_object *j)
{
	printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "kvmbench patches: %s\nTry 'kvmbench patches --help'.\n", msg);
	return 2;
}

static int fail(void)
{
	fprintf(stderr, "kvmbench: %s\n", kb_last_error());
	return 2;
}

/* Text indented with "      | " per line. */
static void print_output(FILE *f, const char *text)
{
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		int n = eol ? (int)(eol - text) : (int)strlen(text);

		fprintf(f, "      | %.*s\n", n, text);
		text += n + (eol ? 1 : 0);
	}
}

static void print_bundle(json_object *origin)
{
	printf("bundle: %s (%s)\n", kb_json_get_str(origin, "dir"), kb_json_get_str(origin, "description"));
}

/* ---- list ----------------------------------------------------------------------------------- */

static int do_list(const struct patches_cfg *c, const struct kb_bundle *b)
{
	json_object *j = kb_bundle_list_json(b), *fs = kb_json_get(j, "features"), *base = kb_json_get(j, "base");
	size_t w = strlen("FEATURE");

	if (c->json) {
		print_json(j);
		json_object_put(j);
		return 0;
	}
	print_bundle(kb_json_get(j, "bundle"));
	if (base) {
		/* The manifest does not check "base": its members as text, whatever their type. */
		const char *kernel = json_object_get_string(kb_json_get(base, "kernel"));
		const char *dist = json_object_get_string(kb_json_get(base, "distribution"));
		const char *pkg = json_object_get_string(kb_json_get(base, "package"));
		const char *pkgver = json_object_get_string(kb_json_get(base, "package_version"));

		printf("base:   linux %s (%s %s %s)\n", kernel ? kernel : "?", dist ? dist : "", pkg ? pkg : "",
		       pkgver ? pkgver : "");
	}
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		size_t n = strlen(kb_json_get_str(json_object_array_get_idx(fs, i), "id"));

		if (n > w)
			w = n;
	}
	printf("\n%-*s  %-9s  %-6s  %-9s  %-8s  %s\n", (int)w, "FEATURE", "STATUS", "ARCH", "VENDORS", "UPSTREAM", "PATCH");
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		json_object *f = json_object_array_get_idx(fs, i), *v = kb_json_get(f, "cpu_vendors");
		json_object *up = kb_json_get(f, "upstream");
		const char *rel = json_object_get_string(kb_json_get(up, "release"));   /* unchecked: as text */
		char vendors[64] = "", release[32];
		size_t len = 0;

		for (size_t k = 0; v && k < json_object_array_length(v) && len < sizeof(vendors); k++)
			len += (size_t)snprintf(vendors + len, sizeof(vendors) - len, "%s%s", k ? "," : "",
						json_object_get_string(json_object_array_get_idx(v, k)));
		snprintf(release, sizeof(release), "%s%s", rel ? rel : "never",
			 rel && !kb_json_get_bool(up, "release_verified", false) ? "*" : "");
		printf("%-*s  %-9s  %-6s  %-9s  %-8s  %s\n", (int)w, kb_json_get_str(f, "id"), kb_json_get_str(f, "status"),
		       kb_json_get_str(f, "arch"), vendors, release,
		       kb_json_get(f, "patch") ? kb_json_get_str(kb_json_get(f, "patch"), "file")
		       : kb_json_get_bool(f, "known_bad", false) ? "KNOWN-BAD: never offered, must not be present" : "-");
	}
	printf("(* release not verified)\n\nBundled patches, in apply order:\n");
	for (size_t i = 0; i < json_object_array_length(kb_json_get(j, "patches")); i++) {
		json_object *p = json_object_array_get_idx(kb_json_get(j, "patches"), i), *files = kb_json_get(p, "files");

		printf("  %s\n", kb_json_get_str(p, "file"));
		printf("    feature   %s\n", kb_json_get_str(p, "feature"));
		printf("    title     %s\n", kb_json_get_str(p, "title"));
		printf("    upstream  %s\n", kb_json_get_str(p, "upstream"));
		printf("    base      %s\n", kb_json_get_str(p, "base"));
		printf("    files    ");
		for (size_t k = 0; k < json_object_array_length(files); k++)
			printf(" %s", json_object_get_string(json_object_array_get_idx(files, k)));
		printf("\n");
	}
	json_object_put(j);
	return 0;
}

/* ---- verify --------------------------------------------------------------------------------- */

static void print_source_rules(json_object *ev)
{
	static const char *const sets[] = { "applicable_if", "present_if", "bundled_if" };

	for (size_t s = 0; s < ARRAY_SIZE(sets); s++) {
		json_object *arr = kb_json_get(ev, sets[s]);

		for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
			json_object *r = json_object_array_get_idx(arr, i), *found = kb_json_get(r, "found");
			bool fixed = kb_json_get_str(r, "fixed") != NULL;

			printf("    %-7s %-13s %s: %s%s%s %s%s\n", kb_json_get_bool(r, "holds", false) ? "holds" : "fails", sets[s],
			       kb_json_get_str(r, "file"), fixed ? "\"" : "/",
			       fixed ? kb_json_get_str(r, "fixed") : kb_json_get_str(r, "regex"), fixed ? "\"" : "/",
			       kb_json_is_null(found) ? "(no such file)"
			       : json_object_get_boolean(found) ? "found" : "not found",
			       kb_json_get_bool(r, "match", false) ? "" : " (must not be found)");
		}
	}
}

static void print_summary(json_object *summary)
{
	bool first = true;

	printf("\nverdicts:");
	json_object_object_foreach(summary, key, val) {
		printf("%s %d %s", first ? "" : ",", json_object_get_int(val), key);
		first = false;
	}
	printf("\n");
}

/* The fixes a tree or kernel lacks while it has what they fix (kbp_note_missing_fixes). */
static void print_warnings(json_object *rep)
{
	json_object *w = kb_json_get(rep, "warnings");

	for (size_t i = 0; w && i < json_object_array_length(w); i++)
		printf("WARNING: %s\n", json_object_get_string(json_object_array_get_idx(w, i)));
}

static int verify_exit(json_object *rep)
{
	json_object *bad = kb_json_get(kb_json_get(rep, "summary"), "known-bad-present");

	return bad && json_object_get_int(bad) > 0 ? 1 : 0;
}

static void print_tree_verify(json_object *rep)
{
	json_object *fs, *tree = kb_json_get(rep, "tree");

	print_bundle(kb_json_get(rep, "bundle"));
	printf("tree:   %s (Makefile: linux %s), target architecture %s\n", kb_json_get_str(tree, "dir"),
	       kb_json_get_str(tree, "release"), kb_json_get_str(rep, "arch"));
	if (kb_json_get_str(rep, "record"))
		printf("record: %s/%s (patches applied by kvmbench patches apply)\n", kb_json_get_str(tree, "dir"),
		       kb_json_get_str(rep, "record"));
	if (kb_json_get_str(rep, "record_error"))
		printf("record: %s\n", kb_json_get_str(rep, "record_error"));
	fs = kb_json_get(rep, "features");
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		json_object *f = json_object_array_get_idx(fs, i), *dry = kb_json_get(f, "dry_run");

		printf("\n%s: %s%s\n", kb_json_get_str(f, "id"), kb_json_get_str(f, "verdict"),
		       !strcmp(kb_json_get_str(f, "verdict"), "known-bad-present")
		       ? "   WARNING: a known-bad change is in this tree"
		       : kb_json_get_str(f, "warning") ? "   WARNING: a fix of a feature the tree has is missing" : "");
		printf("  %s\n  why: %s\n", kb_json_get_str(f, "title"), kb_json_get_str(f, "reason"));
		print_source_rules(kb_json_get(f, "evidence"));
		if (dry) {
			const char *status = json_object_get_string(kb_json_get(dry, "exit_status"));   /* a number */

			printf("    %s < %s: exit status %s\n", kb_json_get_str(dry, "command"), kb_json_get_str(f, "patch"),
			       status ? status : "-");
			if (strcmp(kb_json_get_str(f, "verdict"), "applies-cleanly"))
				print_output(stdout, kb_json_get_str(dry, "output"));
		}
	}
	print_summary(kb_json_get(rep, "summary"));
	print_warnings(rep);
}

static void print_runtime_rules(json_object *ev)
{
	static const char *const sets[] = { "bundled_if", "present_if" };

	for (size_t s = 0; s < ARRAY_SIZE(sets); s++) {
		json_object *arr = kb_json_get(ev, sets[s]);

		for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
			json_object *r = json_object_array_get_idx(arr, i), *h = kb_json_get(r, "holds");
			const char *holds = kb_json_is_null(h) ? "unknown"
					    : json_object_get_boolean(h) ? "holds" : "fails";
			char what[256];

			if (!strcmp(kb_json_get_str(r, "kind"), "kallsyms"))
				snprintf(what, sizeof(what), "kallsyms %s (%s%s%s)", kb_json_get_str(r, "name"), kb_json_get_str(r, "type"),
					 kb_json_get_str(r, "module") ? ", " : "", kb_json_get_str(r, "module") ? kb_json_get_str(r, "module") : "");
			else if (!strcmp(kb_json_get_str(r, "kind"), "stat"))
				snprintf(what, sizeof(what), "stat %s (%s)", kb_json_get_str(r, "name"), kb_json_get_str(r, "scope"));
			else
				snprintf(what, sizeof(what), "param %s", kb_json_get_str(r, "name"));
			printf("    %-7s %-10s %s%s: %s\n", holds, sets[s], what,
			       kb_json_get_bool(r, "match", false) ? "" : " (must be absent)", kb_json_get_str(r, "note"));
		}
	}
}

static void print_running_verify(json_object *rep)
{
	json_object *k = kb_json_get(rep, "kernel"), *ks = kb_json_get(k, "kallsyms"), *st = kb_json_get(k, "kvm_stats"), *fs;
	const char *version = kb_json_get_str(k, "version"), *vendor = kb_json_get_str(k, "cpu_vendor");
	const char *backend = kb_json_get_str(k, "kvm_backend"), *kerr = kb_json_get_str(ks, "error");
	/* The counts of stats names are numbers, the error a string. */
	const char *nvm = json_object_get_string(kb_json_get(st, "vm")), *nvcpu = json_object_get_string(kb_json_get(st, "vcpu"));
	const char *serr = kb_json_get_str(st, "error");

	print_bundle(kb_json_get(rep, "bundle"));
	printf("kernel: %s (version %s), %s, CPU vendor %s, KVM backend %s\n", kb_json_get_str(k, "release"),
	       version ? version : "unknown", kb_json_get_str(k, "arch"), vendor ? vendor : "unknown",
	       backend ? backend : "unknown");
	printf("evidence: /proc/kallsyms %s%s; data symbols listed: %s (%s)\n",
	       kb_json_get_bool(ks, "readable", false) ? "readable" : "NOT readable: ", kerr ? kerr : "",
	       !kb_json_get(ks, "data_symbols") ? "unknown" : kb_json_get_bool(ks, "data_symbols", false) ? "yes" : "no",
	       kb_json_get_str(ks, "data_symbols_how"));
	printf("          KVM stats names: VM %s, vCPU %s%s%s\n", nvm ? nvm : "unreadable", nvcpu ? nvcpu : "unreadable",
	       serr ? " — " : "", serr ? serr : "");
	fs = kb_json_get(rep, "features");
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		json_object *f = json_object_array_get_idx(fs, i), *params = kb_json_get(f, "params");
		json_object *stats = kb_json_get(f, "stats");

		printf("\n%s: %s%s, kernel %s%s\n", kb_json_get_str(f, "id"), kb_json_get_str(f, "verdict"),
		       kb_json_get_bool(f, "by_version", false) ? " (by version)" : "",
		       version ? version : kb_json_get_str(k, "release"),
		       kb_json_get_str(f, "warning") ? "   WARNING: a fix of a feature this kernel has is missing" : "");
		printf("  %s\n  why: %s\n", kb_json_get_str(f, "title"), kb_json_get_str(f, "reason"));
		print_runtime_rules(kb_json_get(f, "evidence"));
		if (json_object_array_length(params)) {
			printf("  params:");
			for (size_t p = 0; p < json_object_array_length(params); p++) {
				json_object *o = json_object_array_get_idx(params, p);
				const char *value = kb_json_get_str(o, "value");

				printf(" %s=%s", kb_json_get_str(o, "param"), value ? value : "(unavailable)");
			}
			printf("\n");
		}
		if (json_object_array_length(stats)) {
			printf("  stats: ");
			for (size_t s = 0; s < json_object_array_length(stats); s++) {
				json_object *o = json_object_array_get_idx(stats, s), *pr = kb_json_get(o, "present");

				printf(" %s (%s) %s%s", kb_json_get_str(o, "stat"), kb_json_get_str(o, "scope"),
				       kb_json_is_null(pr) ? "unknown" : json_object_get_boolean(pr) ? "present" : "absent",
				       s + 1 < json_object_array_length(stats) ? "," : "");
			}
			printf("\n");
		}
	}
	print_summary(kb_json_get(rep, "summary"));
	print_warnings(rep);
}

/* A source tree (--kernel-src) or the running kernel. */
static int do_verify(const struct patches_cfg *c, const struct kb_bundle *b, char **ids, size_t nids)
{
	json_object *rep;
	int err;

	if (c->kernel_src) {
		struct kb_tree t;

		if (kb_tree_open(c->kernel_src, &t))
			return fail();
		err = kb_tree_verify(b, &t, c->arch, ids, nids, &rep);
		kb_tree_close(&t);
	} else {
		err = kb_running_verify(b, NULL, ids, nids, &rep);
	}
	if (err) {
		json_object_put(rep);
		return fail();
	}
	if (c->json)
		print_json(rep);
	else if (c->kernel_src)
		print_tree_verify(rep);
	else
		print_running_verify(rep);
	err = verify_exit(rep);
	json_object_put(rep);
	return err;
}

/* ---- apply and revert ---------------------------------------------------------------------- */

static void progress(const char *event, const struct kb_patch *p, void *arg)
{
	if (*(const bool *)arg)
		return;
	printf("%-9s %s (%s)\n", event, p->file ? p->file : "?", p->feature ? p->feature : "?");
	fflush(stdout);
}

/* Exit status for an apply or revert that failed, after saying why. */
static int change_failed(json_object *rep, int err, bool json)
{
	json_object *sig = kb_json_get(rep, "signal");
	const char *failed = kb_json_get_str(rep, "failed_feature");

	fprintf(stderr, "kvmbench: %s\n", kb_last_error());
	if (!json && failed) {
		/* patch's output for the patch that failed, dry run or real. */
		static const char *const lists[] = { "applied", "reverted", "checks" };

		for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
			json_object *a = kb_json_get(rep, lists[l]);

			for (size_t i = 0; a && i < json_object_array_length(a); i++) {
				json_object *o = json_object_array_get_idx(a, i);
				const char *feature = kb_json_get_str(o, "feature");
				const char *status = json_object_get_string(kb_json_get(o, "exit_status"));   /* a number */

				if (feature && !strcmp(feature, failed) && kb_json_get_str(o, "output") && status &&
				    strcmp(status, "0")) {
					fprintf(stderr, "  %s: exit status %s\n", kb_json_get_str(o, "command"), status);
					print_output(stderr, kb_json_get_str(o, "output"));
				}
			}
		}
	}
	if (err == -EINTR)
		return 128 + (sig ? json_object_get_int(sig) : 2);
	return err == -ECANCELED ? 1 : 2;
}

static int do_apply(const struct patches_cfg *c, const struct kb_bundle *b, char **ids, size_t nids)
{
	struct kb_tree t;
	json_object *rep, *a;
	bool quiet = c->json;
	int err;

	if (kb_tree_open(c->kernel_src, &t))
		return fail();
	if (!c->json) {
		printf("bundle: %s (%s)\ntree:   %s (Makefile: linux %s)\n", b->dir, b->why, t.dir, t.release);
		fflush(stdout);
	}
	err = kb_patches_apply(b, &t, ids, nids, progress, &quiet, &rep);
	if (c->json)
		print_json(rep);
	if (err) {
		err = change_failed(rep, err, c->json);
	} else if (!c->json) {
		json_object *sk = kb_json_get(rep, "skipped");

		for (size_t i = 0; sk && i < json_object_array_length(sk); i++)
			printf("skipped   %s: %s\n", kb_json_get_str(json_object_array_get_idx(sk, i), "feature"),
			       kb_json_get_str(json_object_array_get_idx(sk, i), "reason"));
		a = kb_json_get(rep, "applied");
		if (!json_object_array_length(a))
			printf("nothing to apply: the tree has every bundled change it can take\n");
		else
			printf("applied %zu patch%s to %s; recorded in %s/%s ('kvmbench patches revert --kernel-src %s' undoes %s)\n",
			       json_object_array_length(a), json_object_array_length(a) == 1 ? "" : "es", t.dir, t.dir,
			       KB_PATCHES_RECORD, t.dir, json_object_array_length(a) == 1 ? "it" : "them");
	}
	json_object_put(rep);
	kb_tree_close(&t);
	return err;
}

static int do_revert(const struct patches_cfg *c)
{
	struct kb_tree t;
	json_object *rep;
	bool quiet = c->json;
	int err;

	if (kb_tree_open(c->kernel_src, &t))
		return fail();
	if (!c->json) {
		printf("tree:   %s (Makefile: linux %s)\n", t.dir, t.release);
		fflush(stdout);
	}
	err = kb_patches_revert(&t, progress, &quiet, &rep);
	if (c->json)
		print_json(rep);
	if (err)
		err = change_failed(rep, err, c->json);
	else if (!c->json)
		printf("reverted %zu patch%s; removed %s/%s\n", json_object_array_length(kb_json_get(rep, "reverted")),
		       json_object_array_length(kb_json_get(rep, "reverted")) == 1 ? "" : "es", t.dir, KB_PATCHES_RECORD);
	json_object_put(rep);
	kb_tree_close(&t);
	return err;
}

static int cmd_patches(void *cfgp, int argc, char **argv)
{
	struct patches_cfg *c = cfgp;
	struct kb_bundle b;
	const char *sub = argc ? argv[0] : "";
	int ret;

	if (!argc)
		return usage_error("say what to do: list, verify, apply or revert");
	argc--;
	argv++;
	if (strcmp(sub, "list") && strcmp(sub, "verify") && strcmp(sub, "apply") && strcmp(sub, "revert")) {
		char msg[256];

		snprintf(msg, sizeof(msg), "'%s' is not a subcommand: list, verify, apply or revert", sub);
		return usage_error(msg);
	}
	if (!strcmp(sub, "list") && (argc || c->kernel_src || c->arch))
		return usage_error("list takes no operands, --kernel-src or --arch");
	if ((!strcmp(sub, "apply") || !strcmp(sub, "revert")) && !c->kernel_src)
		return usage_error(!strcmp(sub, "apply") ? "apply needs --kernel-src DIR (the tree to patch)"
							 : "revert needs --kernel-src DIR (the tree to revert)");
	if (!strcmp(sub, "revert") && (argc || c->bundle))
		return usage_error("revert takes no features or --bundle: it undoes what the tree's record says was applied");
	if (c->arch && (strcmp(sub, "verify") || !c->kernel_src))
		return usage_error("--arch applies to verify --kernel-src only");
	if (c->arch && strcmp(c->arch, "x86_64") && strcmp(c->arch, "arm64"))
		return usage_error("--arch: x86_64 or arm64");
	if (!strcmp(sub, "revert"))
		return do_revert(c);
	if (kb_bundle_open(c->bundle, &b))
		return fail();
	if (!strcmp(sub, "list"))
		ret = do_list(c, &b);
	else if (!strcmp(sub, "verify"))
		ret = do_verify(c, &b, argv, (size_t)argc);
	else
		ret = do_apply(c, &b, argv, (size_t)argc);
	kb_bundle_close(&b);
	return ret;
}

const struct kb_cmd kb_cmd_patches = {
	.name = "patches",
	.summary = "Show, check, apply and revert the reference host kernel patches.",
	.usage = "list|verify|apply|revert [OPTIONS] [FEATURE]...",
	.description =
		"Subcommands:\n"
		"  list                      the bundled patches and every feature of the manifest\n"
		"  verify                    the running kernel: per feature a verdict with its evidence\n"
		"                            (version, module parameters, KVM stats names, /proc/kallsyms);\n"
		"                            evidence that cannot be read makes it \"unknown\", never absent\n"
		"  verify -k DIR [FEATURE]...\n"
		"                            a kernel source tree: per feature present-upstream,\n"
		"                            bundled-applied, applies-cleanly, conflicts, absent or\n"
		"                            not-applicable, with the rules (and patch output) that decided\n"
		"  apply -k DIR [FEATURE]... apply bundled patches (default: every one the tree lacks) all\n"
		"                            or nothing, recorded in DIR/.kvmbench-patches.json; a failure\n"
		"                            or SIGINT/SIGTERM leaves the tree exactly as it was\n"
		"  revert -k DIR             undo what apply recorded (reverse order), remove the record\n"
		"\n"
		"The bundle (kernel/: patches and features.json) comes from --bundle, else\n"
		"$KVMBENCH_KERNEL_DIR, else the source tree of an uninstalled build or the installed copy.\n"
		"Exit status: 0 done; 1 a patch does not apply (nothing changed) or verify found a\n"
		"known-bad change; 2 usage or setup error (nothing changed); 128+N interrupted by signal N\n"
		"(the tree restored).",
	.opts = patches_opts,
	.nopts = ARRAY_SIZE(patches_opts),
	.cfg_size = sizeof(struct patches_cfg),
	.exec = cmd_patches,
};
