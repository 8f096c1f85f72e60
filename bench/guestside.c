/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestside.c: the guest-side suite: the hypervisor underneath this machine, measured from inside it. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/sampler.h"
#include "run/suite.h"
#include "host/cpu.h"
#include "host/topo.h"
#include "bench/guestloops.h"
#include "bench/hblimits.h"
#include "vmm/cpuarch.h"

struct guest_cfg {
	uint64_t leaf, subleaf;
	int groups, fds, size;
	uint64_t loops;
};

static struct guest_cfg cfg;

enum { HB_MAX_SIZE = 65536 };

static const struct kb_opt opts[] = {
	{ "guest-leaf", 0, KB_OPT_U64, offsetof(struct guest_cfg, leaf), "LEAF",
	  "CPUID leaf (EAX) guest/cpuid executes", "0", 0, 0xffffffff },
	{ "guest-subleaf", 0, KB_OPT_U64, offsetof(struct guest_cfg, subleaf), "N",
	  "CPUID subleaf (ECX) guest/cpuid executes", "0", 0, 0xffffffff },
	{ "hackbench-groups", 0, KB_OPT_INT, offsetof(struct guest_cfg, groups), "N",
	  "hackbench: groups of senders and receivers", "1", 1, 1000 },
	{ "hackbench-fds", 0, KB_OPT_INT, offsetof(struct guest_cfg, fds), "N",
	  "hackbench: senders and receivers per group; every sender writes to every receiver of its group",
	  "20", 1, 1000 },
	{ "hackbench-loops", 0, KB_OPT_U64, offsetof(struct guest_cfg, loops), "N",
	  "hackbench: messages from each sender to each receiver per sample (0: calibrate to --sample-time)",
	  "100", 0, 1e9 },
	{ "hackbench-size", 0, KB_OPT_INT, offsetof(struct guest_cfg, size), "BYTES",
	  "hackbench: bytes per message", "100", 1, HB_MAX_SIZE },
};

enum guest_kind {
	GK_CPUID = 1,
	GK_RDTSCP,
	GK_NOP,
	GK_HACKBENCH_PIPE,
	GK_HACKBENCH_SOCKET,
};

static const struct kb_test_def tests[] = {
	{ .name = "cpuid", .exits_per_iter = 1, .param = { GK_CPUID },
	  .summary = "CPUID (leaf --guest-leaf) in a tight loop: each one exits to the hypervisor underneath" },
	{ .name = "rdtscp", .param = { GK_RDTSCP },
	  .summary = "RDTSCP in a tight loop: reads the TSC without an exit, the floor for an instruction" },
	{ .name = "nop", .param = { GK_NOP },
	  .summary = "an empty loop: the floor of the measurement itself" },
	{ .name = "hackbench-pipe", .param = { GK_HACKBENCH_PIPE },
	  .summary = "hackbench over pipes: groups of processes passing messages (exits from IPIs, timers, HLT)" },
	{ .name = "hackbench-socket", .param = { GK_HACKBENCH_SOCKET },
	  .summary = "hackbench over UNIX stream sockets: the same with socket wake-ups" },
};

/* ------------------------------------------------------------ what the guest can see */

/*
 * A guest cannot read the hypervisor's exit counters.  It can see the events that cause exits and
 * the time the hypervisor took from it, and that is all this records.
 */
struct hv_view {
	uint64_t steal_ticks;    /* /proc/stat steal: the hypervisor ran something else (USER_HZ ticks) */
	uint64_t timer_irqs;     /* LOC: each re-arms the local timer */
	uint64_t ipis;           /* RES + CAL + TLB received; each was sent by an ICR write or PV hypercall */
	uint64_t idle_entries;   /* cpuidle entries other than polling: HLT */
};

static const char exits_note[] =
	"the guest cannot read the hypervisor's exit counters; what it sees is what causes exits: IPIs (each "
	"sent one is an ICR write or PV send-IPI hypercall), local timer interrupts (each re-arms the timer) "
	"and idle entries (HLT), unless the hypervisor virtualizes or passes them through; steal time is the "
	"time it ran something else";

static uint64_t read_steal(int cpu)
{
	char want[16], tag[16], line[512];
	uint64_t v[8], steal = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	if (cpu < 0)
		snprintf(want, sizeof(want), "cpu");
	else
		snprintf(want, sizeof(want), "cpu%d", cpu);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64, tag, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 9 &&
		    !strcmp(tag, want)) {
			steal = v[7];
			break;
		}
	fclose(f);
	return steal;
}

/* The row's counts, of one CPU's column (its position among the header's CPUn) or of all. */
static uint64_t interrupt_row_sum(const char *p, int ncols, int col)
{
	uint64_t sum = 0;

	for (int c = 0; c < ncols; c++) {
		char *end;
		uint64_t n = strtoull(p, &end, 10);

		if (end == p)
			break;
		p = end;
		if (col < 0 || c == col)
			sum += n;
	}
	return sum;
}

static void read_interrupts(int cpu, struct hv_view *v)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char *line = NULL, *tok, *save;
	size_t cap = 0;
	int ncols = 0, col = -1;

	if (!f)
		return;
	/* The header names the online CPUs' columns: CPU0 CPU1 ... */
	if (getline(&line, &cap, f) > 0)
		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save), ncols++)
			if (cpu >= 0 && !strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu)
				col = ncols;
	while (getline(&line, &cap, f) > 0) {
		const char *p = line + strspn(line, " ");

		if (!strncmp(p, "LOC:", 4))
			v->timer_irqs += interrupt_row_sum(p + 4, ncols, cpu < 0 ? -1 : col);
		else if (!strncmp(p, "RES:", 4) || !strncmp(p, "CAL:", 4) || !strncmp(p, "TLB:", 4))
			v->ipis += interrupt_row_sum(p + 4, ncols, cpu < 0 ? -1 : col);
	}
	free(line);
	fclose(f);
}

static uint64_t read_idle_entries(int cpu)
{
	int first = cpu < 0 ? 0 : cpu, last = cpu < 0 ? (int)sysconf(_SC_NPROCESSORS_CONF) - 1 : cpu;
	uint64_t sum = 0;

	for (int c = first; c <= last; c++)
		for (int k = 0;; k++) {
			char path[128], buf[64];

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", c, k);
			if (kb_read_text(path, buf, sizeof(buf)))
				break;
			if (!strcmp(buf, "POLL"))
				continue;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage", c, k);
			if (!kb_read_text(path, buf, sizeof(buf)))
				sum += strtoull(buf, NULL, 10);
		}
	return sum;
}

/* cpu: one CPU's view, or -1 for the whole machine's. */
static void hv_view_read(int cpu, struct hv_view *v)
{
	memset(v, 0, sizeof(*v));
	v->steal_ticks = read_steal(cpu);
	read_interrupts(cpu, v);
	v->idle_entries = read_idle_entries(cpu);
}

static void hv_view_delta(const struct hv_view *a, const struct hv_view *b, struct hv_view *d)
{
	d->steal_ticks = b->steal_ticks - a->steal_ticks;
	d->timer_irqs = b->timer_irqs - a->timer_irqs;
	d->ipis = b->ipis - a->ipis;
	d->idle_entries = b->idle_entries - a->idle_entries;
}

static void hv_view_add(struct hv_view *sum, const struct hv_view *d)
{
	sum->steal_ticks += d->steal_ticks;
	sum->timer_irqs += d->timer_irqs;
	sum->ipis += d->ipis;
	sum->idle_entries += d->idle_entries;
}

static void hv_view_json(json_object *o, const struct hv_view *v)
{
	kb_json_set_u64(o, "steal_ticks", v->steal_ticks);
	kb_json_set_u64(o, "timer_irqs", v->timer_irqs);
	kb_json_set_u64(o, "ipis", v->ipis);
	kb_json_set_u64(o, "idle_entries", v->idle_entries);
}

/* Facts and checks every guest-side test carries: who is underneath, how time was taken, what the
 * samples saw in all (of the measuring CPU for the loops, of every CPU for hackbench), steal. */
static void record_common(const struct kb_run_ctx *ctx, struct kb_test_result *r, const struct hv_view *seen,
			  double seconds)
{
	json_object *hv = json_object_new_object(), *exits = json_object_new_object();
	json_object *visible = json_object_new_object();
	bool under = ctx->virt && ctx->virt->hypervisor;
	char clocksource[64] = "unknown";
	double steal_pct = seconds > 0 ? (double)seen->steal_ticks / (double)sysconf(_SC_CLK_TCK) / seconds * 100 : 0;

	kb_json_set_bool(hv, "present", under);
	if (under) {
		kb_json_set(hv, "name", ctx->virt->hv_name ? json_object_new_string(ctx->virt->hv_name) : NULL);
		kb_json_set_str(hv, "signature", ctx->virt->hv_signature);
	}
	kb_json_set(r->extra, "hypervisor", hv);
	kb_read_text("/sys/devices/system/clocksource/clocksource0/current_clocksource", clocksource,
		     sizeof(clocksource));
	kb_json_set_str(r->extra, "clocksource", clocksource);
	kb_json_set_bool(exits, "visible", false);
	kb_json_set_str(exits, "note", exits_note);
	kb_json_set(r->extra, "exits", exits);
	hv_view_json(visible, seen);
	kb_json_set(r->extra, "visible", visible);
	kb_json_set(r->extra, "steal_pct", json_object_new_double(steal_pct));
	kb_json_set_str(hv, "from", ctx->virt && ctx->virt->hv_from ? ctx->virt->hv_from : "CPUID 0x40000000");
	kb_test_check(r, "under_hypervisor", 1, 1, 1, under, false,
		      "this machine does not run under a hypervisor (x86: CPUID.1:ECX[31] clear; arm64: neither its device "
		      "tree nor DMI names one): nothing underneath to measure");
	/* /proc/stat counts steal in USER_HZ ticks: below a few percent it is only resolution. */
	kb_test_check(r, "steal_pct", 0, 0, 2, steal_pct, false,
		      "the hypervisor ran other work on these CPUs during the samples: rates include stolen time");
}

/* ------------------------------------------------------------ the measuring thread */

/* Samples are taken in a thread of their own, placed for the test, so kvmbench's thread stays put. */
struct measurer {
	struct kb_run_ctx *ctx;
	kb_sample_fn fn;
	void *arg;
	bool spread;            /* may run on every CPU (hackbench's processes), not only vCPU 0's */
	struct kb_sampling sampling;
	int cpu;                /* the CPU it was pinned to; -1: not pinned */
	int ncpus;              /* CPUs it and its children may run on */
	int err;
	char errmsg[1024];
};

static int allow_every_cpu(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	/* The kernel keeps only the CPUs this process's cpuset allows. */
	if (sched_setaffinity(0, sizeof(set), &set))
		return kb_fail(errno, "allowing the hackbench processes every CPU (sched_setaffinity): %s",
			       strerror(errno));
	return 0;
}

static void *measurer_main(void *arg)
{
	struct measurer *m = arg;
	const struct kb_plan *plan = m->ctx->plan;
	cpu_set_t set;

	if (m->spread) {
		m->err = allow_every_cpu();
	} else if (plan && plan->nvcpus > 0 && plan->vcpu_cpu[0] >= 0) {
		m->err = kb_plan_pin_vcpu_thread(plan, 0);
		m->cpu = plan->vcpu_cpu[0];
	}
	if (!sched_getaffinity(0, sizeof(set), &set))
		m->ncpus = CPU_COUNT(&set);
	if (!m->err)
		m->err = kb_sampler_run(m->ctx, m->fn, m->arg, &m->sampling);
	if (m->err)
		snprintf(m->errmsg, sizeof(m->errmsg), "%s", kb_last_error());
	return NULL;
}

static int measure(struct measurer *m)
{
	pthread_t thread;

	m->cpu = -1;
	if (pthread_create(&thread, NULL, measurer_main, m))
		return kb_fail(EAGAIN, "cannot start the measuring thread");
	pthread_join(thread, NULL);
	/* kb_fail()'s message lives in the thread that failed: carry it over. */
	return m->err ? kb_fail(m->err, "%s", m->errmsg) : 0;
}

/* ------------------------------------------------------------ instruction loops */

struct loop_sample {
	uint64_t iters;
	uint64_t cpu_ns;          /* the thread's CPU time: what the rate is computed from */
	uint64_t wall_ns, tsc;
	long preempted;           /* involuntary context switches: other tasks took the CPU */
	int cpu_begin, cpu_end;
	struct hv_view seen;
};

struct loop_state {
	enum guest_kind kind;
	uint32_t leaf, subleaf;
	uint32_t answer[4];       /* CPUID's registers: shows who answered */
	struct loop_sample *samples;
};

static __attribute__((noinline)) void nop_loop(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long thread_preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nivcsw;
}

/*
 * A sample is timed by the thread's CPU time, the way the original CPUID-rate program timed its loop
 * with clock(): the CPU is not reserved, and time other tasks of this guest take from it belongs to
 * them, not to the instruction.  Wall time and the TSC are kept beside it.
 */
static int loop_sample(void *arg, int slot, uint64_t iters, struct kb_sample_time *out)
{
	struct loop_state *st = arg;
	struct loop_sample s = { .iters = iters, .cpu_begin = sched_getcpu(), .preempted = thread_preemptions() };
	struct hv_view before, after;
	uint64_t w0, w1, c0, c1, t0, t1;
	int err = 0;

	if (slot >= 0)
		hv_view_read(s.cpu_begin, &before);
	w0 = kb_now_ns();
	c0 = thread_cpu_ns();
	t0 = kb_cpu_counter();
	switch (st->kind) {
	case GK_CPUID:
		err = kb_guest_cpuid_loop(iters, st->leaf, st->subleaf, st->answer);
		break;
	case GK_RDTSCP:
		err = kb_guest_rdtscp_loop(iters);
		break;
	default:
		nop_loop(iters);
		break;
	}
	if (err)
		return err;
	t1 = kb_cpu_counter();
	c1 = thread_cpu_ns();
	w1 = kb_now_ns();
	s.cpu_end = sched_getcpu();
	s.preempted = thread_preemptions() - s.preempted;
	s.cpu_ns = c1 - c0;
	s.wall_ns = w1 - w0;
	s.tsc = t1 - t0;
	out->iters = iters;
	out->seconds = (double)s.cpu_ns / 1e9;
	if (slot >= 0) {
		hv_view_read(s.cpu_begin, &after);
		hv_view_delta(&before, &after, &s.seen);
		st->samples[slot] = s;
	}
	return 0;
}

static void loop_record(const struct kb_run_ctx *ctx, struct kb_test_result *r, const struct loop_state *st,
			int n, int pinned)
{
	struct kb_metric *rate = kb_test_metric(r, "rate", "iter/s", true);
	struct kb_metric *cycles = kb_test_metric(r, "cycles", "cycles/iter", false);
	struct kb_metric *ns = kb_test_metric(r, "ns", "ns/iter", false);
	struct hv_view seen = { 0 };
	double tsc = 0, wall = 0, cpu = 0, ghz;
	int migrations = 0;
	long preempted = 0;

	for (int k = 0; k < n; k++) {
		tsc += (double)st->samples[k].tsc;
		wall += (double)st->samples[k].wall_ns;
		cpu += (double)st->samples[k].cpu_ns;
	}
	/* A guest has no reliable way to ask its TSC frequency: the TSC over wall time tells it. */
	ghz = wall > 0 ? tsc / wall : 0;
	r->tsc_khz = (uint32_t)(ghz * 1e6 + 0.5);
	for (int k = 0; k < n; k++) {
		const struct loop_sample *s = &st->samples[k];
		double per_iter = (double)s->cpu_ns / (double)s->iters;
		json_object *o = json_object_new_object();

		kb_metric_push(rate, 1e9 / per_iter);
		kb_metric_push(cycles, per_iter * ghz);
		kb_metric_push(ns, per_iter);
		migrations += s->cpu_begin != s->cpu_end || (pinned >= 0 && s->cpu_begin != pinned);
		preempted += s->preempted;
		hv_view_add(&seen, &s->seen);
		kb_json_set_int(o, "sample", k);
		kb_json_set_u64(o, "iterations", s->iters);
		kb_json_set_u64(o, "cpu_ns", s->cpu_ns);
		kb_json_set_u64(o, "wall_ns", s->wall_ns);
		kb_json_set_u64(o, "tsc_cycles", s->tsc);
		kb_json_set_int(o, "cpu", s->cpu_begin);
		kb_json_set_int(o, "preempted", s->preempted);
		hv_view_json(o, &s->seen);
		json_object_array_add(r->raw, o);
	}
	kb_json_set_str(r->extra, "timed_by", "thread CPU time (CLOCK_THREAD_CPUTIME_ID)");
	kb_json_set(r->extra, "pinned_cpu", pinned >= 0 ? json_object_new_int(pinned) : NULL);
	kb_json_set_int(r->extra, "cpu_migrations", migrations);
	kb_json_set_int(r->extra, "preempted", preempted);
	if (st->kind == GK_CPUID) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < 4; i++)
			json_object_array_add(a, json_object_new_int64(st->answer[i]));
		kb_json_set(r->extra, "cpuid_result", a);
	}
	record_common(ctx, r, &seen, wall / 1e9);
	kb_test_check(r, "cpu_migrations", 0, 0, 0, migrations, false,
		      "the measuring thread changed CPU during a sample: pin it (--pin, --cpus)");
	/* The rate is per CPU second and stays right when other tasks share the CPU; say that they did. */
	kb_test_check(r, "cpu_share", 1, 0.9, 1.01, wall > 0 ? cpu / wall : 0, false,
		      "other tasks of this machine took the measuring CPU for part of the samples "
		      "(see extra.preempted): the rate is per CPU second of the loop, wall time was longer");
}

static int loop_test(struct kb_run_ctx *ctx, const struct kb_test_def *t, struct kb_test_result *r)
{
	struct loop_state st = { .kind = (enum guest_kind)t->param[0], .leaf = (uint32_t)cfg.leaf,
				 .subleaf = (uint32_t)cfg.subleaf };
	struct measurer m = { .ctx = ctx, .fn = loop_sample, .arg = &st };
	int err;

	/* An architecture without the instruction refuses the loop at once: skipped with its reason. */
	err = st.kind == GK_CPUID ? kb_guest_cpuid_loop(0, st.leaf, st.subleaf, st.answer)
		: st.kind == GK_RDTSCP ? kb_guest_rdtscp_loop(0) : 0;
	if (err)
		return err;
	if (st.kind == GK_CPUID) {
		kb_json_set_u64(r->params, "leaf", cfg.leaf);
		kb_json_set_u64(r->params, "subleaf", cfg.subleaf);
	}
	st.samples = kb_xcalloc((size_t)kb_sampler_max_samples(ctx->opts), sizeof(*st.samples));
	err = measure(&m);
	if (!err) {
		r->vcpus = 1;
		r->iterations = m.sampling.iters;
		json_object *exits;

		loop_record(ctx, r, &st, m.sampling.done, m.cpu);
		/* What the architecture says one iteration costs in exits; nothing here can count them. */
		if (json_object_object_get_ex(r->extra, "exits", &exits))
			kb_json_set(exits, "expected_per_iteration", json_object_new_double(t->exits_per_iter));
		kb_sampler_record(ctx->opts, m.sampling.done, r);
	}
	free(st.samples);
	return err;
}

/* ------------------------------------------------------------ hackbench */

/*
 * hackbench's workload, written for kvmbench: per group, 'fds' receivers each own a channel and 'fds'
 * senders write 'loops' messages to every receiver of the group.  Every process is created and
 * waiting before the clock starts; the clock stops when the last one has been reaped.  An iteration
 * is one loop: each sender has sent each receiver of its group one message.
 */
struct hb_sample {
	uint64_t loops, ns, ctxsw;
	struct hv_view seen;
};

struct hackbench {
	bool sockets;
	int groups, fds, nprocs;
	size_t size;
	int *rd, *wr;              /* per channel (group * fds + receiver): the receiver's end, the senders' */
	pid_t *pids;               /* 0: reaped */
	volatile sig_atomic_t *stop;
	struct hb_sample *samples;
};

static char hb_message[HB_MAX_SIZE];

static bool write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static __attribute__((noreturn)) void hb_receive(int fd, uint64_t bytes)
{
	char buf[HB_MAX_SIZE];

	while (bytes) {
		ssize_t n = read(fd, buf, bytes < sizeof(buf) ? (size_t)bytes : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		bytes -= (uint64_t)n;
	}
	_exit(0);
}

static __attribute__((noreturn)) void hb_send(const int *wr, int n, uint64_t loops, size_t size)
{
	for (uint64_t l = 0; l < loops; l++)
		for (int j = 0; j < n; j++)
			if (!write_all(wr[j], hb_message, size))
				_exit(1);
	_exit(0);
}

/* Process i of a sample, in the child: only async-signal-safe calls from here on. */
static __attribute__((noreturn)) void hb_child(const struct hackbench *hb, int i, const int ready[2],
					      const int go[2], uint64_t loops)
{
	int group = i / (2 * hb->fds), role = i % (2 * hb->fds);
	char c = 0;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	close(ready[0]);
	close(go[1]);
	if (write(ready[1], &c, 1) != 1)
		_exit(1);
	close(ready[1]);
	/* Blocks until the parent closes the last write end of 'go'. */
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	if (role < hb->fds)
		hb_receive(hb->rd[group * hb->fds + role], (uint64_t)hb->fds * loops * hb->size);
	hb_send(&hb->wr[group * hb->fds], hb->fds, loops, hb->size);
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

static int hb_open_channels(struct hackbench *hb)
{
	int n = hb->groups * hb->fds;

	for (int i = 0; i < n; i++)
		hb->rd[i] = hb->wr[i] = -1;
	for (int i = 0; i < n; i++) {
		int p[2];

		if (hb->sockets ? socketpair(AF_UNIX, SOCK_STREAM, 0, p) : pipe(p)) {
			int err = kb_fail(errno, "hackbench: %s: %s (lower --hackbench-groups or --hackbench-fds, "
					  "or raise ulimit -n)", hb->sockets ? "socketpair" : "pipe", strerror(errno));

			close_fds(hb->rd, n);
			close_fds(hb->wr, n);
			return err;
		}
		hb->rd[i] = p[0];
		hb->wr[i] = p[1];
	}
	return 0;
}

static void hb_kill_all(struct hackbench *hb)
{
	for (int i = 0; i < hb->nprocs; i++)
		if (hb->pids[i] > 0)
			kill(hb->pids[i], SIGKILL);
	for (int i = 0; i < hb->nprocs; i++)
		if (hb->pids[i] > 0) {
			while (waitpid(hb->pids[i], NULL, 0) < 0 && errno == EINTR)
				;
			hb->pids[i] = 0;
		}
}

/* Reap the children as they finish; one that fails would leave its partners blocked: kill them all. */
static int hb_reap(struct hackbench *hb)
{
	int left = 0;

	for (int i = 0; i < hb->nprocs; i++)
		left += hb->pids[i] > 0;
	while (left) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno == EINTR && !*hb->stop)
			continue;
		if (pid < 0) {
			int err = *hb->stop ? kb_fail(EINTR, "interrupted")
					    : kb_fail(errno, "hackbench: waitpid: %s", strerror(errno));

			hb_kill_all(hb);
			return err;
		}
		for (int i = 0; i < hb->nprocs; i++)
			if (hb->pids[i] == pid) {
				hb->pids[i] = 0;
				left--;
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			hb_kill_all(hb);
			if (*hb->stop)
				return kb_fail(EINTR, "interrupted");
			return kb_fail(EPROTO, "hackbench: a %s process %s %d", hb->sockets ? "socket" : "pipe",
				       WIFEXITED(status) ? "failed with status" : "was killed by signal",
				       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
	}
	return 0;
}

/* Wait until every child has said it is ready; each closes its end after, so EOF means one died. */
static int hb_wait_ready(struct hackbench *hb, int fd)
{
	char buf[256];
	int n = 0;

	while (n < hb->nprocs) {
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return kb_fail(EPROTO, "hackbench: a process ended before it was ready");
		n += (int)got;
	}
	return 0;
}

static int hb_sample(void *arg, int slot, uint64_t loops, struct kb_sample_time *out)
{
	struct hackbench *hb = arg;
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 }, nchan = hb->groups * hb->fds, err;
	struct rusage ru0, ru1;
	struct hv_view before, after;
	uint64_t t0, t1;

	err = hb_open_channels(hb);
	if (err)
		return err;
	if (pipe(ready) || pipe(go)) {
		err = kb_fail(errno, "hackbench: pipe: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < hb->nprocs; i++) {
		pid_t pid = fork();

		if (pid == 0)
			hb_child(hb, i, ready, go, loops);
		if (pid < 0) {
			err = kb_fail(errno, "hackbench: fork: %s (lower --hackbench-groups or --hackbench-fds)",
				      strerror(errno));
			hb_kill_all(hb);
			goto out;
		}
		hb->pids[i] = pid;
	}
	close_fds(&ready[1], 1);
	err = hb_wait_ready(hb, ready[0]);
	if (err) {
		hb_kill_all(hb);
		goto out;
	}
	getrusage(RUSAGE_CHILDREN, &ru0);
	if (slot >= 0)
		hv_view_read(-1, &before);
	t0 = kb_now_ns();
	close_fds(&go[1], 1);
	err = hb_reap(hb);
	t1 = kb_now_ns();
	if (err)
		goto out;
	getrusage(RUSAGE_CHILDREN, &ru1);
	out->iters = loops;
	out->seconds = (double)(t1 - t0) / 1e9;
	if (slot >= 0) {
		struct hb_sample *s = &hb->samples[slot];

		hv_view_read(-1, &after);
		hv_view_delta(&before, &after, &s->seen);
		s->loops = loops;
		s->ns = t1 - t0;
		s->ctxsw = (uint64_t)((ru1.ru_nvcsw - ru0.ru_nvcsw) + (ru1.ru_nivcsw - ru0.ru_nivcsw));
	}
out:
	close_fds(ready, 2);
	close_fds(go, 2);
	close_fds(hb->rd, nchan);
	close_fds(hb->wr, nchan);
	return err;
}

static void hb_record(const struct kb_run_ctx *ctx, struct kb_test_result *r, const struct hackbench *hb, int n,
		      int ncpus)
{
	struct kb_metric *rate = kb_test_metric(r, "rate", "msg/s", true);
	struct kb_metric *ns = kb_test_metric(r, "ns", "ns/msg", false);
	struct kb_metric *time = kb_test_metric(r, "time", "s", false);
	struct kb_metric *ctxsw = kb_test_metric(r, "ctxsw", "switches/msg", false);
	struct kb_metric *ipis = kb_test_metric(r, "ipis", "IPIs/msg", false);
	uint64_t per_loop = (uint64_t)hb->groups * (uint64_t)hb->fds * (uint64_t)hb->fds, switches = 0;
	struct hv_view seen = { 0 };
	double sec = 0, msgs = 0;

	for (int k = 0; k < n; k++) {
		const struct hb_sample *s = &hb->samples[k];
		double m = (double)(s->loops * per_loop), t = (double)s->ns / 1e9;
		json_object *o = json_object_new_object();

		kb_metric_push(rate, m / t);
		kb_metric_push(ns, (double)s->ns / m);
		kb_metric_push(time, t);
		kb_metric_push(ctxsw, (double)s->ctxsw / m);
		kb_metric_push(ipis, (double)s->seen.ipis / m);
		hv_view_add(&seen, &s->seen);
		switches += s->ctxsw;
		sec += t;
		msgs += m;
		kb_json_set_int(o, "sample", k);
		kb_json_set_u64(o, "loops", s->loops);
		kb_json_set_u64(o, "messages", s->loops * per_loop);
		kb_json_set_u64(o, "ns", s->ns);
		kb_json_set_u64(o, "context_switches", s->ctxsw);
		hv_view_json(o, &s->seen);
		json_object_array_add(r->raw, o);
	}
	kb_json_set_str(r->extra, "transport", hb->sockets ? "unix-stream" : "pipe");
	kb_json_set_int(r->extra, "processes", hb->nprocs);
	kb_json_set_int(r->extra, "cpus", ncpus);
	kb_json_set_u64(r->extra, "context_switches", switches);
	if (msgs > 0) {
		json_object *per = json_object_new_object();

		kb_json_set(per, "context_switches", json_object_new_double((double)switches / msgs));
		kb_json_set(per, "ipis", json_object_new_double((double)seen.ipis / msgs));
		kb_json_set(per, "timer_irqs", json_object_new_double((double)seen.timer_irqs / msgs));
		kb_json_set(per, "idle_entries", json_object_new_double((double)seen.idle_entries / msgs));
		kb_json_set(r->extra, "per_message", per);
	}
	record_common(ctx, r, &seen, sec);
}

static int hackbench_test(struct kb_run_ctx *ctx, const struct kb_test_def *t, struct kb_test_result *r)
{
	struct hackbench hb = { .sockets = t->param[0] == GK_HACKBENCH_SOCKET, .groups = cfg.groups, .fds = cfg.fds,
				.size = (size_t)cfg.size, .stop = ctx->stop };
	struct kb_run_opts o = *ctx->opts;
	struct kb_run_ctx c = *ctx;
	struct measurer m = { .ctx = &c, .fn = hb_sample, .arg = &hb, .spread = true };
	int nchan = cfg.groups * cfg.fds, err;

	hb.nprocs = 2 * nchan;
	/* Each channel's two ends stay open here, beside the few descriptors of the run itself. */
	err = kb_hackbench_fit_limits(hb.nprocs, 2 * nchan + 64);
	if (err)
		return err;
	/* --hackbench-loops fixes the work per sample like hackbench's own loop count. */
	o.iterations = cfg.loops ? cfg.loops : ctx->opts->iterations;
	c.opts = &o;
	kb_json_set_int(r->params, "groups", cfg.groups);
	kb_json_set_int(r->params, "fds", cfg.fds);
	kb_json_set_u64(r->params, "loops", o.iterations);
	kb_json_set_int(r->params, "size", cfg.size);
	hb.rd = kb_xcalloc((size_t)nchan, sizeof(int));
	hb.wr = kb_xcalloc((size_t)nchan, sizeof(int));
	hb.pids = kb_xcalloc((size_t)hb.nprocs, sizeof(pid_t));
	hb.samples = kb_xcalloc((size_t)kb_sampler_max_samples(&o), sizeof(*hb.samples));
	err = measure(&m);
	if (!err) {
		r->vcpus = 1;
		r->iterations = m.sampling.iters;
		hb_record(ctx, r, &hb, m.sampling.done, m.ncpus);
		kb_sampler_record(&o, m.sampling.done, r);
	}
	free(hb.rd);
	free(hb.wr);
	free(hb.pids);
	free(hb.samples);
	return err;
}

/* ------------------------------------------------------------ the suite */

static int guest_run(struct kb_run_ctx *ctx, const struct kb_suite *s, const struct kb_test_def *t,
		     struct kb_test_result *r)
{
	if (t->param[0] == GK_HACKBENCH_PIPE || t->param[0] == GK_HACKBENCH_SOCKET)
		return hackbench_test(ctx, t, r);
	return loop_test(ctx, t, r);
}

const struct kb_suite kb_suite_guest = {
	.name = "guest",
	.summary = "the hypervisor underneath this machine, measured from inside it: CPUID (x86), floors, hackbench",
	.tests = tests,
	.ntests = ARRAY_SIZE(tests),
	.opts = opts,
	.nopts = ARRAY_SIZE(opts),
	.cfg = &cfg,
	.side = KB_SIDE_GUEST,
	.run = guest_run,
	/* arm64: the floors and hackbench; CPUID and RDTSCP are skipped with the reason (bench/arch/arm64). */
	.arches = KB_ARCH_X86 | KB_ARCH_ARM64,
};
