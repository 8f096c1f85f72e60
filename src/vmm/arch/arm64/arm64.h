/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64.h: what the arm64 VMM files share among themselves (not part of the VMM's interface). */
#ifndef KB_VMM_ARM64_H
#define KB_VMM_ARM64_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kvm.h>

struct kb_machine;

/* A 64-bit core register's KVM_{GET,SET}_ONE_REG id (struct kvm_regs field). */
#define KB_ARM64_CORE_REG(field) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
				  (offsetof(struct kvm_regs, field) / sizeof(uint32_t)))

/* Write the stage-1 identity map (4 KiB granule, 48-bit VAs) at KB_ARM64_PGT_GPA of guest memory:
 * normal memory over the first 512 GiB, device memory from KB_ARM64_DEVICE_GPA to 1 GiB. */
void kb_arm64_stage1_build(struct kb_machine *m);
/* The VA range [gpa, gpa + size) the stage-1 map covers, as normal memory: 0 or -EINVAL with a message. */
int kb_arm64_stage1_check(uint64_t gpa, uint64_t size);

/* The in-kernel vGICv3 and its ITS: created before the vCPUs, initialised after the last. */
int kb_arm64_gic_create(struct kb_machine *m);
int kb_arm64_gic_init(struct kb_machine *m);

#endif
