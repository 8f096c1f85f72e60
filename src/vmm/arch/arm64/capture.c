/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c: arm64 state at a failing exit, for a capture file: the core registers KVM_GET_ONE_REG
 * gives (the stage-1 walk of the x86 capture waits for the arm64 guest image and its page tables). */
#include <string.h>

#include "core/buf.h"
#include "vmm/arch.h"
#include "vmm/kvm.h"
#include "vmm/machine.h"

int kb_arch_vcpu_capture(const struct kb_machine *m, struct kb_vcpu *v, struct kb_buf *b)
{
	char regs[256];
	int err = kb_arch_vcpu_regs(v, regs, sizeof(regs));

	if (err) {
		kb_buf_printf(b, "registers unavailable (KVM_GET_ONE_REG): %s\n", strerror(-err));
		return err;
	}
	kb_buf_printf(b, "KVM_GET_ONE_REG: %s\n", regs);
	return 0;
}
