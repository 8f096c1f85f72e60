/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop-its.c (arm64): micro-bench's lpi test: the ITS set up by the guest (device and collection
 * tables, command queue; MAPD, MAPC, INVALL, MAPTI as lpi_prep), then per iteration an INT command
 * (its_send_int_nv) whose LPI goes to vCPU 1, and a wait for its handler. */
#include "guest.h"
#include "gic.h"

/* The tables in guest memory (KB_GIC_TABLES_GPA, 64 KiB each, 64 KiB aligned). */
#define PROP_GPA      (KB_GIC_TABLES_GPA)
#define PEND_GPA(v)   (KB_GIC_TABLES_GPA + 0x10000ULL * (1 + (v)))
#define DEVICE_GPA    (KB_GIC_TABLES_GPA + 0x40000ULL)
#define COLL_GPA      (KB_GIC_TABLES_GPA + 0x50000ULL)
#define CMDQ_GPA      (KB_GIC_TABLES_GPA + 0x60000ULL)
#define ITT_GPA       (KB_GIC_TABLES_GPA + 0x70000ULL)
#define TABLE_SIZE    0x10000ULL
#define LPI_ID_BITS   14                /* INTIDs below 16384: 8199 fits */
#define ITT_EVENT_BITS 5                /* events 0-31: event 20 fits */

#define BASER_VALID   (1ULL << 63)
#define BASER_TYPE(b) (((b) >> 56) & 7)
#define BASER_DEVICE  1
#define BASER_COLL    4
#define CMD_INT       0x03
#define CMD_MAPD      0x08
#define CMD_MAPC      0x09
#define CMD_MAPTI     0x0a
#define CMD_INVALL    0x0d
#define LPI_PROP_ENABLE 1u

/* One command at the queue's write offset, then GITS_CWRITER moved past it: KVM runs it then. */
static inline void its_command(volatile struct kb_shared *sh, uint64_t dw0, uint64_t dw1, uint64_t dw2)
{
	volatile uint64_t *cmd = (volatile uint64_t *)(CMDQ_GPA + sh->its_cwriter);

	cmd[0] = dw0;
	cmd[1] = dw1;
	cmd[2] = dw2;
	cmd[3] = 0;
	sh->its_cwriter = (sh->its_cwriter + 32) % TABLE_SIZE;
	__asm__ volatile("dsb sy" : : : "memory");
	mmio_write64(KB_ARM64_GITS_GPA + GITS_CWRITER, sh->its_cwriter);
}

/* This vCPU's redistributor: the LPI property and pending tables, then LPIs on. */
void gic_lpi_setup(struct kb_mailbox *mb)
{
	uint64_t rd = KB_ARM64_GICR_GPA + mb->vcpu_id * KB_ARM64_GICR_SIZE;
	volatile uint8_t *prop = (volatile uint8_t *)PROP_GPA;

	GUEST_ASSERT(mb->vcpu_id < 2);
	prop[KB_GIC_LPI_INTID - 8192] = KB_GIC_PRIORITY | LPI_PROP_ENABLE;
	__asm__ volatile("dsb sy" : : : "memory");
	mmio_write64(rd + GICR_PROPBASER, PROP_GPA | (LPI_ID_BITS - 1));
	mmio_write64(rd + GICR_PENDBASER, PEND_GPA(mb->vcpu_id));
	mmio_write32(rd + GICR_CTLR, mmio_read32(rd + GICR_CTLR) | GICR_CTLR_LPIS);
}

/* micro-bench's its_enable_defaults, its_create_device/collection and lpi_prep's mappings. */
static void its_setup(volatile struct kb_shared *sh)
{
	for (int n = 0; n < 8; n++) {
		uint64_t baser = mmio_read64(KB_ARM64_GITS_GPA + GITS_BASER0 + 8 * n);
		uint64_t pa = BASER_TYPE(baser) == BASER_DEVICE ? DEVICE_GPA : BASER_TYPE(baser) == BASER_COLL ? COLL_GPA : 0;

		/* 4 KiB pages (field 0), 16 of them: the type and entry size are the ITS's own. */
		if (pa)
			mmio_write64(KB_ARM64_GITS_GPA + GITS_BASER0 + 8 * n,
				     (baser & (0xffULL << 48 | 7ULL << 56)) | BASER_VALID | pa | (TABLE_SIZE / 4096 - 1));
	}
	mmio_write64(KB_ARM64_GITS_GPA + GITS_CBASER, BASER_VALID | CMDQ_GPA | (TABLE_SIZE / 4096 - 1));
	sh->its_cwriter = 0;
	mmio_write64(KB_ARM64_GITS_GPA + GITS_CWRITER, 0);
	mmio_write32(KB_ARM64_GITS_GPA + GITS_CTLR, GITS_CTLR_ENABLE);
	its_command(sh, CMD_MAPD | (uint64_t)KB_GIC_ITS_DEVICE << 32, ITT_EVENT_BITS - 1, BASER_VALID | ITT_GPA);
	/* The target is vCPU 1 by number (GITS_TYPER.PTA is 0 on KVM). */
	its_command(sh, CMD_MAPC, 0, BASER_VALID | 1ULL << 16 | KB_GIC_ITS_COLLECTION);
	its_command(sh, CMD_INVALL, 0, KB_GIC_ITS_COLLECTION);
	its_command(sh, CMD_MAPTI | (uint64_t)KB_GIC_ITS_DEVICE << 32,
		    KB_GIC_ITS_EVENT | (uint64_t)KB_GIC_LPI_INTID << 32, KB_GIC_ITS_COLLECTION);
	GUEST_ASSERT(mmio_read64(KB_ARM64_GITS_GPA + GITS_CREADR) == sh->its_cwriter);
	sh->its_ready = 1;
}

/* micro-bench's lpi_exec: an INT of (device 2, event 20), then a wait for vCPU 1's handler. */
__attribute__((noipa)) void kb_timed_lpi(volatile struct kb_shared *sh)
{
	sh->irq_received = 0;
	its_command(sh, CMD_INT | (uint64_t)KB_GIC_ITS_DEVICE << 32, KB_GIC_ITS_EVENT, 0);
	while (!sh->irq_received)
		__asm__ volatile("yield" : : : "memory");
}

void gic_lpi_loop(struct kb_mailbox *mb, uint64_t iters)
{
	volatile struct kb_shared *sh = (volatile struct kb_shared *)KB_DATA_GPA;

	if (!sh->its_ready)
		its_setup(sh);
	for (uint64_t i = 0; i < iters; i++)
		kb_timed_lpi(sh);
	(void)mb;
}
