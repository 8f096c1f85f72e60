/* SPDX-License-Identifier: GPL-2.0-or-later */
/* minivmm.c: the smallest VMM that runs kvmbench's CPUID or RDMSR loop, as a yardstick for its overhead. */
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MEM (4u << 20)

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	/* loop: eax=0, ecx=0, cpuid, dec rsi, jnz loop; out 0x7f0; hlt */
	static const uint8_t cpuid_code[] = { 0x31, 0xc0, 0x31, 0xc9, 0x0f, 0xa2, 0x48, 0xff, 0xce, 0x75, 0xf5,
					      0x66, 0xba, 0xf0, 0x07, 0xee, 0xf4 };
	/* loop: ecx=0x3b (TSC_ADJUST), rdmsr, dec rsi, jnz loop; out 0x7f0; hlt */
	static const uint8_t rdmsr_code[] = { 0xb9, 0x3b, 0x00, 0x00, 0x00, 0x0f, 0x32, 0x48, 0xff, 0xce, 0x75, 0xf4,
					      0x66, 0xba, 0xf0, 0x07, 0xee, 0xf4 };
	const char *which = argc > 1 ? argv[1] : "cpuid";
	uint64_t iters = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000;
	int runs = argc > 3 ? atoi(argv[3]) : 10;
	int kvm, vm, vcpu;
	uint8_t *mem;
	struct kvm_run *run;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct stat st;
	uint64_t *pml4, *pdpt, *pd, *gdt;
	struct kvm_cpuid2 *cpuid;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	mem = mmap(NULL, MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vm < 0 || mem == MAP_FAILED)
		die("vm");
	struct kvm_userspace_memory_region region = { 0, 0, 0, MEM, (uintptr_t)mem };
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		die("memslot");
	pml4 = (uint64_t *)(mem + 0x10000);
	pdpt = (uint64_t *)(mem + 0x11000);
	pd = (uint64_t *)(mem + 0x12000);
	gdt = (uint64_t *)(mem + 0x1000);
	pml4[0] = 0x11000 | 7;
	pdpt[0] = 0x12000 | 7;
	pd[0] = 0x87;
	pd[1] = 0x200000 | 0x87;
	gdt[2] = 0x00af9b000000ffffULL;
	gdt[3] = 0x00cf93000000ffffULL;
	if (!strcmp(which, "rdmsr"))
		memcpy(mem + 0x100000, rdmsr_code, sizeof(rdmsr_code));
	else
		memcpy(mem + 0x100000, cpuid_code, sizeof(cpuid_code));

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	run = mmap(NULL, (size_t)ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0), PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (vcpu < 0 || run == MAP_FAILED)
		die("vcpu");
	cpuid = calloc(1, sizeof(*cpuid) + 256 * sizeof(cpuid->entries[0]));
	cpuid->nent = 256;
	if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, cpuid) || ioctl(vcpu, KVM_SET_CPUID2, cpuid))
		die("cpuid");
	ioctl(vcpu, KVM_GET_SREGS, &sregs);
	struct kvm_segment cs = { .base = 0, .limit = 0xffffffff, .selector = 0x10, .type = 11, .present = 1,
				  .s = 1, .l = 1, .g = 1 };
	struct kvm_segment ds = { .base = 0, .limit = 0xffffffff, .selector = 0x18, .type = 3, .present = 1,
				  .s = 1, .db = 1, .g = 1 };
	sregs.cs = cs;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = ds;
	sregs.gdt.base = 0x1000;
	sregs.gdt.limit = 0x1f;
	sregs.cr0 = 0x80050033;
	sregs.cr3 = 0x10000;
	sregs.cr4 = 0x6a0;
	sregs.efer = 0xd01;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs))
		die("sregs");
	if (!stat("/sys/module/kvm_pvm", &st)) {
		/* kvm_pvm's switch to native execution: flags page at 0x5000. */
		struct { struct kvm_msrs h; struct kvm_msr_entry e; } m = { { .nmsrs = 1 }, { .index = 0x4b564d10, .data = 0x5000 | 1 } };
		if (ioctl(vcpu, KVM_SET_MSRS, &m) != 1)
			die("pvm msr");
	}
	for (int r = 0; r < runs + 1; r++) {
		uint64_t t0, t1;

		memset(&regs, 0, sizeof(regs));
		regs.rip = 0x100000;
		regs.rsi = iters;
		regs.rsp = 0x300000;
		regs.rflags = 2;
		ioctl(vcpu, KVM_SET_REGS, &regs);
		t0 = now_ns();
		if (ioctl(vcpu, KVM_RUN, 0))
			die("KVM_RUN");
		t1 = now_ns();
		if (run->exit_reason != KVM_EXIT_IO || run->io.port != 0x7f0) {
			fprintf(stderr, "unexpected exit %u\n", run->exit_reason);
			return 2;
		}
		if (r)   /* the first run is a warm-up */
			printf("%.3f\n", (double)(t1 - t0) / (double)iters);
	}
	return 0;
}
