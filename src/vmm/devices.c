/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devices.c: the ACPI PM timer's counter and the ioeventfd test device (devices.h). */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/kb.h"
#include "vmm/devices.h"

uint32_t kb_pmtimer_value(uint64_t ns)
{
	/* 128 bits: ns * 3579545 leaves 64 bits after some 85 minutes of uptime. */
	return (uint32_t)((unsigned __int128)ns * KB_PMTIMER_HZ / 1000000000ULL) & KB_PMTIMER_MASK;
}

int kb_ioeventfd_add(struct kb_vm *vm, struct kb_ioeventfd *io)
{
	struct kvm_ioeventfd a;
	int err;

	io->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (io->fd < 0) {
		io->fd = -1;
		return kb_fail(errno, "eventfd: %s", strerror(errno));
	}
	a = (struct kvm_ioeventfd){
		.addr = io->addr,
		.len = io->len,
		.fd = io->fd,
		.flags = io->pio ? KVM_IOEVENTFD_FLAG_PIO : 0,
	};
	if (ioctl(vm->fd, KVM_IOEVENTFD, &a)) {
		err = errno;
		close(io->fd);
		io->fd = -1;
		return kb_fail(err, "KVM_IOEVENTFD for %u-byte writes to %s 0x%llx: %s", io->len,
			       io->pio ? "port" : "MMIO address", (unsigned long long)io->addr, strerror(err));
	}
	return 0;
}

uint64_t kb_ioeventfd_drain(struct kb_ioeventfd *io)
{
	uint64_t n = 0;

	if (io->fd < 0 || read(io->fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return 0;   /* EAGAIN: nothing signalled */
	return n;
}

void kb_ioeventfd_close(struct kb_ioeventfd *io)
{
	if (io->fd >= 0)
		close(io->fd);
	io->fd = -1;
}
