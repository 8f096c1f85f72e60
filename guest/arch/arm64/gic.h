/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gic.h (arm64): the GICv3 and generic-timer registers the guest touches (offsets and bits from the
 * GICv3 architecture specification). */
#ifndef KB_GUEST_GIC_H
#define KB_GUEST_GIC_H

#define GICD_CTLR          0x0000
#define GICD_IIDR          0x0008
#define GICD_CTLR_G1       (1u << 1)
#define GICD_CTLR_ARE      (1u << 4)

#define GICR_CTLR          0x0000
#define GICR_CTLR_LPIS     (1u << 0)
#define GICR_WAKER         0x0014
#define GICR_PROPBASER     0x0070
#define GICR_PENDBASER     0x0078
#define GICR_SGI_BASE      0x10000
#define GICR_IGROUPR0      0x0080
#define GICR_ISENABLER0    0x0100
#define GICR_IPRIORITYR0   0x0400

#define GITS_CTLR          0x0000
#define GITS_CTLR_ENABLE   (1u << 0)
#define GITS_TYPER         0x0008
#define GITS_CBASER        0x0080
#define GITS_CWRITER       0x0088
#define GITS_CREADR        0x0090
#define GITS_BASER0        0x0100

#define CNTV_CTL_ENABLE    1u
#define CNTV_CTL_IMASK     2u

/* The priority of every interrupt the guest enables, and the mask that lets them all through. */
#define KB_GIC_PRIORITY    0x80
#define KB_GIC_PMR         0xf0

/* Set up this vCPU's redistributor and CPU interface once (SGI and timer enabled, group 1 on). */
void gic_cpu_setup(struct kb_mailbox *mb);
/* This vCPU's redistributor's LPI tables, LPIs on (loop-its.c). */
void gic_lpi_setup(struct kb_mailbox *mb);
/* vCPU 0's part of the lpi test: the ITS set up once, then 'iters' LPIs to vCPU 1 (loop-its.c). */
void gic_lpi_loop(struct kb_mailbox *mb, uint64_t iters);

#endif
