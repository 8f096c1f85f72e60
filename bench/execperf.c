/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execperf.c: the execute-perf suite: populate guest memory, then execute from every page of it;
 * how the backing (4 KiB, THP, hugetlb) and KVM's huge-page handling (NX huge pages) change it. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/content.h"
#include "run/memvm.h"
#include "run/sampler.h"
#include "run/suite.h"
#include "vmm/cpuarch.h"

struct execperf_cfg {
	uint64_t mem;
};

static struct execperf_cfg cfg;

static const struct kb_opt opts[] = {
	{ "mem", 0, KB_OPT_SIZE, offsetof(struct execperf_cfg, mem), "SIZE",
	  "test memory per vCPU, in whole 2 MiB (hugetlb-1g: whole GiB)", "8M", 2 << 20, (double)KB_MEM_MAX },
};

#define BACKING_TEST(name, b, summary) { name, summary, .param = { b } }

static const struct kb_test_def tests[] = {
	BACKING_TEST("anon", KB_BACKING_ANON, "write a stub function to every 4 KiB page, then call every page; 4 KiB host pages"),
	BACKING_TEST("thp", KB_BACKING_THP, "the same on transparent huge pages (MADV_HUGEPAGE)"),
	BACKING_TEST("hugetlb-2m", KB_BACKING_HUGETLB_2M, "the same on reserved 2 MiB hugetlb pages"),
	BACKING_TEST("hugetlb-1g", KB_BACKING_HUGETLB_1G, "the same on reserved 1 GiB hugetlb pages"),
};

struct execperf_run {
	struct kb_run_ctx *ctx;
	struct kb_test_result *r;
	struct kb_memvm_cfg mcfg;
	uint64_t pages_expected;      /* per sample: pages populated by the guest, found by the host */
	uint64_t pages_found_min;     /* the fewest found by the host in any sample */
	uint64_t calls_short;         /* pages a vCPU did not call, over every sample */
	struct kb_content content;    /* pages with another stub than their own, over every sample */
	double clock_ratio;           /* the worst of any phase */
	int64_t thp_bytes;            /* THP-backed test memory after populate, last sample; -1 unknown */
	uint32_t tsc_khz;
	json_object *last_stats;      /* per-phase KVM stats of the last measured sample */
	int exec_faults;              /* kb_arch_exec_faults_per_mapping(): -1 where exits are not modelled */
	struct exit_count {
		bool set;
		double exits, lo, hi;
	} worst[2];                   /* populate, execute: the sample furthest outside its bounds */
};

/* Where KVM maps guest memory on faults (arm64), each stage-2 mapping costs one exit at its first write
 * and, per kb_arch_exec_faults_per_mapping(), one at its first instruction fetch.  KVM maps what backs
 * the memory, page for page: 4 KiB pages, 2 MiB THPs or hugetlb pages, 1 GiB hugetlb pages.  0: not known. */
static uint64_t stage2_mappings(const struct execperf_run *x, const struct kb_memvm *mv)
{
	uint64_t bytes = x->pages_expected * KB_PAGE_SIZE;
	int64_t thp;

	switch (x->mcfg.backing) {
	case KB_BACKING_THP:
		thp = kb_guestmem_thp_bytes(&mv->mem);
		if (thp < 0 || (uint64_t)thp > bytes)
			return 0;
		return (uint64_t)thp / (2ULL << 20) + (bytes - (uint64_t)thp) / KB_PAGE_SIZE;
	case KB_BACKING_ANON:
		return bytes / KB_PAGE_SIZE;
	default:
		return bytes / kb_backing_page_size(x->mcfg.backing);
	}
}

/*
 * One phase's exits against the mappings it had to fault in: at least 'per' each (vCPUs that share the
 * memory may fault on one page together: at most that many times each), and no more than the call
 * channel's exits and the host's interrupts besides (its timer at up to 1000 Hz on each vCPU, and 16).
 */
static void count_exits(struct execperf_run *x, int phase, const struct kb_memvm *mv, const struct kb_mem_phase *ph,
			uint64_t mappings, int per)
{
	double exits = kb_json_get_num(kb_json_path(ph->stats, "vcpus"), "exits", 0) -
		       kb_json_get_num(kb_json_path(ph->stats, "vcpus"), "mmio_exit_user", 0);
	double lo = (double)(mappings * (uint64_t)per), sharing = x->mcfg.overlap ? mv->m.nvcpus : 1;
	double hi = lo * sharing + 16 + 1000.0 * (double)ph->wall_ns / 1e9 * mv->m.nvcpus;
	struct exit_count *w = &x->worst[phase];
	double off = exits < lo ? lo - exits : exits > hi ? exits - hi : 0;
	double was = !w->set ? -1 : w->exits < w->lo ? w->lo - w->exits : w->exits > w->hi ? w->exits - w->hi : 0;

	if (off > was || (!off && !was))
		*w = (struct exit_count){ true, exits, lo, hi };
}

/* What the guest wrote is where the host expects it: its own stub at the start of every page
 * (the pages that hold another are counted into c, with the stub's first 8 bytes at most). */
static uint64_t count_stubs(const struct kb_memvm *mv, struct kb_content *c)
{
	uint64_t n = 0;

	for (uint64_t page = 0; page < kb_memvm_pages(mv); page++) {
		uint64_t gpa = KB_MEM_GPA + page * KB_PAGE_SIZE, want = 0;
		uint8_t stub[KB_MEM_STUB_MAX];
		size_t len = (size_t)kb_mem_stub(kb_arch_self(), gpa, stub), kept = len < 8 ? len : 8;
		uint64_t mask = kept < 8 ? (1ULL << 8 * kept) - 1 : ~0ULL;

		memcpy(&want, stub, kept);
		if (!memcmp(mv->mem.hva + page * KB_PAGE_SIZE, stub, len))
			n++;
		else
			kb_content_add(c, 1, "host, after populate", 0, gpa, want, kb_content_word(mv, page) & mask);
	}
	return n;
}

/* What a page's stub returns when it is called. */
static uint64_t stub_value(uint64_t gpa, void *arg)
{
	(void)arg;
	return kb_mem_stub_value(gpa);
}

static int one_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	struct execperf_run *x = arg;
	struct kb_memvm mv;
	struct kb_mem_phase pop = { 0 }, exe = { 0 };
	struct kb_content content = { 0 };
	int derr;
	json_object *js;
	uint64_t found;
	int err;

	(void)iters;
	err = kb_memvm_create(x->ctx, &x->mcfg, &mv);
	if (err)
		return err;
	snprintf(mv.m.capture_label, sizeof(mv.m.capture_label), "%s sample %d",
		 x->ctx->current ? x->ctx->current : "execute-perf", slot);
	err = kb_memvm_phase(&mv, KB_MEM_POPULATE, 0, 0, &pop);
	if (err)
		goto out;
	found = count_stubs(&mv, &content);
	x->tsc_khz = mv.m.vcpus[0].tsc_khz;
	err = kb_memvm_phase(&mv, KB_MEM_EXECUTE, 0, 0, &exe);
	if (err)
		goto out;
	kb_content_guest(&content, &mv, &exe, "guest, the value its call of the page returned", 1, stub_value, NULL);
	kb_content_merge(&x->content, &content);
	out->iters = 1;
	out->seconds = (double)exe.wall_ns / 1e9;
	if (slot < 0)
		goto out;
	if (found < x->pages_found_min)
		x->pages_found_min = found;
	if (x->exec_faults >= 0) {
		uint64_t maps = stage2_mappings(x, &mv);

		if (maps) {
			count_exits(x, 0, &mv, &pop, maps, 1);
			count_exits(x, 1, &mv, &exe, maps, x->exec_faults);
		}
	}
	for (int v = 0; v < mv.m.nvcpus; v++)
		if (exe.vcpu[v].args[1] < kb_memvm_vcpu_pages(&mv))
			x->calls_short += kb_memvm_vcpu_pages(&mv) - exe.vcpu[v].args[1];
	for (int i = 0; i < 2; i++) {
		double ratio = kb_mem_phase_clock_ratio(&mv, i ? &exe : &pop);

		if (ratio > x->clock_ratio)
			x->clock_ratio = ratio;
	}
	/* The phase the suite is about first: it is the primary metric (scaling tables, CI target). */
	kb_mem_phase_record(x->r, "execute_s", &mv, &exe);
	kb_mem_phase_record(x->r, "populate_s", &mv, &pop);
	if (x->mcfg.backing == KB_BACKING_THP)
		x->thp_bytes = kb_guestmem_thp_bytes(&mv.mem);
	js = json_object_new_object();
	kb_json_set_int(js, "sample", slot);
	kb_json_set(js, "populate", kb_mem_phase_json(&mv, &pop));
	kb_json_set(js, "execute", kb_mem_phase_json(&mv, &exe));
	kb_json_set_u64(js, "pages_found", found);
	kb_json_set(js, "content", kb_content_json(&content));
	json_object_array_add(x->r->raw, js);
	json_object_put(x->last_stats);
	x->last_stats = json_object_new_object();
	kb_json_set(x->last_stats, "populate", json_object_get(pop.stats));
	kb_json_set(x->last_stats, "execute", json_object_get(exe.stats));
out:
	kb_mem_phase_free(&pop);
	kb_mem_phase_free(&exe);
	derr = kb_memvm_destroy(&mv);
	return err ? err : derr;
}

static void record_checks(struct execperf_run *x, int done)
{
	struct kb_test_result *r = x->r;
	double total_pages = (double)x->pages_expected;

	kb_test_check(r, "pages_populated", total_pages, total_pages, total_pages, (double)x->pages_found_min, true,
		      "the host did not find the guest's stub at the start of every page of the test memory: "
		      "the guest wrote somewhere else than its memslots");
	kb_content_check(r, &x->content);
	kb_test_check(r, "pages_not_executed", 0, 0, 0, (double)x->calls_short, true,
		      "a vCPU called fewer pages than its part of the test memory has");
	kb_test_check(r, "tsc_vs_host_clock", 1.0, 0, 1.05, x->clock_ratio, false,
		      "a vCPU's guest TSC says a phase took longer than the host saw it take: TSC frequency or scaling is off");
	if (x->worst[0].set)
		kb_test_check(r, "populate_exits", x->worst[0].lo, x->worst[0].lo, x->worst[0].hi, x->worst[0].exits, true,
			      "populate's exits are not one for each stage-2 mapping its writes faulted in (besides the "
			      "call channel's and the host's interrupts): KVM mapped the memory at another granule than "
			      "what backs it, or the guest did not write every page");
	if (x->worst[1].set)
		kb_test_check(r, "execute_exits", x->worst[1].lo, x->worst[1].lo, x->worst[1].hi, x->worst[1].exits, true,
			      "execute's exits are not the instruction-fetch faults expected for each stage-2 mapping "
			      "(params.exec_faults_per_mapping): the guest did not call every page, or KVM mapped it at "
			      "another granule or executable where it should not");
	if (x->mcfg.backing == KB_BACKING_THP && x->thp_bytes >= 0 && done)
		kb_test_check(r, "thp_backed_fraction", 1.0, 0.5, 1.0, (double)x->thp_bytes / (double)(x->pages_expected * KB_PAGE_SIZE),
			      false, "less than half of the test memory got transparent huge pages (fragmented memory? "
			      "see /sys/kernel/mm/transparent_hugepage/defrag): this measured mostly 4 KiB pages");
}

static int execperf_run(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
			struct kb_test_result *r)
{
	struct execperf_run x = {
		.ctx = ctx,
		.r = r,
		.mcfg = {
			.nvcpus = ctx->vcpus,
			.backing = (enum kb_backing)t->param[0],
			.vcpu_bytes = cfg.mem,
			.overlap = ctx->opts->overlap,
			.nslots = 1,
			.size_option = "--mem",
		},
		.pages_found_min = UINT64_MAX,
		.thp_bytes = -1,
	};
	const char *why;
	struct kb_sampling sampling;
	int err;

	(void)s;
	r->vcpus = x.mcfg.nvcpus;
	kb_json_set_str(r->params, "backing", kb_backing_name(x.mcfg.backing));
	kb_json_set_u64(r->params, "mem_per_vcpu", cfg.mem);
	kb_json_set_bool(r->params, "overlap", ctx->opts->overlap);
	err = kb_memvm_check(ctx, &x.mcfg);
	if (err)
		return err;
	x.pages_expected = (ctx->opts->overlap ? cfg.mem : cfg.mem * (uint64_t)x.mcfg.nvcpus) / KB_PAGE_SIZE;
	kb_json_set_u64(r->params, "pages_per_vcpu", cfg.mem / KB_PAGE_SIZE);
	x.exec_faults = kb_arch_exec_faults_per_mapping(&why);
	if (x.exec_faults >= 0)
		kb_json_set_int(r->params, "exec_faults_per_mapping", x.exec_faults);
	kb_json_set_str(r->params, "exec_faults_from", why);
	err = kb_sampler_run_fixed(ctx, one_sample, &x, &sampling);
	if (!err) {
		kb_memvm_record(r, ctx, cfg.mem, x.tsc_khz, x.last_stats);
		if (x.thp_bytes >= 0 && x.mcfg.backing == KB_BACKING_THP)
			kb_json_set_int(r->extra, "thp_bytes", x.thp_bytes);
		record_checks(&x, sampling.done);
		kb_sampler_record(ctx->opts, sampling.done, r);
	}
	json_object_put(x.last_stats);
	return err;
}

const struct kb_suite kb_suite_execperf = {
	.name = "execute-perf",
	.summary = "Populate guest memory, then execute from every page: backing and huge-page effects",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.opts = opts,
	.nopts = ARRAY_SIZE(opts),
	.cfg = &cfg,
	.run = execperf_run,
	.arches = KB_ARCH_X86 | KB_ARCH_ARM64,
};
