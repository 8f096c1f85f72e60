/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c: the guest's dispatcher: set up the traps, then run what the host asks for. */
#include "guest.h"

/* The one table of guest loops, indexed by enum kb_loop and generated from kb_loops.h; a loop this
 * architecture's image lacks (GUEST_ARCH_LOOPS, arch/<arch>/arch.h) is NULL, refused below. */
static const guest_loop_fn loops[KB_LOOP_MAX] = {
#define GUEST_LOOP_ENTRY(NAME, name, ARCHES) [KB_LOOP_##NAME] = ((ARCHES) & GUEST_ARCH_LOOPS) ? loop_##name : 0,
	KB_LOOP_LIST(GUEST_LOOP_ENTRY)
#undef GUEST_LOOP_ENTRY
};

void loop_nop(struct kb_mailbox *mb, uint64_t iters)
{
	(void)mb;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile("" : : : "memory");
}

static void str_copy(char *dst, const char *src, unsigned int max)
{
	unsigned int i = 0;

	while (src[i] && i + 1 < max) {
		dst[i] = src[i];
		i++;
	}
	dst[i] = 0;
}

void guest_ucall(struct kb_mailbox *mb, enum kb_ucall call)
{
	mb->call = call;
	arch_ucall_doorbell(call);
}

void guest_abort(const char *file, int line, const char *what)
{
	struct kb_mailbox *mb = guest_self_mailbox();
	char num[12];
	int n = 0;

	str_copy(mb->msg, file, sizeof(mb->msg));
	do {
		num[n++] = '0' + line % 10;
		line /= 10;
	} while (line && n < 11);
	unsigned int len = 0;
	while (mb->msg[len])
		len++;
	if (len + n + 2 < sizeof(mb->msg)) {
		mb->msg[len++] = ':';
		while (n)
			mb->msg[len++] = num[--n];
		mb->msg[len] = 0;
	}
	len = 0;
	while (mb->msg[len])
		len++;
	if (len + 2 < sizeof(mb->msg)) {
		mb->msg[len++] = ':';
		mb->msg[len++] = ' ';
		str_copy(mb->msg + len, what, sizeof(mb->msg) - len);
	}
	for (;;)
		guest_ucall(mb, KB_UC_ABORT);
}

void guest_main(uint64_t vcpu_id, struct kb_mailbox *mb);

void guest_main(uint64_t vcpu_id, struct kb_mailbox *mb)
{
	/* All vCPUs write the same gates; doing it everywhere avoids ordering the vCPUs. */
	guest_traps_setup();
	GUEST_ASSERT(mb->vcpu_id == vcpu_id);

	for (;;) {
		guest_ucall(mb, KB_UC_NEXT);
		switch (mb->op) {
		case KB_OP_QUIT:
			arch_halt_forever();
		case KB_OP_LOOP: {
			uint64_t test = mb->test, iters = mb->iters;

			GUEST_ASSERT(test > 0 && test < KB_LOOP_MAX && loops[test]);
			mb->tsc_begin = arch_cycles_ordered();
			loops[test](mb, iters);
			mb->tsc_end = arch_cycles_ordered();
			mb->done_iters = iters;
			break;
		}
		default:
			GUEST_ASSERT(!"unknown op from host");
		}
	}
}
