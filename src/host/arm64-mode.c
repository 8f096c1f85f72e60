/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-mode.c: which mode arm64 KVM runs in (VHE, nVHE, protected, ...), from the kernel's command line
 * and the ID registers, without dmesg. */
#include <string.h>

#include "host/arm64.h"

/* The value of kvm-arm.mode= in cmdline (the last one wins, as the kernel's early parameters do) into
 * val; false when it is not given. */
static bool cmdline_mode(const char *cmdline, char *val, size_t size)
{
	static const char key[] = "kvm-arm.mode=";
	bool found = false;

	for (const char *p = cmdline; p && (p = strstr(p, key)); p += sizeof(key) - 1) {
		size_t n;

		if (p != cmdline && p[-1] != ' ' && p[-1] != '\t')
			continue;
		n = strcspn(p + sizeof(key) - 1, " \t\n");
		if (n >= size)
			n = size - 1;
		memcpy(val, p + sizeof(key) - 1, n);
		val[n] = 0;
		found = true;
	}
	return found;
}

const char *kb_arm64_kvm_mode(const struct kb_arm64_cpu *c, const char *cmdline, const char **from)
{
	static char mode[32];
	struct kb_arm64_virt v;

	if (cmdline_mode(cmdline, mode, sizeof(mode))) {
		*from = "kvm-arm.mode= on the kernel command line";
		return mode;
	}
	kb_arm64_decode_virt(c, &v);
	/* Without kvm-arm.mode=, a kernel entered at EL2 runs KVM in VHE mode when the CPU has FEAT_VHE. */
	if (v.vhe == 1) {
		*from = "ID_AA64MMFR1_EL1.VH = 1 and no kvm-arm.mode= on the kernel command line";
		return "vhe";
	}
	if (v.vhe == 0) {
		*from = "ID_AA64MMFR1_EL1.VH = 0: the CPU has no VHE";
		return "nvhe";
	}
	*from = "not known: no kvm-arm.mode= on the kernel command line, and Linux hides ID_AA64MMFR1_EL1.VH "
		"from user space";
	return NULL;
}
