/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suitearch.c: which architecture this build is for, and the suites it hides as another's. */
#include <string.h>
#include <sys/utsname.h>

#include "core/kb.h"
#include "run/suite.h"
#include "vmm/cpuarch.h"
#include "tap.h"

static const struct kb_test_def one_test[] = { { .name = "t", .summary = "a test" } };

static struct kb_suite fake(unsigned int arches)
{
	return (struct kb_suite){ .name = "fake", .summary = "a suite", .tests = one_test, .ntests = 1, .arches = arches };
}

int main(void)
{
	struct utsname u;
	enum kb_arch self = kb_arch_self(), other = self == KB_ARCH_X86 ? KB_ARCH_ARM64 : KB_ARCH_X86;
	struct kb_suite s;
	const char *why;

	/* uname() says what runs this program (qemu-user says aarch64 for an arm64 one). */
	ok(!uname(&u) && !strcmp(u.machine, self == KB_ARCH_X86 ? "x86_64" : "aarch64"),
	   "kb_arch_self() is %s, and uname says %s", kb_arch_name(self), u.machine);
	ok(!strcmp(kb_arch_name(KB_ARCH_X86), "x86") && !strcmp(kb_arch_name(KB_ARCH_ARM64), "arm64") &&
	   !strcmp(kb_arch_name(0), "?"), "architecture names");

	s = fake(self);
	ok(kb_suite_unavailable(&s) == NULL, "a suite of this architecture (%s) is available", kb_arch_name(self));
	s = fake(KB_ARCH_X86 | KB_ARCH_ARM64);
	ok(kb_suite_unavailable(&s) == NULL, "a suite of both architectures is available");
	s = fake(other);
	why = kb_suite_unavailable(&s);
	ok(why && !strncmp(why, kb_arch_name(other), strlen(kb_arch_name(other))) && strstr(why, " only") &&
	   strstr(why, kb_arch_name(self)), "a suite of %s only is hidden with the reason: %s", kb_arch_name(other),
	   why ? why : "(none)");
	s = fake(0);
	ok(kb_suite_unavailable(&s) != NULL, "a suite of no architecture is unavailable everywhere");
	return tap_done();
}
