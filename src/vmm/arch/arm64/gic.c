/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gic.c: the arm64 machine's in-kernel interrupt controller: a vGICv3 (distributor, one redistributor
 * per vCPU) and its ITS for LPIs, at the addresses of include/kb_abi.h. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/kb.h"
#include "vmm/arch/arm64/arm64.h"
#include "vmm/machine.h"

static int dev_attr(int fd, uint32_t group, uint64_t attr, const void *val, const char *what)
{
	struct kvm_device_attr a = { .group = group, .attr = attr, .addr = (uint64_t)(uintptr_t)val };

	if (ioctl(fd, KVM_SET_DEVICE_ATTR, &a))
		return kb_fail(errno, "%s (KVM_SET_DEVICE_ATTR): %s", what, strerror(errno));
	return 0;
}

static int create_device(struct kb_machine *m, uint32_t type, int *fd, const char *what)
{
	struct kvm_create_device cd = { .type = type };

	if (ioctl(m->vm.fd, KVM_CREATE_DEVICE, &cd))
		return kb_fail(errno, "KVM_CREATE_DEVICE %s: %s", what, strerror(errno));
	*fd = (int)cd.fd;
	return 0;
}

int kb_arm64_gic_create(struct kb_machine *m)
{
	uint64_t dist = KB_ARM64_GICD_GPA, its = KB_ARM64_GITS_GPA;
	/* One redistributor region of nvcpus frames (KVM_VGIC_V3_ADDR_TYPE_REDIST_REGION: count in
	 * bits 63:52, base in 51:16, index 0). */
	uint64_t redist = (uint64_t)m->nvcpus_planned << 52 | KB_ARM64_GICR_GPA;
	int err;

	err = create_device(m, KVM_DEV_TYPE_ARM_VGIC_V3, &m->irqchip_fd[0], "KVM_DEV_TYPE_ARM_VGIC_V3");
	/* Not a failure of the test: a host that cannot have what it measures (the test is skipped). */
	if (err == -ENODEV)
		return kb_fail(ENOTSUP, "this host's KVM cannot give a guest a GICv3 (KVM_DEV_TYPE_ARM_VGIC_V3: "
			       "no such device; a GICv2-only host): the arm64 machine needs one");
	if (err)
		return err;
	if ((err = dev_attr(m->irqchip_fd[0], KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &dist,
			    "the vGICv3 distributor's address")) ||
	    (err = dev_attr(m->irqchip_fd[0], KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST_REGION, &redist,
			    "the vGICv3 redistributors' region")))
		return err;
	/* The ITS is optional: a KVM without it gives no LPIs, and the LPI test says so. */
	if (create_device(m, KVM_DEV_TYPE_ARM_VGIC_ITS, &m->irqchip_fd[1], "KVM_DEV_TYPE_ARM_VGIC_ITS")) {
		m->irqchip_fd[1] = -1;
		snprintf(m->irqchip_note, sizeof(m->irqchip_note), "no ITS: %s", kb_last_error());
		return 0;
	}
	return dev_attr(m->irqchip_fd[1], KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_ITS_ADDR_TYPE, &its, "the ITS's address");
}

int kb_arm64_gic_init(struct kb_machine *m)
{
	int err = dev_attr(m->irqchip_fd[0], KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL,
			   "initialising the vGICv3 (KVM_DEV_ARM_VGIC_CTRL_INIT)");

	if (err || m->irqchip_fd[1] < 0)
		return err;
	return dev_attr(m->irqchip_fd[1], KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL,
			"initialising the ITS (KVM_DEV_ARM_VGIC_CTRL_INIT)");
}
