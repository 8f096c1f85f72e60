/* SPDX-License-Identifier: GPL-2.0-or-later */
/* digest.c: the SHA-256 of a file, through nettle, as lowercase hex: what reports quote for traceability. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nettle/sha2.h>

#include "core/kb.h"

int kb_sha256_file(const char *path, size_t max, char hex[65])
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	char *buf;
	size_t len;
	int err = kb_read_all(path, max, &buf, &len);

	if (err)
		return kb_fail(err, "%s: cannot read it for its sha256: %s", path, strerror(-err));
	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)buf);
	sha256_digest(&ctx, sizeof(digest), digest);
	free(buf);
	for (size_t i = 0; i < sizeof(digest); i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}
