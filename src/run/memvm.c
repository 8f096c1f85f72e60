/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memvm.c: a benchmark VM with test memory, the phases run on it, and their evidence. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/memvm.h"
#include "host/topo.h"
#include "run/vmcfg.h"

#define MIB(x) ((unsigned long long)((x) >> 20))

static uint64_t total_bytes(const struct kb_memvm_cfg *cfg)
{
	return cfg->overlap ? cfg->vcpu_bytes : cfg->vcpu_bytes * (uint64_t)cfg->nvcpus;
}

int kb_memvm_check(const struct kb_run_ctx *ctx, const struct kb_memvm_cfg *cfg)
{
	uint64_t page = kb_backing_page_size(cfg->backing), total = total_bytes(cfg), slot_unit;
	int node = ctx->plan ? ctx->plan->memory_node : -1;
	const char *opt = cfg->size_option, *name = kb_backing_name(cfg->backing);
	char advice[96];

	if (!cfg->vcpu_bytes || cfg->vcpu_bytes % (2ULL << 20))
		return kb_fail(EINVAL, "%s %llu KiB: test memory comes in whole 2 MiB (the guest maps it with 2 MiB pages)",
			       opt, (unsigned long long)(cfg->vcpu_bytes >> 10));
	if (total > KB_MEM_MAX)
		return kb_fail(EINVAL, "%d vCPU(s) with %s %llu MiB%s need %llu MiB of test memory, but the guest's page "
			       "tables end at %d GiB, which leaves room for %llu MiB from GPA 4 GiB: lower %s or --vcpus",
			       cfg->nvcpus, opt, MIB(cfg->vcpu_bytes), cfg->overlap ? " (shared)" : " each", MIB(total),
			       KB_PD_MAX + KB_PD_HIGH_MAX, MIB(KB_MEM_MAX), opt);
	if (cfg->vcpu_bytes % page)
		return kb_fail(ENOTSUP, "%s backs memory with %llu MiB pages and %s %llu MiB is not a whole number of "
			       "them: use %s %s or a multiple", name, MIB(page), opt, MIB(cfg->vcpu_bytes), opt,
			       cfg->backing == KB_BACKING_HUGETLB_1G ? "1G" : "2M");
	slot_unit = page > (2ULL << 20) ? page : 2ULL << 20;
	if (cfg->nslots < 1 || cfg->nslots > KB_MEMVM_MAX_SLOTS || total % (uint64_t)cfg->nslots ||
	    (total / (uint64_t)cfg->nslots) % slot_unit)
		return kb_fail(EINVAL, "%llu MiB of test memory does not split into %d memslot(s) of whole %llu MiB: "
			       "choose a slot count that divides it (at most %d)", MIB(total), cfg->nslots,
			       MIB(slot_unit), KB_MEMVM_MAX_SLOTS);
	snprintf(advice, sizeof(advice), "lower %s or --vcpus", opt);
	/* Anonymous test memory competes with the base memory (mostly untouched) and everything else. */
	return kb_backing_check(cfg->backing, total, node, advice);
}

struct phase_req {
	const struct kb_memvm *mv;
	enum kb_mem_op op;
	uint64_t value, percent;
};

static void phase_params(int vcpu, uint64_t param[6], void *arg)
{
	const struct phase_req *q = arg;

	param[0] = q->op;
	param[1] = kb_memvm_vcpu_gpa(q->mv, vcpu);
	param[2] = q->mv->cfg.vcpu_bytes;
	param[3] = q->value;
	param[4] = q->percent;
	param[5] = q->mv->keepalive_cycles;
}

int kb_memvm_create(const struct kb_run_ctx *ctx, const struct kb_memvm_cfg *cfg, struct kb_memvm *mv)
{
	struct kb_machine_cfg mc = {
		.nvcpus = cfg->nvcpus,
		.dirty_ring_bytes = cfg->dirty_ring_bytes,
	};
	uint64_t slot_bytes;
	int err;

	memset(mv, 0, sizeof(*mv));
	mv->ctx = ctx;
	mv->cfg = *cfg;
	mv->bytes = total_bytes(cfg);
	err = kb_run_machine_cfg(ctx, &mc);
	if (err)
		return err;
	err = kb_machine_create(ctx->kvm, &mc, &mv->m);
	if (err)
		return err;
	mv->machine_up = true;
	if (cfg->manual_protect) {
		err = kb_vm_enable_manual_dirty_protect(&mv->m.vm, cfg->manual_protect);
		if (err)
			goto fail;
	}
	err = kb_guestmem_map(&mv->mem, mv->bytes, cfg->backing, mc.mem_node);
	if (err)
		goto fail;
	slot_bytes = mv->bytes / (uint64_t)cfg->nslots;
	for (int i = 0; i < cfg->nslots; i++) {
		struct kb_memslot *s = &mv->slots[i];

		*s = (struct kb_memslot){ .id = (uint32_t)i + 1, .gpa = KB_MEM_GPA + (uint64_t)i * slot_bytes,
					  .size = slot_bytes, .hva = mv->mem.hva + (uint64_t)i * slot_bytes };
		err = kb_machine_add_memory(&mv->m, s);
		if (err)
			goto fail;
		mv->nslots = i + 1;
	}
	/* Between the guest's signs of life. */
	mv->keepalive_cycles = kb_machine_patience_cycles(&mv->m, ctx->opts->timeout_ns);
	err = kb_crew_start(&mv->crew, &mv->m, ctx);
	if (err)
		goto fail;
	return 0;
fail:
	kb_memvm_destroy(mv);
	return err;
}

int kb_memvm_destroy(struct kb_memvm *mv)
{
	int err = 0;

	kb_crew_stop(mv->crew);
	mv->crew = NULL;
	/* A slot KVM fails to delete is freed with the VM below all the same, but KVM failing a call is
	 * no success: the first such error is returned. */
	for (int i = mv->nslots - 1; i >= 0; i--) {
		int e = kb_machine_remove_memory(&mv->m, &mv->slots[i]);

		if (e && !err)
			err = e;
	}
	mv->nslots = 0;
	if (mv->machine_up)
		kb_machine_destroy(&mv->m);
	mv->machine_up = false;
	kb_guestmem_unmap(&mv->mem);
	return err;
}

uint64_t kb_memvm_vcpu_gpa(const struct kb_memvm *mv, int v)
{
	return KB_MEM_GPA + (mv->cfg.overlap ? 0 : (uint64_t)v * mv->cfg.vcpu_bytes);
}

uint64_t kb_memvm_vcpu_pages(const struct kb_memvm *mv)
{
	return mv->cfg.vcpu_bytes / KB_PAGE_SIZE;
}

uint64_t kb_memvm_pages(const struct kb_memvm *mv)
{
	return mv->bytes / KB_PAGE_SIZE;
}

void kb_memvm_snap_begin(struct kb_memvm *mv, struct kb_memvm_snap *s)
{
	s->vm = kb_xcalloc(mv->m.vm.stats.nvals, sizeof(uint64_t));
	s->vcpu = kb_xcalloc((size_t)mv->m.nvcpus, sizeof(*s->vcpu));
	kb_stats_read(&mv->m.vm.stats, s->vm);
	for (int v = 0; v < mv->m.nvcpus; v++) {
		s->vcpu[v] = kb_xcalloc(mv->m.vcpus[v].stats.nvals, sizeof(uint64_t));
		kb_stats_read(&mv->m.vcpus[v].stats, s->vcpu[v]);
	}
}

json_object *kb_memvm_snap_end(struct kb_memvm *mv, struct kb_memvm_snap *s)
{
	const struct kb_stats *vst = &mv->m.vm.stats, *cst = &mv->m.vcpus[0].stats;
	uint64_t *now = kb_xcalloc(vst->nvals > cst->nvals ? vst->nvals : cst->nvals, sizeof(uint64_t));
	double *sum = kb_xcalloc(cst->nvals, sizeof(double));
	json_object *o = json_object_new_object(), *jvm = json_object_new_object(), *jv = json_object_new_object();

	kb_stats_read(vst, now);
	/* Page counts (pages_4k, pages_2m, ...) are levels, not counters: their values say what is mapped. */
	for (uint32_t i = 0; i < vst->ndesc; i++) {
		uint32_t k = vst->desc[i].index;

		if (vst->desc[i].size != 1)
			continue;
		if (!kb_stats_is_cumulative(vst, i))
			kb_json_set_u64(jvm, vst->desc[i].name, now[k]);
		else if (now[k] != s->vm[k])
			kb_json_set_u64(jvm, vst->desc[i].name, now[k] - s->vm[k]);
	}
	for (int v = 0; v < mv->m.nvcpus; v++) {
		kb_stats_read(&mv->m.vcpus[v].stats, now);
		for (uint32_t k = 0; k < cst->nvals; k++)
			sum[k] += (double)(now[k] - s->vcpu[v][k]);
		free(s->vcpu[v]);
	}
	for (uint32_t i = 0; i < cst->ndesc; i++) {
		uint32_t k = cst->desc[i].index;

		if (cst->desc[i].size == 1 && kb_stats_is_cumulative(cst, i) && sum[k] != 0)
			kb_json_set_u64(jv, cst->desc[i].name, (uint64_t)sum[k]);
	}
	kb_json_set(o, "vm", jvm);
	kb_json_set(o, "vcpus", jv);
	free(s->vcpu);
	free(s->vm);
	free(sum);
	free(now);
	s->vm = NULL;
	s->vcpu = NULL;
	return o;
}

int kb_memvm_phase(struct kb_memvm *mv, enum kb_mem_op op, uint64_t value, uint64_t percent,
		   struct kb_mem_phase *ph)
{
	struct phase_req q = { mv, op, value, percent };
	struct kb_crew_phase cp = { KB_LOOP_MEM, 1, phase_params, &q };
	struct kb_memvm_snap snap;
	int err;

	memset(ph, 0, sizeof(*ph));
	ph->vcpu = kb_xcalloc((size_t)mv->m.nvcpus, sizeof(*ph->vcpu));
	kb_memvm_snap_begin(mv, &snap);
	err = kb_crew_run(mv->crew, &cp, ph->vcpu, &ph->wall_ns);
	ph->stats = kb_memvm_snap_end(mv, &snap);
	if (err)
		kb_mem_phase_free(ph);
	return err;
}

void kb_mem_phase_free(struct kb_mem_phase *ph)
{
	free(ph->vcpu);
	json_object_put(ph->stats);
	memset(ph, 0, sizeof(*ph));
}

double kb_mem_phase_vcpu_s(const struct kb_memvm *mv, const struct kb_mem_phase *ph, int v)
{
	return (double)ph->vcpu[v].tsc / ((double)mv->m.vcpus[v].tsc_khz * 1e3);
}

json_object *kb_mem_phase_json(const struct kb_memvm *mv, const struct kb_mem_phase *ph)
{
	json_object *o = json_object_new_object(), *jv = json_object_new_array();

	kb_json_set(o, "wall_s", json_object_new_double((double)ph->wall_ns / 1e9));
	for (int v = 0; v < mv->m.nvcpus; v++) {
		json_object *e = json_object_new_object();

		kb_json_set_int(e, "vcpu", v);
		kb_json_set_u64(e, "tsc_cycles", ph->vcpu[v].tsc);
		kb_json_set(e, "seconds", json_object_new_double(kb_mem_phase_vcpu_s(mv, ph, v)));
		kb_json_set_u64(e, "host_ns", ph->vcpu[v].host_ns);
		kb_json_set_u64(e, "pages_written", ph->vcpu[v].args[0]);
		kb_json_set_u64(e, "pages_other", ph->vcpu[v].args[1]);
		json_object_array_add(jv, e);
	}
	kb_json_set(o, "vcpus", jv);
	kb_json_set(o, "kvm_stats", json_object_get(ph->stats));
	return o;
}

void kb_mem_phase_record(struct kb_test_result *r, const char *name, const struct kb_memvm *mv,
			 const struct kb_mem_phase *ph)
{
	kb_metric_push(kb_test_metric(r, name, "s", false), (double)ph->wall_ns / 1e9);
	if (mv->m.nvcpus < 2)
		return;
	for (int v = 0; v < mv->m.nvcpus; v++) {
		char per[64];

		snprintf(per, sizeof(per), "%s.vcpu%d", name, v);
		kb_metric_push(kb_test_metric(r, per, "s", false), kb_mem_phase_vcpu_s(mv, ph, v));
	}
}

double kb_mem_phase_clock_ratio(const struct kb_memvm *mv, const struct kb_mem_phase *ph)
{
	double longest = 0;

	for (int v = 0; v < mv->m.nvcpus; v++)
		if (kb_mem_phase_vcpu_s(mv, ph, v) > longest)
			longest = kb_mem_phase_vcpu_s(mv, ph, v);
	return ph->wall_ns ? longest / ((double)ph->wall_ns / 1e9) : 0;
}

json_object *kb_memvm_host_json(void)
{
	static const char *const files[][2] = {
		{ "kvm.nx_huge_pages", "/sys/module/kvm/parameters/nx_huge_pages" },
		{ "kvm.nx_huge_pages_recovery_ratio", "/sys/module/kvm/parameters/nx_huge_pages_recovery_ratio" },
		{ "kvm.nx_huge_pages_recovery_period_ms", "/sys/module/kvm/parameters/nx_huge_pages_recovery_period_ms" },
		{ "kvm.tdp_mmu", "/sys/module/kvm/parameters/tdp_mmu" },
		{ "kvm.eager_page_split", "/sys/module/kvm/parameters/eager_page_split" },
		{ "kvm_amd.npt", "/sys/module/kvm_amd/parameters/npt" },
		{ "kvm_intel.ept", "/sys/module/kvm_intel/parameters/ept" },
		{ "kvm_intel.pml", "/sys/module/kvm_intel/parameters/pml" },
		{ "thp.enabled", "/sys/kernel/mm/transparent_hugepage/enabled" },
		{ "thp.defrag", "/sys/kernel/mm/transparent_hugepage/defrag" },
		{ "hugetlb_2m.nr", "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages" },
		{ "hugetlb_2m.free", "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages" },
		{ "hugetlb_1g.nr", "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages" },
		{ "hugetlb_1g.free", "/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages" },
	};
	json_object *o = json_object_new_object();
	char val[256];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (!kb_read_text(files[i][1], val, sizeof(val)))
			kb_json_set_str(o, files[i][0], val);
	return o;
}

void kb_memvm_record(struct kb_test_result *r, const struct kb_run_ctx *ctx, uint64_t vcpu_bytes,
		     uint32_t tsc_khz, json_object *last_stats)
{
	r->iterations = vcpu_bytes / KB_PAGE_SIZE;
	r->tsc_khz = tsc_khz;
	kb_json_set_str(r->extra, "backend", kb_backend_name(ctx->kvm->backend));
	kb_json_set_str(r->params, "guest_page", ctx->opts->guest_page == KB_GUEST_PAGE_2M ? "2m" : "4k");
	kb_json_set(r->extra, "host_memory", kb_memvm_host_json());
	kb_json_set(r->extra, "kvm_stats", json_object_get(last_stats));
}
