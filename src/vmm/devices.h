/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devices.h: the small devices kvmbench's machine models: the ACPI PM timer and the ioeventfd test device. */
#ifndef KB_DEVICES_H
#define KB_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/kvm.h"

/* The ACPI PM timer: 3.579545 MHz, 24 bits wide (FADT TMR_VAL_EXT clear), as QEMU's PIIX4 and ICH9 model it. */
#define KB_PMTIMER_HZ   3579545ULL
#define KB_PMTIMER_MASK 0xffffffu

/* The timer's value 'ns' nanoseconds after its epoch. */
uint32_t kb_pmtimer_value(uint64_t ns);

/* An ioeventfd: guest writes of 'len' bytes to 'addr' (a port when 'pio', else an MMIO address)
 * are completed inside KVM, which only signals the eventfd; any value (a wildcard match). */
struct kb_ioeventfd {
	uint64_t addr;
	uint32_t len;
	bool pio;
	int fd;              /* the eventfd; -1 when none is registered */
};

/* Register it with the VM (KVM_IOEVENTFD); fd set on success. */
int kb_ioeventfd_add(struct kb_vm *vm, struct kb_ioeventfd *io);
/* The writes signalled since the last call (the eventfd's counter, read and reset): 0 when none. */
uint64_t kb_ioeventfd_drain(struct kb_ioeventfd *io);
/* Close its eventfd (the VM's own close unregisters it from KVM). */
void kb_ioeventfd_close(struct kb_ioeventfd *io);

#endif
