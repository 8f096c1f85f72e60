/* SPDX-License-Identifier: GPL-2.0-or-later */
/* entry.S (arm64): the image's entry at EL1 (stage-1 MMU on over the host's identity map) and the
 * exception vectors: interrupts go to guest_irq(), everything else is reported by guest_exception(). */
/* MAIR_EL1: attribute 0 Normal write-back (0xff), attribute 1 Device-nGnRE (0x04): the host's
 * table entries name these indices (src/vmm/arch/arm64/stage1.c). */
#define MAIR_VALUE	0x04ff
/* TCR_EL1: T0SZ 16 (48-bit VAs), walks inner/outer write-back cacheable, inner shareable, 4 KiB
 * granule, no TTBR1 walks (EPD1), 40-bit output addresses (IPS 2: KVM's default IPA size). */
#define TCR_VALUE	((16) | (1 << 8) | (1 << 10) | (3 << 12) | (1 << 23) | (2 << 32))
#define SCTLR_M		(1 << 0)
#define SCTLR_A		(1 << 1)
#define SCTLR_C		(1 << 2)
#define SCTLR_I		(1 << 12)

	.section .text.entry, "ax"
	.globl _start
_start:
	/* The host sets SP_EL1 to this vCPU's stack, x0 to the vCPU id, x1 to its mailbox and x2 to
	 * the level 0 table of its identity map (KB_ARM64_PGT_GPA). */
	mov	x19, x0
	mov	x20, x1
	msr	ttbr0_el1, x2
	ldr	x2, =MAIR_VALUE
	msr	mair_el1, x2
	ldr	x2, =TCR_VALUE
	msr	tcr_el1, x2
	/* No FP/SIMD traps (the image is built without them, but a compiler may still reach for one). */
	mov	x2, #(3 << 20)
	msr	cpacr_el1, x2
	adr	x2, vectors
	msr	vbar_el1, x2
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	mrs	x2, sctlr_el1
	orr	x2, x2, #SCTLR_M
	orr	x2, x2, #SCTLR_C
	orr	x2, x2, #SCTLR_I
	bic	x2, x2, #SCTLR_A
	msr	sctlr_el1, x2
	isb
	mov	x0, x19
	mov	x1, x20
	mov	x29, #0
	mov	x30, #0
	bl	guest_main
1:	wfi
	b	1b

/* One vector: interrupts from EL1 with SP_EL1 (index 5) to the handler, the rest to the report. */
.macro VECTOR index
	.balign 0x80
	.if \index == 5
	b	irq_entry
	.else
	mov	x0, #\index
	b	exc_entry
	.endif
.endm

	.text
	.balign 0x800
	.globl vectors
vectors:
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	VECTOR \i
	.endr

exc_entry:
	mrs	x1, esr_el1
	mrs	x2, elr_el1
	mrs	x3, far_el1
	bl	guest_exception
2:	wfi
	b	2b

/* Save what C may clobber (x0-x18, x29, x30), count and EOI in C, return with ERET. */
irq_entry:
	sub	sp, sp, #176
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x29, [sp, #144]
	str	x30, [sp, #160]
	bl	guest_irq
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x29, [sp, #144]
	ldr	x30, [sp, #160]
	add	sp, sp, #176
	eret
