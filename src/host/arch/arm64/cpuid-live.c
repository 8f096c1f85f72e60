/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuid-live.c: arm64 has no CPUID to execute: the live CPU is read from MIDR_EL1 (kb_arm64_collect). */
#include <errno.h>

#include "core/kb.h"
#include "host/cpuid.h"

int kb_cpuid_collect(struct kb_cpuid_set *s)
{
	return kb_fail(ENODEV, "CPUID is an x86 instruction: this arm64 host is described from MIDR_EL1 and its "
		       "ID registers instead");
}
