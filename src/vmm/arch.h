/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch.h: what the generic VMM (kvm.c, machine.c) asks of its architecture's code, src/vmm/arch/<arch>/. */
#ifndef KB_VMM_ARCH_H
#define KB_VMM_ARCH_H

#include <stddef.h>
#include <stdint.h>

/* Declared, not included: kvm.c and machine.c include this header, so it includes neither. */
struct kb_kvm;
struct kb_vcpu;
struct kb_machine;
struct kb_machine_cfg;

/*
 * Each architecture implements every function below, and also the public functions of kvm.h
 * that differ between architectures: kb_kvm_caps() (whose required entries kb_kvm_open()
 * checks), kb_backend_detect(), kb_kvm_missing_hint(), and on x86 kb_vcpu_set_msr() and kb_vcpu_get_msr().
 * All return 0 or -errno with a kb_fail() message unless said otherwise.
 */

/* ---- /dev/kvm, VMs and vCPUs (kvm.c) ---- */

/* At the end of kb_kvm_open(): what every vCPU will be given (x86: the supported CPUID table). */
int kb_arch_kvm_open(struct kb_kvm *kvm);
/* Frees what kb_arch_kvm_open() took; safe on a kvm it never saw. */
void kb_arch_kvm_close(struct kb_kvm *kvm);

/* Right after KVM_CREATE_VCPU and the kvm_run mapping: the vCPU's model and vcpu->tsc_khz. */
int kb_arch_vcpu_init(struct kb_vcpu *vcpu);

/* The registers worth showing in an error message; -errno (no message) when they cannot be read. */
int kb_arch_vcpu_regs(struct kb_vcpu *vcpu, char *buf, size_t size);

/* ---- the benchmark machine (machine.c) ---- */

struct kb_buf;
/* Everything worth keeping of vCPU v at a failing exit (x86: KVM_GET_REGS, KVM_GET_SREGS, the guest
 * page tables' walk of RIP, RSP and CR2), appended to b; -errno when the registers cannot be read. */
int kb_arch_vcpu_capture(const struct kb_machine *m, struct kb_vcpu *v, struct kb_buf *b);

/* After the VM and its base memory exist, before the guest image is copied in: the VM-wide
 * state the guest starts with (x86: page tables, GDT, user-space MSR exits, m->pvm_native). */
int kb_arch_machine_setup(struct kb_machine *m, const struct kb_machine_cfg *cfg);

/* After vCPU 'vcpu' is created and its mailbox has its id: its registers at the image's entry. */
int kb_arch_machine_vcpu_setup(struct kb_machine *m, int vcpu, const struct kb_machine_cfg *cfg);

/* Make [gpa, gpa + size) of a new memslot reachable by the guest (x86: identity-map it, with
 * m->guest_page's pages); kb_machine_add_memory() has checked the range. */
int kb_arch_machine_map(struct kb_machine *m, uint64_t gpa, uint64_t size);

/* The message for a guest exception the guest reported (KB_UC_FAULT's args[0..3], include/kb_abi.h), on
 * vCPU 'vcpu': x86 "guest exception #GP (vector 13) on vCPU 0 at rip=..., error code ...". */
void kb_arch_fault_text(const uint64_t args[4], int vcpu, char *buf, size_t size);

#endif
