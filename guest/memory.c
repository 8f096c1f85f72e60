/* memory.c: the memory suites' guest loop: populate, execute from and dirty every page of a range. */
#include "guest.h"

/* Pages between two looks at the clock: reading it costs far less than 64 page faults. */
#define PROGRESS_STRIDE 64

static inline uint64_t rdtsc_plain(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

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
	now = rdtsc_plain();
	if (now - *last < every)
		return;
	guest_ucall(mb, KB_UC_PROGRESS);
	*last = rdtsc_plain();
}

void loop_mem(struct kb_mailbox *mb, uint64_t iters)
{
	uint64_t op = mb->param[0], base = mb->param[1], npages = mb->param[2] / KB_PAGE_SIZE;
	uint64_t value = mb->param[3], percent = mb->param[4], every = mb->param[5];
	uint64_t written = 0, other = 0, last = rdtsc_plain();

	GUEST_ASSERT(op >= KB_MEM_POPULATE && op <= KB_MEM_DIRTY);
	for (uint64_t it = 0; it < iters; it++)
		for (uint64_t p = 0; p < npages; p++) {
			uint64_t addr = base + p * KB_PAGE_SIZE;

			if (p % PROGRESS_STRIDE == 0)
				keep_alive(mb, every, &last);
			switch (op) {
			case KB_MEM_POPULATE:
				*(volatile uint8_t *)addr = 0xc3;   /* RET */
				written++;
				break;
			case KB_MEM_EXECUTE:
				((void (*)(void))addr)();
				other++;
				break;
			default:
				if (kb_mem_page_written(p, percent)) {
					*(volatile uint64_t *)addr = value;
					written++;
				} else {
					(void)*(volatile uint64_t *)addr;
					other++;
				}
				break;
			}
		}
	mb->args[0] = written;
	mb->args[1] = other;
}
