/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64-gic.c: the host's interrupt controller, which decides what vGIC KVM can give a guest: the
 * GIC's version and whether it has an ITS, from the device tree (its bindings' compatible strings)
 * or, on ACPI machines that have none, from the interrupt chips /proc/interrupts names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json.h"
#include "core/kb.h"
#include "host/arm64.h"

/* The device-tree compatible strings Linux's GIC drivers probe (IRQCHIP_DECLARE in irq-gic-v3.c and
 * irq-gic.c; the ITS is "arm,gic-v3-its"). */
static const struct { const char *compat; int version; } dt_gics[] = {
	{ "arm,gic-v3", 3 },
	{ "arm,gic-400", 2 }, { "arm,cortex-a15-gic", 2 }, { "arm,cortex-a9-gic", 2 }, { "arm,cortex-a7-gic", 2 },
	{ "arm,arm11mp-gic", 2 }, { "arm,arm1176jzf-devchip-gic", 2 }, { "arm,pl390", 2 },
	{ "qcom,msm-8660-qgic", 2 }, { "qcom,msm-qgic2", 2 },
};

/* Whether the NUL-separated list (len bytes) holds want. */
static bool list_has(const char *list, size_t len, const char *want)
{
	for (size_t i = 0; i < len; i += strlen(list + i) + 1)
		if (!strcmp(list + i, want))
			return true;
	return false;
}

/* DIR/compatible's NUL-separated list into buf; its length, 0 when there is none. */
static size_t read_compat(const char *dir, char *buf, size_t size)
{
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/compatible", dir);
	if (!(f = fopen(path, "rb")))
		return 0;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	return n;
}

/* Look for the GIC under the device-tree node DIR, at most 'depth' levels down (the GIC is a child
 * of the root or of a bus node such as /soc, its ITS a child of the GIC's node: 3 levels). */
static void dt_walk(const char *dir, int depth, struct kb_arm64_gic *g)
{
	char compat[512], sub[1024];
	size_t n = read_compat(dir, compat, sizeof(compat));
	struct dirent *e;
	DIR *d;

	for (size_t i = 0; n && i < ARRAY_SIZE(dt_gics) && g->version < 0; i++)
		if (list_has(compat, n, dt_gics[i].compat)) {
			g->version = dt_gics[i].version;
			snprintf(g->gic_compat, sizeof(g->gic_compat), "%s", dt_gics[i].compat);
			g->its = 0;
			g->from = "the device tree";
		}
	if (n && list_has(compat, n, "arm,gic-v3-its"))
		g->its = 1;
	if (depth <= 0 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_UNKNOWN && (stat(sub, &st) || !S_ISDIR(st.st_mode)))
			continue;
		dt_walk(sub, depth - 1, g);
	}
	closedir(d);
}

/* Whether the n bytes at w are the word want, or start with it when prefix. */
static bool word_is(const char *w, size_t n, const char *want, bool prefix)
{
	size_t len = strlen(want);

	return prefix ? n >= len && !memcmp(w, want, len) : n == len && !memcmp(w, want, len);
}

void kb_arm64_gic_from_interrupts(const char *text, struct kb_arm64_gic *g)
{
	bool v3 = false, v2 = false, its = false, vpe = false, vpe41 = false;

	/* The chip's name is a word of its own after the per-CPU counts (the irq_chip names of Linux's
	 * drivers): "GICv3", "GICv2" or "GIC-0", "ITS-MSI", "ITS-pMSI", "GICv4-vpe", "GICv4.1-vpe",
	 * "GICv4.1-sgi".  Read word by word, not line by line: a machine of 192 CPUs has lines of 2 KiB. */
	for (const char *p = text; p && *p;) {
		size_t n;

		p += strspn(p, " \t\r\n");
		n = strcspn(p, " \t\r\n");
		if (!n)
			break;
		if (word_is(p, n, "GICv3", false))
			v3 = true;
		else if (word_is(p, n, "GICv2", false) || word_is(p, n, "GIC-", true))
			v2 = true;
		else if (word_is(p, n, "ITS-", true))
			its = true;
		else if (word_is(p, n, "GICv4-vpe", false))
			vpe = true;
		else if (word_is(p, n, "GICv4.1-vpe", false) || word_is(p, n, "GICv4.1-sgi", false))
			vpe41 = true;
		p += n;
	}
	if (!v3 && !v2)
		return;
	g->version = v3 ? 3 : 2;
	snprintf(g->gic_compat, sizeof(g->gic_compat), "%s", v3 ? "GICv3" : "GICv2");
	/* An ITS shows only once a device has its MSIs through it: none seen is not "none". */
	g->its = its || vpe || vpe41 ? 1 : -1;
	g->vpe = vpe41 ? 41 : vpe ? 40 : 0;
	g->from = "the interrupt chips in /proc/interrupts";
}

void kb_arm64_gic_read(const char *root, struct kb_arm64_gic *g)
{
	char path[600];
	char *text = NULL;
	size_t len = 0;
	struct kb_arm64_gic irq = { .version = -1, .its = -1 };

	memset(g, 0, sizeof(*g));
	g->version = -1;
	g->its = -1;
	g->from = "not found: no GIC in the device tree or /proc/interrupts";
	snprintf(path, sizeof(path), "%s/proc/device-tree", root);
	dt_walk(path, 3, g);
	/* /proc/interrupts also tells whether GICv4 vPEs are in use, which the device tree cannot. */
	snprintf(path, sizeof(path), "%s/proc/interrupts", root);
	if (!kb_read_all(path, (size_t)4 << 20, &text, &len)) {
		kb_arm64_gic_from_interrupts(text, &irq);
		free(text);
	}
	if (g->version < 0) {
		*g = irq;
		if (g->version < 0)
			g->from = "not found: no GIC in the device tree or /proc/interrupts";
		return;
	}
	g->vpe = irq.vpe;
	if (g->its != 1 && irq.its == 1)
		g->its = 1;
}

json_object *kb_arm64_gic_json(const struct kb_arm64_gic *g)
{
	json_object *o = json_object_new_object();

	if (g->version >= 0)
		kb_json_set_int(o, "version", g->version);
	if (g->gic_compat[0])
		kb_json_set_str(o, "found_as", g->gic_compat);
	if (g->its >= 0)
		kb_json_set_bool(o, "its", g->its);
	if (g->vpe)
		kb_json_set_str(o, "vpe", g->vpe == 41 ? "GICv4.1" : "GICv4");
	kb_json_set_str(o, "from", g->from);
	return o;
}

void kb_arm64_gic_advice(const struct kb_arm64_gic *g, json_object *a)
{
	if (g->version == 2)
		kb_arm64_advice_add(a, "arm64-host-gicv2", "the host's interrupt controller is a GICv2 (%s, from %s): KVM "
				    "can give guests only a vGICv2, and kvmbench's arm64 machine is a vGICv3 with an ITS, "
				    "so micro-bench and the memory suites cannot run here; measure on a GICv3 host",
				    g->gic_compat, g->from);
	if (g->version == 3 && g->its == 0)
		kb_arm64_advice_add(a, "arm64-host-no-its", "the host's GICv3 has no ITS (%s): GICv4 direct injection, "
				    "which needs the host's ITS, cannot exist here; micro-bench/lpi still runs, on KVM's "
				    "emulated ITS, as it does on every host without direct injection", g->from);
	if (g->vpe)
		kb_arm64_advice_add(a, "arm64-gicv4-in-use", "%s vPE doorbells in /proc/interrupts: KVM injects guests' "
				    "LPIs%s directly through the host's ITS, so micro-bench's lpi%s are not comparable with "
				    "hosts that inject them through the hypervisor", g->vpe == 41 ? "GICv4.1" : "GICv4",
				    g->vpe == 41 ? " and SGIs" : "", g->vpe == 41 ? " and ipi" : "");
}
