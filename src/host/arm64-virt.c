/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-virt.c: whether an arm64 machine runs under a hypervisor, from its device tree and DMI (arm64
 * has no CPUID hypervisor bit): QEMU's virt machine, a Xen or other /hypervisor node, or the SMBIOS
 * strings of the usual hypervisors and clouds. */
#include <stdio.h>
#include <string.h>

#include "core/kb.h"
#include "host/arm64.h"
#include "host/cpu-info.h"

/* Whether the NUL-separated list (len bytes) holds the string want. */
static bool in_list(const char *list, size_t len, const char *want)
{
	for (size_t i = 0; list && i < len; i += strlen(list + i) + 1)
		if (!strcmp(list + i, want))
			return true;
	return false;
}

/* SMBIOS system vendor (and product) of virtual machines, as their hypervisors fill them in. */
static const char *dmi_hypervisor(const char *vendor, const char *product)
{
	static const struct { const char *vendor, *product, *name; } rows[] = {
		{ "QEMU", NULL, "QEMU" },
		{ "VMware, Inc.", NULL, "VMware" },
		{ "innotek GmbH", NULL, "VirtualBox" },
		{ "Parallels", NULL, "Parallels" },
		{ "Microsoft Corporation", "Virtual Machine", "Hyper-V" },
		{ "Google", "Google Compute Engine", "Google Compute Engine" },
	};

	if (!vendor)
		return NULL;
	if (product && !strcmp(product, "KVM"))
		return "KVM";
	/* EC2's Nitro instances are KVM guests, except the bare-metal ones ("c7g.metal"). */
	if (!strcmp(vendor, "Amazon EC2"))
		return product && !strstr(product, ".metal") ? "Amazon EC2 (Nitro)" : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (!strcmp(vendor, rows[i].vendor) && (!rows[i].product || (product && !strcmp(product, rows[i].product))))
			return rows[i].name;
	return NULL;
}

void kb_arm64_platform_virt(const struct kb_arm64_platform *p, struct kb_cpu_virt *v)
{
	const char *dmi = dmi_hypervisor(p->dmi_vendor, p->dmi_product);

	memset(v, 0, sizeof(*v));
	if (p->dt_hypervisor && p->dt_hypervisor[0]) {
		v->hypervisor = true;
		v->hv_name = !strncmp(p->dt_hypervisor, "xen,", 4) ? "Xen" : "unknown";
		v->hv_from = "the device tree's /hypervisor node";
	} else if (in_list(p->dt_compatible, p->dt_len, "linux,dummy-virt")) {
		/* QEMU's virt machine, under KVM or TCG alike: the device tree cannot tell which. */
		v->hypervisor = true;
		v->hv_name = "QEMU (virt machine)";
		v->hv_from = "the device tree: compatible \"linux,dummy-virt\"";
	} else if (dmi) {
		v->hypervisor = true;
		v->hv_name = dmi;
		v->hv_from = "DMI's system vendor and product";
	} else {
		v->hv_from = "no hypervisor in the device tree or DMI";
	}
}

/* ROOT/PATH's contents (at most size - 1 bytes, NUL-terminated, a trailing newline cut) into buf;
 * its length, or -1 when it cannot be read. */
static long read_small(const char *root, const char *path, char *buf, size_t size)
{
	char full[512];
	FILE *f;
	size_t n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "rb");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	return (long)n;
}

void kb_arm64_platform_read(const char *root, struct kb_cpu_virt *v)
{
	char compat[1024], hv[256], vendor[128], product[128];
	long clen = read_small(root, "/proc/device-tree/compatible", compat, sizeof(compat));
	struct kb_arm64_platform p = {
		.dt_compatible = clen > 0 ? compat : NULL,
		.dt_len = clen > 0 ? (size_t)clen : 0,
		.dt_hypervisor = read_small(root, "/proc/device-tree/hypervisor/compatible", hv, sizeof(hv)) > 0 ? hv : NULL,
		.dmi_vendor = read_small(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor)) > 0 ? vendor : NULL,
		.dmi_product = read_small(root, "/sys/class/dmi/id/product_name", product, sizeof(product)) > 0 ? product : NULL,
	};

	kb_arm64_platform_virt(&p, v);
}
