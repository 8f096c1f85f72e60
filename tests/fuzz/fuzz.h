/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h: what kvmbench's fuzz targets share (tests/fuzz/README.md).  Each target is one file
 * defining LLVMFuzzerTestOneInput(); libFuzzer drives it under 'make fuzz', replay.c under
 * 'make check'. */
#ifndef KB_FUZZ_H
#define KB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (bytes after an embedded NUL are not seen); free() it. */
char *kb_fuzz_cstr(const uint8_t *data, size_t size);

/* A private directory under $TMPDIR for targets whose parser reads files, made once, removed
 * at exit; kb_fuzz_dir_clear() empties it between inputs. */
const char *kb_fuzz_dir(void);
void kb_fuzz_dir_clear(void);
/* Write len bytes to the file rel (may hold '/': parents are made) inside kb_fuzz_dir(). */
int kb_fuzz_write(const char *rel, const void *data, size_t len);

#endif
