/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo-probe.c: the topology file's crash probe: hwloc loads the file in a child process first,
 * the children forked by one small helper process that is forked once, at the first probe. */
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
 * elsewhere is therefore loaded once in a child process first: a crash there is reported, not
 * shared.  A clean refusal is reported back with hwloc's step and errno, and the file is refused
 * with them, not loaded again in the caller's process: hwloc 2.9 leaks on some refusals (640 bytes
 * in 10 allocations for a real export with one tag misspelt), and the second load of a refused file
 * was most of a topology fuzz execution (libFuzzer's leak check after every input that leaked).
 *
 * A fork copies the page tables of all the forking process maps, and the forking process then
 * takes a copy-on-write fault at each page it writes.  A process that has grown (a fuzzer with
 * sanitizers: hundreds of MB) paid that at every probe, most of a topology fuzz execution.  So
 * the children come from a helper forked at the first probe, which only ever forks: the caller
 * sends it the path over a socket and reads back the child's wait status.  The helper ends when
 * the socket closes (the process ended), or is forked again if it is gone.
 */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static pid_t helper = -1;
static int sock = -1;

struct probe_answer {
	int err;      /* the helper's fork() or waitpid() errno, or 0 */
	int status;   /* the child's wait status */
	struct topo_refusal why;   /* what the child wrote to its pipe before it exited 3 */
};

/* The child: load the file and say whether hwloc got through it (0 loaded, 3 refused, with the
 * step and errno written to fd). */
static void load_child(const char *path, int fd_why)
{
	struct topo_refusal why = { TOPO_STEP_NONE, 0 };
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	hwloc_topology_t h;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	/* A crash here ends this child and nothing else: no handler of the parent's (a sanitizer's,
	 * a fuzzer's) reports it as the parent's own. */
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		signal(fatal[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	if (hwloc_topology_init(&h))
		_exit(3);
	if (hwloc_topology_set_xml(h, path))
		why = (struct topo_refusal){ TOPO_STEP_SET_XML, errno };
	else if (hwloc_topology_load(h))
		why = (struct topo_refusal){ TOPO_STEP_LOAD, errno };
	if (why.step == TOPO_STEP_NONE)
		_exit(0);
	/* Unwritten, the caller loads the file again and says why itself. */
	if (fd_why >= 0 && write(fd_why, &why, sizeof(why)) < 0)
		_exit(3);
	_exit(3);
}

/* What the child wrote before it exited (nothing when it loaded the file, crashed or could not). */
static struct topo_refusal read_why(int fd)
{
	struct topo_refusal why = { TOPO_STEP_NONE, 0 };

	if (fd < 0 || read(fd, &why, sizeof(why)) != (ssize_t)sizeof(why) ||
	    (why.step != TOPO_STEP_SET_XML && why.step != TOPO_STEP_LOAD))
		return (struct topo_refusal){ TOPO_STEP_NONE, 0 };
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

/* The helper: one child per path received, until the socket closes. */
static void serve(int fd)
{
	char path[4096];
	uint32_t len;

	/* Nothing else of the caller's stays open here (a pipe's write end kept would hold off its
	 * reader's end of file). */
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0u, 0);
	while (!full(recv_io, fd, &len, sizeof(len)) && len < sizeof(path) && !full(recv_io, fd, path, len)) {
		struct probe_answer a = { 0, 0, { TOPO_STEP_NONE, 0 } };
		int why[2] = { -1, -1 };
		pid_t pid;

		path[len] = 0;
		/* Without a pipe the child still probes; its refusal is then left to the caller's load. */
		if (pipe2(why, O_CLOEXEC))
			why[0] = why[1] = -1;
		pid = fork();
		if (!pid)
			load_child(path, why[1]);
		if (why[1] >= 0)
			close(why[1]);
		if (pid < 0)
			a.err = errno;
		while (pid > 0 && waitpid(pid, &a.status, 0) < 0)
			if (errno != EINTR) {
				a.err = errno;
				break;
			}
		if (!a.err && WIFEXITED(a.status) && WEXITSTATUS(a.status) == 3)
			a.why = read_why(why[0]);
		if (why[0] >= 0)
			close(why[0]);
		if (full(send_io, fd, &a, sizeof(a)))
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
	uint32_t len = (uint32_t)strlen(path);

	if (full(send_io, sock, &len, sizeof(len)) || full(send_io, sock, (void *)path, len) ||
	    full(recv_io, sock, a, sizeof(*a)))
		return -1;
	return 0;
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
	if (WIFEXITED(a.status) && (WEXITSTATUS(a.status) == 0 || WEXITSTATUS(a.status) == 3)) {
		*why = a.why;
		return 0;
	}
	return kb_fail(EINVAL, "%s: hwloc crashed reading this file (%s %d): it is damaged or not an hwloc XML "
		       "export (export one with 'lstopo --of xml FILE')", path,
		       WIFSIGNALED(a.status) ? "signal" : "exit status",
		       WIFSIGNALED(a.status) ? WTERMSIG(a.status) : WEXITSTATUS(a.status));
}

pid_t topo_probe_helper(void)
{
	return helper;
}
