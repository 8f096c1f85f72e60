/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest.h: what all guest code shares: the call channel, assertions, the loops' prototypes (from
 * kb_loops.h) and the architecture's instructions (arch/<arch>/arch.h). */
#ifndef KB_GUEST_H
#define KB_GUEST_H

#include <stdint.h>
#include "kb_abi.h"
#include "arch.h"

void guest_ucall(struct kb_mailbox *mb, enum kb_ucall call);
void guest_abort(const char *file, int line, const char *what);

#define GUEST_ASSERT(cond) \
	do { if (!(cond)) guest_abort(__FILE__, __LINE__, #cond); } while (0)

/* A measured loop: run 'iters' iterations with the parameters the host gave. */
typedef void (*guest_loop_fn)(struct kb_mailbox *mb, uint64_t iters);

#define GUEST_LOOP_PROTO(NAME, name, ARCHES) void loop_##name(struct kb_mailbox *mb, uint64_t iters);
KB_LOOP_LIST(GUEST_LOOP_PROTO)
#undef GUEST_LOOP_PROTO

/* The mailbox of the vCPU this runs on (arch/). */
struct kb_mailbox *guest_self_mailbox(void);
/* Make the exceptions and interrupts this image handles reach their handlers (arch/). */
void guest_traps_setup(void);
void guest_apic_eoi(void);
uint64_t kb_timed_eoi(void);  /* the x2APIC EOI, timed by the TSC around it (arch/) */
uint64_t guest_apic_timed_eoi(void);  /* the EOI in the APIC's mode, timed: kvm-unit-tests' eoi sub-timing */
void guest_sti_hlt(void);    /* entry.S */

#endif
