/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-mode.c: which mode arm64 KVM runs in (VHE, nVHE, protected, ...), from the kernel's command line
 * and the ID registers, without dmesg. */
#include <string.h>

#include "host/arm64.h"

/* The value of the parameter key ("kvm-arm.mode=") in cmdline (the last one wins, as the kernel's early
 * parameters do) into val; false when it is not given. */
static bool cmdline_value(const char *cmdline, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	bool found = false;

	for (const char *p = cmdline; p && (p = strstr(p, key)); p += klen) {
		size_t n;

		if (p != cmdline && p[-1] != ' ' && p[-1] != '\t')
			continue;
		n = strcspn(p + klen, " \t\n");
		if (n >= size)
			n = size - 1;
		memcpy(val, p + klen, n);
		val[n] = 0;
		found = true;
	}
	return found;
}

static bool cmdline_mode(const char *cmdline, char *val, size_t size)
{
	return cmdline_value(cmdline, "kvm-arm.mode=", val, size);
}

/* kvm-arm.vgic_v4_enable= as the kernel's kstrtobool() reads it: 1 on, 0 off (also when absent: KVM's
 * default), -1 a value the kernel refuses (it then keeps the default, off). */
static int cmdline_vgic_v4(const char *cmdline)
{
	char v[16];
	bool o;

	if (!cmdline_value(cmdline, "kvm-arm.vgic_v4_enable=", v, sizeof(v)))
		return 0;
	o = v[0] == 'o' || v[0] == 'O';
	if ((v[0] && strchr("yYtT1", v[0])) || (o && (v[1] == 'n' || v[1] == 'N')))
		return 1;
	if ((v[0] && strchr("nNfF0", v[0])) || (o && (v[1] == 'f' || v[1] == 'F')))
		return 0;
	return -1;
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

void kb_arm64_boot_advice(const struct kb_arm64_cpu *c, json_object *a)
{
	struct kb_arm64_virt v;
	char mode[32];
	int v4;

	if (!c->cmdline)
		return;
	kb_arm64_decode_virt(c, &v);
	if (cmdline_mode(c->cmdline, mode, sizeof(mode))) {
		if (!strcmp(mode, "protected"))
			kb_arm64_advice_add(a, "arm64-kvm-protected", "kvm-arm.mode=protected (pKVM): the host kernel runs "
					    "at EL1 under KVM's EL2 hypervisor, so every exit is an nVHE world switch and the "
					    "hypervisor also checks the host's stage 2; exit costs are comparable only with "
					    "other protected hosts");
		else if (!strcmp(mode, "nvhe"))
			kb_arm64_advice_add(a, "arm64-kvm-nvhe-forced", "kvm-arm.mode=nvhe: KVM runs split, every exit "
					    "costs a world switch through EL2%s", v.vhe == 1 ? "; this CPU has VHE, so "
					    "booting without kvm-arm.mode=nvhe runs KVM in VHE mode with cheaper exits" :
					    v.vhe < 0 ? "; whether the CPU could run VHE is not known from this data" : "");
		else if (!strcmp(mode, "none"))
			kb_arm64_advice_add(a, "arm64-kvm-disabled", "kvm-arm.mode=none: KVM is disabled at boot, there is "
					    "no /dev/kvm to measure");
	}
	v4 = cmdline_vgic_v4(c->cmdline);
	if (v.gic == 3 && v4 == 1)
		kb_arm64_advice_add(a, "arm64-gicv4.1-direct-on", "kvm-arm.vgic_v4_enable is on, with a GICv4.1 CPU "
				    "interface: KVM injects vLPIs and vSGIs directly where the host's ITS is GICv4.1 too "
				    "(the boot log then says 'GICv4 support enabled'); guest IPIs and LPIs skip the "
				    "hypervisor, so micro-bench's ipi and lpi are not comparable with hosts without it");
	else if (v.gic == 3)
		kb_arm64_advice_add(a, "arm64-gicv4.1-direct-off", "GICv4.1 CPU interface, but kvm-arm.vgic_v4_enable is "
				    "%s: KVM injects every vLPI and vSGI through the hypervisor (the default); boot with "
				    "kvm-arm.vgic_v4_enable=1 to use direct injection if the host's ITS is GICv4.1 too",
				    v4 < 0 ? "given a value the kernel refuses (kept off)" : "off");
}
