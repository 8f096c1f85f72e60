/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest_image.S: embeds the freestanding guest image (guest/guest.bin) into kvmbench. */
	.section .rodata
	.globl kb_guest_image
	.globl kb_guest_image_end
	.balign 16
kb_guest_image:
	.incbin "guest/guest.bin"
kb_guest_image_end:
	.section .note.GNU-stack, "", @progbits
