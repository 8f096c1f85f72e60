/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kvm.h: thin, error-checked wrappers around the /dev/kvm ioctl API. */
#ifndef KB_KVM_H
#define KB_KVM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "vmm/kvmstats.h"

enum kb_backend {
	KB_BACKEND_UNKNOWN = 0,
	KB_BACKEND_INTEL,     /* kvm_intel: VMX */
	KB_BACKEND_AMD,       /* kvm_amd: SVM */
	KB_BACKEND_PVM,       /* kvm_pvm: pagetable-based software virtualization */
	KB_BACKEND_ARM64,     /* arm64's KVM (the kvm module itself, VHE or nVHE) */
};

/* kvm_pvm's switch from "emulate ring 0" to "run ring 0 natively" and its identity MSR. */
#define KB_PVM_MSR_ENABLE   0x4b564d10
#define KB_PVM_MSR_IDENT    0x4b564d11
#define KB_PVM_IDENT_VALUE  0x4d5650ULL

#define KB_MAX_CAPS 32

/* Where a guest's CPUID goes: kvm_pvm under an outer hypervisor may never see it (the outer one
 * answers it), and which a host does differs between hosts of the same kind. */
enum kb_guest_cpuid {
	KB_GUEST_CPUID_UNKNOWN = 0,   /* not probed, or the count could not tell */
	KB_GUEST_CPUID_EXITS,         /* it exits to this KVM */
	KB_GUEST_CPUID_BELOW,         /* something underneath this KVM answers it */
};

struct kb_kvm {
	int fd;
	int cap_value[KB_MAX_CAPS];   /* KVM_CHECK_EXTENSION of each of kb_kvm_caps(), probed at open */
	int api_version;
	int vcpu_mmap_size;
	enum kb_backend backend;
	int apic_virt;              /* APICv (VMX) or AVIC (SVM) on: 1, off: 0, cannot tell: -1 */
	int guest_cpuid;            /* enum kb_guest_cpuid: counted by kb_probe_guest_cpuid(), never assumed */
	struct kvm_cpuid2 *supported_cpuid;
};

struct kb_vm {
	struct kb_kvm *kvm;
	int fd;
	uint8_t *mem;
	uint64_t mem_size;
	bool irqchip;
	struct kb_stats stats;
	uint32_t dirty_ring_bytes;   /* per vCPU, once kb_vm_enable_dirty_ring() has run; 0: no ring */
};

/* The watchdog's looks after its bound (kb_vcpu_run()): each this fraction of the bound, at most
 * this many bounds' worth in all. */
#define KB_WATCHDOG_LOOK_DIV 4
#define KB_WATCHDOG_MAX_EXTRA 3

struct kb_vcpu {
	struct kb_vm *vm;
	int id;
	int fd;
	struct kvm_run *run;
	struct kb_stats stats;
	uint32_t tsc_khz;
	uint64_t user_exits;                /* KVM_RUN returns with an exit for userspace, counted */
	struct kvm_dirty_gfn *dirty_ring;   /* mapped when the VM has a dirty ring */
	uint32_t dirty_ring_next;           /* the next entry to harvest (free-running) */
	/* watchdog */
	timer_t timer;
	bool timer_armed;
	volatile int watchdog_fired;
	int watchdog_looks;         /* after a -ETIMEDOUT: the looks of KB_WATCHDOG_LOOK_DIV-th of the bound
	                             * it gave after the bound, in case the thread was only starved */
	int kick_slot;                      /* 1 + its thread's slot for kb_vcpu_kick_all(); 0: none */
};

/* A capability kvmbench relies on, checked once at open. */
struct kb_cap {
	long cap;
	const char *name;
	bool required;
};

const char *kb_backend_name(enum kb_backend b);
/* The module whose parameters are the backend's own (/sys/module/NAME), or NULL: none apart from kvm. */
const char *kb_backend_module(enum kb_backend b);
enum kb_backend kb_backend_detect(void);
/* What to check when the KVM device does not exist: the architecture's own advice. */
const char *kb_kvm_missing_hint(void);
/* Whether the backend virtualizes the local APIC in hardware (APICv, AVIC): 1, 0, or -1 unknown. */
int kb_apic_virt_detect(enum kb_backend b);

int kb_kvm_open(struct kb_kvm *kvm, const char *path);
void kb_kvm_close(struct kb_kvm *kvm);
int kb_kvm_cap(struct kb_kvm *kvm, long cap);
const struct kb_cap *kb_kvm_caps(unsigned int *n);
/* Whether KVM offers the guest CPUID leaf 'leaf' (subleaf 0) register 'reg' (0 eax .. 3 edx) bit
 * 'bit'; always false on an architecture without CPUID. */
bool kb_kvm_guest_cpuid_bit(const struct kb_kvm *kvm, uint32_t leaf, int reg, int bit);

/* mem_node >= 0 binds guest memory to that NUMA node before the memory is touched. */
int kb_vm_create(struct kb_kvm *kvm, struct kb_vm *vm, uint64_t mem_size, bool irqchip, int mem_node);
void kb_vm_destroy(struct kb_vm *vm);

int kb_vcpu_create(struct kb_vm *vm, int id, struct kb_vcpu *vcpu);
void kb_vcpu_destroy(struct kb_vcpu *vcpu);
int kb_vcpu_set_msr(struct kb_vcpu *vcpu, uint32_t index, uint64_t value);
int kb_vcpu_get_msr(struct kb_vcpu *vcpu, uint32_t index, uint64_t *value);
/* A feature MSR of KVM itself (KVM_GET_MSRS on /dev/kvm: what a vCPU is offered, e.g. ARCH_CAPABILITIES). */
int kb_kvm_feature_msr(struct kb_kvm *kvm, uint32_t index, uint64_t *value);

/*
 * Enter the guest once, bounded by the watchdog.  Returns 0 when KVM_RUN
 * returned normally (inspect vcpu->run->exit_reason), -ETIMEDOUT when the
 * watchdog stopped a guest that did not exit in time, -EINTR when a signal
 * interrupted it and the stop flag (kb_vcpu_set_stop_flag()) is set, or
 * another -errno.  Other signals only interrupt KVM_RUN, which is entered again.
 */
int kb_vcpu_run(struct kb_vcpu *vcpu, uint64_t timeout_ns);
/* The flag SIGINT/SIGTERM set: an interrupted KVM_RUN ends with -EINTR once it is set. */
void kb_vcpu_set_stop_flag(volatile sig_atomic_t *flag);
/* Interrupt the KVM_RUN of every vCPU thread, so a stop request (the flag above, set first) is
 * seen at once even by a guest that never exits.  Async-signal-safe: SIGINT's handler calls it. */
void kb_vcpu_kick_all(void);

/* Describe the vCPU's state (exit reason, RIP, key registers) for an error message. */
void kb_vcpu_describe(struct kb_vcpu *vcpu, char *buf, size_t size);
const char *kb_exit_reason_name(uint32_t reason);

/* Install the watchdog's signal handler; once per process. */
int kb_watchdog_init(void);

/*
 * Memslots beyond slot 0 (the machine's base memory): 'hva' is memory the caller mapped and
 * keeps until the slot is destroyed.  Each call returns 0 or -errno with a kb_fail() message.
 */
struct kb_memslot {
	uint32_t id;
	uint64_t gpa;
	uint64_t size;
	void *hva;
	uint32_t flags;               /* KVM_MEM_LOG_DIRTY_PAGES, ... */
};

int kb_memslot_create(struct kb_vm *vm, struct kb_memslot *s);
int kb_memslot_set_flags(struct kb_vm *vm, struct kb_memslot *s, uint32_t flags);
int kb_memslot_destroy(struct kb_vm *vm, struct kb_memslot *s);

/* Dirty logging through bitmaps: one bit per 4 KiB page of the slot, (size / 4 KiB + 63) / 64 words. */
int kb_vm_enable_manual_dirty_protect(struct kb_vm *vm, uint64_t flags);
int kb_memslot_get_dirty_log(struct kb_vm *vm, const struct kb_memslot *s, uint64_t *bitmap);
int kb_memslot_clear_dirty_log(struct kb_vm *vm, const struct kb_memslot *s, uint64_t *bitmap);

/* Dirty logging through per-vCPU rings: the capability that enables them on this KVM,
 * KVM_CAP_DIRTY_LOG_RING (x86), else KVM_CAP_DIRTY_LOG_RING_ACQ_REL (arm64 has only it: the harvest
 * below takes entries with acquire and gives them back with release, as it requires), or 0 when
 * neither; *max_bytes the largest ring it allows. */
long kb_kvm_dirty_ring_cap(struct kb_kvm *kvm, int *max_bytes);
const char *kb_dirty_ring_cap_name(long cap);
/* Enabled before the vCPUs are created with that capability, 'bytes' a power of two; each vCPU
 * created afterwards maps its ring. */
int kb_vm_enable_dirty_ring(struct kb_vm *vm, long ring_cap, uint32_t bytes);
/* Collect the vCPU's dirty entries (slot id, page offset in the slot), marking them for reset;
 * returns how many.  Only the thread that owns the ring may call it. */
typedef void (*kb_dirty_gfn_fn)(uint32_t slot, uint64_t offset, void *arg);
uint32_t kb_vcpu_harvest_dirty_ring(struct kb_vcpu *vcpu, kb_dirty_gfn_fn fn, void *arg);
/* Give harvested entries back to KVM, which write-protects their pages again. */
int kb_vm_reset_dirty_rings(struct kb_vm *vm);

#endif
