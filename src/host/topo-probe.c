/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo-probe.c: the topology file's crash probe: hwloc loads the file in a helper process first,
 * forked at the first probe and replaced when it dies or has loaded PROBE_HELPER_LOADS files. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hwloc.h>

#include "host/topology-priv.h"
#include "core/kb.h"

/*
 * hwloc 2.9 crashes on some whole but damaged files (found by fuzzing: an object without a type
 * whose child has an unparsable cpuset segfaults in hwloc_bitmap_compare_first()).  A file from
 * elsewhere is therefore loaded by a helper process first: a crash there is reported, not shared.
 * A refusal is reported back with hwloc's step and errno, and the file is refused with them, not
 * loaded again in the caller's process (hwloc 2.9 leaks on some refusals: 640 bytes in 10
 * allocations for a real export with one tag misspelt).
 *
 * The helper is forked once and loads each file itself: a probe is a round trip over a socket.
 * (A child forked for each file paid the fork, the copy-on-write and first-touch page faults of a
 * fresh process and its exit: in a topology fuzz execution that was 4.6 of 7.1 ms of CPU, perf:
 * do_anonymous_page, exc_page_fault.)  When the helper dies while it loads a file, a new one loads
 * the file again: a file that ends two helpers is one hwloc crashes on; a helper that was killed
 * or ended between files only costs a new one.  After PROBE_HELPER_LOADS files the helper is
 * replaced, so that what hwloc leaks on refusals there stays bounded (about 1 MB).
 */
#define PROBE_HELPER_LOADS 1000

void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static pid_t helper = -1;
static int sock = -1;
static unsigned loads;

/* hwloc's verdict on the file: TOPO_STEP_NONE when it loaded (or hwloc could not even start). */
static struct topo_refusal load(const char *path)
{
	struct topo_refusal why = { TOPO_STEP_NONE, 0 };
	hwloc_topology_t h;

	if (hwloc_topology_init(&h))
		return why;
	if (hwloc_topology_set_xml(h, path))
		why = (struct topo_refusal){ TOPO_STEP_SET_XML, errno };
	else if (hwloc_topology_load(h))
		why = (struct topo_refusal){ TOPO_STEP_LOAD, errno };
	hwloc_topology_destroy(h);
	return why;
}

static int full(ssize_t (*io)(int, void *, size_t, int), int fd, void *buf, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t r = io(fd, (char *)buf + done, n - done, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static ssize_t send_io(int fd, void *buf, size_t n, int flags)
{
	return send(fd, buf, n, flags);
}

static ssize_t recv_io(int fd, void *buf, size_t n, int flags)
{
	return recv(fd, buf, n, flags & ~MSG_NOSIGNAL);
}

/* The helper: hwloc's verdict on each path received, until the socket closes. */
static void serve(int fd)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char path[4096];
	uint32_t len;

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/* A crash here ends this process and nothing else: no handler of the caller's (a sanitizer's,
	 * a fuzzer's) reports it as the caller's own. */
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		signal(fatal[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	/* Nothing else of the caller's stays open here (a pipe's write end kept would hold off its
	 * reader's end of file). */
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0u, 0);
	while (!full(recv_io, fd, &len, sizeof(len)) && len < sizeof(path) && !full(recv_io, fd, path, len)) {
		struct topo_refusal why;

		path[len] = 0;
		why = load(path);
		if (full(send_io, fd, &why, sizeof(why)))
			break;
	}
	_exit(0);
}

static int start_helper(const char *path)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return kb_fail(errno, "%s: cannot make a socket to check the topology file: %s", path, strerror(errno));
	helper = fork();
	if (helper < 0) {
		int err = errno;

		close(sv[0]);
		close(sv[1]);
		return kb_fail(err, "%s: cannot fork to check the topology file: %s", path, strerror(err));
	}
	if (!helper)
		serve(sv[1]);
	close(sv[1]);
	sock = sv[0];
	loads = 0;
	return 0;
}

/* Close the socket (a live helper then ends) and reap the helper; its wait status, or 0. */
static int stop_helper(void)
{
	int status = 0;

	if (sock >= 0)
		close(sock);
	sock = -1;
	if (helper > 0)
		while (waitpid(helper, &status, 0) < 0 && errno == EINTR)
			;
	helper = -1;
	return status;
}

/* Send the path, read the verdict; -1 when the helper is gone. */
static int ask(const char *path, struct topo_refusal *why)
{
	uint32_t len = (uint32_t)strlen(path);

	if (full(send_io, sock, &len, sizeof(len)) || full(send_io, sock, (void *)path, len) ||
	    full(recv_io, sock, why, sizeof(*why)))
		return -1;
	if (why->step != TOPO_STEP_SET_XML && why->step != TOPO_STEP_LOAD)
		*why = (struct topo_refusal){ TOPO_STEP_NONE, 0 };
	return 0;
}

int topo_probe_xml(const char *path, struct topo_refusal *why)
{
	int err, status = 0;

	*why = (struct topo_refusal){ TOPO_STEP_NONE, 0 };
	if (strlen(path) >= 4096)
		return kb_fail(ENAMETOOLONG, "%s: the path is too long", path);
	for (int tries = 0; tries < 2; tries++) {
		if (sock < 0 && (err = start_helper(path)))
			return err;
		if (!ask(path, why)) {
			if (++loads >= PROBE_HELPER_LOADS)
				stop_helper();
			return 0;
		}
		status = stop_helper();
	}
	*why = (struct topo_refusal){ TOPO_STEP_NONE, 0 };
	return kb_fail(EINVAL, "%s: hwloc crashed reading this file (%s %d): it is damaged or not an hwloc XML "
		       "export (export one with 'lstopo --of xml FILE')", path,
		       WIFSIGNALED(status) ? "signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

pid_t topo_probe_helper(void)
{
	return helper;
}
