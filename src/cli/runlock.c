/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runlock.c: the host-wide run lock: flock on a file under /run/kvmbench, $XDG_RUNTIME_DIR or /tmp. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/runlock.h"
#include "core/kb.h"

/* Open (or create) the lock file PATH; read-only when it exists but is not ours to write, which
 * flock(2) accepts.  -errno on failure. */
static int open_lock(const char *path)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0 && (errno == EACCES || errno == EPERM))
			fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT) {
			if (fd < 0)
				return -errno;
			return fd;
		}
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			/* Readable by every user, whatever the umask: their runs must see ours. */
			if (fchmod(fd, 0644))
				kb_debug("run lock: chmod %s: %s", path, strerror(errno));
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EAGAIN;
}

/* The lock file in DIR (made when missing, mode 0755), opened into *fd: 0 or -errno. */
static int lock_in(const char *dir, char *path, size_t size, int *fd)
{
	struct stat st;

	if (!dir || !*dir)
		return -ENOENT;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	snprintf(path, size, "%s/run.lock", dir);
	*fd = open_lock(path);
	return *fd < 0 ? *fd : 0;
}

/* The PID that holds a flock on FD's file, from /proc/locks; 0 when unknown (or our own). */
static long lock_holder(int fd)
{
	struct stat st;
	char line[256];
	long found = 0;
	FILE *f;

	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (blocked waiters are "1: -> FLOCK ...") */
	while (!found && fgets(line, sizeof(line), f)) {
		char kind[16], mode[16];
		unsigned int maj, mnr;
		unsigned long ino;
		long pid;

		if (strstr(line, "->"))
			continue;
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", kind, mode, &pid, &maj, &mnr, &ino) == 6 &&
		    !strcmp(kind, "FLOCK") && ino == st.st_ino && makedev(maj, mnr) == st.st_dev && pid != getpid())
			found = pid;
	}
	fclose(f);
	return found;
}

void kb_run_lock(bool allow_concurrent)
{
	/* KVMBENCH_LOCK_DIR first (make check gives every test its own), then the system-wide place
	 * when it is writable (root), then this user's runtime directory, then /tmp for everyone. */
	const char *dirs[] = { getenv("KVMBENCH_LOCK_DIR"), "/run/kvmbench", NULL, "/tmp/kvmbench" };
	char path[4096], who[64] = "";
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char xdgdir[4096];
	int fd = -1, err = -ENOENT;
	long pid;

	if (xdg && *xdg) {
		snprintf(xdgdir, sizeof(xdgdir), "%s/kvmbench", xdg);
		dirs[2] = xdgdir;
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs) && fd < 0; i++) {
		err = lock_in(dirs[i], path, sizeof(path), &fd);
		if (err)
			kb_debug("run lock: not under %s: %s", dirs[i] ? dirs[i] : "(unset)", strerror(-err));
		/* An explicit directory is used or nothing is. */
		if (i == 0 && dirs[0] && *dirs[0])
			break;
	}
	if (fd < 0) {
		kb_warn("no run lock (%s): another kvmbench run on this host would not be detected", strerror(-err));
		return;
	}
	if (!flock(fd, (allow_concurrent ? LOCK_SH : LOCK_EX) | LOCK_NB)) {
		kb_debug("run lock: %s, %s", path, allow_concurrent ? "shared (--allow-concurrent)" : "exclusive");
		return;   /* held until the process ends: fd is never closed */
	}
	err = errno;
	pid = lock_holder(fd);
	if (pid)
		snprintf(who, sizeof(who), " (PID %ld)", pid);
	if (err != EWOULDBLOCK) {
		kb_warn("no run lock (flock %s: %s): another kvmbench run on this host would not be detected", path,
			strerror(err));
	} else if (allow_concurrent) {
		kb_warn("another kvmbench run%s is measuring on this host (lock %s): with --allow-concurrent both go on, "
			"and each perturbs the other's results", who, path);
	} else {
		kb_die("another kvmbench run%s is measuring on this host (lock %s held); two runs at once perturb "
		       "each other's results: wait for it to end, or pass --allow-concurrent", who, path);
	}
	close(fd);
}
