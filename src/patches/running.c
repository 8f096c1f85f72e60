/* SPDX-License-Identifier: GPL-2.0-or-later */
/* running.c: the running kernel's evidence (version, config, kallsyms, params, KVM stats), judged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "vmm/kvm.h"
#include "patches/internal.h"

const char *kbp_host_arch(void)
{
	static struct utsname u;

	if (uname(&u))
		return "unknown";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	return u.machine;
}

int kb_kernel_version_parse(const char *s, int *major, int *minor, int *sub)
{
	for (; s && *s; s++) {
		char *end;
		long a, b, c = 0;

		if (*s < '0' || *s > '9')
			continue;
		a = strtol(s, &end, 10);
		if (*end != '.' || end[1] < '0' || end[1] > '9') {
			s = end - 1;
			continue;
		}
		b = strtol(end + 1, &end, 10);
		if (*end == '.' && end[1] >= '0' && end[1] <= '9')
			c = strtol(end + 1, &end, 10);
		*major = (int)a;
		*minor = (int)b;
		if (sub)
			*sub = (int)c;
		return 0;
	}
	return -EINVAL;
}


struct names {
	char **v;
	size_t n;
	bool ok;
};

struct running {
	struct utsname u;
	int vmaj, vmin, vsub;
	bool have_version;
	const char *arch;
	const char *vendor;   /* "intel", "amd" or NULL */
	char *kallsyms;
	int kallsyms_err;
	int kallsyms_all;     /* 1, 0, or -1 unknown */
	char *kallsyms_all_how;
	struct names vm, vcpu;
	char *stats_error;
	const char *backend;
};

static void names_copy(struct names *d, const struct kb_stats *st)
{
	d->v = kb_xcalloc(st->ndesc + 1, sizeof(*d->v));
	for (uint32_t i = 0; i < st->ndesc; i++)
		d->v[d->n++] = kb_xstrdup(st->desc[i].name);
	d->ok = true;
}

static void names_free(struct names *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
}

static bool names_has(const struct names *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], name))
			return true;
	return false;
}

/* A /proc/kallsyms line whose name (third field) is 'name', or a compiler clone of it
 * ("name.isra.0", "name.constprop.0", ...).  Fills type and the name found. */
static bool kallsyms_find(const char *text, const char *name, char *type, char *found, size_t size)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *sp = strchr(p, ' '), *nm, *end;

		if (!sp || !sp[1] || sp[2] != ' ')
			continue;
		nm = sp + 3;
		if (strncmp(nm, name, n) || (nm[n] != '\n' && nm[n] != '\t' && nm[n] != ' ' && nm[n] != '.' && nm[n]))
			continue;
		end = nm + strcspn(nm, " \t\n");
		*type = sp[1];
		snprintf(found, size, "%.*s", (int)(end - nm), nm);
		return true;
	}
	return false;
}

static void running_config(struct running *r)
{
	char *path = kb_xasprintf("/boot/config-%s", r->u.release), *text = NULL;
	const char *from = path;

	r->kallsyms_all = -1;
	if (kb_read_all(path, KB_PATCH_READ_MAX, &text, NULL)) {
		char *argv[] = { "gzip", "-dc", "/proc/config.gz", NULL };

		text = NULL;
		if (!kbp_exists("/proc/config.gz") || kbp_spawn_capture(argv, NULL, -1, NULL, &text) != 0) {
			free(text);
			text = NULL;
		}
		from = "/proc/config.gz";
	}
	if (text && (strstr(text, "\nCONFIG_KALLSYMS_ALL=y\n") || !strncmp(text, "CONFIG_KALLSYMS_ALL=y\n", 22))) {
		r->kallsyms_all = 1;
		r->kallsyms_all_how = kb_xasprintf("CONFIG_KALLSYMS_ALL=y (%s)", from);
	} else if (text && strstr(text, "CONFIG_KALLSYMS")) {
		r->kallsyms_all = 0;
		r->kallsyms_all_how = kb_xasprintf("CONFIG_KALLSYMS_ALL is not set (%s)", from);
	} else if (r->kallsyms) {
		char type, name[128];

		/* No configuration to read: a data symbol every kernel has tells. */
		if (kallsyms_find(r->kallsyms, "jiffies_64", &type, name, sizeof(name)) && strchr("dDbB", type)) {
			r->kallsyms_all = 1;
			r->kallsyms_all_how = kb_xstrdup("jiffies_64, a data symbol, is listed (no kernel configuration found)");
		} else {
			r->kallsyms_all_how = kb_xstrdup("no kernel configuration found (/boot/config-RELEASE, /proc/config.gz)");
		}
	} else {
		r->kallsyms_all_how = kb_xstrdup("no kernel configuration found (/boot/config-RELEASE, /proc/config.gz)");
	}
	free(text);
	free(path);
}

static void running_stats(struct running *r, const char *kvm_path)
{
	struct kb_kvm kvm;
	struct kb_vm vm;
	struct kb_vcpu vcpu;

	r->backend = kb_backend_name(kb_backend_detect());
	if (kb_kvm_open(&kvm, kvm_path)) {
		r->stats_error = kb_xstrdup(kb_last_error());
		return;
	}
	if (kb_vm_create(&kvm, &vm, 1 << 20, false, -1)) {
		r->stats_error = kb_xstrdup(kb_last_error());
		kb_kvm_close(&kvm);
		return;
	}
	names_copy(&r->vm, &vm.stats);
	if (kb_vcpu_create(&vm, 0, &vcpu))
		r->stats_error = kb_xstrdup(kb_last_error());
	else
		names_copy(&r->vcpu, &vcpu.stats);
	if (!r->stats_error)
		kb_vcpu_destroy(&vcpu);
	kb_vm_destroy(&vm);
	kb_kvm_close(&kvm);
}

static void running_probe(struct running *r, const char *kvm_path)
{
	char *cpuinfo = NULL;

	memset(r, 0, sizeof(*r));
	uname(&r->u);
	r->have_version = !kb_kernel_version_parse(r->u.release, &r->vmaj, &r->vmin, &r->vsub);
	r->arch = kbp_host_arch();
	if (!kb_read_all("/proc/cpuinfo", KB_PATCH_READ_MAX, &cpuinfo, NULL)) {
		if (strstr(cpuinfo, "GenuineIntel"))
			r->vendor = "intel";
		else if (strstr(cpuinfo, "AuthenticAMD") || strstr(cpuinfo, "HygonGenuine"))
			r->vendor = "amd";
		free(cpuinfo);
	}
	r->kallsyms_err = kb_read_all("/proc/kallsyms", KB_PATCH_READ_MAX, &r->kallsyms, NULL);
	if (!r->kallsyms_err && !*r->kallsyms) {
		free(r->kallsyms);
		r->kallsyms = NULL;
		r->kallsyms_err = -ENODATA;
	}
	running_config(r);
	running_stats(r, kvm_path);
}

static void running_free(struct running *r)
{
	free(r->kallsyms);
	free(r->kallsyms_all_how);
	free(r->stats_error);
	names_free(&r->vm);
	names_free(&r->vcpu);
}

static bool module_loaded(const char *module)
{
	char *p = kb_xasprintf("/sys/module/%s", module);
	bool ok = kbp_is_dir(p);

	free(p);
	return ok;
}

/* One runtime rule: 1 holds, 0 does not, -1 unknown; evidence into arr. */
static int runtime_rule(const struct running *r, json_object *rule, json_object *arr)
{
	const char *sym = kb_json_get_str(rule, "kallsyms"), *param = kb_json_get_str(rule, "param"), *stat = kb_json_get_str(rule, "stat");
	json_object *mj = kb_json_get(rule, "match"), *ev = json_object_new_object();
	bool match = !mj || json_object_get_boolean(mj);
	int found = -1, holds;
	char *note = NULL;

	if (sym) {
		const char *module = kb_json_get_str(rule, "module"), *type = kb_json_get_str(rule, "type");
		char t = 0, name[256];

		kb_json_set_str(ev, "kind", "kallsyms");
		kb_json_set_str(ev, "name", sym);
		kb_json_set_str(ev, "type", type);
		kb_json_set_str(ev, "module", module);
		if (r->kallsyms_err) {
			note = kb_xasprintf("/proc/kallsyms cannot be read: %s", strerror(-r->kallsyms_err));
		} else if (kallsyms_find(r->kallsyms, sym, &t, name, sizeof(name))) {
			found = 1;
			note = kb_xasprintf("listed as '%c %s'", t, name);
		} else if (module && !module_loaded(module)) {
			note = kb_xasprintf("module %s is not loaded (no /sys/module/%s)", module, module);
		} else if (!strcmp(type, "data") && r->kallsyms_all != 1) {
			note = kb_xasprintf("not listed, but data symbols are listed only with CONFIG_KALLSYMS_ALL=y: %s",
				       r->kallsyms_all_how);
		} else {
			found = 0;
			note = kb_xstrdup("not in /proc/kallsyms");
		}
	} else if (param) {
		char *mod = strndup(param, strcspn(param, "/"));
		char *path = kb_xasprintf("/sys/module/%s/parameters/%s", mod, strchr(param, '/') + 1);

		kb_json_set_str(ev, "kind", "param");
		kb_json_set_str(ev, "name", param);
		if (!module_loaded(mod)) {
			note = kb_xasprintf("module %s is not loaded (no /sys/module/%s)", mod, mod);
		} else {
			found = kbp_exists(path);
			note = kb_xasprintf("%s %s", path, found ? "exists" : "does not exist");
		}
		free(mod);
		free(path);
	} else {
		const char *scope = kb_json_get_str(rule, "scope");
		const struct names *n = !strcmp(scope, "vm") ? &r->vm : &r->vcpu;
		char *dbg = kb_xasprintf("/sys/kernel/debug/kvm/%s", stat);

		kb_json_set_str(ev, "kind", "stat");
		kb_json_set_str(ev, "name", stat);
		kb_json_set_str(ev, "scope", scope);
		if (n->ok) {
			found = names_has(n, stat);
			note = kb_xasprintf("%s in the %s's KVM binary stats (%zu names)", found ? "found" : "not found",
				       !strcmp(scope, "vm") ? "VM" : "vCPU", n->n);
		} else if (kbp_exists(dbg)) {
			found = 1;
			note = kb_xasprintf("%s exists", dbg);
		} else if (kbp_is_dir("/sys/kernel/debug/kvm")) {
			found = 0;
			note = kb_xasprintf("no %s's stats descriptors (%s), and %s does not exist", scope,
				       r->stats_error ? r->stats_error : "not read", dbg);
		} else {
			note = kb_xasprintf("the %s's KVM stats cannot be read (%s) and /sys/kernel/debug/kvm is not available",
				       !strcmp(scope, "vm") ? "VM" : "vCPU", r->stats_error ? r->stats_error : "?");
		}
		free(dbg);
	}
	holds = found < 0 ? -1 : found == (int)match;
	kb_json_set_bool(ev, "match", match);
	kb_json_set_tri(ev, "found", found);
	kb_json_set_tri(ev, "holds", holds);
	kb_json_set_str(ev, "note", note);
	free(note);
	json_object_array_add(arr, ev);
	return holds;
}

/* 2 not defined, 1 all hold, 0 one does not hold, -1 none fails but one is unknown. */
static int runtime_set(const struct running *r, json_object *set, json_object *evidence, const char *name)
{
	json_object *arr;
	int any_false = 0, any_unknown = 0;

	if (kb_json_is_null(set) || !json_object_array_length(set)) {
		kb_json_set(evidence, name, NULL);
		return 2;
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(set); i++) {
		int h = runtime_rule(r, json_object_array_get_idx(set, i), arr);

		any_false |= h == 0;
		any_unknown |= h < 0;
	}
	kb_json_set(evidence, name, arr);
	return any_false ? 0 : any_unknown ? -1 : 1;
}

/* A JSON array of strings as "a and b" / "a, b and c". */
static char *strings_text(json_object *a)
{
	struct kb_buf b = { 0 };
	size_t n = a ? json_object_array_length(a) : 0;

	kb_buf_add(&b, "", 0);
	for (size_t i = 0; i < n; i++)
		kb_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			   json_object_get_string(json_object_array_get_idx(a, i)));
	return b.p;
}

static bool vendor_applies(json_object *list, const char *vendor)
{
	if (!vendor)
		return true;
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		const char *v = json_object_get_string(json_object_array_get_idx(list, i));

		if (!strcmp(v, "any") || !strcmp(v, vendor))
			return true;
	}
	return false;
}

static json_object *running_kernel_json(const struct running *r)
{
	json_object *k = json_object_new_object(), *ks = json_object_new_object(), *st = json_object_new_object();
	char v[64];

	kb_json_set_str(k, "release", r->u.release);
	snprintf(v, sizeof(v), "%d.%d.%d", r->vmaj, r->vmin, r->vsub);
	kb_json_set_str(k, "version", r->have_version ? v : NULL);
	kb_json_set_str(k, "arch", r->arch);
	kb_json_set_str(k, "cpu_vendor", r->vendor);
	kb_json_set_str(k, "kvm_backend", r->backend);
	kb_json_set_bool(ks, "readable", !r->kallsyms_err);
	kb_json_set_str(ks, "error", r->kallsyms_err ? strerror(-r->kallsyms_err) : NULL);
	kb_json_set_tri(ks, "data_symbols", r->kallsyms_all);
	kb_json_set_str(ks, "data_symbols_how", r->kallsyms_all_how);
	kb_json_set(k, "kallsyms", ks);
	kb_json_set(st, "vm", r->vm.ok ? json_object_new_int((int)r->vm.n) : NULL);
	kb_json_set(st, "vcpu", r->vcpu.ok ? json_object_new_int((int)r->vcpu.n) : NULL);
	kb_json_set_str(st, "error", r->stats_error);
	kb_json_set(k, "kvm_stats", st);
	return k;
}

static int version_at_least(const struct running *r, const char *min)
{
	int a, b;

	if (!r->have_version || kb_kernel_version_parse(min, &a, &b, NULL))
		return -1;
	return r->vmaj > a || (r->vmaj == a && r->vmin >= b);
}

int kb_running_verify(const struct kb_bundle *b, const char *kvm_path, char *const *ids, size_t nids,
		      json_object **report)
{
	json_object *rep = json_object_new_object(), *fs = json_object_new_array(), *summary = json_object_new_object();
	struct running r;
	char version[64];
	int err;

	*report = rep;
	kb_json_set_str(rep, "target", "running-kernel");
	kb_json_set(rep, "bundle", kb_bundle_origin_json(b));
	err = kbp_check_ids(b, ids, nids);
	if (err)
		return err;
	running_probe(&r, kvm_path ? kvm_path : "/dev/kvm");
	snprintf(version, sizeof(version), "%d.%d.%d", r.vmaj, r.vmin, r.vsub);
	kb_json_set(rep, "kernel", running_kernel_json(&r));
	for (size_t i = 0; i < b->nfeatures; i++) {
		const struct kb_feature *f = &b->features[i];
		json_object *rk = kb_json_get(f->j, "running_kernel"), *fe, *ev, *params, *stats;
		const char *min = kb_json_get_str(rk, "min_version"), *verdict;
		bool bad = !strcmp(f->status, "known-bad"), by_version = false;
		int pres, bund;
		char *why = NULL;

		if (!kbp_wanted(f->id, ids, nids))
			continue;
		fe = json_object_new_object();
		ev = json_object_new_object();
		kb_json_set_str(fe, "id", f->id);
		kb_json_set_str(fe, "title", f->title);
		kb_json_set_str(fe, "status", f->status);
		kb_json_set_str(fe, "arch", f->arch);
		kb_json_set_str(fe, "min_version", min);
		bund = runtime_set(&r, kb_json_get(rk, "bundled_if"), ev, "bundled_if");
		pres = runtime_set(&r, kb_json_get(rk, "present_if"), ev, "present_if");
		if (strcmp(f->arch, "any") && strcmp(f->arch, r.arch)) {
			verdict = "not-applicable";
			why = kb_xasprintf("a feature of %s; this kernel runs on %s", f->arch, r.arch);
		} else if (!vendor_applies(kb_json_get(f->j, "cpu_vendors"), r.vendor)) {
			verdict = "not-applicable";
			char *list = strings_text(kb_json_get(f->j, "cpu_vendors"));

			why = kb_xasprintf("applies to %s CPUs; this one is %s", list, r.vendor);
			free(list);
		} else if (bund == 1) {
			verdict = "bundled-applied";
			why = kb_xstrdup("every bundled_if rule holds: the running kernel carries the bundled patch");
		} else if (pres != 2) {
			verdict = pres == 1 ? (bad ? "known-bad-present" : "present-upstream")
					    : pres == 0 ? (bad ? "known-bad-absent" : "absent") : "unknown";
			if (pres == 1)
				why = kb_xstrdup("every present_if rule holds");
			else if (pres == 0)
				why = kb_xstrdup("a present_if rule does not hold");
			else if (min && version_at_least(&r, min) >= 0)
				why = kb_xasprintf("a present_if rule cannot be evaluated here (no rule fails); by version alone it would be %s (%s %s %s)",
					      version_at_least(&r, min) ? "present-upstream" : "absent", version,
					      version_at_least(&r, min) ? ">=" : "<", min);
			else
				why = kb_xstrdup("a present_if rule cannot be evaluated here (no rule fails)");
		} else if (min && version_at_least(&r, min) >= 0) {
			int at = version_at_least(&r, min);

			by_version = true;
			verdict = at ? "present-upstream" : "absent";
			why = kb_xasprintf("by version: %s %s %s, the first release with the upstream form", version,
				      at ? ">=" : "<", min);
		} else {
			verdict = "unknown";
			why = kb_xstrdup(min ? "the kernel version cannot be read"
					     : "the manifest defines no running-kernel evidence for this feature");
		}
		kb_json_set_str(fe, "verdict", verdict);
		kb_json_set_bool(fe, "by_version", by_version);
		kb_json_set_str(fe, "reason", why);
		kb_json_set(fe, "evidence", ev);
		params = json_object_new_array();
		for (size_t k = 0; kb_json_get(rk, "params") && k < json_object_array_length(kb_json_get(rk, "params")); k++) {
			const char *pn = kb_json_get_str(json_object_array_get_idx(kb_json_get(rk, "params"), k), "param");
			json_object *po = json_object_new_object();
			char *path, val[256];

			if (!pn || !strchr(pn, '/') || !kbp_safe_relpath(pn)) {
				json_object_put(po);
				continue;
			}
			path = kb_xasprintf("/sys/module/%.*s/parameters/%s", (int)strcspn(pn, "/"), pn, strchr(pn, '/') + 1);
			kb_json_set_str(po, "param", pn);
			kb_json_set_str(po, "value", kb_read_text(path, val, sizeof(val)) ? NULL : val);
			free(path);
			json_object_array_add(params, po);
		}
		kb_json_set(fe, "params", params);
		stats = json_object_new_array();
		for (size_t k = 0; kb_json_get(rk, "stats") && k < json_object_array_length(kb_json_get(rk, "stats")); k++) {
			json_object *sj = json_object_array_get_idx(kb_json_get(rk, "stats"), k), *so = json_object_new_object();
			const char *sn = kb_json_get_str(sj, "stat"), *sc = kb_json_get_str(sj, "scope");
			const struct names *n = sc && !strcmp(sc, "vm") ? &r.vm : &r.vcpu;

			if (!sn || !sc) {
				json_object_put(so);
				continue;
			}
			kb_json_set_str(so, "stat", sn);
			kb_json_set_str(so, "scope", sc);
			kb_json_set(so, "present", n->ok ? json_object_new_boolean(names_has(n, sn)) : NULL);
			json_object_array_add(stats, so);
		}
		kb_json_set(fe, "stats", stats);
		kbp_count_verdict(summary, verdict);
		free(why);
		json_object_array_add(fs, fe);
	}
	kbp_note_missing_fixes(b, fs, rep, "the running kernel");
	kb_json_set(rep, "features", fs);
	kb_json_set(rep, "summary", summary);
	running_free(&r);
	return 0;
}
