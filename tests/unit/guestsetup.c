/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestsetup.c: the guest setup options of kvmbench run: --vpmu's view of real CPUs' PMUs and what
 * hiding it leaves, and on /dev/kvm the CPUID table and EFER that KVM really gives the vCPU. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/kb.h"
#include "host/cpuid.h"
#include "vmm/kvm.h"
#include "vmm/machine.h"
#include "vmm/arch/x86/x86.h"
#include "tap.h"

/* Real CPUs (tests/testdata/cpuid) and the PMU their CPUID describes, from the vendors' manuals:
 * Intel's architectural PMU v3 (Sandy Bridge, Haswell) and v4 (Skylake), 8 counters per core, 4
 * per thread when SMT is on (the i5-2400 has none); AMD's 6 core counters with PerfCtrExtCore
 * (Zen 2, Zen 3), PerfMonV2 from Zen 4. */
static const struct {
	const char *file;
	bool amd;
	int version, counters;
} cpus[] = {
	{ "intel/x86-64/sandy-bridge/intel-core-i5-2400-cpu.test", false, 3, 8 },
	{ "intel/x86-64/haswell/intel-core-i7-4770-cpu.test", false, 3, 4 },
	{ "intel/x86-64/skylake/intel-xeon-gold-6154-cpu-dual.test.xz", false, 4, 4 },
	{ "amd/zen2/amd-ryzen-9-3950x-16-core-processor.test", true, 1, 6 },
	{ "amd/zen3/amd-ryzen-9-5900x-12-core-processor.test", true, 1, 6 },
	{ "amd/zen4/amd-ryzen-9-7900x-12-core-processor.test", true, 2, 6 },
	{ "amd/zen5/amd-ryzen-9-9950x-16-core-processor.test", true, 2, 6 },
};

/* A dump's first CPU as the table KVM_SET_CPUID2 takes. */
static struct kvm_cpuid2 *table_of(const struct kb_cpuid_cpu *c)
{
	struct kvm_cpuid2 *t = kb_xcalloc(1, sizeof(*t) + c->n * sizeof(t->entries[0]));

	for (size_t i = 0; i < c->n; i++) {
		struct kvm_cpuid_entry2 *e = &t->entries[t->nent++];

		e->function = c->e[i].leaf;
		e->index = c->e[i].subleaf;
		e->eax = c->e[i].r[0];
		e->ebx = c->e[i].r[1];
		e->ecx = c->e[i].r[2];
		e->edx = c->e[i].r[3];
	}
	return t;
}

static const struct kvm_cpuid_entry2 *entry(const struct kvm_cpuid2 *t, uint32_t f)
{
	for (uint32_t i = 0; i < t->nent; i++)
		if (t->entries[i].function == f && t->entries[i].index == 0)
			return &t->entries[i];
	return NULL;
}

static void real_cpus(const char *dir)
{
	for (size_t k = 0; k < ARRAY_SIZE(cpus); k++) {
		struct kb_cpuid_set s = { 0 };
		struct kb_guest_pmu p;
		struct kvm_cpuid2 *t, *before;
		char *path = kb_xasprintf("%s/cpuid/%s", dir, cpus[k].file);
		size_t bytes;

		if (!ok(!kb_cpuid_read_file(&s, path) && s.ncpus, "%s reads", cpus[k].file)) {
			free(path);
			continue;
		}
		t = table_of(&s.cpu[0]);
		bytes = sizeof(*t) + t->nent * sizeof(t->entries[0]);
		before = kb_xcalloc(1, bytes);
		memcpy(before, t, bytes);
		ok(kb_x86_cpuid_is_amd(t) == cpus[k].amd, "%s: vendor %s", cpus[k].file, cpus[k].amd ? "AMD" : "Intel");
		kb_x86_cpuid_pmu(t, cpus[k].amd, &p);
		ok(p.version == cpus[k].version && p.counters == cpus[k].counters,
		   "%s: PMU version %d with %d counters (expected %d, %d)", cpus[k].file, p.version, p.counters,
		   cpus[k].version, cpus[k].counters);

		kb_x86_cpuid_hide_pmu(t);
		kb_x86_cpuid_pmu(t, cpus[k].amd, &p);
		/* AMD's four legacy counters are no CPUID feature: only KVM_CAP_PMU_CAPABILITY removes them. */
		ok(cpus[k].amd ? p.version == 1 && p.counters == 4 : p.version == 0 && p.counters == 0,
		   "%s hidden: PMU version %d with %d counters (expected %s)", cpus[k].file, p.version, p.counters,
		   cpus[k].amd ? "the 4 legacy counters" : "none");
		{
			const struct kvm_cpuid_entry2 *a = entry(before, 1), *b = entry(t, 1);
			const struct kvm_cpuid_entry2 *a0 = entry(before, 0), *b0 = entry(t, 0);

			ok(a && b && a0 && b0 && !memcmp(a0, b0, sizeof(*a0)) && a->eax == b->eax && a->ebx == b->ebx &&
			   a->edx == b->edx && (a->ecx & ~(1u << 15)) == b->ecx,
			   "%s hidden: leaves 0 and 1 unchanged but for PDCM", cpus[k].file);
		}
		free(before);
		free(t);
		kb_cpuid_free(&s);
		free(path);
	}
}

/* vCPU 0 of a machine built with these options: its CPUID table and EFER, as KVM holds them. */
static int built(struct kb_kvm *kvm, int vpmu, int efer, struct kvm_cpuid2 **cpuid, uint64_t *efer_out)
{
	struct kb_machine_cfg cfg = { .nvcpus = 1, .mem_node = -1, .vpmu = vpmu, .guest_efer = efer };
	struct kb_machine m;
	struct kvm_sregs sregs;
	int err = kb_machine_create(kvm, &cfg, &m);

	if (err)
		return err;
	*cpuid = kb_xcalloc(1, sizeof(**cpuid) + 4096 * sizeof((*cpuid)->entries[0]));
	(*cpuid)->nent = 4096;
	if (ioctl(m.vcpus[0].fd, KVM_GET_CPUID2, *cpuid) || ioctl(m.vcpus[0].fd, KVM_GET_SREGS, &sregs))
		err = -errno;
	*efer_out = sregs.efer;
	kb_machine_destroy(&m);
	return err;
}

static void on_kvm(void)
{
	struct kb_kvm kvm;
	struct kvm_cpuid2 *t = NULL;
	struct kb_guest_pmu host, p;
	uint64_t efer = 0;
	bool amd;
	int err;

	if (access("/dev/kvm", R_OK | W_OK) || kb_kvm_open(&kvm, "/dev/kvm")) {
		skip(4, "/dev/kvm is absent or not usable here");
		return;
	}
	amd = kb_x86_cpuid_is_amd(kvm.supported_cpuid);
	err = built(&kvm, KB_VPMU_OFF, KB_GUEST_EFER_SAME, &t, &efer);
	if (!err) {
		const struct kvm_cpuid_entry2 *a = entry(t, 0x80000001), *v2 = entry(t, 0x80000022);

		kb_x86_cpuid_pmu(t, amd, &p);
		ok(amd ? (!a || !(a->ecx & (1u << 23))) && (!v2 || !v2->eax) : p.version == 0,
		   "--vpmu off: the vCPU's CPUID in KVM has no PMU (version %d, %d counters)", p.version, p.counters);
		ok(efer & 1, "--guest-efer same: the vCPU's EFER is 0x%llx, SCE set as the host's", (unsigned long long)efer);
	} else {
		ok(err == -ENOTSUP, "--vpmu off: refused only for want of KVM_CAP_PMU_CAPABILITY on AMD: %s",
		   kb_last_error());
		skip(1, "no machine to read EFER from");
	}
	free(t);
	t = NULL;
	err = built(&kvm, KB_VPMU_HOST, KB_GUEST_EFER_DIFFER, &t, &efer);
	ok(!err && !(efer & 1) && (efer & 0x500) == 0x500,
	   "--guest-efer differ: the vCPU's EFER is 0x%llx: SCE clear, LME and LMA set%s%s",
	   (unsigned long long)efer, err ? ": " : "", err ? kb_last_error() : "");
	free(t);
	t = NULL;
	kb_guest_pmu_describe(&kvm, KB_VPMU_HOST, &host);
	err = built(&kvm, KB_VPMU_ON, KB_GUEST_EFER_SAME, &t, &efer);
	if (host.counters)
		ok(!err, "--vpmu on: a machine is built where KVM offers %d counters", host.counters);
	else
		ok(err == -ENOTSUP && strstr(kb_last_error(), host.off_by),
		   "--vpmu on where KVM offers no PMU is refused, saying why: %s", kb_last_error());
	free(t);
	kb_kvm_close(&kvm);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("KB_TESTDATA");

	real_cpus(dir ? dir : "tests/testdata");
	on_kvm();
	return tap_done();
}
