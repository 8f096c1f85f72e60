/* selftest.c: kvmbench's own checks: a measurement floor and guests that misbehave on purpose. */
#include "suite.h"

static const struct kb_test_def tests[] = {
	{ "nop", "an empty guest loop: no exits, the floor of the measurement", KB_LOOP_NOP, 0.0, 0, false },
	{ "hang", "a guest that never exits: the watchdog must stop it", KB_LOOP_SPIN, 0.0, 0, true },
	{ "fault", "a guest that raises #UD: reported with vector and RIP", KB_LOOP_UD2, 0.0, 0, true },
	{ "triple", "a guest that triple-faults (empty IDT, then #UD): reported as a shutdown with registers",
	  KB_LOOP_TRIPLE, 0.0, 0, true },
	/* An OUT to a port nothing serves: an exit kvmbench does not expect. */
	{ "badexit", "a guest that writes a port nobody serves: reported as an unexpected exit",
	  KB_LOOP_OUT, 0.0, 0, true, { 0x5b4, 1, 0 } },
};

const struct kb_suite kb_suite_selftest = {
	.name = "selftest",
	.summary = "kvmbench's own checks: measurement floor, watchdog, guest exceptions, triple fault, unexpected exits",
	.tests = tests,
	.ntests = sizeof(tests) / sizeof(tests[0]),
	.hidden = true,
};
