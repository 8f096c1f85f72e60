/* machine.h: a ready-to-run benchmark VM: memory layout, long mode, guest image, vCPUs. */
#ifndef KB_MACHINE_H
#define KB_MACHINE_H

#include "kb_abi.h"
#include "kvm.h"

struct kb_machine_cfg {
	int nvcpus;
	uint64_t mem_size;    /* bytes of guest RAM at GPA 0; 0 picks the default */
	bool irqchip;
	bool pvm_emulated;    /* kvm_pvm only: skip the native-execution switch */
	bool user_msr;        /* accesses to MSRs KVM refuses exit to userspace */
	const struct kb_plan *plan;   /* NUMA node for guest memory; NULL: none */
	uint32_t dirty_ring_bytes;    /* per-vCPU dirty ring (KVM_CAP_DIRTY_LOG_RING); 0: none */
};

struct kb_machine {
	struct kb_kvm *kvm;
	struct kb_vm vm;
	int nvcpus;
	struct kb_vcpu *vcpus;
	bool pvm_native;      /* kvm_pvm's native-ring-0 switch is on for every vCPU */
	int fault_vector;     /* vector of the last guest exception reported, or -1 */
	/* Exits kb_machine_call() does not know (a full dirty ring, say) go here first, in the vCPU's
	 * thread: > 0 handled (enter the guest again), 0 not handled (an error), < 0 -errno. */
	int (*exit_hook)(struct kb_machine *m, int vcpu, void *arg);
	void *exit_hook_arg;
};

#define KB_DEFAULT_MEM (64ULL << 20)

int kb_machine_create(struct kb_kvm *kvm, const struct kb_machine_cfg *cfg, struct kb_machine *m);
void kb_machine_destroy(struct kb_machine *m);

struct kb_mailbox *kb_machine_mailbox(struct kb_machine *m, int vcpu);

/*
 * A sixteenth of the watchdog's bound (timeout_ns) in the guest's TSC cycles: how long a guest may
 * go without a sign of life, or wait for an interrupt, before it acts.  The watchdog counts host
 * time, and on a busy host a vCPU thread may wait most of its bound for a CPU.
 */
uint64_t kb_machine_patience_cycles(const struct kb_machine *m, uint64_t timeout_ns);

/* Add a memslot above the base memory (2 MiB-aligned, below KB_PD_MAX + KB_PD_HIGH_MAX GiB) and identity-map it in
 * the guest; before the vCPUs touch it.  Remove it again before its memory is unmapped. */
int kb_machine_add_memory(struct kb_machine *m, struct kb_memslot *s);
int kb_machine_remove_memory(struct kb_machine *m, struct kb_memslot *s);

/*
 * Run the vCPU until the guest makes a call on the channel; return the call
 * number (enum kb_ucall, only KB_UC_NEXT and KB_UC_PRINT come back), or a
 * -errno with a message that says what the guest did: exception with vector
 * and RIP, abort with file:line, triple fault, hang (watchdog), unexpected exit.
 */
int kb_machine_call(struct kb_machine *m, int vcpu, uint64_t timeout_ns);

#endif
