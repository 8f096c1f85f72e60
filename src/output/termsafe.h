/* SPDX-License-Identifier: GPL-2.0-or-later */
/* termsafe.h: a stream that keeps control characters from a result file off the terminal. */
#ifndef KB_TERMSAFE_H
#define KB_TERMSAFE_H

#include <stdbool.h>
#include <stdio.h>

/* A stream writing to out with every control character but '\n' shown as '?' (C0, DEL, and C1 as
 * UTF-8).  With color, SGR sequences (ESC [ digits ; m) pass: the tables colour their cells, and a
 * result's text can at most recolour, never move the cursor, retitle or clear the screen.
 * Close it with fclose() (out stays open); NULL with kb_fail() when it cannot be made. */
FILE *kb_termsafe_open(FILE *out, bool color);

#endif
