/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kvm.c: open /dev/kvm, create VMs, memslots and vCPUs; run a vCPU under a watchdog (arch parts: arch/). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/kb.h"
#include "vmm/arch.h"
#include "vmm/cpuarch.h"
#include "vmm/kvm.h"
#include "vmm/membind.h"

#define KB_WATCHDOG_SIGNAL (SIGRTMIN + 1)

/* The threads that run vCPUs, for kb_vcpu_kick_all(); a slot is taken with the vCPU's watchdog
 * timer, by its thread, and given back when the vCPU is destroyed. */
static pid_t kick_tids[512];

const char *kb_backend_name(enum kb_backend b)
{
	switch (b) {
	case KB_BACKEND_INTEL: return "kvm_intel";
	case KB_BACKEND_AMD: return "kvm_amd";
	case KB_BACKEND_PVM: return "kvm_pvm";
	case KB_BACKEND_ARM64: return "kvm (arm64)";
	default: return "unknown";
	}
}

const char *kb_backend_module(enum kb_backend b)
{
	/* arm64's KVM is the kvm module itself (usually built in): no vendor module of its own. */
	return b == KB_BACKEND_ARM64 || b == KB_BACKEND_UNKNOWN ? NULL : kb_backend_name(b);
}

const char *kb_arch_name(enum kb_arch a)
{
	return a == KB_ARCH_X86 ? "x86" : a == KB_ARCH_ARM64 ? "arm64" : "?";
}

int kb_kvm_cap(struct kb_kvm *kvm, long cap)
{
	const struct kb_cap *caps;
	unsigned int ncaps;
	int r;

	/* The table's capabilities were probed once at open, where a failing probe is an error. */
	caps = kb_kvm_caps(&ncaps);
	for (unsigned int i = 0; i < ncaps && i < KB_MAX_CAPS; i++)
		if (caps[i].cap == cap)
			return kvm->cap_value[i];
	r = ioctl(kvm->fd, KVM_CHECK_EXTENSION, cap);
	return r < 0 ? 0 : r;
}

int kb_kvm_open(struct kb_kvm *kvm, const char *path)
{
	const struct kb_cap *caps;
	unsigned int ncaps;
	int err;

	memset(kvm, 0, sizeof(*kvm));
	kvm->fd = open(path, O_RDWR | O_CLOEXEC);
	if (kvm->fd < 0) {
		err = errno;
		if (err == ENOENT)
			return kb_fail(err, "%s: no such device (is KVM enabled? %s)", path, kb_kvm_missing_hint());
		if (err == EACCES || err == EPERM)
			return kb_fail(err, "%s: permission denied (add your user to group 'kvm', the group that owns it "
				       "on Debian: usermod -aG kvm USER, then log in again; kvmbench needs no root)", path);
		return kb_fail(err, "%s: %s", path, strerror(err));
	}
	kvm->api_version = ioctl(kvm->fd, KVM_GET_API_VERSION, NULL);
	if (kvm->api_version < 0) {
		err = kb_fail(errno, "%s: KVM_GET_API_VERSION failed: %s (is it a KVM device? kvmbench needs KVM API version %d)",
			      path, strerror(errno), KVM_API_VERSION);
		goto fail;
	}
	if (kvm->api_version != KVM_API_VERSION) {
		err = kb_fail(EINVAL, "%s: KVM API version %d, kvmbench needs %d", path,
			      kvm->api_version, KVM_API_VERSION);
		goto fail;
	}
	caps = kb_kvm_caps(&ncaps);
	if (ncaps > KB_MAX_CAPS) {
		err = kb_fail(E2BIG, "internal error: %u capabilities to probe, room for %d", ncaps, KB_MAX_CAPS);
		goto fail;
	}
	for (unsigned int i = 0; i < ncaps; i++) {
		int r = ioctl(kvm->fd, KVM_CHECK_EXTENSION, caps[i].cap);

		/* A probe that fails says nothing about the capability: an error, not "absent". */
		if (r < 0) {
			err = kb_fail(errno, "%s: KVM_CHECK_EXTENSION %s: %s", path, caps[i].name, strerror(errno));
			goto fail;
		}
		if (!r && caps[i].required) {
			err = kb_fail(ENOTSUP, "%s: capability %s is absent (kvmbench needs Linux 5.14 or newer)",
				      path, caps[i].name);
			goto fail;
		}
		kvm->cap_value[i] = r;
	}
	kvm->vcpu_mmap_size = ioctl(kvm->fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if (kvm->vcpu_mmap_size < (int)sizeof(struct kvm_run)) {
		err = kb_fail(EINVAL, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		goto fail;
	}
	err = kb_arch_kvm_open(kvm);
	if (err)
		goto fail;
	kvm->backend = kb_backend_detect();
	kvm->apic_virt = kb_apic_virt_detect(kvm->backend);
	return 0;
fail:
	close(kvm->fd);
	kvm->fd = -1;
	return err;
}

void kb_kvm_close(struct kb_kvm *kvm)
{
	if (kvm->fd >= 0)
		close(kvm->fd);
	kb_arch_kvm_close(kvm);
	memset(kvm, 0, sizeof(*kvm));
	kvm->fd = -1;
}

int kb_vm_create(struct kb_kvm *kvm, struct kb_vm *vm, uint64_t mem_size, bool irqchip, int mem_node)
{
	struct kvm_userspace_memory_region region;
	int err;

	memset(vm, 0, sizeof(*vm));
	vm->kvm = kvm;
	vm->stats.fd = -1;
	vm->fd = ioctl(kvm->fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return kb_fail(errno, "KVM_CREATE_VM: %s", strerror(errno));
	if (irqchip) {
		if (ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0)) {
			err = kb_fail(errno, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
			goto fail;
		}
		vm->irqchip = true;
	}
	vm->mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		err = kb_fail(errno, "guest memory: mmap of %llu MiB failed: %s",
			      (unsigned long long)(mem_size >> 20), strerror(errno));
		goto fail;
	}
	vm->mem_size = mem_size;
	err = kb_mem_bind_node(vm->mem, mem_size, mem_node);
	if (err)
		goto fail;
	region = (struct kvm_userspace_memory_region){
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = mem_size,
		.userspace_addr = (uintptr_t)vm->mem,
	};
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &region)) {
		err = kb_fail(errno, "KVM_SET_USER_MEMORY_REGION (slot 0, %llu MiB): %s",
			      (unsigned long long)(mem_size >> 20), strerror(errno));
		goto fail;
	}
	err = kb_stats_open(vm->fd, &vm->stats);
	if (err)
		goto fail;
	return 0;
fail:
	kb_vm_destroy(vm);
	return err;
}

void kb_vm_destroy(struct kb_vm *vm)
{
	kb_stats_close(&vm->stats);
	if (vm->fd >= 0)
		close(vm->fd);
	if (vm->mem)
		munmap(vm->mem, vm->mem_size);
	vm->fd = -1;
	vm->mem = NULL;
}

int kb_vcpu_create(struct kb_vm *vm, int id, struct kb_vcpu *vcpu)
{
	struct kb_kvm *kvm = vm->kvm;
	int err;

	memset(vcpu, 0, sizeof(*vcpu));
	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->stats.fd = -1;
	vcpu->fd = ioctl(vm->fd, KVM_CREATE_VCPU, id);
	if (vcpu->fd < 0)
		return kb_fail(errno, "KVM_CREATE_VCPU %d: %s", id, strerror(errno));
	vcpu->run = mmap(NULL, kvm->vcpu_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	if (vcpu->run == MAP_FAILED) {
		vcpu->run = NULL;
		err = kb_fail(errno, "vCPU %d: mmap of kvm_run failed: %s", id, strerror(errno));
		goto fail;
	}
	err = kb_arch_vcpu_init(vcpu);
	if (err)
		goto fail;
	err = kb_stats_open(vcpu->fd, &vcpu->stats);
	if (err)
		goto fail;
	if (vm->dirty_ring_bytes) {
		vcpu->dirty_ring = mmap(NULL, vm->dirty_ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd,
					KVM_DIRTY_LOG_PAGE_OFFSET * sysconf(_SC_PAGESIZE));
		if (vcpu->dirty_ring == MAP_FAILED) {
			vcpu->dirty_ring = NULL;
			err = kb_fail(errno, "vCPU %d: mmap of its dirty ring failed: %s", id, strerror(errno));
			goto fail;
		}
	}
	return 0;
fail:
	kb_vcpu_destroy(vcpu);
	return err;
}

void kb_vcpu_destroy(struct kb_vcpu *vcpu)
{
	if (vcpu->timer_armed)
		timer_delete(vcpu->timer);
	vcpu->timer_armed = false;
	if (vcpu->kick_slot)
		__atomic_store_n(&kick_tids[vcpu->kick_slot - 1], 0, __ATOMIC_RELEASE);
	vcpu->kick_slot = 0;
	kb_stats_close(&vcpu->stats);
	if (vcpu->dirty_ring)
		munmap(vcpu->dirty_ring, vcpu->vm->dirty_ring_bytes);
	vcpu->dirty_ring = NULL;
	if (vcpu->run)
		munmap(vcpu->run, vcpu->vm->kvm->vcpu_mmap_size);
	if (vcpu->fd >= 0)
		close(vcpu->fd);
	vcpu->run = NULL;
	vcpu->fd = -1;
}

/* The vCPU this thread is running, so the signal handler can stop it. */
static __thread struct kb_vcpu *running_vcpu;
/* Set when the user asked the run to stop (SIGINT, SIGTERM): then an interrupted KVM_RUN ends. */
static volatile sig_atomic_t *stop_flag;

static void watchdog_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	/* Only this vCPU's own timer is the watchdog.  The same signal number from anywhere else
	 * (kill -s RTMIN+1) merely interrupts KVM_RUN, which kb_vcpu_run() then enters again. */
	if (running_vcpu && si->si_code == SI_TIMER && si->si_value.sival_ptr == running_vcpu) {
		running_vcpu->watchdog_fired = 1;
		/* Makes a KVM_RUN that is about to start return at once: no lost wake-up. */
		running_vcpu->run->immediate_exit = 1;
	} else if (running_vcpu && stop_flag && *stop_flag) {
		/* kb_vcpu_kick_all(): the same for a stop request. */
		running_vcpu->run->immediate_exit = 1;
	}
}

void kb_vcpu_kick_all(void)
{
	pid_t pid = getpid();

	for (size_t i = 0; i < ARRAY_SIZE(kick_tids); i++) {
		pid_t tid = __atomic_load_n(&kick_tids[i], __ATOMIC_ACQUIRE);

		if (tid)
			syscall(SYS_tgkill, pid, tid, KB_WATCHDOG_SIGNAL);
	}
}

static void kick_register(struct kb_vcpu *vcpu, pid_t tid)
{
	for (size_t i = 0; i < ARRAY_SIZE(kick_tids) && !vcpu->kick_slot; i++) {
		pid_t none = 0;

		if (__atomic_compare_exchange_n(&kick_tids[i], &none, tid, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			vcpu->kick_slot = (int)i + 1;
	}
}

int kb_watchdog_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = watchdog_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: KVM_RUN must come back with EINTR. */
	if (sigaction(KB_WATCHDOG_SIGNAL, &sa, NULL))
		return kb_fail(errno, "installing the watchdog signal handler: %s", strerror(errno));
	return 0;
}

void kb_vcpu_set_stop_flag(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

static int watchdog_arm(struct kb_vcpu *vcpu, uint64_t timeout_ns)
{
	struct itimerspec its = { 0 };

	/* Created on first use, by the thread that runs this vCPU: the signal must reach it. */
	if (!vcpu->timer_armed) {
		struct sigevent sev;

		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = KB_WATCHDOG_SIGNAL;
		sev.sigev_value.sival_ptr = vcpu;
		sev._sigev_un._tid = gettid();
		if (timer_create(CLOCK_MONOTONIC, &sev, &vcpu->timer))
			return kb_fail(errno, "vCPU %d: creating the watchdog timer: %s", vcpu->id, strerror(errno));
		vcpu->timer_armed = true;
		kick_register(vcpu, sev._sigev_un._tid);
	}
	its.it_value.tv_sec = timeout_ns / 1000000000ULL;
	its.it_value.tv_nsec = timeout_ns % 1000000000ULL;
	if (timer_settime(vcpu->timer, 0, &its, NULL))
		return kb_fail(errno, "vCPU %d: arming the watchdog: %s", vcpu->id, strerror(errno));
	return 0;
}

static void watchdog_disarm(struct kb_vcpu *vcpu)
{
	struct itimerspec its = { 0 };

	timer_settime(vcpu->timer, 0, &its, NULL);
}

/* The time this thread has waited, runnable, for a CPU (the second field of its schedstat), in ns;
 * false when the kernel does not tell (no CONFIG_SCHED_INFO). */
static bool runqueue_wait_ns(uint64_t *wait)
{
	char buf[96];
	unsigned long long cpu, w;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &cpu, &w) != 2)
		return false;
	*wait = w;
	return true;
}

/*
 * A watchdog that fired may have caught a thread that was starved, not a guest that hung: on a busy
 * host a vCPU thread can wait for a CPU longer than --timeout.  So the guest gets a look of a quarter
 * of the bound more; if its thread spent over three quarters of that look waiting for a CPU (it ran
 * for less than a quarter: a host busier than 4 runnable threads a CPU), another look, up to three
 * times the bound in all.  A hung guest spins on its CPU or sleeps in HLT: on a host less busy than
 * that it is stopped a quarter of the bound after the bound.  Nothing of this is on the fast path.
 */
static bool starved_look(uint64_t timeout_ns, int *looks, uint64_t *wait_at, uint64_t *look_ns)
{
	uint64_t wait, look = timeout_ns / KB_WATCHDOG_LOOK_DIV;

	if (!look || !runqueue_wait_ns(&wait))
		return false;
	if (*looks > 0 && wait - *wait_at <= look / 4 * 3)
		return false;   /* the last look was not starved: a hang */
	if (*looks >= KB_WATCHDOG_MAX_EXTRA * KB_WATCHDOG_LOOK_DIV)
		return false;
	(*looks)++;
	*wait_at = wait;
	*look_ns = look;
	return true;
}

int kb_vcpu_run(struct kb_vcpu *vcpu, uint64_t timeout_ns)
{
	uint64_t deadline = kb_now_ns() + timeout_ns, left = timeout_ns, now, wait_at = 0;
	int r, err, looks = 0;

	running_vcpu = vcpu;
	vcpu->watchdog_fired = 0;
	for (;;) {
		vcpu->run->immediate_exit = 0;
		/* A stop request whose kick came before the line above would otherwise wait for the
		 * guest's next exit. */
		if (stop_flag && *stop_flag)
			return -EINTR;
		err = watchdog_arm(vcpu, left);
		if (err)
			return err;
		r = ioctl(vcpu->fd, KVM_RUN, NULL);
		err = r < 0 ? errno : 0;
		if (!r)
			vcpu->user_exits++;
		watchdog_disarm(vcpu);
		vcpu->run->immediate_exit = 0;
		if (vcpu->watchdog_fired) {
			if (!starved_look(timeout_ns, &looks, &wait_at, &left)) {
				vcpu->watchdog_looks = looks;
				return -ETIMEDOUT;
			}
			vcpu->watchdog_fired = 0;
			deadline = kb_now_ns() + left;
			continue;
		}
		if (err != EINTR)
			break;
		if (stop_flag && *stop_flag)
			return -EINTR;
		/* Any other signal (job control, a stray one, a debugger's) only interrupted the
		 * guest: enter it again, still bounded by the same deadline. */
		now = kb_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		left = deadline - now;
	}
	if (err)
		return kb_fail(err, "vCPU %d: KVM_RUN: %s", vcpu->id, strerror(err));
	return 0;
}

const char *kb_exit_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[KVM_EXIT_UNKNOWN] = "UNKNOWN", [KVM_EXIT_EXCEPTION] = "EXCEPTION",
		[KVM_EXIT_IO] = "IO", [KVM_EXIT_HYPERCALL] = "HYPERCALL",
		[KVM_EXIT_DEBUG] = "DEBUG", [KVM_EXIT_HLT] = "HLT",
		[KVM_EXIT_MMIO] = "MMIO", [KVM_EXIT_IRQ_WINDOW_OPEN] = "IRQ_WINDOW_OPEN",
		[KVM_EXIT_SHUTDOWN] = "SHUTDOWN (triple fault)", [KVM_EXIT_FAIL_ENTRY] = "FAIL_ENTRY",
		[KVM_EXIT_INTR] = "INTR", [KVM_EXIT_SET_TPR] = "SET_TPR",
		[KVM_EXIT_TPR_ACCESS] = "TPR_ACCESS", [KVM_EXIT_INTERNAL_ERROR] = "INTERNAL_ERROR",
		[KVM_EXIT_SYSTEM_EVENT] = "SYSTEM_EVENT", [KVM_EXIT_X86_RDMSR] = "X86_RDMSR",
		[KVM_EXIT_X86_WRMSR] = "X86_WRMSR", [KVM_EXIT_DIRTY_RING_FULL] = "DIRTY_RING_FULL",
	};

	if (reason < ARRAY_SIZE(names) && names[reason])
		return names[reason];
	return "unrecognised";
}

void kb_vcpu_describe(struct kb_vcpu *vcpu, char *buf, size_t size)
{
	char regs[320];
	int err = kb_arch_vcpu_regs(vcpu, regs, sizeof(regs));

	if (err)
		snprintf(buf, size, "vCPU %d: registers unavailable: %s", vcpu->id, strerror(-err));
	else
		snprintf(buf, size, "vCPU %d: last exit %s (%u); %s", vcpu->id,
			 kb_exit_reason_name(vcpu->run->exit_reason), vcpu->run->exit_reason, regs);
}

/* ---- memslots beyond slot 0, dirty logging ---- */

static int set_region(struct kb_vm *vm, const struct kb_memslot *s, uint64_t size, uint32_t flags, const char *what)
{
	struct kvm_userspace_memory_region region = {
		.slot = s->id,
		.flags = flags,
		.guest_phys_addr = s->gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)s->hva,
	};

	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &region))
		return kb_fail(errno, "KVM_SET_USER_MEMORY_REGION (%s slot %u, GPA 0x%llx, %llu MiB): %s", what, s->id,
			       (unsigned long long)s->gpa, (unsigned long long)(s->size >> 20), strerror(errno));
	return 0;
}

int kb_memslot_create(struct kb_vm *vm, struct kb_memslot *s)
{
	return set_region(vm, s, s->size, s->flags, "creating");
}

int kb_memslot_set_flags(struct kb_vm *vm, struct kb_memslot *s, uint32_t flags)
{
	int err = set_region(vm, s, s->size, flags, flags & KVM_MEM_LOG_DIRTY_PAGES ? "logging dirty pages of" :
			     "changing the flags of");

	if (!err)
		s->flags = flags;
	return err;
}

int kb_memslot_destroy(struct kb_vm *vm, struct kb_memslot *s)
{
	/* A size of 0 deletes the slot. */
	return set_region(vm, s, 0, 0, "deleting");
}

int kb_vm_enable_manual_dirty_protect(struct kb_vm *vm, uint64_t flags)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, .args = { flags } };

	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap))
		return kb_fail(errno, "KVM_ENABLE_CAP(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, 0x%llx): %s",
			       (unsigned long long)flags, strerror(errno));
	return 0;
}

int kb_memslot_get_dirty_log(struct kb_vm *vm, const struct kb_memslot *s, uint64_t *bitmap)
{
	struct kvm_dirty_log log = { .slot = s->id, .dirty_bitmap = bitmap };

	if (ioctl(vm->fd, KVM_GET_DIRTY_LOG, &log))
		return kb_fail(errno, "KVM_GET_DIRTY_LOG (slot %u): %s", s->id, strerror(errno));
	return 0;
}

int kb_memslot_clear_dirty_log(struct kb_vm *vm, const struct kb_memslot *s, uint64_t *bitmap)
{
	struct kvm_clear_dirty_log log = {
		.slot = s->id,
		.num_pages = (uint32_t)(s->size / 4096),
		.first_page = 0,
		.dirty_bitmap = bitmap,
	};

	if (ioctl(vm->fd, KVM_CLEAR_DIRTY_LOG, &log))
		return kb_fail(errno, "KVM_CLEAR_DIRTY_LOG (slot %u, %u pages): %s", s->id, log.num_pages,
			       strerror(errno));
	return 0;
}

long kb_kvm_dirty_ring_cap(struct kb_kvm *kvm, int *max_bytes)
{
	static const long caps[] = { KVM_CAP_DIRTY_LOG_RING, KVM_CAP_DIRTY_LOG_RING_ACQ_REL };

	for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
		int bytes = kb_kvm_cap(kvm, caps[i]);

		if (bytes > 0) {
			*max_bytes = bytes;
			return caps[i];
		}
	}
	*max_bytes = 0;
	return 0;
}

const char *kb_dirty_ring_cap_name(long cap)
{
	return cap == KVM_CAP_DIRTY_LOG_RING_ACQ_REL ? "KVM_CAP_DIRTY_LOG_RING_ACQ_REL" : "KVM_CAP_DIRTY_LOG_RING";
}

int kb_vm_enable_dirty_ring(struct kb_vm *vm, long ring_cap, uint32_t bytes)
{
	struct kvm_enable_cap cap = { .cap = (uint32_t)ring_cap, .args = { bytes } };

	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap))
		return kb_fail(errno, "KVM_ENABLE_CAP(%s, %u bytes): %s", kb_dirty_ring_cap_name(ring_cap), bytes,
			       strerror(errno));
	vm->dirty_ring_bytes = bytes;
	return 0;
}

uint32_t kb_vcpu_harvest_dirty_ring(struct kb_vcpu *vcpu, kb_dirty_gfn_fn fn, void *arg)
{
	uint32_t n = vcpu->vm->dirty_ring_bytes / sizeof(struct kvm_dirty_gfn), count = 0;

	if (!vcpu->dirty_ring)
		return 0;
	for (;;) {
		struct kvm_dirty_gfn *e = &vcpu->dirty_ring[vcpu->dirty_ring_next % n];

		/* KVM publishes an entry by setting DIRTY last; take it back by setting RESET. */
		if (!(__atomic_load_n(&e->flags, __ATOMIC_ACQUIRE) & KVM_DIRTY_GFN_F_DIRTY))
			break;
		fn(e->slot, e->offset, arg);
		__atomic_store_n(&e->flags, KVM_DIRTY_GFN_F_RESET, __ATOMIC_RELEASE);
		vcpu->dirty_ring_next++;
		count++;
	}
	return count;
}

int kb_vm_reset_dirty_rings(struct kb_vm *vm)
{
	int r = ioctl(vm->fd, KVM_RESET_DIRTY_RINGS, 0);

	if (r < 0)
		return kb_fail(errno, "KVM_RESET_DIRTY_RINGS: %s", strerror(errno));
	return r;
}
