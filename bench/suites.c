/* suites.c: the one table of suites; a new suite is one file plus one line here. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kb.h"
#include "suite.h"

extern const struct kb_suite kb_suite_cpuid;
extern const struct kb_suite kb_suite_efermsr;
extern const struct kb_suite kb_suite_selfipi;
extern const struct kb_suite kb_suite_execperf;
extern const struct kb_suite kb_suite_dirtylog;
extern const struct kb_suite kb_suite_selftest;
extern const struct kb_suite kb_suite_guest;

const struct kb_suite *const kb_suites[] = {
	&kb_suite_cpuid,
	&kb_suite_efermsr,
	&kb_suite_selfipi,
	&kb_suite_execperf,
	&kb_suite_dirtylog,
	&kb_suite_selftest,
	/* guest-side suites: measured from inside this machine, no /dev/kvm needed */
	&kb_suite_guest,
};

const size_t kb_nsuites = ARRAY_SIZE(kb_suites);

const struct kb_suite *kb_find_suite(const char *name)
{
	for (size_t i = 0; i < kb_nsuites; i++)
		if (!strcmp(kb_suites[i]->name, name))
			return kb_suites[i];
	return NULL;
}

const struct kb_test_def *kb_find_test(const struct kb_suite *s, const char *name)
{
	for (size_t i = 0; i < s->ntests; i++)
		if (!strcmp(s->tests[i].name, name))
			return &s->tests[i];
	return NULL;
}

int kb_suites_validate(void)
{
	for (size_t i = 0; i < kb_nsuites; i++) {
		const struct kb_suite *s = kb_suites[i];

		if (!s->name || !s->summary || !s->tests || !s->ntests ||
		    (s->nopts && (!s->opts || !s->cfg)))
			return kb_fail(EINVAL, "suite #%zu (%s) is incomplete", i, s->name ? s->name : "?");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(kb_suites[j]->name, s->name))
				return kb_fail(EINVAL, "suite name '%s' is used twice", s->name);
		for (size_t t = 0; t < s->ntests; t++) {
			const struct kb_test_def *d = &s->tests[t];

			if (!d->name || !d->summary || (!s->run && (d->loop <= 0 || d->loop >= KB_LOOP_MAX)))
				return kb_fail(EINVAL, "suite %s: test #%zu is incomplete", s->name, t);
			for (size_t u = 0; u < t; u++)
				if (!strcmp(s->tests[u].name, d->name))
					return kb_fail(EINVAL, "suite %s: test name '%s' is used twice", s->name, d->name);
		}
		/* Suite options share kvmbench run's command line: names must not clash. */
		for (size_t o = 0; o < s->nopts; o++)
			for (size_t j = 0; j < i; j++)
				for (size_t p = 0; p < kb_suites[j]->nopts; p++)
					if (!strcmp(kb_suites[j]->opts[p].name, s->opts[o].name))
						return kb_fail(EINVAL, "option --%s is declared by suites %s and %s",
							       s->opts[o].name, kb_suites[j]->name, s->name);
	}
	return 0;
}

struct kb_exit_range kb_test_expected_exits(const struct kb_test_def *t, enum kb_backend b)
{
	if (!t->exits_on.set)
		return (struct kb_exit_range){ t->exits_per_iter, t->exits_per_iter };
	switch (b) {
	case KB_BACKEND_INTEL: return t->exits_on.intel;
	case KB_BACKEND_AMD: return t->exits_on.amd;
	case KB_BACKEND_PVM: return t->exits_on.pvm;
	default: return (struct kb_exit_range){ t->exits_per_iter, t->exits_per_iter };
	}
}

/* Whether KVM offers the guest CPUID leaf 'leaf' register 'reg' (0 eax .. 3 edx) bit 'bit'. */
static bool supported_cpuid_bit(const struct kb_kvm *kvm, uint32_t leaf, int reg, int bit)
{
	for (uint32_t i = 0; i < kvm->supported_cpuid->nent; i++) {
		const struct kvm_cpuid_entry2 *e = &kvm->supported_cpuid->entries[i];
		uint32_t regs[4] = { e->eax, e->ebx, e->ecx, e->edx };

		if (e->function == leaf && e->index == 0)
			return (regs[reg] >> bit) & 1;
	}
	return false;
}

const char *kb_test_unmet_need(const struct kb_run_ctx *ctx, const struct kb_test_def *t)
{
	struct kb_kvm *kvm = ctx->kvm;

	if ((t->needs & KB_NEED_IRQCHIP) && kb_kvm_cap(kvm, KVM_CAP_IRQCHIP) <= 0)
		return "needs an in-kernel irqchip (KVM_CAP_IRQCHIP), which this KVM lacks";
	if ((t->needs & KB_NEED_TSC_DEADLINE) && kb_kvm_cap(kvm, KVM_CAP_TSC_DEADLINE_TIMER) <= 0)
		return "needs the TSC deadline timer (KVM_CAP_TSC_DEADLINE_TIMER), which this KVM lacks";
	if ((t->needs & KB_NEED_USER_MSR) && kb_kvm_cap(kvm, KVM_CAP_X86_USER_SPACE_MSR) <= 0)
		return "needs MSR exits to userspace (KVM_CAP_X86_USER_SPACE_MSR), which this KVM lacks";
	if ((t->needs & KB_NEED_2VCPUS) && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return "needs two vCPUs on two host CPUs, and this host has one";
	if ((t->needs & KB_NEED_X2APIC) && !supported_cpuid_bit(kvm, 1, 2, 21))
		return "needs x2APIC, which this KVM does not offer the guest (CPUID.1:ECX bit 21)";
	if ((t->needs & KB_NEED_HYPERCALL) && kvm->backend == KB_BACKEND_PVM)
		return "VMCALL/VMMCALL never reach kvm_pvm (the outer hypervisor answers them): nothing to measure";
	return NULL;
}
