/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setup.c: the x86 benchmark machine: user-space MSR exits, tables, each vCPU in long mode. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/kb.h"
#include "vmm/arch.h"
#include "vmm/machine.h"
#include "vmm/arch/x86/x86.h"

/* Long mode: NXE LMA LME, and SCE as the host has it (--guest-efer same) or not (differ). */
#define EFER_SAME   0xd01ULL
#define EFER_DIFFER 0xd00ULL

/* The channel's OUT counts in io_exits, which no test checks per iteration: nothing to take off. */
const char *const kb_machine_ucall_stat = NULL;

int kb_arch_machine_setup(struct kb_machine *m, const struct kb_machine_cfg *cfg)
{
	int err;

	if (cfg->user_msr) {
		/* KVM_CHECK_EXTENSION only says "supported"; UNKNOWN is the reason an MSR KVM lacks exits with. */
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_X86_USER_SPACE_MSR,
			.args = { KVM_MSR_EXIT_REASON_INVAL | KVM_MSR_EXIT_REASON_UNKNOWN },
		};

		if (kb_kvm_cap(m->kvm, KVM_CAP_X86_USER_SPACE_MSR) <= 0 || ioctl(m->vm.fd, KVM_ENABLE_CAP, &cap))
			return kb_fail(errno ? errno : ENOTSUP, "KVM_ENABLE_CAP(KVM_CAP_X86_USER_SPACE_MSR): %s",
				       strerror(errno ? errno : ENOTSUP));
	}
	err = kb_x86_pmu_machine_setup(m, cfg);
	if (err)
		return err;
	kb_x86_build_tables(m);
	m->pvm_native = m->kvm->backend == KB_BACKEND_PVM && !cfg->pvm_emulated;
	return 0;
}

int kb_arch_machine_vcpu_setup(struct kb_machine *m, int vcpu, const struct kb_machine_cfg *cfg)
{
	struct kb_vcpu *v = &m->vcpus[vcpu];
	int err;

	if (m->pvm_native)
		kb_machine_mailbox(m, vcpu)->pvm_vif_gpa = kb_x86_pvm_flags_gpa(vcpu);
	err = kb_x86_pmu_vcpu_setup(v, cfg);
	if (!err)
		err = kb_x86_enter_long_mode(v, cfg->guest_efer == KB_GUEST_EFER_DIFFER ? EFER_DIFFER : EFER_SAME);
	/* With an in-kernel LAPIC, KVM parks every vCPU but the first until INIT/SIPI. */
	if (!err && cfg->irqchip && vcpu > 0) {
		struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };

		if (ioctl(v->fd, KVM_SET_MP_STATE, &mp))
			err = kb_fail(errno, "vCPU %d: KVM_SET_MP_STATE(RUNNABLE): %s", vcpu, strerror(errno));
	}
	if (!err && m->pvm_native)
		err = kb_x86_pvm_enable_native(v);
	return err;
}
