/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datafile.h: reading a whole data file (CPUID dump, hwloc XML), decompressing xz. */
#ifndef KB_DATAFILE_H
#define KB_DATAFILE_H

#include <stddef.h>

/* Read a whole file; xz-compressed files are decompressed.  *buf is NUL-terminated; free() it. */
int kb_read_file(const char *path, char **buf, size_t *len);

#endif
