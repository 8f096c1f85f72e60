/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dirtylog.c: the dirty-log suite: vCPUs dirty their memory while the host harvests the dirty pages
 * each iteration (KVM_GET_DIRTY_LOG, manual protection with KVM_CLEAR_DIRTY_LOG, or the dirty ring). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/content.h"
#include "run/memvm.h"
#include "run/sampler.h"
#include "run/suite.h"

struct dirtylog_cfg {
	int samples_per_vm;
	uint64_t mem;
	double write_percent;
	int iterations;
	int slots;
	const char *backing;
};

static struct dirtylog_cfg cfg;

static const struct kb_opt opts[] = {
	{ "dirty-mem", 0, KB_OPT_SIZE, offsetof(struct dirtylog_cfg, mem), "SIZE",
	  "test memory per vCPU, in whole 2 MiB", "8M", 2 << 20, (double)KB_MEM_MAX },
	{ "write-percent", 0, KB_OPT_DOUBLE, offsetof(struct dirtylog_cfg, write_percent), "PCT",
	  "share of its pages a vCPU writes each iteration (it reads the others)", "100", 0, 100 },
	{ "dirty-iterations", 0, KB_OPT_INT, offsetof(struct dirtylog_cfg, iterations), "N",
	  "iterations of dirtying and harvesting while dirty logging is on", "3", 1, 1000 },
	{ "slots", 0, KB_OPT_INT, offsetof(struct dirtylog_cfg, slots), "N",
	  "memslots the test memory is split into", "1", 1, KB_MEMVM_MAX_SLOTS },
	{ "samples-per-vm", 0, KB_OPT_INT, offsetof(struct dirtylog_cfg, samples_per_vm), "N",
	  "samples taken in one VM before a fresh one: each after the first repopulates the memory that "
	  "disabling dirty logging let KVM map with huge pages again, and writes pass numbers of its own", "1", 1, 100000 },
	{ "dirty-backing", 0, KB_OPT_STRING, offsetof(struct dirtylog_cfg, backing), "SRC",
	  "host memory behind the test memory: anon, thp, hugetlb-2m or hugetlb-1g", "anon", 0, 0 },
};

enum dirty_mode {
	MODE_GET = 1,      /* KVM_GET_DIRTY_LOG fetches and write-protects again */
	MODE_CLEAR,        /* manual protection: KVM_GET_DIRTY_LOG, then KVM_CLEAR_DIRTY_LOG protects */
	MODE_RING,         /* per-vCPU dirty rings, given back with KVM_RESET_DIRTY_RINGS */
};

static const struct kb_test_def tests[] = {
	{ "get", "harvest with KVM_GET_DIRTY_LOG, which write-protects the dirty pages again", .param = { MODE_GET } },
	{ "clear", "manual protection: KVM_GET_DIRTY_LOG, then KVM_CLEAR_DIRTY_LOG (initially all set where supported)",
	  .param = { MODE_CLEAR } },
	{ "ring", "per-vCPU dirty rings (KVM_CAP_DIRTY_LOG_RING, on arm64 ..._ACQ_REL), reset with KVM_RESET_DIRTY_RINGS",
	  .param = { MODE_RING } },
};

/* The pages dirty logging reported, as one bitmap over all test memory (bit = page index from KB_MEM_GPA). */
struct dirty_map {
	uint64_t *bits;
	uint64_t nwords;
	uint64_t slot_pages;
};

struct dirtylog_run {
	struct kb_run_ctx *ctx;
	struct kb_test_result *r;
	enum dirty_mode mode;
	struct kb_memvm_cfg mcfg;
	uint64_t percent;
	bool initially_set;           /* clear mode: KVM_DIRTY_LOG_INITIALLY_SET is on */
	struct dirty_map got, want;
	uint64_t ring_full;           /* dirty-ring-full exits in the current sample */
	uint64_t missing, unexpected; /* over every measured iteration */
	struct kb_content content;    /* pages with wrong content, over every measured sample */
	struct kb_memvm mv;           /* the VM of the current samples (--samples-per-vm) */
	bool mv_up;
	int cycle;                    /* samples taken in it so far */
	uint64_t reported;
	double clock_ratio;
	uint32_t tsc_khz;
	json_object *last_stats;
};

static void map_set(struct dirty_map *d, uint64_t page)
{
	__atomic_fetch_or(&d->bits[page / 64], 1ULL << (page % 64), __ATOMIC_RELAXED);
}

static void ring_entry(uint32_t slot, uint64_t offset, void *arg)
{
	struct dirty_map *d = arg;

	/* Slots 1..N hold the test memory in order; (address space << 16 | id) with address space 0. */
	if (slot >= 1 && offset < d->slot_pages)
		map_set(d, (uint64_t)(slot - 1) * d->slot_pages + offset);
}

/* A vCPU's ring filled up in the middle of an iteration: its thread harvests it so the guest goes on. */
static int ring_full_hook(struct kb_machine *m, int vcpu, void *arg)
{
	struct dirtylog_run *x = arg;
	int err;

	if (m->vcpus[vcpu].run->exit_reason != KVM_EXIT_DIRTY_RING_FULL)
		return 0;
	kb_vcpu_harvest_dirty_ring(&m->vcpus[vcpu], ring_entry, &x->got);
	err = kb_vm_reset_dirty_rings(&m->vm);
	if (err < 0)
		return err;
	__atomic_fetch_add(&x->ring_full, 1, __ATOMIC_RELAXED);
	return 1;
}

/* The pages the guest writes each iteration: every vCPU's selection in its part (with --overlap,
 * all of them in the same one). */
static void expected_pages(struct dirtylog_run *x, const struct kb_memvm *mv)
{
	uint64_t per = kb_memvm_vcpu_pages(mv);

	memset(x->want.bits, 0, x->want.nwords * sizeof(uint64_t));
	for (int v = 0; v < mv->m.nvcpus; v++)
		for (uint64_t p = 0; p < per; p++)
			if (kb_mem_page_written(p, x->percent))
				map_set(&x->want, (kb_memvm_vcpu_gpa(mv, v) - KB_MEM_GPA) / KB_PAGE_SIZE + p);
}

static bool map_test(const struct dirty_map *d, uint64_t page)
{
	return d->bits[page / 64] >> (page % 64) & 1;
}

/* What test-memory page 'page' holds after pass 'pass' (populate is pass 0). */
static uint64_t page_word(const struct dirtylog_run *x, uint64_t page, uint64_t pass)
{
	return map_test(&x->want, page) ? kb_mem_word(KB_MEM_GPA + page * KB_PAGE_SIZE, pass) : 0;
}

struct guest_expect {
	const struct dirtylog_run *x;
	uint64_t pass;
};

/* What the guest should have found at gpa when pass q->pass came to it: what the pass before left. */
static uint64_t guest_expected(uint64_t gpa, void *arg)
{
	const struct guest_expect *q = arg;
	uint64_t page = (gpa - KB_MEM_GPA) / KB_PAGE_SIZE;

	return q->pass && page < q->x->want.nwords * 64 ? page_word(q->x, page, q->pass - 1) : 0;
}

/* The host's look at what the guest wrote in pass 'pass': every page harvested as dirty (only_dirty),
 * or every page of the test memory. */
static void host_content(const struct dirtylog_run *x, const struct kb_memvm *mv, uint64_t pass, bool only_dirty,
			 struct kb_content *c)
{
	const char *where = only_dirty ? "host, in the pages harvested dirty" : "host, the sweep after the last pass";

	for (uint64_t page = 0; page < kb_memvm_pages(mv); page++) {
		uint64_t want = page_word(x, page, pass), found;

		if (only_dirty && !(map_test(&x->got, page) && map_test(&x->want, page)))
			continue;
		found = kb_content_word(mv, page);
		if (found != want)
			kb_content_add(c, 1, where, pass, KB_MEM_GPA + page * KB_PAGE_SIZE, want, found);
	}
}

static uint64_t popcount_and_not(const uint64_t *a, const uint64_t *b, uint64_t n)
{
	uint64_t c = 0;

	for (uint64_t i = 0; i < n; i++)
		c += (uint64_t)__builtin_popcountll(a[i] & ~b[i]);
	return c;
}

/* Harvest: the "get log" step of each mode into x->got; *clear_ns for the step that re-protects. */
static int harvest(struct dirtylog_run *x, struct kb_memvm *mv, uint64_t *get_ns, uint64_t *clear_ns)
{
	uint64_t t0 = kb_now_ns(), t1;
	int err = 0;

	*clear_ns = 0;
	if (x->mode == MODE_RING) {
		for (int v = 0; v < mv->m.nvcpus; v++)
			kb_vcpu_harvest_dirty_ring(&mv->m.vcpus[v], ring_entry, &x->got);
		t1 = kb_now_ns();
		err = kb_vm_reset_dirty_rings(&mv->m.vm);
		*get_ns = t1 - t0;
		*clear_ns = kb_now_ns() - t1;
		return err < 0 ? err : 0;
	}
	for (int i = 0; !err && i < mv->nslots; i++)
		err = kb_memslot_get_dirty_log(&mv->m.vm, &mv->slots[i], x->got.bits + (uint64_t)i * x->got.slot_pages / 64);
	t1 = kb_now_ns();
	*get_ns = t1 - t0;
	if (err || x->mode != MODE_CLEAR)
		return err;
	for (int i = 0; !err && i < mv->nslots; i++)
		err = kb_memslot_clear_dirty_log(&mv->m.vm, &mv->slots[i], x->got.bits + (uint64_t)i * x->got.slot_pages / 64);
	*clear_ns = kb_now_ns() - t1;
	return err;
}

static int set_logging(struct kb_memvm *mv, bool on, uint64_t *ns)
{
	uint64_t t0 = kb_now_ns();
	int err = 0;

	for (int i = 0; !err && i < mv->nslots; i++)
		err = kb_memslot_set_flags(&mv->m.vm, &mv->slots[i], on ? KVM_MEM_LOG_DIRTY_PAGES : 0);
	*ns = kb_now_ns() - t0;
	return err;
}

static json_object *timed_step_json(uint64_t ns, json_object *stats)
{
	json_object *o = json_object_new_object();

	kb_json_set(o, "seconds", json_object_new_double((double)ns / 1e9));
	kb_json_set(o, "kvm_stats", stats);
	return o;
}

static json_object *step_stats(json_object *step)
{
	json_object *st = NULL;

	json_object_object_get_ex(step, "kvm_stats", &st);
	return st;
}

struct sample_sums {
	double dirty, get, clear;
	double first_dirty, first_get, first_clear;   /* iteration 1, dirty_log_perf_test's headline */
	double *vcpu_dirty;
};

/* One iteration: dirty, harvest, compare with what was written. */
static int iterate(struct dirtylog_run *x, struct kb_memvm *mv, int it, bool measured, struct sample_sums *sums,
		   json_object *jits, struct kb_content *content, uint64_t base)
{
	struct guest_expect q = { x, base + (uint64_t)it + 1 };
	struct kb_mem_phase ph;
	struct kb_memvm_snap snap;
	uint64_t get_ns, clear_ns, missing, unexpected, reported = 0;
	json_object *ji, *hstats;
	int err;

	memset(x->got.bits, 0, x->got.nwords * sizeof(uint64_t));
	err = kb_memvm_phase(mv, KB_MEM_DIRTY, q.pass, x->percent, &ph);
	if (err)
		return err;
	kb_memvm_snap_begin(mv, &snap);
	err = harvest(x, mv, &get_ns, &clear_ns);
	hstats = kb_memvm_snap_end(mv, &snap);
	if (err)
		goto out;
	for (uint64_t i = 0; i < x->got.nwords; i++)
		reported += (uint64_t)__builtin_popcountll(x->got.bits[i]);
	kb_content_guest(content, mv, &ph, "guest, before its write of the pass", q.pass, guest_expected, &q);
	host_content(x, mv, q.pass, true, content);
	if (x->initially_set && it == 0) {
		/* KVM_DIRTY_LOG_INITIALLY_SET: the first harvest reports every page, written or not. */
		missing = kb_memvm_pages(mv) - reported;
		unexpected = 0;
	} else {
		missing = popcount_and_not(x->want.bits, x->got.bits, x->want.nwords);
		unexpected = popcount_and_not(x->got.bits, x->want.bits, x->want.nwords);
	}
	if (!measured)
		goto out;
	x->missing += missing;
	x->unexpected += unexpected;
	x->reported += reported;
	sums->dirty += (double)ph.wall_ns / 1e9;
	sums->get += (double)get_ns / 1e9;
	sums->clear += (double)clear_ns / 1e9;
	if (it == 0) {
		sums->first_dirty = (double)ph.wall_ns / 1e9;
		sums->first_get = (double)get_ns / 1e9;
		sums->first_clear = (double)clear_ns / 1e9;
	}
	for (int v = 0; v < mv->m.nvcpus; v++)
		sums->vcpu_dirty[v] += kb_mem_phase_vcpu_s(mv, &ph, v);
	if (kb_mem_phase_clock_ratio(mv, &ph) > x->clock_ratio)
		x->clock_ratio = kb_mem_phase_clock_ratio(mv, &ph);
	ji = json_object_new_object();
	kb_json_set_int(ji, "iteration", it + 1);
	kb_json_set(ji, "dirty", kb_mem_phase_json(mv, &ph));
	kb_json_set(ji, "get_log_s", json_object_new_double((double)get_ns / 1e9));
	if (x->mode != MODE_GET)
		kb_json_set(ji, "clear_s", json_object_new_double((double)clear_ns / 1e9));
	kb_json_set(ji, "harvest_kvm_stats", json_object_get(hstats));
	kb_json_set_u64(ji, "pages_reported", reported);
	kb_json_set_u64(ji, "pages_missing", missing);
	kb_json_set_u64(ji, "pages_unexpected", unexpected);
	if (x->mode == MODE_RING)
		kb_json_set_u64(ji, "ring_full_exits", x->ring_full);
	json_object_array_add(jits, ji);
out:
	x->ring_full = 0;
	json_object_put(hstats);
	kb_mem_phase_free(&ph);
	return err;
}

static void alloc_map(struct dirty_map *d, const struct kb_memvm *mv)
{
	d->slot_pages = mv->bytes / (uint64_t)mv->nslots / KB_PAGE_SIZE;
	d->nwords = (kb_memvm_pages(mv) + 63) / 64;
	d->bits = kb_xcalloc(d->nwords, sizeof(uint64_t));
}

/* The samples' VM is done with (the last of --samples-per-vm, or an error). */
static int end_vm(struct dirtylog_run *x)
{
	x->cycle = 0;
	if (!x->mv_up)
		return 0;
	x->mv_up = false;
	return kb_memvm_destroy(&x->mv);
}

static int one_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	struct dirtylog_run *x = arg;
	struct kb_memvm *mv = &x->mv;
	struct kb_mem_phase pop = { 0 };
	struct kb_memvm_snap snap;
	struct sample_sums sums = { 0 };
	struct kb_content content = { 0 };
	uint64_t base = (uint64_t)x->cycle * ((uint64_t)cfg.iterations + 1);   /* this sample's populate pass */
	struct guest_expect q0 = { x, base };
	int derr = 0;
	uint64_t enable_ns = 0, disable_ns = 0;
	json_object *jits = json_object_new_array(), *jenable = NULL, *jdisable = NULL, *js;
	bool measured = slot >= 0;
	int err, n = cfg.iterations;

	(void)iters;
	if (!x->mv_up) {
		err = kb_memvm_create(x->ctx, &x->mcfg, mv);
		if (err) {
			json_object_put(jits);
			return err;
		}
		x->mv_up = true;
	}
	snprintf(mv->m.capture_label, sizeof(mv->m.capture_label), "%s sample %d (sample %d in this VM)",
		 x->ctx->current ? x->ctx->current : "dirty-log", slot, x->cycle);
	mv->m.exit_hook = ring_full_hook;
	mv->m.exit_hook_arg = x;
	x->tsc_khz = mv->m.vcpus[0].tsc_khz;
	sums.vcpu_dirty = kb_xcalloc((size_t)mv->m.nvcpus, sizeof(double));
	if (!x->got.bits) {
		alloc_map(&x->got, mv);
		alloc_map(&x->want, mv);
		expected_pages(x, mv);
	}
	/* As dirty_log_perf_test populates: the pages --write-percent selects written, the others read. */
	err = kb_memvm_phase(mv, KB_MEM_DIRTY, base, x->percent, &pop);
	if (err)
		goto out;
	kb_content_guest(&content, mv, &pop, "guest, before its populate write", 0, guest_expected, &q0);
	kb_memvm_snap_begin(mv, &snap);
	err = set_logging(mv, true, &enable_ns);
	jenable = timed_step_json(enable_ns, kb_memvm_snap_end(mv, &snap));
	for (int it = 0; !err && it < n; it++)
		err = iterate(x, mv, it, measured, &sums, jits, &content, base);
	if (err)
		goto out;
	kb_memvm_snap_begin(mv, &snap);
	err = set_logging(mv, false, &disable_ns);
	jdisable = timed_step_json(disable_ns, kb_memvm_snap_end(mv, &snap));
	if (err)
		goto out;
	host_content(x, mv, base + (uint64_t)n, false, &content);
	/* Warm-up samples too: a wrong page is wrong whether or not its sample is timed. */
	kb_content_merge(&x->content, &content);
	out->iters = 1;
	out->seconds = sums.dirty / n;
	if (!measured)
		goto out;
	/* Dirtying first: the primary metric (scaling tables, CI target). */
	kb_metric_push(kb_test_metric(x->r, "dirty_s", "s", false), sums.dirty / n);
	kb_metric_push(kb_test_metric(x->r, "get_log_s", "s", false), sums.get / n);
	if (x->mode != MODE_GET)
		kb_metric_push(kb_test_metric(x->r, "clear_s", "s", false), sums.clear / n);
	kb_metric_push(kb_test_metric(x->r, "enable_s", "s", false), (double)enable_ns / 1e9);
	kb_metric_push(kb_test_metric(x->r, "disable_s", "s", false), (double)disable_ns / 1e9);
	kb_mem_phase_record(x->r, "populate_s", mv, &pop);
	/* Iteration 1 on its own (it pays for write-protecting or splitting what populate mapped), and
	 * the mean of the later ones, as dirty_log_perf_test prints them. */
	kb_metric_push(kb_test_metric(x->r, "dirty_s.iteration1", "s", false), sums.first_dirty);
	kb_metric_push(kb_test_metric(x->r, "get_log_s.iteration1", "s", false), sums.first_get);
	if (x->mode != MODE_GET)
		kb_metric_push(kb_test_metric(x->r, "clear_s.iteration1", "s", false), sums.first_clear);
	if (n > 1) {
		kb_metric_push(kb_test_metric(x->r, "dirty_s.later", "s", false), (sums.dirty - sums.first_dirty) / (n - 1));
		kb_metric_push(kb_test_metric(x->r, "get_log_s.later", "s", false), (sums.get - sums.first_get) / (n - 1));
		if (x->mode != MODE_GET)
			kb_metric_push(kb_test_metric(x->r, "clear_s.later", "s", false),
				       (sums.clear - sums.first_clear) / (n - 1));
	}
	kb_metric_push(kb_test_metric(x->r, "dirty_s.total", "s", false), sums.dirty);
	kb_metric_push(kb_test_metric(x->r, "get_log_s.total", "s", false), sums.get);
	if (x->mode != MODE_GET)
		kb_metric_push(kb_test_metric(x->r, "clear_s.total", "s", false), sums.clear);
	for (int v = 0; mv->m.nvcpus > 1 && v < mv->m.nvcpus; v++) {
		char name[48];

		snprintf(name, sizeof(name), "dirty_s.vcpu%d", v);
		kb_metric_push(kb_test_metric(x->r, name, "s", false), sums.vcpu_dirty[v] / n);
	}
	js = json_object_new_object();
	kb_json_set_int(js, "sample", slot);
	kb_json_set_int(js, "sample_in_vm", x->cycle);
	kb_json_set(js, "populate", kb_mem_phase_json(mv, &pop));
	kb_json_set(js, "enable", json_object_get(jenable));
	kb_json_set(js, "iterations", json_object_get(jits));
	kb_json_set(js, "disable", json_object_get(jdisable));
	kb_json_set(js, "content", kb_content_json(&content));
	json_object_array_add(x->r->raw, js);
	json_object_put(x->last_stats);
	x->last_stats = json_object_new_object();
	kb_json_set(x->last_stats, "populate", json_object_get(pop.stats));
	kb_json_set(x->last_stats, "enable", json_object_get(step_stats(jenable)));
	kb_json_set(x->last_stats, "disable", json_object_get(step_stats(jdisable)));
out:
	json_object_put(jits);
	json_object_put(jenable);
	json_object_put(jdisable);
	free(sums.vcpu_dirty);
	kb_mem_phase_free(&pop);
	if (err || ++x->cycle == cfg.samples_per_vm)
		derr = end_vm(x);
	return err ? err : derr;
}

/* The smallest ring (a power of two, at least a page) that holds a vCPU's writes of one iteration
 * and KVM's reserve; the largest KVM allows when none does (the vCPU then exits to be harvested). */
static uint32_t ring_bytes(uint64_t writes_per_vcpu, int max_bytes)
{
	uint64_t want = (writes_per_vcpu + 1024) * sizeof(struct kvm_dirty_gfn), b = 4096;

	while (b < want && b < (uint64_t)max_bytes)
		b *= 2;
	return (uint32_t)(b > (uint64_t)max_bytes ? (uint64_t)max_bytes : b);
}

static int mode_unsupported(struct dirtylog_run *x)
{
	struct kb_kvm *kvm = x->ctx->kvm;

	int max_bytes;

	if (x->mode == MODE_RING && !kb_kvm_dirty_ring_cap(kvm, &max_bytes))
		return kb_fail(ENOTSUP, "this KVM has no dirty ring: neither KVM_CAP_DIRTY_LOG_RING (x86, from Linux 5.11) "
			       "nor KVM_CAP_DIRTY_LOG_RING_ACQ_REL (the only one arm64 has, and not Linux 6.1's arm64 KVM)");
	if (x->mode == MODE_CLEAR && !(kb_kvm_cap(kvm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2) & KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE))
		return kb_fail(ENOTSUP, "this KVM has no manual dirty-log protection (KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2; Linux 5.8 or newer)");
	return 0;
}

static void record_checks(struct dirtylog_run *x)
{
	kb_test_check(x->r, "dirty_pages_missing", 0, 0, 0, (double)x->missing, true,
		      "pages the guest wrote were not reported dirty: the dirty log lost writes");
	kb_test_check(x->r, "dirty_pages_unexpected", 0, 0, 0, (double)x->unexpected, true,
		      "pages the guest did not write were reported dirty");
	kb_test_check(x->r, "tsc_vs_host_clock", 1.0, 0, 1.05, x->clock_ratio, false,
		      "a vCPU's guest TSC says an iteration took longer than the host saw it take: TSC frequency or scaling is off");
	kb_content_check(x->r, &x->content);
}

static int dirtylog_run(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
			struct kb_test_result *r)
{
	struct dirtylog_run x = {
		.ctx = ctx,
		.r = r,
		.mode = (enum dirty_mode)t->param[0],
		.mcfg = {
			.nvcpus = ctx->vcpus,
			.vcpu_bytes = cfg.mem,
			.overlap = ctx->opts->overlap,
			.nslots = cfg.slots,
			.size_option = "--dirty-mem",
		},
		/* The selection works in whole percent; the option takes a number like every percentage. */
		.percent = (uint64_t)(cfg.write_percent + 0.5),
	};
	struct kb_sampling sampling;
	uint64_t writes;
	int err;

	(void)s;
	r->vcpus = x.mcfg.nvcpus;
	if (kb_backing_parse(cfg.backing, &x.mcfg.backing))
		return kb_fail(EINVAL, "--dirty-backing: '%s' is not a memory backing (anon, thp, hugetlb-2m or hugetlb-1g)",
			       cfg.backing);
	kb_json_set_str(r->params, "backing", kb_backing_name(x.mcfg.backing));
	kb_json_set_u64(r->params, "mem_per_vcpu", cfg.mem);
	kb_json_set_u64(r->params, "write_percent", x.percent);
	kb_json_set_str(r->params, "populate", "writes the pages write_percent selects, reads the others");
	kb_json_set_int(r->params, "iterations", cfg.iterations);
	kb_json_set_int(r->params, "slots", cfg.slots);
	kb_json_set_bool(r->params, "overlap", ctx->opts->overlap);
	err = mode_unsupported(&x);
	if (!err)
		err = kb_memvm_check(ctx, &x.mcfg);
	if (err)
		return err;
	writes = 0;
	for (uint64_t p = 0; p < cfg.mem / KB_PAGE_SIZE; p++)
		writes += (uint64_t)kb_mem_page_written(p, x.percent);
	kb_json_set_u64(r->params, "pages_written_per_vcpu", writes);
	if (x.mode == MODE_RING) {
		int max_bytes;
		long cap = kb_kvm_dirty_ring_cap(ctx->kvm, &max_bytes);

		kb_json_set_str(r->params, "ring_cap", kb_dirty_ring_cap_name(cap));
		x.mcfg.dirty_ring_bytes = ring_bytes(writes, max_bytes);
		kb_json_set(r->params, "ring_entries",
				       json_object_new_uint64(x.mcfg.dirty_ring_bytes / sizeof(struct kvm_dirty_gfn)));
	}
	if (x.mode == MODE_CLEAR) {
		/* What QEMU uses: enabling logging protects nothing; each clear protects what it clears. */
		x.mcfg.manual_protect = (uint64_t)kb_kvm_cap(ctx->kvm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2) &
					(KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE | KVM_DIRTY_LOG_INITIALLY_SET);
		x.initially_set = x.mcfg.manual_protect & KVM_DIRTY_LOG_INITIALLY_SET;
		kb_json_set_bool(r->params, "initially_set", x.initially_set);
	}
	kb_json_set_int(r->params, "samples_per_vm", cfg.samples_per_vm);
	err = kb_sampler_run_fixed(ctx, one_sample, &x, &sampling);
	if (!err)
		err = end_vm(&x);
	else
		end_vm(&x);
	if (!err) {
		kb_memvm_record(r, ctx, cfg.mem, x.tsc_khz, x.last_stats);
		kb_json_set_u64(r->extra, "pages_reported", x.reported);
		record_checks(&x);
		kb_sampler_record(ctx->opts, sampling.done, r);
	}
	json_object_put(x.last_stats);
	free(x.got.bits);
	free(x.want.bits);
	return err;
}

const struct kb_suite kb_suite_dirtylog = {
	.name = "dirty-log",
	.summary = "Dirty logging at scale: dirtying time, harvesting (get, clear, ring), enable and disable",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.opts = opts,
	.nopts = ARRAY_SIZE(opts),
	.cfg = &cfg,
	.run = dirtylog_run,
	.arches = KB_ARCH_X86 | KB_ARCH_ARM64,
};
