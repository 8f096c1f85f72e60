/* selftest.c: kvmbench's own checks: a measurement floor and guests that misbehave on purpose. */
#include "suite.h"

static const struct kb_test_def tests[] = {
	{ "nop", "an empty guest loop: no exits, the floor of the measurement", KB_LOOP_NOP, 0.0, 0, false },
	{ "hang", "a guest that never exits: the watchdog must stop it", KB_LOOP_SPIN, 0.0, 0, true },
	{ "fault", "a guest that raises #UD: reported with vector and RIP", KB_LOOP_UD2, 0.0, 0, true },
};

const struct kb_suite kb_suite_selftest = {
	.name = "selftest",
	.summary = "kvmbench's own checks: measurement floor, watchdog, guest exceptions",
	.tests = tests,
	.ntests = sizeof(tests) / sizeof(tests[0]),
	.hidden = true,
};
