/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datafile.c: reading a data file another machine gave us (CPUID dump, topology), xz-compressed or not. */
#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "host/datafile.h"
#include "core/kb.h"

/* No CPUID dump or topology comes near this; a device such as /dev/zero would never end. */
#define KB_READ_MAX ((size_t)64 << 20)

static bool is_xz(const char *b, size_t len)
{
	static const unsigned char magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	return len >= sizeof(magic) && !memcmp(b, magic, sizeof(magic));
}

static int unxz(const char *path, const char *in, size_t inlen, char **out, size_t *outlen)
{
	lzma_stream z = LZMA_STREAM_INIT;
	size_t cap = inlen * 8 + 4096;
	char *o = kb_xrealloc(NULL, cap, 1);
	lzma_ret r;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		free(o);
		return kb_fail(ENOMEM, "%s: cannot start the xz decoder (liblzma): out of memory", path);
	}
	z.next_in = (const uint8_t *)in;
	z.avail_in = inlen;
	z.next_out = (uint8_t *)o;
	z.avail_out = cap - 1;
	do {
		if (!z.avail_out) {
			size_t used = cap - 1, ncap = cap * 2 > KB_READ_MAX + 1 ? KB_READ_MAX + 1 : cap * 2;

			if (ncap <= cap) {
				lzma_end(&z);
				free(o);
				return kb_fail(EFBIG, "%s: decompresses to more than %zu MiB: not a file kvmbench reads",
					       path, KB_READ_MAX >> 20);
			}
			o = kb_xrealloc(o, ncap, 1);
			cap = ncap;
			z.next_out = (uint8_t *)o + used;
			z.avail_out = cap - 1 - used;
		}
		r = lzma_code(&z, LZMA_FINISH);
	} while (r == LZMA_OK);
	*outlen = (size_t)z.total_out;
	lzma_end(&z);
	if (r != LZMA_STREAM_END) {
		free(o);
		return kb_fail(EINVAL, "%s: xz data is damaged or truncated (liblzma error %d); re-fetch the file",
			       path, (int)r);
	}
	o[*outlen] = 0;
	*out = o;
	return 0;
}

int kb_read_file(const char *path, char **buf, size_t *len)
{
	char *raw = NULL;
	size_t n = 0;
	int err = kb_read_all(path, KB_READ_MAX, &raw, &n);

	if (err == -ENOENT || err == -EACCES || err == -ENOTDIR || err == -ELOOP)
		return kb_fail(err, "%s: cannot open: %s (check the path)", path, strerror(-err));
	if (err == -EFBIG)
		return kb_fail(err, "%s: larger than %zu MiB (or endless, like a device): not a file kvmbench reads",
			       path, KB_READ_MAX >> 20);
	if (err)
		return kb_fail(err, "%s: cannot read: %s", path, strerror(-err));
	if (!is_xz(raw, n)) {
		*buf = raw;
		*len = n;
		return 0;
	}
	err = unxz(path, raw, n, buf, len);
	free(raw);
	return err;
}
