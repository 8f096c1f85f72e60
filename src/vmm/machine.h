/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.h: a ready-to-run benchmark VM: memory layout, long mode, guest image, vCPUs. */
#ifndef KB_MACHINE_H
#define KB_MACHINE_H

#include "kb_abi.h"
#include "vmm/devices.h"
#include "vmm/kvm.h"

/* The guest's PMU (run --vpmu).  HOST: whatever KVM_GET_SUPPORTED_CPUID offers, as QEMU's
 * -cpu host; ON: the same, and the machine refuses to be built when KVM offers no PMU; OFF: the
 * vPMU disabled (KVM_CAP_PMU_CAPABILITY) and the PMU's CPUID leaves zeroed. */
enum kb_vpmu { KB_VPMU_HOST, KB_VPMU_ON, KB_VPMU_OFF };

/* The guest's EFER against the host's (run --guest-efer).  SAME: SCE set, as the host's (a 64-bit
 * Linux host makes system calls with SYSCALL, so its EFER.SCE is 1); DIFFER: SCE clear, which makes
 * KVM restore the host's EFER on the way back to userspace (on VMX: the user-return MSR path). */
enum kb_guest_efer { KB_GUEST_EFER_SAME, KB_GUEST_EFER_DIFFER };

/* The guest's pages over the memory suites' test memory (run --guest-page).  4K: what the KVM
 * selftests map (their default guest mode), page tables in memslots of their own; 2M: 2 MiB pages. */
enum kb_guest_page { KB_GUEST_PAGE_4K, KB_GUEST_PAGE_2M };

/* Memslots holding the 4 KiB page tables of test memory, above what the guest maps (270 GiB). */
#define KB_PT_SLOTS 64
#define KB_PT_SLOT_ID0 200
#define KB_PT_GPA (((uint64_t)KB_PD_MAX + KB_PD_HIGH_MAX) << 30)

struct kb_machine_cfg {
	int nvcpus;
	uint64_t mem_size;    /* bytes of guest RAM at GPA 0; 0 picks the default */
	bool irqchip;
	bool pvm_emulated;    /* kvm_pvm only: skip the native-execution switch */
	int vpmu;             /* enum kb_vpmu */
	int guest_efer;       /* enum kb_guest_efer */
	int guest_page;       /* enum kb_guest_page, for memory added with kb_machine_add_memory() */
	bool user_msr;        /* accesses to MSRs KVM refuses exit to userspace */
	int mem_node;                 /* NUMA node for guest memory; -1: none */
	uint32_t dirty_ring_bytes;    /* per-vCPU dirty ring (kb_kvm_dirty_ring_cap()); 0: none */
	struct kb_ioeventfd ioeventfd;   /* writes KVM completes itself (fd unused); len 0: none */
	const char *capture_dir;      /* run --capture: a failing exit's full state is written here; NULL: not */
	const char *label;            /* what will run on the machine ("dirty-log/get"), for a capture; NULL: ? */
};

/* The PMU a guest sees. */
struct kb_guest_pmu {
	int version;          /* Intel: architectural PMU version (CPUID 0xA); AMD: 2 with PerfMonV2, else 1; 0: none */
	int counters;         /* general-purpose counters */
	const char *off_by;   /* why there are none, or NULL */
};

/* The PMU a guest built with --vpmu 'vpmu' (enum kb_vpmu) sees on this KVM, without building one (arch/). */
void kb_guest_pmu_describe(struct kb_kvm *kvm, int vpmu, struct kb_guest_pmu *p);

struct kb_machine {
	struct kb_kvm *kvm;
	struct kb_vm vm;
	int nvcpus;
	struct kb_vcpu *vcpus;
	bool pvm_native;      /* kvm_pvm's native-ring-0 switch is on for every vCPU */
	int fault_vector;     /* vector of the last guest exception reported, or -1 */
	int guest_page;       /* enum kb_guest_page */
	struct kb_memslot pt[KB_PT_SLOTS];   /* page-table memslots (4K guest pages) */
	int npt;
	struct kb_ioeventfd ioeventfd;   /* registered from the cfg's; fd -1: none */
	/* Exits kb_machine_call() does not know (a full dirty ring, say) go here first, in the vCPU's
	 * thread: > 0 handled (enter the guest again), 0 not handled (an error), < 0 -errno. */
	int (*exit_hook)(struct kb_machine *m, int vcpu, void *arg);
	void *exit_hook_arg;
	const char *capture_dir;      /* from the cfg */
	char capture_label[128];      /* what runs on the machine ("dirty-log/get sample 3"), for a capture */
	int nvcpus_planned;           /* the cfg's vCPUs, while they are being created */
	/* In-kernel interrupt-controller devices the arch made (arm64: the vGICv3, its ITS); -1: none. */
	int irqchip_fd[2];
	char irqchip_note[160];       /* why one is missing ("no ITS: ..."), or "" */
};

/* The vCPU stat the call channel itself adds to once per call (arm64: its MMIO doorbell counts in
 * mmio_exit_user), to take off as the channel's own; NULL where it adds to none a test checks (arch/). */
extern const char *const kb_machine_ucall_stat;

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
