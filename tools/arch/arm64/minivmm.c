/* SPDX-License-Identifier: GPL-2.0-or-later */
/* minivmm.c (arm64): the smallest VMM that runs micro-bench's hvc loop at EL1 (HVC #0 with the SMCCC
 * function id 0x4b000000, which KVM answers in the kernel with NOT_SUPPORTED), timed by the guest's
 * virtual counter: the yardstick for kvmbench's overhead on arm64 (tools/overhead-arm64.sh).
 *
 * One vCPU with an in-kernel vGICv3 (as kvmbench's machine), no threads, no page tables (MMU off).
 * Usage: minivmm hvc [ITERATIONS [RUNS [TIMEOUT_S]]]
 * Prints a comment line with the setup, then one line per run (after a warm-up run):
 *   NS_PER_ITER_BY_CNTVCT NS_PER_ITER_BY_HOST_CLOCK HVC_EXITS_PER_ITER
 * the last from the vCPU's hvc_exit_stat (KVM binary stats): 1.0000 when every HVC reached KVM.
 * Exit status: 0 measured, 1 a check failed (wrong answer, exits), 2 setup error or KVM_RUN timeout. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MEM_SIZE   (64u << 10)
#define MEM_GPA    0x40000000ull
#define EXIT_GPA   0x10000000ull  /* no memslot: a store there is an MMIO exit to this program */
#define FAULT_GPA  0x10001000ull  /* the same, from the exception vectors */
#define VECTORS_OFF 0x800u        /* VBAR_EL1 = MEM_GPA + this (2 KiB aligned) */
#define GICD_GPA   0x08000000ull  /* the vGICv3's distributor (64 KiB) and redistributor (128 KiB) */
#define GICR_GPA   0x080a0000ull
#define PSTATE_EL1 0x3c5ull       /* EL1h, D, A, I and F masked */
#define SMCCC_NOT_SUPPORTED 0xffffffffu

/*
 * The guest: x22 iterations of "w0 = 0x4b000000; HVC #0" between two reads of CNTVCT_EL0 (x20, x21),
 * then a store to EXIT_GPA (x23) hands the round to the host, and the next KVM_RUN starts another.
 * KVM's SMCCC answer overwrites x0-x3, so the loop keeps its state in x19-x23.
 */
/*
 * The labels are global and hidden, and so declared to C: a reference to a local label from C goes
 * through the GOT as ".rodata + offset", and the linker gives all four the one GOT entry of .rodata,
 * which made every size 0 and the guest's memory all zeros (UDF: UNDEFINED at its first instruction).
 */
#define KB_MINI_SYM(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n"
extern const uint32_t kb_mini_guest[] __attribute__((visibility("hidden")));
extern const uint32_t kb_mini_guest_end[] __attribute__((visibility("hidden")));
__asm__(".pushsection .rodata\n"
	".balign 4\n"
	KB_MINI_SYM(kb_mini_guest)
	"1:	mov	x19, x22\n"
	"	isb\n"
	"	mrs	x20, cntvct_el0\n"
	"2:	mov	w0, #0x4b000000\n"
	"	hvc	#0\n"
	"	subs	x19, x19, #1\n"
	"	b.ne	2b\n"
	"	isb\n"
	"	mrs	x21, cntvct_el0\n"
	"	str	x21, [x23]\n"
	"	b	1b\n"
	KB_MINI_SYM(kb_mini_guest_end)
	/* Any exception: ESR_EL1 and ELR_EL1 in x24, x25, then a store to FAULT_GPA (x26). */
	".balign 0x800\n"
	KB_MINI_SYM(kb_mini_vectors)
	".rept 16\n"
	"	mrs	x24, esr_el1\n"
	"	mrs	x25, elr_el1\n"
	"	str	x24, [x26]\n"
	"	b	.\n"
	"	.balign 0x80\n"
	".endr\n"
	KB_MINI_SYM(kb_mini_vectors_end)
	".popsection\n");
extern const uint32_t kb_mini_vectors[] __attribute__((visibility("hidden")));
extern const uint32_t kb_mini_vectors_end[] __attribute__((visibility("hidden")));

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "minivmm: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t core_reg_id(size_t off)
{
	return KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | (off / sizeof(uint32_t));
}

static void set_reg(int vcpu, uint64_t id, uint64_t val)
{
	struct kvm_one_reg r = { .id = id, .addr = (uintptr_t)&val };

	if (ioctl(vcpu, KVM_SET_ONE_REG, &r))
		die("KVM_SET_ONE_REG");
}

static uint64_t get_reg(int vcpu, uint64_t id)
{
	uint64_t val = 0;
	struct kvm_one_reg r = { .id = id, .addr = (uintptr_t)&val };

	if (ioctl(vcpu, KVM_GET_ONE_REG, &r))
		die("KVM_GET_ONE_REG");
	return val;
}

static uint64_t xreg(int n)
{
	return core_reg_id(offsetof(struct kvm_regs, regs.regs) + (size_t)n * sizeof(uint64_t));
}

/* The file offset of the vCPU statistic NAME in its binary-stats fd, or -1. */
static off_t stat_offset(int fd, const char *name)
{
	struct kvm_stats_header h;
	size_t dsize;
	char *descs;
	off_t off = -1;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	dsize = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = calloc(h.num_desc, dsize);
	if (!descs || pread(fd, descs, dsize * h.num_desc, h.desc_offset) != (ssize_t)(dsize * h.num_desc)) {
		free(descs);
		return -1;
	}
	for (uint32_t i = 0; i < h.num_desc; i++) {
		struct kvm_stats_desc *d = (struct kvm_stats_desc *)(descs + i * dsize);

		if (!strncmp(d->name, name, h.name_size) && d->size == 1) {
			off = (off_t)h.data_offset + d->offset;
			break;
		}
	}
	free(descs);
	return off;
}

static uint64_t read_stat(int fd, off_t off)
{
	uint64_t v = 0;

	if (pread(fd, &v, sizeof(v), off) != (ssize_t)sizeof(v))
		die("reading hvc_exit_stat");
	return v;
}

static unsigned long number(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s || v == 0 || v > max) {
		fprintf(stderr, "minivmm: %s wants a whole number from 1 to %lu, not '%s'\n", what, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "hvc";
	uint64_t iters = argc > 2 ? number(argv[2], "ITERATIONS", 1ul << 40) : 10000;
	int runs = argc > 3 ? (int)number(argv[3], "RUNS", 100000) : 10;
	unsigned timeout_s = argc > 4 ? (unsigned)number(argv[4], "TIMEOUT_S", 3600) : 60;
	struct kvm_vcpu_init init;
	struct sigaction sa;
	struct kvm_run *run;
	uint64_t cntfrq;
	int kvm, vm, vcpu, statfd, bad = 0;
	off_t hvc_off;
	uint8_t *mem;
	long mmap_size;

	if (strcmp(which, "hvc") || argc > 5) {
		fprintf(stderr, "usage: minivmm hvc [ITERATIONS [RUNS [TIMEOUT_S]]]\n");
		return 2;
	}
	size_t code_size = (size_t)((const char *)kb_mini_guest_end - (const char *)kb_mini_guest);
	size_t vec_size = (size_t)((const char *)kb_mini_vectors_end - (const char *)kb_mini_vectors);

	/* 11 instructions of loop, 16 vectors of 0x80 bytes: anything else is a mislinked image (checked before
	 * KVM is asked for anything, so that it can be checked where there is no KVM). */
	if (code_size != 11 * 4 || vec_size != 16 * 0x80) {
		fprintf(stderr, "minivmm: the guest code is %zu bytes and its vectors %zu, not 44 and 2048: "
			"the image's symbols are mislinked\n", code_size, vec_size);
		return 2;
	}
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("guest memory");
	memcpy(mem, kb_mini_guest, code_size);
	memcpy(mem + VECTORS_OFF, kb_mini_vectors, vec_size);
	struct kvm_userspace_memory_region region = { .slot = 0, .guest_phys_addr = MEM_GPA,
						      .memory_size = MEM_SIZE, .userspace_addr = (uintptr_t)mem };
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		die("KVM_SET_USER_MEMORY_REGION");

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	mmap_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mmap_size <= 0)
		die("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, (size_t)mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap of kvm_run");
	memset(&init, 0, sizeof(init));
	if (ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init))
		die("KVM_ARM_PREFERRED_TARGET");
	init.features[0] |= 1u << KVM_ARM_VCPU_PSCI_0_2;
	if (ioctl(vcpu, KVM_ARM_VCPU_INIT, &init))
		die("KVM_ARM_VCPU_INIT");
	set_reg(vcpu, core_reg_id(offsetof(struct kvm_regs, regs.pc)), MEM_GPA);
	set_reg(vcpu, core_reg_id(offsetof(struct kvm_regs, regs.pstate)), PSTATE_EL1);
	set_reg(vcpu, ARM64_SYS_REG(3, 0, 12, 0, 0), MEM_GPA + VECTORS_OFF);   /* VBAR_EL1 */
	set_reg(vcpu, xreg(26), FAULT_GPA);
	set_reg(vcpu, xreg(23), EXIT_GPA);
	set_reg(vcpu, xreg(22), iters);

	/*
	 * An in-kernel vGICv3, as kvmbench's machine has: without one KVM takes its user-space irqchip
	 * path on every exit and entry, which made this loop's HVC 28% slower than with it in the
	 * emulated host (tests/vm-arm64/README.md), so the yardstick would not measure kvmbench's path.
	 */
	uint64_t gicd = GICD_GPA, gicr = GICR_GPA;
	struct kvm_create_device gic = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	struct kvm_device_attr gic_attrs[] = {
		{ .group = KVM_DEV_ARM_VGIC_GRP_ADDR, .attr = KVM_VGIC_V3_ADDR_TYPE_DIST, .addr = (uintptr_t)&gicd },
		{ .group = KVM_DEV_ARM_VGIC_GRP_ADDR, .attr = KVM_VGIC_V3_ADDR_TYPE_REDIST, .addr = (uintptr_t)&gicr },
		{ .group = KVM_DEV_ARM_VGIC_GRP_CTRL, .attr = KVM_DEV_ARM_VGIC_CTRL_INIT },
	};
	if (ioctl(vm, KVM_CREATE_DEVICE, &gic))
		die("KVM_CREATE_DEVICE (vGICv3)");
	for (size_t i = 0; i < sizeof(gic_attrs) / sizeof(gic_attrs[0]); i++)
		if (ioctl((int)gic.fd, KVM_SET_DEVICE_ATTR, &gic_attrs[i]))
			die("KVM_SET_DEVICE_ATTR (vGICv3 addresses, init)");

	statfd = ioctl(vcpu, KVM_GET_STATS_FD, NULL);
	hvc_off = statfd < 0 ? -1 : stat_offset(statfd, "hvc_exit_stat");
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(cntfrq));
	if (!cntfrq) {
		fprintf(stderr, "minivmm: CNTFRQ_EL0 is 0: no counter frequency to time by\n");
		return 2;
	}

	/* Every KVM_RUN is bounded: SIGALRM (no SA_RESTART) makes a stuck one return EINTR. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))
		die("sigaction");

	printf("# minivmm hvc: %llu iterations a run, %d runs after a warm-up, CNTFRQ_EL0 %llu Hz, "
	       "target %u, hvc_exit_stat %s\n", (unsigned long long)iters, runs, (unsigned long long)cntfrq,
	       init.target, hvc_off < 0 ? "not available" : "read");
	printf("# ns/iteration by CNTVCT, ns/iteration by the host clock, HVC exits/iteration\n");
	for (int r = 0; r <= runs; r++) {
		uint64_t t0, t1, s0 = 0, s1 = 0, c0, c1, x0;
		int rc;

		if (hvc_off >= 0)
			s0 = read_stat(statfd, hvc_off);
		alarm(timeout_s);
		t0 = now_ns();
		rc = ioctl(vcpu, KVM_RUN, NULL);
		t1 = now_ns();
		alarm(0);
		if (rc && errno == EINTR && timed_out) {
			/* Where it is stuck: the PC, the loop's counter, and the HVCs KVM saw meanwhile. */
			fprintf(stderr, "minivmm: KVM_RUN did not return within %u s (run %d): the guest is stuck at PC "
				"%#llx with x19 = %#llx, x0 = %#llx, after %lld HVC exits; ESR_EL1 %#llx ELR_EL1 %#llx "
				"FAR_EL1 %#llx\n", timeout_s, r,
				(unsigned long long)get_reg(vcpu, core_reg_id(offsetof(struct kvm_regs, regs.pc))),
				(unsigned long long)get_reg(vcpu, xreg(19)), (unsigned long long)get_reg(vcpu, xreg(0)),
				hvc_off < 0 ? -1LL : (long long)(read_stat(statfd, hvc_off) - s0),
				(unsigned long long)get_reg(vcpu, ARM64_SYS_REG(3, 0, 5, 2, 0)),
				(unsigned long long)get_reg(vcpu, core_reg_id(offsetof(struct kvm_regs, elr_el1))),
				(unsigned long long)get_reg(vcpu, ARM64_SYS_REG(3, 0, 6, 0, 0)));
			return 2;
		}
		if (rc)
			die("KVM_RUN");
		if (run->exit_reason == KVM_EXIT_MMIO && run->mmio.phys_addr == FAULT_GPA) {
			fprintf(stderr, "minivmm: the guest took an exception in run %d: ESR_EL1 %#llx at ELR_EL1 %#llx\n", r,
				(unsigned long long)get_reg(vcpu, xreg(24)), (unsigned long long)get_reg(vcpu, xreg(25)));
			return 2;
		}
		if (run->exit_reason != KVM_EXIT_MMIO || run->mmio.phys_addr != EXIT_GPA || !run->mmio.is_write) {
			fprintf(stderr, "minivmm: unexpected exit %u (mmio %#llx) in run %d\n", run->exit_reason,
				(unsigned long long)run->mmio.phys_addr, r);
			return 2;
		}
		if (hvc_off >= 0)
			s1 = read_stat(statfd, hvc_off);
		c0 = get_reg(vcpu, xreg(20));
		c1 = get_reg(vcpu, xreg(21));
		x0 = get_reg(vcpu, xreg(0));
		if ((uint32_t)x0 != SMCCC_NOT_SUPPORTED) {
			fprintf(stderr, "minivmm: HVC 0x4b000000 answered %#llx, not SMCCC NOT_SUPPORTED (-1)\n",
				(unsigned long long)x0);
			bad = 1;
		}
		if (!r)   /* the first run is a warm-up */
			continue;
		double per_exit = hvc_off < 0 ? -1 : (double)(s1 - s0) / (double)iters;

		if (hvc_off >= 0 && (per_exit < 0.99 || per_exit > 1.01)) {
			fprintf(stderr, "minivmm: %.4f HVC exits per iteration in run %d, not 1\n", per_exit, r);
			bad = 1;
		}
		printf("%.3f %.3f %.4f\n", (double)(c1 - c0) * 1e9 / (double)cntfrq / (double)iters,
		       (double)(t1 - t0) / (double)iters, per_exit);
	}
	return bad;
}
