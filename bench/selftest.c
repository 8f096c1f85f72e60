/* SPDX-License-Identifier: GPL-2.0-or-later */
/* selftest.c: kvmbench's own checks: a measurement floor and guests that misbehave on purpose. */
#include "run/suite.h"

static const struct kb_test_def tests[] = {
	{ "nop", "an empty guest loop: no exits, the floor of the measurement", KB_LOOP_NOP, 0.0, 0, false },
	{ "hang", "a guest that never exits: the watchdog must stop it", KB_LOOP_SPIN, 0.0, 0, true },
	{ "fault", "a guest that raises #UD: reported with vector and RIP", KB_LOOP_UD2, 0.0, 0, true },
	{ "triple", "a guest that triple-faults (empty IDT, then #UD): reported as a shutdown with registers",
	  KB_LOOP_TRIPLE, 0.0, 0, true },
	/* An OUT to a port nothing serves: an exit kvmbench does not expect. */
	{ "badexit", "a guest that writes a port nobody serves: reported as an unexpected exit",
	  KB_LOOP_OUT, 0.0, 0, true, { 0x5b4, 1, 0 } },
	/* Declared one exit per iteration (RDMSR IA32_TSC_ADJUST exits on every backend), but three
	 * samples in four exit twice: the exit cross-check must call it invalid. */
	{ "exits_vary", "RDMSR declared once per iteration, done twice in most samples: must be invalid",
	  KB_LOOP_RDMSR_VARY, 1.0, 0, true, { 0x3b } },
	/* One interrupt declared per iteration, but every other self-IPI meets the previous one in
	 * the IRR and is lost: the interrupt check must call it invalid.  Its exits are not what it
	 * tests, so any count up to 20 per iteration is accepted. */
	{ "irq_coalesced", "a self-IPI every iteration, interrupts open every other one: half are lost, must be invalid",
	  KB_LOOP_APIC, 0, KB_NEED_IRQCHIP, true, .param = { KB_XAPIC, KB_APIC_SELF_IPI_COALESCED },
	  .exits_on = { true, .intel = { 0, 20 }, .amd = { 0, 20 }, .pvm = { 0, 20 } }, .irqs_per_iter = 1 },
	/* upstream's ipi, but the sender takes any IPI not handled within 1 TSC cycle for lost and
	 * sends it again: every sample needs a recovery, each is taken again (KB_RECOVERY_RETAKES) and
	 * still needs one, so interrupts_recovered_pct must call it invalid.  Resends add exits. */
	{ "ipi_impatient", "ipi whose sender resends after 1 TSC cycle: every sample recovers, must be invalid",
	  KB_LOOP_APIC, 0, KB_NEED_IRQCHIP | KB_NEED_X2APIC | KB_NEED_2VCPUS, true,
	  .param = { KB_X2APIC, KB_APIC_IPI, 0, 1 },
	  .exits_on = { true, .intel = { 0, 50 }, .amd = { 0, 50 }, .pvm = { 0, 50 } },
	  .vcpus = 2, .lead_vcpu_only = true, .irqs_per_iter = 1 },
	/* A known real difference for the compare calibration (tools/calibrate-compare.sh): the same
	 * RDMSR loop, plain and with one extra RDMSR every 20 iterations (+5% exits, cross-checked). */
	{ "rdmsr", "RDMSR IA32_TSC_ADJUST once per iteration: the A side of a known difference",
	  KB_LOOP_RDMSR, 1.0, 0, true, { 0x3b } },
	{ "rdmsr_plus5", "RDMSR IA32_TSC_ADJUST once per iteration and once more every 20th: +5% exits",
	  KB_LOOP_RDMSR_PLUS, 1.05, 0, true, { 0x3b, 20 } },
};

const struct kb_suite kb_suite_selftest = {
	.name = "selftest",
	.summary = "kvmbench's own checks: measurement floor, watchdog, guest exceptions, triple fault, unexpected exits",
	.tests = tests,
	.ntests = sizeof(tests) / sizeof(tests[0]),
	.hidden = true,
	.arches = KB_ARCH_X86,
};
