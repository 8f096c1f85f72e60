/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devices.c: the ACPI PM timer's counter (vmm/devices.h): 3.579545 MHz, 24 bits, no overflow with uptime. */
#include <stdint.h>
#include <time.h>

#include "core/kb.h"
#include "vmm/devices.h"
#include "tap.h"

int main(void)
{
	uint64_t wrap_ns = (1ULL << 24) * 1000000000ULL / KB_PMTIMER_HZ + 1;
	uint64_t t0, t1;
	uint32_t v0, v1;
	struct timespec ten_ms = { 0, 10000000 };

	ok(kb_pmtimer_value(0) == 0, "the counter starts at 0");
	ok(kb_pmtimer_value(1000000000ULL) == 3579545, "one second is 3579545 ticks (%u)",
	   kb_pmtimer_value(1000000000ULL));
	ok(kb_pmtimer_value(1000ULL) == 3, "one microsecond is 3 ticks, truncated (%u)", kb_pmtimer_value(1000ULL));
	ok(kb_pmtimer_value(279) == 0 && kb_pmtimer_value(280) == 1, "the first tick comes at 280 ns (%u, %u)",
	   kb_pmtimer_value(279), kb_pmtimer_value(280));
	ok(kb_pmtimer_value(wrap_ns - 2) == 0xffffff && kb_pmtimer_value(wrap_ns) == 0,
	   "24 bits wide: 0xffffff just before %llu ns, then 0 (%#x, %#x)", (unsigned long long)wrap_ns,
	   kb_pmtimer_value(wrap_ns - 2), kb_pmtimer_value(wrap_ns));
	/* Ten thousand seconds of uptime: ns * 3579545 no longer fits 64 bits. */
	ok(kb_pmtimer_value(10000000000000ULL) == (35795450000ULL & 0xffffff),
	   "no overflow after 10,000 s of uptime (%#x, want %#llx)", kb_pmtimer_value(10000000000000ULL),
	   35795450000ULL & 0xffffff);
	/* Read as the machine reads it, from the host clock: over a 10 ms sleep it advances at 3579545
	 * ticks per second of that clock (within the one tick each read truncates), so 35795 or more. */
	t0 = kb_now_ns();
	v0 = kb_pmtimer_value(t0);
	nanosleep(&ten_ms, NULL);
	t1 = kb_now_ns();
	v1 = kb_pmtimer_value(t1);
	is_near((double)((v1 - v0) & 0xffffff) / ((double)(t1 - t0) / 1e9), 3579545.0, 2.0 / ((double)(t1 - t0) / 1e9),
		"ticks per second of the host clock");
	ok(((v1 - v0) & 0xffffff) >= 35795, "10 ms of sleep advance it by 35795 ticks or more (%u)",
	   (v1 - v0) & 0xffffff);
	return tap_done();
}
