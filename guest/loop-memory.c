/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-memory.c: the memory suites' guest loop: populate, execute from and dirty every page of a range,
 * checking each page's content on the way.  Shared by both images: the stub is the architecture's
 * (kb_mem_stub()), and arch.h makes what populate wrote executable (arch_code_written(),
 * arch_code_ready()). */
#include "guest.h"

/* Pages between two looks at the clock: reading it costs far less than 64 page faults. */
#define PROGRESS_STRIDE 64

/*
 * A range of many GiB may take longer to fault in than the host's watchdog allows one KVM_RUN:
 * every 'every' TSC cycles the loop tells the host it is alive (one exit, outside no timing
 * that matters: the host enters the guest again at once).
 */
static void keep_alive(struct kb_mailbox *mb, uint64_t every, uint64_t *last)
{
	uint64_t now;

	if (!every)
		return;
	now = arch_cycles();
	if (now - *last < every)
		return;
	guest_ucall(mb, KB_UC_PROGRESS);
	*last = arch_cycles();
}

/* A page whose content is not what it should be: counted, the first one kept for the host. */
static void wrong(struct kb_mailbox *mb, uint64_t *bad, uint64_t addr, uint64_t found)
{
	if (!(*bad)++) {
		mb->args[3] = addr;
		mb->args[4] = found;
	}
}

void loop_mem(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t op = mb->param[0], base = mb->param[1], npages = mb->param[2] / KB_PAGE_SIZE;
	uint64_t value = mb->param[3], percent = mb->param[4], every = mb->param[5];
	uint64_t written = 0, other = 0, bad = 0, last = arch_cycles();

	GUEST_ASSERT(op >= KB_MEM_POPULATE && op <= KB_MEM_DIRTY);
	mb->args[3] = mb->args[4] = 0;
	if (op == KB_MEM_EXECUTE)
		arch_code_ready();
	for (uint64_t it = 0; it < iters; it++)
		for (uint64_t p = 0; p < npages; p++) {
			uint64_t addr = base + p * KB_PAGE_SIZE, found;
			uint8_t stub[KB_MEM_STUB_MAX];
			int len;

			if (p % PROGRESS_STRIDE == 0)
				keep_alive(mb, every, &last);
			switch (op) {
			case KB_MEM_POPULATE:
				len = kb_mem_stub(GUEST_ARCH_LOOPS, addr, stub);
				for (int i = 0; i < len; i++)
					((volatile uint8_t *)addr)[i] = stub[i];
				arch_code_written(addr);
				written++;
				break;
			case KB_MEM_EXECUTE:
				found = ((uint32_t (*)(void))addr)();
				if (found != kb_mem_stub_value(addr))
					wrong(mb, &bad, addr, found);
				other++;
				break;
			default:
				if (kb_mem_page_written(p, percent)) {
					/* Not before populate's write, the page's first touch: where KVM shadows
					 * the guest's page tables, a read first doubles its faults (the host's
					 * sweep after the last pass checks every page all the same). */
					found = value ? *(volatile uint64_t *)addr : 0;
					if (!kb_mem_word_ok(found, addr, value))
						wrong(mb, &bad, addr, found);
					*(volatile uint64_t *)addr = kb_mem_word(addr, value);
					written++;
				} else {
					found = *(volatile uint64_t *)addr;
					if (found)
						wrong(mb, &bad, addr, found);
					other++;
				}
				break;
			}
		}
	mb->args[0] = written;
	mb->args[1] = other;
	mb->args[2] = bad;
}
