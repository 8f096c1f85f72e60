/* SPDX-License-Identifier: GPL-2.0-or-later */
/* entry.S: guest image entry point and exception stubs. */
	.code64
	.section .text.entry, "ax"
	.globl _start
_start:
	/* The host sets rsp to this vCPU's stack, rdi to the vCPU id and rsi to its mailbox. */
	xor %rbp, %rbp
	call guest_main
1:	hlt
	jmp 1b

/* One stub per exception vector; the CPU pushes an error code only for some. */
.macro EXC_STUB vec, has_err
	.align 16
exc_stub_\vec:
	.if \has_err == 0
	pushq $0
	.endif
	pushq $\vec
	jmp exc_common
.endm

	.text
	EXC_STUB 0, 0
	EXC_STUB 1, 0
	EXC_STUB 2, 0
	EXC_STUB 3, 0
	EXC_STUB 4, 0
	EXC_STUB 5, 0
	EXC_STUB 6, 0
	EXC_STUB 7, 0
	EXC_STUB 8, 1
	EXC_STUB 9, 0
	EXC_STUB 10, 1
	EXC_STUB 11, 1
	EXC_STUB 12, 1
	EXC_STUB 13, 1
	EXC_STUB 14, 1
	EXC_STUB 15, 0
	EXC_STUB 16, 0
	EXC_STUB 17, 1
	EXC_STUB 18, 0
	EXC_STUB 19, 0
	EXC_STUB 20, 0
	EXC_STUB 21, 1
	EXC_STUB 22, 0
	EXC_STUB 23, 0
	EXC_STUB 24, 0
	EXC_STUB 25, 0
	EXC_STUB 26, 0
	EXC_STUB 27, 0
	EXC_STUB 28, 0
	EXC_STUB 29, 1
	EXC_STUB 30, 1
	EXC_STUB 31, 0

exc_common:
	/* Stack: vector, error code, rip, cs, rflags, rsp, ss. */
	mov %rsp, %rdi
	and $-16, %rsp
	call guest_exception
2:	hlt
	jmp 2b

/* Interrupts: save what C may clobber, count and EOI in C, return. */
.macro IRQ_STUB name, vec
	.globl \name
	.align 16
\name:
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	mov $\vec, %edi
	lea 72(%rsp), %rsi          /* the interrupt frame: rip, cs, rflags, rsp, ss */
	call guest_irq
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	iretq
.endm

	IRQ_STUB irq_stub_test, 0xb0   /* KB_TEST_VECTOR: self-IPIs, the TSC-deadline timer */
	IRQ_STUB irq_stub_smp, 0x20    /* KB_SMP_VECTOR: IPIs between vCPUs */

/*
 * STI; HLT as one unit: STI's one-instruction shadow must hold interrupts off
 * until HLT has started.  guest_irq() recognises an interrupt taken at
 * guest_hlt_insn (the shadow was not honoured) and resumes after the HLT.
 */
	.globl guest_sti_hlt, guest_hlt_insn
guest_sti_hlt:
	sti
guest_hlt_insn:
	hlt
	ret

	.globl irq_stub_spurious
	.align 16
irq_stub_spurious:
	iretq

	.section .rodata
	.globl exc_stub_table
	.align 8
exc_stub_table:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad exc_stub_\v
	.endr
