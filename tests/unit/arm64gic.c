/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64gic.c: the host GIC as info tells it (src/host/arm64-gic.c), from the device trees and
 * /proc/interrupts of real boots (tests/testdata/arm64-gic/, SOURCES) put under a root made here,
 * from copies with one thing changed (an ITS removed, a GIC under a bus node, no device tree as on an
 * ACPI server, GICv4 vPEs in use), and from damaged input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb.h"
#include "host/arm64.h"
#include "tap.h"
#include "testfs.h"

static char *testdata(const char *boot, const char *file)
{
	const char *dir = getenv("KB_TESTDATA");

	return kb_xasprintf("%s/arm64-gic/%s/%s", dir ? dir : "tests/testdata", boot, file);
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len = 0;

	return kb_read_all(path, (size_t)1 << 20, &text, &len) ? NULL : text;
}

static void put(const char *root, const char *path, const void *data, size_t len)
{
	char *full = kb_xasprintf("%s/%s", root, path);

	testfs_write(full, data, len);
	free(full);
}

/*
 * A device tree under ROOT/proc/device-tree from a listing of its compatible properties, one node a
 * line: "PATH<tab>STRING|STRING|" (tests/vm-arm64/command.sh writes it with the NULs as '|').  Lines
 * matching 'drop' are left out; 'move' from/to rewrites a node's path.
 */
static void make_dt(const char *root, const char *listing, const char *drop, const char *move_from, const char *move_to)
{
	char *text = kb_xstrdup(listing), *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t'), *path, *node;
		size_t n;

		if (!tab || (drop && strstr(line, drop)))
			continue;
		*tab = 0;
		path = line;
		while (path[0] == '/')
			path++;
		node = move_from && !strncmp(path, move_from, strlen(move_from))
			       ? kb_xasprintf("proc/device-tree/%s%s", move_to, path + strlen(move_from))
			       : kb_xasprintf("proc/device-tree/%s", path);
		n = strlen(tab + 1);
		for (size_t i = 0; i < n; i++)
			if (tab[1 + i] == '|')
				tab[1 + i] = 0;
		put(root, node, tab + 1, n);
		free(node);
	}
	free(text);
}

static char *new_root(void)
{
	char *root = kb_xstrdup("/tmp/kb-arm64gic.XXXXXX");

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		exit(1);
	}
	return root;
}

static void drop_root(char *root)
{
	char *cmd = kb_xasprintf("rm -rf '%s'", root);

	if (system(cmd))
		ok(0, "rm -rf %s", root);
	free(cmd);
	free(root);
}

static bool has_advice(const struct kb_arm64_gic *g, const char *id)
{
	json_object *a = json_object_new_array();
	bool found = false;

	kb_arm64_gic_advice(g, a);
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!strcmp(json_object_get_string(json_object_object_get(json_object_array_get_idx(a, i), "id")), id))
			found = true;
	json_object_put(a);
	return found;
}

static size_t n_advice(const struct kb_arm64_gic *g)
{
	json_object *a = json_object_new_array();
	size_t n;

	kb_arm64_gic_advice(g, a);
	n = json_object_array_length(a);
	json_object_put(a);
	return n;
}

struct want {
	int version, its, vpe;
	const char *found_as, *from;
};

static void expect(const char *what, const struct kb_arm64_gic *g, const struct want *w)
{
	ok(g->version == w->version && g->its == w->its && g->vpe == w->vpe &&
	   (!w->found_as || !strcmp(g->gic_compat, w->found_as)) && g->from && strstr(g->from, w->from),
	   "%s: version %d its %d vpe %d as '%s' from '%s' (want %d %d %d '%s' '%s')", what, g->version, g->its, g->vpe,
	   g->gic_compat, g->from ? g->from : "?", w->version, w->its, w->vpe, w->found_as ? w->found_as : "*", w->from);
}

/* One real boot's data under a root: as it came, and with one thing changed. */
static void boot(const char *name, int version, const char *compat)
{
	char *dtf = testdata(name, "dt-compatible"), *irqf = testdata(name, "interrupts");
	char *dt = slurp(dtf), *irq = slurp(irqf), *root, what[128];
	struct kb_arm64_gic g;
	int its = version == 3;

	if (!ok(dt && irq, "%s: its data (%s, %s)", name, dtf, irqf)) {
		free(dt);
		free(irq);
		free(dtf);
		free(irqf);
		return;
	}
	root = new_root();
	make_dt(root, dt, NULL, NULL, NULL);
	put(root, "proc/interrupts", irq, strlen(irq));
	kb_arm64_gic_read(root, &g);
	snprintf(what, sizeof(what), "%s as it booted", name);
	expect(what, &g, &(struct want){ version, its, 0, compat, "the device tree" });
	ok(version == 2 ? has_advice(&g, "arm64-host-gicv2") && n_advice(&g) == 1 : n_advice(&g) == 0,
	   "%s: the advice of a GICv%d%s (%zu)", name, version, its ? " with an ITS" : "", n_advice(&g));
	drop_root(root);

	/* An ACPI server has no device tree: the interrupt chips alone.  virt's devices are virtio-mmio,
	 * their interrupts wired: no ITS-MSI line, so whether there is an ITS is not known. */
	root = new_root();
	put(root, "proc/interrupts", irq, strlen(irq));
	kb_arm64_gic_read(root, &g);
	snprintf(what, sizeof(what), "%s, /proc/interrupts alone", name);
	expect(what, &g, &(struct want){ version, -1, 0, NULL, "/proc/interrupts" });
	drop_root(root);

	if (version == 3) {
		/* The same device tree without its ITS node: none (the binding puts the ITS under the GIC). */
		root = new_root();
		make_dt(root, dt, "arm,gic-v3-its", NULL, NULL);
		kb_arm64_gic_read(root, &g);
		expect("virt-gicv3 without its ITS node", &g, &(struct want){ 3, 0, 0, "arm,gic-v3", "the device tree" });
		ok(has_advice(&g, "arm64-host-no-its"), "a GICv3 without an ITS: advised that direct injection cannot exist");
		drop_root(root);

		/* The GIC under a bus node, as on most boards (/soc/interrupt-controller@...). */
		root = new_root();
		make_dt(root, dt, NULL, "intc@", "soc/intc@");
		put(root, "proc/device-tree/soc/compatible", "simple-bus", 11);
		kb_arm64_gic_read(root, &g);
		expect("virt-gicv3's GIC moved under /soc", &g, &(struct want){ 3, 1, 0, "arm,gic-v3", "the device tree" });
		drop_root(root);

		/* GICv4 vPEs in use, and an MSI through the ITS: the chips Linux names them by. */
		{
			char *more = kb_xasprintf("%s 40:          0          0   ITS-MSI 524288 Edge      nvme0q0\n"
						  " 41:          3          0   GICv4.1-vpe   0 Edge      vcpu\n", irq);

			root = new_root();
			put(root, "proc/interrupts", more, strlen(more));
			kb_arm64_gic_read(root, &g);
			expect("virt-gicv3's interrupts with an ITS-MSI and a GICv4.1 vPE line", &g,
			       &(struct want){ 3, 1, 41, NULL, "/proc/interrupts" });
			ok(has_advice(&g, "arm64-gicv4-in-use"), "GICv4.1 vPEs in use: advised that lpi and ipi are not comparable");
			make_dt(root, dt, NULL, NULL, NULL);
			kb_arm64_gic_read(root, &g);
			expect("the same with the device tree", &g, &(struct want){ 3, 1, 41, "arm,gic-v3", "the device tree" });
			drop_root(root);
			free(more);
		}
	}
	free(dt);
	free(irq);
	free(dtf);
	free(irqf);
}

/* Damaged or empty input: told as not found, never a crash. */
static void damaged(void)
{
	static const char *const texts[] = {
		"", "\n\n", "GICv3", "           CPU0\n  1: GIC", "ITS-MSI ITS-MSI\n", "GICv4.1-vpe\n",
		"\t\t\t\t", " 13:        866        753     GICv3  26 Level     arch_timer",
	};
	static const int versions[] = { -1, -1, 3, -1, -1, -1, -1, 3 };
	char *root = new_root();
	struct kb_arm64_gic g;
	char big[2400];

	kb_arm64_gic_read(root, &g);
	expect("an empty root", &g, &(struct want){ -1, -1, 0, NULL, "not found" });
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		struct kb_arm64_gic h = { .version = -1, .its = -1, .from = "untouched" };

		kb_arm64_gic_from_interrupts(texts[i], &h);
		ok(h.version == versions[i] && (versions[i] < 0 ? !strcmp(h.from, "untouched") : h.its == -1),
		   "interrupts text %zu: version %d (want %d)", i, h.version, versions[i]);
	}
	/* A machine of 192 CPUs: its lines are 2 KiB, the chip's name at their end. */
	{
		struct kb_arm64_gic h = { .version = -1, .its = -1, .from = "untouched" };
		size_t at = 0;

		at += (size_t)snprintf(big + at, sizeof(big) - at, " 13:");
		for (int cpu = 0; cpu < 192 && at + 24 < sizeof(big); cpu++)
			at += (size_t)snprintf(big + at, sizeof(big) - at, " %10d", cpu);
		snprintf(big + at, sizeof(big) - at, "     GICv3  26 Level     arch_timer\n");
		kb_arm64_gic_from_interrupts(big, &h);
		ok(h.version == 3 && at > 2000, "a line of %zu bytes: the chip's name at its end is read (version %d)", at,
		   h.version);
	}
	/* A compatible property without its NUL, and one of nothing but NULs. */
	put(root, "proc/device-tree/intc@8000000/compatible", "arm,gic-v3", 10);
	put(root, "proc/device-tree/intc@8000000/its@8080000/compatible", "\0\0\0", 3);
	kb_arm64_gic_read(root, &g);
	expect("a compatible without its NUL; an ITS node of NULs", &g, &(struct want){ 3, 0, 0, "arm,gic-v3", "the device tree" });
	drop_root(root);
}

int main(void)
{
	boot("qemu-virt-gicv3", 3, "arm,gic-v3");
	boot("qemu-virt-gicv2", 2, NULL);
	damaged();
	return tap_done();
}
