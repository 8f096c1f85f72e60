/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo-probe.c: the topology file's crash probe: hwloc loads the file in a loader process first,
 * forked by one small helper process that is forked once, at the first probe. */
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
 * elsewhere is therefore loaded in another process first: a crash there is reported, not shared.
 * A refusal is reported back with hwloc's step and errno, and the file is refused with them, not
 * loaded again in the caller's process (hwloc 2.9 leaks on some refusals: 640 bytes in 10
 * allocations for a real export with one tag misspelt).
 *
 * A fork copies the page tables of all the forking process maps, and both then take page faults
 * at what they write.  A process that has grown (a fuzzer with sanitizers: hundreds of MB) paid
 * that at every probe.  So a small helper is forked at the first probe and forks the loaders: the
 * caller sends it the path over a socket and reads back hwloc's verdict or the loader's wait
 * status.  A loader loads file after file (a fork and a fresh process's first-touch faults for
 * each were most of a topology fuzz execution: 4.6 of 7.1 ms of CPU), until hwloc crashes it or
 * it has loaded PROBE_LOADER_FILES files, so that what hwloc leaks there on refusals stays
 * bounded.  The helper ends when the caller's socket closes (the process ended), or is forked
 * again if it is gone.
 */
#define PROBE_LOADER_FILES 1000

void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static pid_t helper = -1;
static int sock = -1;
static pid_t last_loader = -1;

struct probe_answer {
	int err;                   /* the helper's socketpair() or fork() errno for a loader, or 0 */
	int died;                  /* the loader died on the file: status is its wait status */
	int status;
	pid_t loader;              /* the loader that read the file */
	struct topo_refusal why;   /* hwloc's verdict when the loader lived */
};

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

/* A path as a length and its bytes; -1 when the peer is gone. */
static int send_path(int fd, const char *path)
{
	uint32_t len = (uint32_t)strlen(path);

	return full(send_io, fd, &len, sizeof(len)) || full(send_io, fd, (void *)path, len) ? -1 : 0;
}

static int recv_path(int fd, char *path, size_t size)
{
	uint32_t len;

	if (full(recv_io, fd, &len, sizeof(len)) || len >= size || full(recv_io, fd, path, len))
		return -1;
	path[len] = 0;
	return 0;
}

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

/* The loader: hwloc's verdict on each path received, until the socket closes. */
static void serve_loads(int fd)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char path[4096];

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/* A crash here ends this process and nothing else: no handler of the parent's (a sanitizer's,
	 * a fuzzer's) reports it as the parent's own. */
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		signal(fatal[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	while (!recv_path(fd, path, sizeof(path))) {
		struct topo_refusal why = load(path);

		if (full(send_io, fd, &why, sizeof(why)))
			break;
	}
	_exit(0);
}

/* The helper's loader: its pid, the socket to it and how many files it read. */
struct loader {
	pid_t pid;
	int fd;
	unsigned files;
};

static int start_loader(struct loader *l)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return errno;
	l->pid = fork();
	if (l->pid < 0) {
		int err = errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (!l->pid) {
		close(sv[0]);
		serve_loads(sv[1]);
	}
	close(sv[1]);
	l->fd = sv[0];
	l->files = 0;
	return 0;
}

/* Close the socket (a live loader then ends) and reap the loader: its wait status. */
static int stop_loader(struct loader *l)
{
	int status = 0;

	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->pid > 0)
		while (waitpid(l->pid, &status, 0) < 0 && errno == EINTR)
			;
	l->pid = -1;
	return status;
}

/* The helper: each path received goes to the loader, and its verdict or death back, until the
 * socket closes. */
static void serve(int fd)
{
	struct loader l = { -1, -1, 0 };
	char path[4096];

	/* Nothing else of the caller's stays open here (a pipe's write end kept would hold off its
	 * reader's end of file). */
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0u, 0);
	while (!recv_path(fd, path, sizeof(path))) {
		struct probe_answer a = { 0, 0, 0, -1, { TOPO_STEP_NONE, 0 } };

		if (l.pid > 0 && l.files >= PROBE_LOADER_FILES)
			stop_loader(&l);
		if (l.pid < 0)
			a.err = start_loader(&l);
		if (!a.err) {
			a.loader = l.pid;
			if (!send_path(l.fd, path) && !full(recv_io, l.fd, &a.why, sizeof(a.why))) {
				l.files++;
			} else {
				a.died = 1;
				a.status = stop_loader(&l);
			}
		}
		if (full(send_io, fd, &a, sizeof(a)))
			break;
	}
	stop_loader(&l);
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
	return 0;
}

static void stop_helper(void)
{
	if (sock >= 0)
		close(sock);
	sock = -1;
	if (helper > 0)
		while (waitpid(helper, NULL, 0) < 0 && errno == EINTR)
			;
	helper = -1;
}

/* Send the path, read the answer; -1 when the helper is gone. */
static int ask(const char *path, struct probe_answer *a)
{
	return send_path(sock, path) || full(recv_io, sock, a, sizeof(*a)) ? -1 : 0;
}

int topo_probe_xml(const char *path, struct topo_refusal *why)
{
	struct probe_answer a;
	int err;

	*why = (struct topo_refusal){ TOPO_STEP_NONE, 0 };
	if (strlen(path) >= 4096)
		return kb_fail(ENAMETOOLONG, "%s: the path is too long", path);
	for (int tries = 0;; tries++) {
		if (sock < 0 && (err = start_helper(path)))
			return err;
		if (!ask(path, &a))
			break;
		stop_helper();
		if (tries)
			return kb_fail(EIO, "%s: the process checking the topology file ended", path);
	}
	if (a.err)
		return kb_fail(a.err, "%s: cannot check the topology file in a child process: %s", path, strerror(a.err));
	last_loader = a.loader;
	if (a.died)
		return kb_fail(EINVAL, "%s: hwloc crashed reading this file (%s %d): it is damaged or not an hwloc XML "
			       "export (export one with 'lstopo --of xml FILE')", path,
			       WIFSIGNALED(a.status) ? "signal" : "exit status",
			       WIFSIGNALED(a.status) ? WTERMSIG(a.status) : WEXITSTATUS(a.status));
	if (a.why.step == TOPO_STEP_SET_XML || a.why.step == TOPO_STEP_LOAD)
		*why = a.why;
	return 0;
}

pid_t topo_probe_helper(void)
{
	return helper;
}

pid_t topo_probe_loader(void)
{
	return last_loader;
}
