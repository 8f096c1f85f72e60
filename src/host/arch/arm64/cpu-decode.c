/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-decode.c: an x86 CPUID dump is decoded by libcpuid, which is x86's only: arm64 builds refuse it. */
#include <errno.h>

#include "core/kb.h"
#include "host/cpu-info.h"

int kb_cpu_identify(const struct kb_cpuid_set *s, struct kb_cpu_info *info)
{
	return kb_fail(ENOTSUP, "decoding an x86 CPUID dump needs libcpuid, which exists for x86 only: use an x86 "
		       "build of kvmbench for it (an arm64 machine is described with --arm64-cpu-file)");
}
