/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kvmstats.c: read KVM's binary statistics through the stats file descriptor. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "core/kb.h"
#include "vmm/kvmstats.h"

int kb_stats_open(int owner_fd, struct kb_stats *st)
{
	struct kvm_stats_header hdr;
	size_t desc_sz;
	uint8_t *buf = NULL;
	int err;

	memset(st, 0, sizeof(*st));
	st->fd = ioctl(owner_fd, KVM_GET_STATS_FD, NULL);
	if (st->fd < 0)
		return kb_fail(errno, "KVM_GET_STATS_FD: %s (this kernel has no binary stats; Linux 5.14 or newer is needed)",
			       strerror(errno));
	if (pread(st->fd, &hdr, sizeof(hdr), 0) != sizeof(hdr)) {
		err = kb_fail(EIO, "reading the KVM stats header failed");
		goto fail;
	}
	desc_sz = sizeof(struct kvm_stats_desc) + hdr.name_size;
	buf = malloc(desc_sz * hdr.num_desc);
	st->desc = calloc(hdr.num_desc ? hdr.num_desc : 1, sizeof(*st->desc));
	if (!buf || !st->desc) {
		err = kb_fail(ENOMEM, "out of memory reading KVM stats descriptors");
		goto fail;
	}
	if (pread(st->fd, buf, desc_sz * hdr.num_desc, hdr.desc_offset) != (ssize_t)(desc_sz * hdr.num_desc)) {
		err = kb_fail(EIO, "reading the KVM stats descriptors failed");
		goto fail;
	}
	st->ndesc = hdr.num_desc;
	st->data_off = hdr.data_offset;
	for (uint32_t i = 0; i < hdr.num_desc; i++) {
		const struct kvm_stats_desc *d = (const void *)(buf + i * desc_sz);
		uint32_t end;

		st->desc[i].name = strndup(d->name, hdr.name_size);
		st->desc[i].flags = d->flags;
		st->desc[i].size = d->size;
		/* KVM places values by byte offset; a snapshot is the whole data block. */
		st->desc[i].index = d->offset / sizeof(uint64_t);
		end = st->desc[i].index + d->size;
		if (end > st->nvals)
			st->nvals = end;
		if (!st->desc[i].name) {
			err = kb_fail(ENOMEM, "out of memory reading KVM stats descriptors");
			goto fail;
		}
	}
	st->data_size = (uint64_t)st->nvals * sizeof(uint64_t);
	free(buf);
	return 0;
fail:
	free(buf);
	kb_stats_close(st);
	return err;
}

void kb_stats_close(struct kb_stats *st)
{
	if (st->desc)
		for (uint32_t i = 0; i < st->ndesc; i++)
			free(st->desc[i].name);
	free(st->desc);
	if (st->fd > 0)
		close(st->fd);
	memset(st, 0, sizeof(*st));
	st->fd = -1;
}

int kb_stats_read(const struct kb_stats *st, uint64_t *vals)
{
	ssize_t n = pread(st->fd, vals, st->data_size, st->data_off);

	if (n != (ssize_t)st->data_size)
		return kb_fail(n < 0 ? errno : EIO, "reading KVM stats values failed");
	return 0;
}

int kb_stats_find(const struct kb_stats *st, const char *name)
{
	for (uint32_t i = 0; i < st->ndesc; i++)
		if (st->desc[i].size == 1 && !strcmp(st->desc[i].name, name))
			return (int)st->desc[i].index;
	return -1;
}

bool kb_stats_is_cumulative(const struct kb_stats *st, uint32_t i)
{
	return (st->desc[i].flags & KVM_STATS_TYPE_MASK) == KVM_STATS_TYPE_CUMULATIVE &&
	       st->desc[i].size == 1;
}
