/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runlock.h: the host-wide lock that keeps two 'kvmbench run's from perturbing each other. */
#ifndef KB_RUNLOCK_H
#define KB_RUNLOCK_H

#include <stdbool.h>

/* Take the run lock for the rest of the process (the kernel drops it when the process dies, so a
 * killed run leaves no stale lock).  Exclusive, unless allow_concurrent: then shared, and a run
 * holding it exclusively is only warned about.  Another run holding it: exits 2 naming its PID and
 * the lock file.  A lock that cannot be made at all (no writable directory) is warned about and
 * the run goes on. */
void kb_run_lock(bool allow_concurrent);

#endif
