/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu.h: what the CPU is, in one include: raw CPUID (this machine or a dump, host/cpuid.h), its
 * generation (host/uarch.h), the decoded CPU (host/cpu-info.h) and the advice (host/advice.h). */
#ifndef KB_CPU_H
#define KB_CPU_H

#include "host/advice.h"
#include "host/cpu-info.h"
#include "host/cpuid.h"
#include "host/datafile.h"
#include "host/uarch.h"

#endif
